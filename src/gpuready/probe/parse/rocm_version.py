"""Parsers for ROCm user-space and amdgpu driver version files."""

from __future__ import annotations

import re

from packaging.version import Version

from gpuready.errors import ParseError

_RELEASE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


def leading_version(text: str) -> Version:
    """The leading ``X.Y[.Z]`` of a version string: ``6.4.0-47`` -> 6.4.0, ``6.2.41133-dd7f95766`` -> 6.2.41133."""
    match = _RELEASE.match(text.strip())
    if not match:
        raise ParseError(f"{text.strip()[:40]!r} does not start with a version number")
    return Version(".".join(part for part in match.groups() if part is not None))


def parse_rocm_info_version(text: str) -> Version:
    """``/opt/rocm/.info/version`` (``6.4.0-47``) -> 6.4.0."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise ParseError("empty version file")
    return leading_version(lines[0])


def parse_rocm_dir_name(name: str) -> Version | None:
    """``/opt/rocm-6.2.0`` or ``rocm-6.2.0`` -> 6.2.0; None for anything else."""
    match = re.fullmatch(r"(?:.*/)?rocm-(\d+\.\d+(?:\.\d+)?)", name.rstrip("/"))
    return Version(match.group(1)) if match else None


def parse_amdgpu_module_version(text: str) -> str:
    """``/sys/module/amdgpu/version`` (``6.12.12``): present only for the DKMS (out-of-tree) driver."""
    value = text.strip()
    if not value or not re.fullmatch(r"\d+(?:\.\d+)+(?:[-.+~][0-9A-Za-z.]+)?", value):
        raise ParseError(f"{value[:40]!r} is not a driver version")
    return value
