"""The JAX checks (each its own id; run several to a child process, like the PyTorch checks)."""
