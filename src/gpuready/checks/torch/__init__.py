"""PyTorch checks. Each module imports torch inside its functions, so listing checks never imports it."""
