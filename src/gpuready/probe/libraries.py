"""Facts from vendor Python libraries (NVML through nvidia-ml-py, AMD's amdsmi), when installed.

They are queried in the same kind of child process as the frameworks: a library that hangs or crashes in the
driver is a fact about this machine, not the end of gpuready.
"""

from __future__ import annotations

from typing import Any

from gpuready.errors import ParseError
from gpuready.model import Fact, Package, ProbeNote
from gpuready.probe.frameworks import child_failure, parse_child_output
from gpuready.probe.parse.kfd import normalise_gfx_name
from gpuready.probe.parse.records import GpuRecord
from gpuready.probe.system import CommandResult

LIBRARY_PACKAGES = {"nvml": ("nvidia-ml-py", "pynvml"), "amdsmi": ("amdsmi",)}


def installed_libraries(packages: tuple[Package, ...]) -> list[str]:
    """Which vendor libraries can be asked (``nvml``, ``amdsmi``)."""
    names = {p.name for p in packages}
    return [library for library, dists in LIBRARY_PACKAGES.items() if names & set(dists)]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return str(value) if isinstance(value, (str, int)) and str(value) not in ("", "N/A") else None


def gpu_records(library: str, facts: dict[str, Any]) -> list[GpuRecord]:
    """The GPUs a library child reported, as records."""
    records = []
    for position, gpu in enumerate(facts.get("gpus") or []):
        if not isinstance(gpu, dict):
            continue
        arch = _str(gpu.get("arch"))
        device_id = gpu.get("pci_device_id")
        memory_mb = _int(gpu.get("memory_mb"))
        records.append(GpuRecord(
            vendor="nvidia" if library == "nvml" else "amd",
            index=_int(gpu.get("index")) if _int(gpu.get("index")) is not None else position,
            name=_str(gpu.get("name")),
            arch=normalise_gfx_name(arch) if arch and arch.startswith("gfx") else arch,
            memory_bytes=_int(gpu.get("memory_bytes")) or (memory_mb * 2**20 if memory_mb else None),
            pci_bus=(_str(gpu.get("pci_bus")) or "").lower() or None,
            pci_device_id=f"0x{device_id:04x}" if isinstance(device_id, int) else _str(device_id),
            compute_units=_int(gpu.get("compute_units")),
            uuid=_str(gpu.get("uuid")),
        ))
    return records


def library_facts(library: str, result: CommandResult) -> tuple[dict[str, Any] | None, ProbeNote]:
    """The library child's facts, and a note on how asking it went."""
    source = f"{library} (child process)"
    try:
        payload = parse_child_output(result.stdout)
    except ParseError as error:
        return None, ProbeNote(library, Fact.error(source, child_failure(result) if not result.ok else error.reason))
    if not payload.get("ok"):
        return None, ProbeNote(library, Fact.error(source, str(payload.get("error", "unknown error"))))
    facts = payload.get("facts")
    if not isinstance(facts, dict):
        return None, ProbeNote(library, Fact.error(source, "no facts in the child's answer"))
    return facts, ProbeNote(library, Fact.of(f"{len(facts.get('gpus') or [])} GPU(s)", source))
