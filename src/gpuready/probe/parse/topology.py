"""Parsers for multi-GPU topology: ``nvidia-smi topo -m``, ``rocm-smi --showtopo``, ``amd-smi topology``."""

from __future__ import annotations

import re

from gpuready.errors import ParseError
from gpuready.model import Link, Topology

_NVIDIA_KIND = {"PIX": "pcie-switch", "PXB": "pcie-switch", "PHB": "pcie-host-bridge", "NODE": "pcie-numa-node",
                "SYS": "pcie-cross-socket", "SOC": "pcie-cross-socket"}
_AMD_KIND = {"XGMI": "xgmi", "PCIE": "pcie"}


def _nvidia_kind(label: str) -> str:
    return "nvlink" if re.fullmatch(r"NV\d+", label) else _NVIDIA_KIND.get(label, label.lower())


def _pairs(names: list[str], rows: dict[str, list[str]], kind_of: dict[str, str] | None,
           nvidia: bool) -> tuple[Link, ...]:
    links = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if j <= i or a not in rows or j >= len(rows[a]):
                continue
            label = rows[a][j].strip()
            if label in ("X", "0", "SELF", ""):
                continue
            kind = _nvidia_kind(label) if nvidia else (kind_of or {}).get(label, label.lower())
            links.append(Link(a, b, kind, label))
    return tuple(links)


def parse_nvidia_topo(text: str) -> Topology:
    """``nvidia-smi topo -m`` (tab-separated matrix; also the indented copy collect_env pastes)."""
    lines = [line.strip() for line in text.splitlines()]
    header_index = next((i for i, line in enumerate(lines) if line.startswith("GPU0") and "\t" in line), None)
    if header_index is None:
        raise ParseError("no 'GPU0 GPU1 ...' header row (is this nvidia-smi topo -m?)")
    header = [cell.strip() for cell in lines[header_index].split("\t")]
    devices = [h for h in header if re.fullmatch(r"(GPU|NIC)\d+", h)]
    rows: dict[str, list[str]] = {}
    cpu, numa = {}, {}
    for line in lines[header_index + 1:]:
        cells = line.split("\t")
        name = cells[0].strip()
        if not re.fullmatch(r"(GPU|NIC)\d+", name):
            if rows:
                break
            continue
        rows[name] = cells[1:]
        if name.startswith("GPU"):
            if "CPU Affinity" in header and len(cells) > header.index("CPU Affinity") + 1:
                cpu[name] = cells[header.index("CPU Affinity") + 1].strip()
            if "NUMA Affinity" in header and len(cells) > header.index("NUMA Affinity") + 1:
                numa[name] = cells[header.index("NUMA Affinity") + 1].strip()
    gpus = [d for d in devices if d.startswith("GPU")]
    if not gpus or not rows:
        raise ParseError("no GPU rows in the topology matrix")
    links = tuple(link for link in _pairs(devices, rows, None, nvidia=True)
                  if link.a.startswith("GPU") and link.b.startswith("GPU"))
    return Topology(source="nvidia-smi topo -m", devices=tuple(gpus), links=links, numa=numa, cpu_affinity=cpu)


def _matrix_after(lines: list[str], title: re.Pattern[str]) -> tuple[list[str], dict[str, list[str]]]:
    start = next((i for i, line in enumerate(lines) if title.search(line)), None)
    if start is None:
        return [], {}
    names: list[str] = []
    rows: dict[str, list[str]] = {}
    for line in lines[start + 1:]:
        tokens = line.split()
        if not tokens:
            if rows:
                break
            continue
        if not names:
            names = tokens
            continue
        if tokens[0] in names and len(tokens) == len(names) + 1:
            rows[tokens[0]] = tokens[1:]
        elif rows:
            break
    return names, rows


def parse_amd_topology(text: str) -> Topology:
    """``rocm-smi --showtopo`` ("Link Type between two GPUs") or ``amd-smi topology`` ("LINK TYPE TABLE")."""
    lines = text.splitlines()
    names, rows = _matrix_after(lines, re.compile(r"Link Type between two GPUs"))
    source = "rocm-smi --showtopo"
    if not rows:
        names, rows = _matrix_after(lines, re.compile(r"^LINK TYPE TABLE"))
        source = "amd-smi topology"
    if not rows:
        raise ParseError("no 'Link Type between two GPUs' or 'LINK TYPE TABLE' matrix")
    numa = {f"GPU{m.group(1)}": m.group(2) for m in re.finditer(r"GPU\[(\d+)\]\s*:\s*\(Topology\) Numa Node:\s*(\S+)",
                                                                text)}
    return Topology(source=source, devices=tuple(names), links=_pairs(names, rows, _AMD_KIND, nvidia=False),
                    numa=numa)


def parse_topology(text: str) -> Topology:
    """Whichever of the supported topology formats this is."""
    if re.search(r"Link Type between two GPUs|^LINK TYPE TABLE", text, re.MULTILINE):
        return parse_amd_topology(text)
    return parse_nvidia_topo(text)
