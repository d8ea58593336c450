"""Parsers for NVIDIA's ``nvidia-smi --query-gpu ... --format=csv`` and ``/proc/driver/nvidia/version``."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpuready.errors import ParseError
from gpuready.probe.parse.records import GpuRecord

QUERY_FIELDS = ("index", "name", "pci.bus_id", "driver_version", "compute_cap", "memory.total", "uuid")
"""The fields gpuready asks for, in this order (``--format=csv,noheader,nounits``)."""

_ALIASES = {
    "gpu_name": "name",
    "gpu_bus_id": "pci.bus_id",
    "gpu_uuid": "uuid",
    "gpu_serial": "serial",
}
_KNOWN = {*QUERY_FIELDS, "timestamp", "serial", "vbios_version", "compute_mode", "pstate", "memory.used",
          "memory.free", "temperature.gpu", "utilization.gpu"}
_MISSING = {"", "[N/A]", "N/A", "[Not Supported]"}


def _field_name(header: str) -> str:
    name = re.sub(r"\s*\[.*\]\s*$", "", header.strip()).strip().lower()
    return _ALIASES.get(name, name)


def _looks_like_header(cells: Sequence[str]) -> bool:
    names = [_field_name(c) for c in cells]
    return bool(names) and all(re.fullmatch(r"[a-z_][a-z0-9_.]*", n) for n in names) and any(
        n in _KNOWN for n in names
    )


_SHAPES = (
    ("pci.bus_id", re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]")),
    ("uuid", re.compile(r"GPU-[0-9a-fA-F-]{20,}")),
    ("driver_version", re.compile(r"\d{3}\.\d{1,3}(\.\d{1,3})?")),
    ("compute_cap", re.compile(r"\d{1,2}\.\d")),
    ("memory.total", re.compile(r"\d+\s*MiB")),
    ("timestamp", re.compile(r"\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?")),
    ("name", re.compile(r".*(NVIDIA|Tesla|GeForce|Quadro|TITAN|RTX|GTX|A100|H100|H200|L40|B200|GH200).*", re.I)),
    ("index", re.compile(r"\d{1,2}")),
)


def _fits(row: Sequence[str], names: Sequence[str]) -> bool:
    shapes = dict(_SHAPES)
    return all(value in _MISSING or name not in shapes or shapes[name].fullmatch(value)
               for name, value in zip(names, row, strict=False))


def infer_columns(row: Sequence[str]) -> list[str]:
    """Column names for a header-less row of an unknown ``--query-gpu`` list, from what the values look like: the
    first value of each recognisable shape gets that field's name (the first "NNN MiB" is memory.total, as
    nvidia-smi lists total before used and free); the rest stay unnamed. ParseError without a name or bus id."""
    names: list[str] = []
    taken: set[str] = set()
    for position, value in enumerate(row):
        found = next((name for name, shape in _SHAPES if name not in taken and shape.fullmatch(value.strip())), None)
        if found == "index" and position != 0:
            found = None  # a small number elsewhere is a temperature, a link generation ...
        if found:
            taken.add(found)
        names.append(found or f"column{position + 1}")
    if not {"name", "pci.bus_id"} & taken:
        raise ParseError(f"a header-less row of {len(row)} columns with no GPU name or PCI bus id in it")
    if len(taken) < 2 or "name" in taken and len(row[names.index("name")].split()) > 8:
        raise ParseError("a header-less row with one recognisable column, or a sentence for a GPU name: not "
                         "nvidia-smi's CSV")  # "I'm using an A100 GPU on Google Cloud, however ..."
    return names


def _mib(value: str) -> int:
    match = re.fullmatch(r"(\d{1,15}(?:\.\d{1,15})?)\s*(MiB)?", value.strip())
    if not match:
        raise ParseError(f"memory value {value!r} is not a number of MiB")
    return int(float(match.group(1)) * 1024 * 1024)


def parse_nvidia_smi_csv(text: str, fields: Sequence[str] | None = None) -> tuple[GpuRecord, ...]:
    """Parse ``nvidia-smi --query-gpu`` CSV output.

    Columns are named by the header row when there is one, else by ``fields`` (the ``--query-gpu`` list),
    else by ``QUERY_FIELDS``. Values may carry units (``40960 MiB``) or not (``nounits``). A GPU sampled
    several times (``-l``) is reported once, at its first row.
    """
    try:
        rows = [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text)) if any(row)]
    except csv.Error as error:
        raise ParseError(f"not CSV: {error}") from error
    if not rows:
        raise ParseError("no rows")
    if _looks_like_header(rows[0]):
        names = [_field_name(c) for c in rows[0]]
        rows = rows[1:]
    elif fields:
        names = [_field_name(f) for f in fields]
    elif len(rows[0]) == len(QUERY_FIELDS) and _fits(rows[0], QUERY_FIELDS):
        names = list(QUERY_FIELDS)
    else:
        names = infer_columns(rows[0])
    records: list[GpuRecord] = []
    seen: set[str] = set()
    for number, row in enumerate(rows, start=1):
        if len(row) != len(names):
            raise ParseError(f"row {number} has {len(row)} columns, expected {len(names)} ({', '.join(names)})")
        cell = {name: (value if value not in _MISSING else None) for name, value in zip(names, row, strict=False)}
        key = cell.get("pci.bus_id") or cell.get("uuid") or cell.get("index")
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        arch = None
        if cell.get("compute_cap"):
            match = re.fullmatch(r"(\d+)\.(\d+)", cell["compute_cap"] or "")
            if not match:
                raise ParseError(f"row {number}: compute_cap {cell['compute_cap']!r} is not MAJOR.MINOR")
            arch = f"sm_{match.group(1)}{match.group(2)}"
        index = cell.get("index")
        if index is not None and (not index.isdigit() or len(index) > 6):
            raise ParseError(f"row {number}: index {index!r} is not a number")
        records.append(
            GpuRecord(
                vendor="nvidia",
                index=int(index) if index is not None else None,
                name=cell.get("name"),
                arch=arch,
                memory_bytes=_mib(memory) if (memory := cell.get("memory.total")) else None,
                pci_bus=(cell.get("pci.bus_id") or "").lower() or None,
                uuid=cell.get("uuid"),
                driver_version=cell.get("driver_version"),
            )
        )
    if not records:
        raise ParseError("a header but no GPU rows")
    return tuple(records)


@dataclass(frozen=True, slots=True)
class NvidiaKernelModule:
    """``/proc/driver/nvidia/version``: the loaded kernel module."""

    version: str
    flavour: str
    """``open`` (open GPU kernel modules) or ``proprietary``."""
    machine: str | None = None
    gcc: str | None = None


_NVRM = re.compile(
    r"NVRM version:\s+NVIDIA UNIX (?:(?P<open>Open Kernel Module for (?P<m1>\S+))|(?P<m2>\S+) Kernel Module)"
    r"\s+(?P<version>\d+(?:\.\d+)+)"
)


def parse_nvidia_proc_version(text: str) -> NvidiaKernelModule:
    """Parse ``/proc/driver/nvidia/version``."""
    match = _NVRM.search(text)
    if not match:
        raise ParseError("no 'NVRM version: NVIDIA UNIX ... Kernel Module <version>' line")
    gcc = re.search(r"^GCC version:\s+(.+?)\s*$", text, re.MULTILINE)
    return NvidiaKernelModule(
        version=match.group("version"),
        flavour="open" if match.group("open") else "proprietary",
        machine=match.group("m1") or match.group("m2"),
        gcc=gcc.group(1) if gcc else None,
    )
