"""Experiments on a device: a registry of checks, launchers that isolate them, and the checks themselves."""
