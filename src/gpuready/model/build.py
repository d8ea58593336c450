"""What a framework's version string says about its build (one home): ``2.5.1+rocm6.2`` is a ROCm 6.2 build,
``2.8.0+cu128`` CUDA 12.8, ``2.6.0+cpu`` CPU-only; ``+rocm7.13.0a20260401`` (or ``+rocm7.0.0rc20250717``) a dated
TheRock pre-release."""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from gpuready.model.fingerprint import BuildVariant

_LABEL = re.compile(r"^(rocm)(\d+(?:\.\d+)*)((?:a|rc)\d{8})?|^(cu)(\d+)|^(cpu)|^(xpu)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class BuildLabel:
    """The local label of a wheel version: the variant, its backend version, and the index name it comes from."""

    variant: BuildVariant
    backend: str = ""
    """``6.2`` for rocm6.2, ``12.8`` for cu128, '' for cpu."""
    index: str = ""
    """The PyTorch wheel index name: ``rocm6.2``, ``cu128``, ``cpu``."""
    preview: bool = False
    """A dated pre-release tag (AMD's TheRock builds, per GPU family)."""


def local_label(version: str) -> str:
    """The part after ``+`` (``rocm6.2``), '' when there is none."""
    try:
        return Version(version).local or ""
    except InvalidVersion:
        return version.partition("+")[2]


def build_label(version: str) -> BuildLabel:
    """What ``version``'s local label says; ``unknown`` when there is no (known) label."""
    match = _LABEL.match(local_label(version))
    if match is None:
        return BuildLabel(BuildVariant.UNKNOWN)
    if match.group(1):
        numbers = match.group(2)
        return BuildLabel(BuildVariant.ROCM, numbers, f"rocm{numbers}", bool(match.group(3)))
    if match.group(4):
        digits = match.group(5)
        backend = f"{digits[:-1]}.{digits[-1]}" if len(digits) >= 2 else digits
        return BuildLabel(BuildVariant.CUDA, backend, f"cu{digits}")
    if match.group(6):
        return BuildLabel(BuildVariant.CPU, "", "cpu")
    return BuildLabel(BuildVariant.UNKNOWN, "", "xpu")


def variant_of(version: str) -> BuildVariant:
    """``2.5.1+rocm6.2`` -> rocm, ``2.8.0+cu128`` -> cuda, ``2.6.0+cpu`` -> cpu, no local label -> unknown."""
    return build_label(version).variant


GPU_PACKAGES = re.compile(
    r"^(torch|torchvision|torchaudio|pytorch[-_]triton(-rocm)?|triton(-rocm)?|jax|jaxlib|jax[-_](cuda\d+|rocm\d*)[-_].*|"
    r"jax[-_]rocm.*|tensorflow([-_]rocm|[-_]gpu)?|tensorflow.*|onnxruntime.*|nvidia[-_].*|rocm[-_].*|amd[-_].*|hip[-_].*|"
    r"amdsmi|pynvml|nvidia-ml-py|cupy.*|deepspeed|flash[-_]attn|xformers|vllm|bitsandbytes|apex|"
    r"transformer[-_]engine|transformers|accelerate|numpy)$",
    re.IGNORECASE,
)
"""Distributions that ship GPU code or pin the GPU stack: recorded in a fingerprint, and a change to one is a
framework change for ``verify``."""


def is_gpu_package(name: str) -> bool:
    """Whether a distribution (any spelling) is one of ``GPU_PACKAGES``."""
    return bool(GPU_PACKAGES.match(name))
