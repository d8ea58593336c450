"""gpuready: is this accelerator stack ready for my model, and how does it compare with what I run today?"""

__version__ = "0.1.0"

__all__ = ["__version__"]
