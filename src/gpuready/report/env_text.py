"""Terminal rendering of a Fingerprint: grouped tables for host, devices, stack, frameworks and access."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuready.compat.rules.access import LISTING_KINDS
from gpuready.model import BuildVariant, Device, Fact, FactStatus, Fingerprint, Framework

_STATUS_STYLE = {
    FactStatus.OK: "",
    FactStatus.ABSENT: "dim",
    FactStatus.ERROR: "red",
    FactStatus.UNSUPPORTED: "dim",
    FactStatus.SKIPPED: "dim",
}


def _bytes(value: int) -> str:
    return f"{value / 2**30:.1f} GiB"


def fact_text(fact: Fact[Any], fmt: Any = str, *, compact: bool = False) -> Text:
    """A fact as one cell: the value (with how it was derived), or its status and reason, styled."""
    if fact.ok:
        text = Text(fmt(fact.value))
        if not compact and fact.detail and fact.detail != str(fact.value) and "redacted" not in fact.detail:
            text.append(f" ({fact.detail})", style="dim")
        return text
    label = {FactStatus.ABSENT: "—", FactStatus.ERROR: "error", FactStatus.UNSUPPORTED: "n/a",
             FactStatus.SKIPPED: "skipped"}[fact.status]
    reason = f" ({fact.detail})" if fact.detail and fact.detail != "not probed" and not compact else ""
    return Text(label + reason, style=_STATUS_STYLE[fact.status])


def _section(title: str) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", show_header=False, box=None,
                  pad_edge=False)
    table.add_column(style="cyan", no_wrap=True)
    table.add_column(overflow="fold")
    return table


def _joined(values: Any) -> str:
    return ", ".join(values) if values else "none"


def summary_line(fingerprint: Fingerprint) -> Text:
    """One sentence: what accelerators there are, or that there are none."""
    if fingerprint.devices:
        names = sorted({d.name.value or d.arch.value or "unknown" for d in fingerprint.devices})
        return Text(f"{len(fingerprint.devices)} accelerator(s) found: {', '.join(names)}", style="bold green")
    torch = fingerprint.framework("torch")
    if torch is not None and torch.device_count.get(0) > 0:
        return Text(f"{torch.device_count.value} accelerator(s) visible to torch", style="bold green")
    failed = sorted({n.name for n in fingerprint.probes if n.fact.status is FactStatus.ERROR})
    if failed:
        return Text(f"No accelerator could be listed: {', '.join(failed)} failed (see Probe problems below). "
                    "This is not proof that there is none.", style="bold red")
    if fingerprint.origin != "probe":  # a report from another machine: what it shows, not what the machine has
        listings = sorted({n.kind for n in fingerprint.sections if n.kind in LISTING_KINDS})
        if listings:
            return Text(f"No accelerator in the report: its {', '.join(listings)} output lists none.",
                        style="bold yellow")
        return Text("No accelerator listed: the report has no GPU listing (rocminfo, amd-smi, rocm-smi, nvidia-smi, "
                    "collect_env), so whether the machine has one is unknown.", style="bold yellow")
    return Text("No accelerator found: no AMD GPU (KFD, amd-smi, rocm-smi, rocminfo) and no NVIDIA GPU "
                "(nvidia-smi) was detected. Work will run on the CPU.", style="bold yellow")


def _device_table(devices: tuple[Device, ...]) -> Table:
    table = Table(title="Devices", title_justify="left", title_style="bold")
    for column in ("#", "vendor", "name", "arch", "memory", "PCI", "CUs/SMs", "seen by"):
        table.add_column(column, overflow="fold")
    for d in devices:
        table.add_row(str(d.index), d.vendor.value, fact_text(d.name, compact=True),
                      fact_text(d.arch, compact=True), fact_text(d.memory_bytes, _bytes, compact=True),
                      fact_text(d.pci_bus, compact=True), fact_text(d.compute_units, compact=True),
                      ", ".join(d.sources))
    return table


def _framework_rows(table: Table, framework: Framework) -> None:
    if not framework.installed:
        table.add_row(framework.name, Text("not installed", style="dim"))
        return
    variant = framework.variant.value
    label = {BuildVariant.ROCM: "ROCm build", BuildVariant.CUDA: "CUDA build", BuildVariant.CPU: "CPU-only build",
             BuildVariant.UNKNOWN: "build flavour unknown"}.get(variant, "") if variant else ""
    head = Text(framework.version.value or "version unknown")
    if label:
        head.append(f"  ({label}", style="bold")
        if framework.backend_version.ok:
            head.append(f" {framework.backend_version.value}", style="bold")
        head.append(")", style="bold")
    table.add_row(framework.name, head)
    for title, fact, fmt in (
        ("  accelerator available", framework.accelerator_available, str),
        ("  devices", framework.device_names, _joined),
        ("  device archs", framework.device_archs, _joined),
        ("  compiled archs", framework.arch_list, _joined),
        ("  default backend", framework.default_backend, str),
    ):
        if fact.status is not FactStatus.UNSUPPORTED and fact.detail != "not probed":
            table.add_row(title, fact_text(fact, fmt))


def render_env(fingerprint: Fingerprint) -> RenderableType:
    """All sections of ``gpuready env``."""
    parts: list[RenderableType] = [summary_line(fingerprint)]
    if fingerprint.origin != "probe":
        parts.append(Text(f"Read from {fingerprint.origin}", style="italic"))
    host = _section("Host")
    h = fingerprint.host
    for title, fact in (("OS", h.os_name), ("kernel", h.kernel), ("machine", h.machine), ("CPU", h.cpu_model),
                        ("C library", h.libc), ("Python", h.python), ("container", h.container),
                        ("hostname", h.hostname)):
        if fact.detail != "not probed":
            host.add_row(title, fact_text(fact))
    if host.row_count:
        parts += [Text(""), host]
    if fingerprint.devices:
        parts += [Text(""), _device_table(fingerprint.devices)]
    stack = _section("Stack")
    s = fingerprint.stack
    stack_facts: tuple[tuple[str, Fact[Any]], ...] = (("ROCm", s.rocm_version), ("ROCm path", s.rocm_path),
                        ("amdgpu driver", s.amdgpu_driver_version), ("amd-smi", s.amd_smi_version),
                        ("NVIDIA driver", s.nvidia_driver_version), ("NVIDIA kernel module", s.nvidia_kernel_module),
                        ("NVIDIA user-space driver", s.nvidia_userspace_version),
                        ("CUDA toolkit", s.cuda_toolkit_version))
    for title, fact in stack_facts:
        if fact.detail != "not probed":
            stack.add_row(title, fact_text(fact))
    if s.rocm_installs:
        stack.add_row("ROCm trees", ", ".join(s.rocm_installs))
    if stack.row_count:
        parts += [Text(""), stack]
    frameworks = _section("Frameworks")
    for framework in fingerprint.frameworks:
        _framework_rows(frameworks, framework)
    if fingerprint.packages:
        frameworks.add_row("packages", ", ".join(f"{p.name}=={p.version}" for p in fingerprint.packages))
    if frameworks.row_count:
        parts += [Text(""), frameworks]
    if fingerprint.topology is not None:
        topology = _section("Topology")
        t = fingerprint.topology
        counts: dict[str, int] = {}
        for link in t.links:
            counts[f"{link.kind} ({link.label})"] = counts.get(f"{link.kind} ({link.label})", 0) + 1
        topology.add_row("devices", ", ".join(t.devices))
        topology.add_row("links", ", ".join(f"{n} x {k}" for k, n in sorted(counts.items())) or "none")
        if t.numa:
            topology.add_row("NUMA", ", ".join(f"{d}:{n}" for d, n in t.numa.items()))
        topology.add_row("source", t.source)
        parts += [Text(""), topology]
    access = _section("Access")
    a = fingerprint.access
    if a.user.detail != "not probed":
        access.add_row("user", fact_text(a.user))
        access.add_row("groups", fact_text(a.groups, _joined))
    for node in a.nodes:
        if not node.exists:
            access.add_row(node.path, Text("absent", style="dim"))
            continue
        usable = node.accessible.value
        cell = Text(f"group {node.group.value or '?'}, mode {node.mode.value or '?'}, ")
        cell.append("read/write OK" if usable else "NOT accessible to this user", style="green" if usable else "red")
        access.add_row(node.path, cell)
    for key, value in fingerprint.environment.items():
        access.add_row(f"${key}", value)
    if access.row_count:
        parts += [Text(""), access]
    warnings = [n for n in fingerprint.probes if n.name.endswith("warning")]
    if warnings:
        table = _section("Warnings in the report")
        for note in warnings:
            table.add_row("", fact_text(note.fact))
        parts += [Text(""), table]
    problems = [n for n in fingerprint.probes if n.fact.status is FactStatus.ERROR]
    if problems:
        table = _section("Probe problems")
        for note in problems:
            table.add_row(note.name, fact_text(note.fact))
        parts += [Text(""), table]
    return Group(*parts)
