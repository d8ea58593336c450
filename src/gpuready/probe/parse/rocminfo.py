"""Parser for the text ``rocminfo`` prints (HSA system attributes and agents)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuready.errors import ParseError
from gpuready.probe.parse.kfd import format_bdf, normalise_gfx_name
from gpuready.probe.parse.records import GpuRecord

_AGENT = re.compile(r"^\s*Agent\s+(\d+)\s*$")
_FIELD = re.compile(r"^(\s*)([A-Za-z][A-Za-z0-9 .()/_-]*?):\s*(.*?)\s*$")
_NUMBER = re.compile(r"^(\d{1,20})(?!\d)")
_ROCK = re.compile(r"ROCk module(?: version (\S+))? is loaded")
_KFD_FAILURE = re.compile(r"^(Unable to open /dev/kfd.*?)\s*$", re.MULTILINE)
_HSA_FAILURE = re.compile(r"^Call returned (HSA_STATUS_\w+)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class RocminfoReport:
    """What rocminfo showed: the GPU agents, or why it could not list them."""

    gpus: tuple[GpuRecord, ...] = ()
    cpu_agents: tuple[str, ...] = ()
    kfd_loaded: bool = False
    kfd_version: str | None = None
    """``6.8.5`` from ``ROCk module version 6.8.5 is loaded`` (the amdgpu DKMS version)."""
    runtime_version: str | None = None
    """HSA runtime version, e.g. ``1.14``."""
    failure: str | None = None
    """``Unable to open /dev/kfd read-write: Permission denied`` and the HSA status, when rocminfo failed."""
    hint: str | None = None
    """rocminfo's own advice after a failure (render group membership ...)."""


def _number(value: str) -> int | None:
    match = _NUMBER.match(value)
    return int(match.group(1)) if match else None


def _agent_blocks(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in lines:
        if _AGENT.match(line):
            blocks.append([])
        elif blocks:
            blocks[-1].append(line)
    return blocks


def _parse_agent(block: list[str], index: int) -> tuple[str, GpuRecord | str]:
    top: dict[str, str] = {}
    memory_kb: int | None = None
    segment: str | None = None
    for line in block:
        match = _FIELD.match(line)
        if not match:
            continue
        indent, key, value = len(match.group(1)), match.group(2).strip(), match.group(3)
        if indent <= 2:
            top.setdefault(key, value)
        elif key == "Segment":
            segment = value
        elif key == "Size" and segment and segment.startswith("GLOBAL") and memory_kb is None:
            if "COARSE GRAINED" in segment:
                memory_kb = _number(value)
    kind = top.get("Device Type", "").upper()
    name = top.get("Marketing Name") or top.get("Name") or ""
    if kind != "GPU":
        return kind or "UNKNOWN", name
    uuid = top.get("Uuid")
    chip = _number(top.get("Chip ID", ""))
    bdfid = _number(top.get("BDFID", ""))
    return "GPU", GpuRecord(
        vendor="amd",
        index=index,
        name=top.get("Marketing Name") or None,
        arch=normalise_gfx_name(top["Name"]) if top.get("Name", "").startswith("gfx") else None,
        memory_bytes=memory_kb * 1024 if memory_kb else None,
        pci_bus=format_bdf(bdfid) if bdfid else None,
        pci_device_id=f"0x{chip:04x}" if chip else None,
        compute_units=_number(top.get("Compute Unit", "")),
        uuid=uuid if uuid and not uuid.endswith("-XX") else None,
    )


def parse_rocminfo(text: str) -> RocminfoReport:
    """Parse ``rocminfo`` output, including its failure messages."""
    lines = text.splitlines()
    rock = _ROCK.search(text)
    runtime = re.search(r"^Runtime Version:\s*(\S+)", text, re.MULTILINE)
    kfd_failure = _KFD_FAILURE.search(text)
    hsa_failure = _HSA_FAILURE.search(text)
    blocks = _agent_blocks(lines)
    if not blocks:
        if kfd_failure or hsa_failure:
            parts = [m.group(1) for m in (kfd_failure, hsa_failure) if m]
            hint_lines = [
                line.strip()
                for line in lines
                if line.strip() and "render" in line and "group" in line and line.strip() not in parts
            ]
            return RocminfoReport(
                kfd_loaded=rock is not None,
                kfd_version=rock.group(1) if rock else None,
                failure="; ".join(parts),
                hint=hint_lines[0] if hint_lines else None,
            )
        raise ParseError("no 'Agent N' sections and no failure message")
    gpus: list[GpuRecord] = []
    cpus: list[str] = []
    for block in blocks:
        kind, agent = _parse_agent(block, len(gpus))
        if isinstance(agent, GpuRecord):
            gpus.append(agent)
        elif kind == "CPU":
            cpus.append(agent)
    return RocminfoReport(
        gpus=tuple(gpus),
        cpu_agents=tuple(cpus),
        kfd_loaded=rock is not None,
        kfd_version=rock.group(1) if rock else None,
        runtime_version=runtime.group(1) if runtime else None,
        failure=None,
    )
