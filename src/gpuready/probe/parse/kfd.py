"""Parser for AMD KFD topology node files (``/sys/class/kfd/kfd/topology/nodes/<n>/properties``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuready.errors import ParseError

AMD_VENDOR_ID = 0x1002


def decode_gfx_target_version(value: int) -> str:
    """``90402`` -> ``gfx942``, ``90010`` -> ``gfx90a``, ``110000`` -> ``gfx1100``.

    The kernel encodes major * 10000 + minor * 100 + stepping; LLVM names the target ``gfx`` + major in
    decimal + minor and stepping as one hex digit each.
    """
    if value <= 0:
        raise ValueError("gfx_target_version 0 belongs to a CPU node")
    major, rest = divmod(value, 10000)
    minor, stepping = divmod(rest, 100)
    if minor > 15 or stepping > 15:
        raise ValueError(f"gfx_target_version {value} does not encode a target")
    return f"gfx{major}{minor:x}{stepping:x}"


_ROCM_SMI_DECIMAL = re.compile(r"^gfx(9)(\d)(1[0-5])$")  # gfx9 steppings a-f only: gfx1010 is a real target


def normalise_gfx_name(name: str) -> str:
    """Lower-case, strip feature flags (``gfx942:sramecc+:xnack-`` -> ``gfx942``) and fix rocm-smi's decimal
    spelling of steppings above 9 (``gfx9010`` -> ``gfx90a``)."""
    base = name.strip().lower().split(":", 1)[0]
    base = base.removeprefix("amdgcn-amd-amdhsa--")
    match = _ROCM_SMI_DECIMAL.match(base)
    if match:
        return f"gfx{match.group(1)}{match.group(2)}{int(match.group(3)):x}"
    return base


@dataclass(frozen=True, slots=True)
class KfdNode:
    """One KFD topology node."""

    is_gpu: bool
    gfx_target_version: int | None = None
    arch: str | None = None
    simd_count: int = 0
    cpu_cores_count: int = 0
    vendor_id: int | None = None
    device_id: str | None = None
    """PCI device id in hex, e.g. ``0x740f``."""
    drm_render_minor: int | None = None
    """128 -> /dev/dri/renderD128."""
    local_mem_size: int | None = None
    """Bytes of local memory; 0 on some large-BAR Instinct boards where memory is reported elsewhere."""
    num_xcc: int | None = None
    compute_units: int | None = None
    unique_id: str | None = None
    pci_bus: str | None = None
    """``bb:dd.f`` from ``location_id`` (the PCI bus/device/function number)."""


def parse_kfd_properties(text: str) -> KfdNode:
    """Parse one node's ``properties`` file (``name value`` lines of integers)."""
    values: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or not re.fullmatch(r"[a-z0-9_]+", parts[0]) or not re.fullmatch(r"-?\d{1,20}", parts[1]):
            raise ParseError(f"line {number} is not 'name integer': {line[:60]!r}")
        values[parts[0]] = int(parts[1])
    if "simd_count" not in values:
        raise ParseError("no simd_count line: not a KFD node properties file")
    simd_count = values["simd_count"]
    is_gpu = simd_count > 0
    target = values.get("gfx_target_version")
    arch = None
    if is_gpu and target:
        try:
            arch = decode_gfx_target_version(target)
        except ValueError as error:
            raise ParseError(str(error)) from error
    simd_per_cu = values.get("simd_per_cu") or 0
    device_id = values.get("device_id")
    location = values.get("location_id")
    return KfdNode(
        is_gpu=is_gpu,
        gfx_target_version=target,
        arch=arch,
        simd_count=simd_count,
        cpu_cores_count=values.get("cpu_cores_count", 0),
        vendor_id=values.get("vendor_id"),
        device_id=f"0x{device_id:04x}" if is_gpu and device_id else None,
        drm_render_minor=values.get("drm_render_minor") if is_gpu else None,
        local_mem_size=values.get("local_mem_size") if is_gpu else None,
        num_xcc=values.get("num_xcc") if is_gpu else None,
        compute_units=simd_count // simd_per_cu if is_gpu and simd_per_cu else None,
        unique_id=str(values["unique_id"]) if is_gpu and values.get("unique_id") else None,
        pci_bus=format_bdf(location) if is_gpu and location else None,
    )


def format_bdf(value: int) -> str:
    """The PCI address a 16-bit BDF number names: 0x6300 -> ``63:00.0``."""
    return f"{(value >> 8) & 0xFF:02x}:{(value >> 3) & 0x1F:02x}.{value & 0x7:x}"
