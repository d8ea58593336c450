"""Workloads shared by check, audit and bench: the protocol, the built-in models, and the user's factory loader."""
