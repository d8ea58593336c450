"""Static scan of a project for CUDA-only dependencies and code, with ROCm alternatives. Nothing scanned is imported
or executed: Python is read through ``ast``, kernels and requirements as text."""
