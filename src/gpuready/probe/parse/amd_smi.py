"""Parsers for ``amd-smi version|list|static --json``, the table plain ``amd-smi`` prints, and ``rocm-smi --json``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from gpuready.errors import ParseError
from gpuready.probe.parse.kfd import normalise_gfx_name
from gpuready.probe.parse.records import GpuRecord

_MISSING = {"", "N/A", "n/a", "NA", "None", "Unknown", "unknown"}
_VERSION = re.compile(r"^\d+(?:\.\d+)+")


def load_json(text: str) -> Any:
    """Decode JSON; a tool that printed warnings before its JSON is tolerated."""
    stripped = text.strip()
    if not stripped:
        raise ParseError("empty output")
    try:
        return json.loads(stripped)
    except (RecursionError, ValueError) as problem:
        if not isinstance(problem, json.JSONDecodeError):
            raise ParseError(f"JSON that cannot be read ({str(problem)[:120]})") from problem
        first = problem
        error = first
        start = min((i for i in (stripped.find("{"), stripped.find("[")) if i >= 0), default=-1)
        if start > 0:
            try:
                return json.loads(stripped[start:])
            except json.JSONDecodeError as second:
                error = second
        where = f"line {error.lineno} column {error.colno}" + (" of the JSON after the warnings" if start > 0 else "")
        raise ParseError(f"not JSON ({error.msg} at {where})") from first


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return None if text in _MISSING else text


def _int(value: Any) -> int | None:
    if isinstance(value, dict):
        value = value.get("value")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) <= 2**64 else None  # no count or size has more: a damaged report
    text = _text(value)
    if text is None:
        return None
    match = re.fullmatch(r"(\d{1,20})(?:\s*[A-Za-z]\w*)?", text)
    number = int(match.group(1)) if match else None
    return number if number is not None and number <= 2**64 else None


def _mb_to_bytes(value: Any) -> int | None:
    unit = "MB"
    if isinstance(value, dict):
        unit = str(value.get("unit") or "MB").upper()
    number = _int(value)
    if number is None:
        return None
    factor = {"B": 1, "KB": 1024, "MB": 1024**2, "MIB": 1024**2, "GB": 1024**3, "GIB": 1024**3}.get(unit, 1024**2)
    return number * factor


def _gpu_list(data: Any, what: str) -> list[dict[str, Any]]:
    if isinstance(data, dict) and "gpu_data" in data:
        data = data["gpu_data"]
    if isinstance(data, dict) and "gpu" in data:
        data = [data]
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise ParseError(f"expected a list of GPU objects (or {{\"gpu_data\": [...]}}) from amd-smi {what}")
    return data


def _section(entry: dict[str, Any], name: str) -> dict[str, Any]:
    value = entry.get(name)
    return value if isinstance(value, dict) else {}


def parse_amd_smi_static(text: str) -> tuple[GpuRecord, ...]:
    """``amd-smi static --json``, old (bare list) and new (``{"gpu_data": [...]}``) shapes."""
    records = []
    for position, entry in enumerate(_gpu_list(load_json(text), "static")):
        asic, vram, bus, driver = (_section(entry, key) for key in ("asic", "vram", "bus", "driver"))
        target = _text(asic.get("target_graphics_version"))
        device_id = _text(asic.get("device_id"))
        driver_version = _text(driver.get("version") or driver.get("driver_version"))
        index = _int(entry.get("gpu"))
        records.append(
            GpuRecord(
                vendor="amd",
                index=index if index is not None else position,
                name=_text(asic.get("market_name")),
                arch=normalise_gfx_name(target) if target and target.lower().startswith("gfx") else None,
                memory_bytes=_mb_to_bytes(vram.get("size", vram.get("vram_size"))),
                pci_bus=(_text(bus.get("bdf")) or "").lower() or None,
                pci_device_id=device_id.lower() if device_id else None,
                compute_units=_int(asic.get("num_compute_units")),
                uuid=_text(asic.get("asic_serial")),
                driver_version=driver_version if driver_version and _VERSION.match(driver_version) else None,
            )
        )
    if not records:
        raise ParseError("amd-smi static listed no GPUs")
    return tuple(records)


def _parse_list_text(text: str) -> tuple[GpuRecord, ...]:
    records: list[GpuRecord] = []
    current: dict[str, str] = {}
    blocks: list[dict[str, str]] = []
    for line in text.splitlines():
        key, sep, value = line.strip().partition(":")
        if not sep:
            continue
        key = key.strip().upper()
        if key == "GPU":
            current = {}
            blocks.append(current)
        if blocks:
            current[key] = value.strip()
    for position, block in enumerate(blocks):
        index = _int(block.get("GPU"))
        records.append(GpuRecord(vendor="amd", index=index if index is not None else position,
                                 pci_bus=(_text(block.get("BDF")) or "").lower() or None,
                                 uuid=_text(block.get("UUID"))))
    if not records:
        raise ParseError("no 'GPU: N' entries")
    return tuple(records)


def parse_amd_smi_list(text: str) -> tuple[GpuRecord, ...]:
    """``amd-smi list --json`` (or its plain text): index, PCI address and UUID per GPU."""
    if not text.lstrip().startswith(("[", "{")):
        return _parse_list_text(text)
    records = []
    for position, entry in enumerate(_gpu_list(load_json(text), "list")):
        index = _int(entry.get("gpu"))
        records.append(
            GpuRecord(
                vendor="amd",
                index=index if index is not None else position,
                pci_bus=(_text(entry.get("bdf")) or "").lower() or None,
                uuid=_text(entry.get("uuid")),
            )
        )
    return tuple(records)


@dataclass(frozen=True, slots=True)
class AmdSmiVersion:
    """``amd-smi version --json``."""

    tool_version: str | None = None
    library_version: str | None = None
    rocm_version: str | None = None
    amdgpu_version: str | None = None


def _version_or_none(value: str | None) -> str | None:
    """amd-smi prints the kernel's /proc/version squashed into one word where an in-tree amdgpu has no version."""
    return value if value and _VERSION.match(value) else None


def parse_amd_smi_version(text: str) -> AmdSmiVersion:
    """``amd-smi version --json`` (a list of one object, or the object) or its one-line text form
    ``AMDSMI Tool: 24.5.1+c5106a9 | AMDSMI Library version: 24.5.2.0 | ROCm version: 6.1.2 | ...``."""
    if not text.lstrip().startswith(("[", "{")):
        fields = {}
        for part in text.strip().split("|"):
            key, sep, value = part.partition(":")
            if sep:
                fields[key.strip().lower()] = value.strip()
        if "amdsmi tool" not in fields:
            raise ParseError("expected JSON or an 'AMDSMI Tool: ... | ROCm version: ...' line")
        return AmdSmiVersion(
            tool_version=_text(fields.get("amdsmi tool")),
            library_version=_text(fields.get("amdsmi library version")),
            rocm_version=_text(fields.get("rocm version")),
            amdgpu_version=_version_or_none(_text(fields.get("amdgpu version"))),
        )
    data = load_json(text)
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]
    if not isinstance(data, dict):
        raise ParseError("expected a JSON object from amd-smi version")
    result = AmdSmiVersion(
        tool_version=_text(data.get("version") or data.get("amdsmi_tool_version")),
        library_version=_text(data.get("amdsmi_library_version")),
        rocm_version=_text(data.get("rocm_version")),
        amdgpu_version=_version_or_none(_text(data.get("amdgpu_version"))),
    )
    if result == AmdSmiVersion():
        raise ParseError("no version fields (version, amdsmi_library_version, rocm_version)")
    return result


@dataclass(frozen=True, slots=True)
class AmdSmiDefault:
    """The table plain ``amd-smi`` prints (amd-smi 26, ROCm 7.0 and later): versions in its title, one row pair per
    GPU."""

    tool_version: str | None
    rocm_version: str | None
    """None where it says N/A (no ROCm install found beside the tool)."""
    amdgpu_version: str | None
    """None where the kernel's own amdgpu has no version (the title then shows ``Linuxver``, /proc/version cut)."""
    gpus: tuple[GpuRecord, ...]


_DEFAULT_TITLE = re.compile(r"AMD-SMI\s+(\S+)\s+amdgpu version:\s*(\S+)\s+ROCm version:\s*(\S+)")
_DEFAULT_NAME_ROW = re.compile(r"^\|\s*([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(.*?)\s*\|")
_DEFAULT_INDEX_ROW = re.compile(r"^\|\s*(\d+)\s+(?:\d+|N/A)\s+(?:\d+|N/A)\s+\S+\s*\|.*?(?:(\d+)/(\d+) MB)?\s*\|?\s*$")


def parse_amd_smi_default(text: str) -> AmdSmiDefault:
    """``amd-smi`` with no command: the title line ``AMD-SMI 26.0.0+eaa54ecc  amdgpu version: 6.12.12  ROCm version:
    7.0.0``, then per GPU a row with its PCI address and name and a row with its index and memory used/total. A name
    the tool could not look up (it prints the device id, ``0x1586``) is kept as the device id."""
    title = _DEFAULT_TITLE.search(text)
    records: list[GpuRecord] = []
    pending: tuple[str, str] | None = None
    for line in text.splitlines():
        line = line.strip()
        if name_row := _DEFAULT_NAME_ROW.match(line):
            pending = (name_row.group(1).lower(), name_row.group(2))
            continue
        if pending is not None and (index_row := _DEFAULT_INDEX_ROW.match(line)):
            bus, name = pending
            device_id = name.lower() if re.fullmatch(r"0x[0-9a-fA-F]{4}", name) else None
            total = _int(index_row.group(3))
            records.append(GpuRecord(vendor="amd", index=int(index_row.group(1)),
                                     name=None if device_id or name in _MISSING else name,
                                     pci_bus=bus, pci_device_id=device_id,
                                     memory_bytes=total * 2**20 if total is not None else None))
        pending = None
    if title is None and not records:
        raise ParseError("expected amd-smi's table: an 'AMD-SMI <version>  amdgpu version: ...  ROCm version: ...' "
                         "title or '| <PCI address>  <GPU name> |' rows")
    tool, amdgpu, rocm = title.groups() if title else (None, None, None)
    return AmdSmiDefault(tool_version=_text(tool), rocm_version=_version_or_none(_text(rocm)),
                         amdgpu_version=_version_or_none(_text(amdgpu)), gpus=tuple(records))


@dataclass(frozen=True, slots=True)
class RocmSmiReport:
    """``rocm-smi --showproductname --showmeminfo vram --showdriverversion --json`` (or ``-a --json``)."""

    gpus: tuple[GpuRecord, ...] = ()
    driver_version: str | None = None


def _key(card: dict[str, Any], *names: str) -> str | None:
    lowered = {k.lower().rstrip(":").strip(): v for k, v in card.items()}
    for name in names:
        value = _text(lowered.get(name.lower()))
        if value is not None:
            return value
    return None


def parse_rocm_smi_json(text: str) -> RocmSmiReport:
    """Cards keyed ``card0``, ``card1`` ... and a ``system`` object with the driver version."""
    data = load_json(text)
    if not isinstance(data, dict):
        raise ParseError("expected a JSON object keyed by card0, card1, ...")
    cards = sorted(
        ((int(m.group(1)), value) for key, value in data.items() if (m := re.fullmatch(r"card(\d+)", key))),
        key=lambda item: item[0],
    )
    system = data.get("system") if isinstance(data.get("system"), dict) else {}
    if not cards and not system:
        raise ParseError("no card0... or system entries")
    gpus = []
    for index, card in cards:
        if not isinstance(card, dict):
            raise ParseError(f"card{index} is not an object")
        gfx = _key(card, "GFX Version")
        device_id = _key(card, "Device ID", "GPU ID")
        # rocm-smi 6 prints the PCI device id as "Card Model"; rocm-smi 5's "Card model" is the subsystem id.
        model = _text(card.get("Card Model"))
        if device_id is None and model and re.fullmatch(r"0x[0-9a-fA-F]{4}", model):
            device_id = model
        bus = _key(card, "PCI Bus")
        gpus.append(
            GpuRecord(
                vendor="amd",
                index=index,
                name=_key(card, "Card Series", "Device Name"),
                arch=normalise_gfx_name(gfx) if gfx and gfx.lower().startswith("gfx") else None,
                memory_bytes=_int(_key(card, "VRAM Total Memory (B)")),
                pci_bus=bus.lower() if bus else None,
                pci_device_id=device_id.lower() if device_id else None,
                uuid=_key(card, "Unique ID"),
            )
        )
    return RocmSmiReport(gpus=tuple(gpus), driver_version=_key(system or {}, "Driver version"))
