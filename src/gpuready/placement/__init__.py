"""Prove placement: which ops of the user's step ran where, host syncs, copies and float64, with source lines."""
