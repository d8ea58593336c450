"""Environment variables that change how GPUs are found, chosen and used."""

from __future__ import annotations

import re
from collections.abc import Mapping

EXACT = {
    "HSA_OVERRIDE_GFX_VERSION", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL", "PYTORCH_ROCM_ARCH", "TORCH_CUDA_ARCH_LIST", "ROCM_PATH", "ROCM_HOME", "HIP_PATH",
    "CUDA_HOME", "CUDA_PATH", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "XLA_FLAGS",
    "JAX_PLATFORMS", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_ALLOC_CONF",
    "CUDA_MODULE_LOADING", "CUDA_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "TORCH_USE_HIP_DSA",
    "HCC_AMDGPU_TARGET", "AMDGPU_TARGETS", "GPU_TARGETS",
}
PREFIXES = ("HSA_", "HIP_", "ROCR_", "NCCL_", "RCCL_", "MIOPEN_", "ROCBLAS_", "HIPBLASLT_", "TORCH_NCCL_")
_GPU_PATH = re.compile(r"rocm|hip|cuda|nvidia|amdgpu", re.IGNORECASE)


def relevant_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The GPU-relevant variables as set; LD_LIBRARY_PATH reduced to its ROCm/CUDA entries."""
    found = {k: v for k, v in environ.items() if k in EXACT or k.startswith(PREFIXES)}
    library_path = environ.get("LD_LIBRARY_PATH", "")
    entries = [p for p in library_path.split(":") if p and _GPU_PATH.search(p)]
    if entries:
        found["LD_LIBRARY_PATH"] = ":".join(entries)
    return dict(sorted(found.items()))
