"""The op trace an audit records, and the pure analysis that turns it into findings.

A trace is plain data (JSON round-trip), so the analysis is tested on recorded traces without any device. Devices
are labels: ``target`` for the accelerator under audit (a real GPU, or the stand-in on a CPU-only machine) and
``cpu`` for the host.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from gpuready.model import Finding, Severity
from gpuready.placement.replay import ReplayOp

TARGET, HOST = "target", "cpu"


@dataclass(frozen=True, slots=True)
class OpRecord:
    """One op as the audit saw it."""

    op: str
    """``aten.addmm.default``, or an event such as ``host_copy`` / ``host_sync``."""
    kind: str
    """``compute`` (an aten op that computes), ``view`` (a view, copy or alias), ``host_copy``, ``host_sync``,
    ``numpy``, ``h2d_copy`` (a host tensor moved to the device inside the step)."""
    devices: tuple[str, ...]
    """Labels of the tensor inputs (0-dim host scalars left out), or of the output for factories."""
    dtypes: tuple[str, ...] = ()
    shapes: tuple[tuple[int, ...], ...] = ()
    location: str = ""
    """``file.py:LINE`` of the first frame outside torch and gpuready."""
    bytes: int = 0
    seconds: float = 0.0
    """Host time spent in the op (on a GPU: launch time, as the step's host sees it)."""


@dataclass(frozen=True, slots=True)
class Trace:
    """What one audited step did."""

    target: str
    """``cuda`` (a real GPU), or ``standin`` (the CPU standing in for one)."""
    records: tuple[OpRecord, ...]
    parameters_on_target: int = 0
    parameters_on_host: int = 0
    parameter_names_on_host: tuple[str, ...] = ()
    notes: dict[str, str] = field(default_factory=dict)
    replay: tuple[ReplayOp, ...] = ()
    """Distinct ops with their arguments described, for the op-coverage replay."""


@dataclass
class _Group:
    count: int = 0
    bytes: int = 0
    seconds: float = 0.0
    ops: set[str] = field(default_factory=set)


def _grouped(records: list[OpRecord]) -> list[tuple[str, _Group]]:
    groups: dict[str, _Group] = defaultdict(_Group)
    for record in records:
        group = groups[record.location or "<unknown>"]
        group.count += 1
        group.bytes += record.bytes
        group.seconds += record.seconds
        group.ops.add(record.op)
    return sorted(groups.items(), key=lambda item: (-item[1].count, item[0]))


def _summary(ops: set[str]) -> str:
    names = sorted(op.removeprefix("aten.").removesuffix(".default") for op in ops)
    return ", ".join(names[:4]) + (f" (+{len(names) - 4})" if len(names) > 4 else "")


def analyse_trace(trace: Trace) -> list[Finding]:
    """Findings, worst first; each problem grouped by source location with counts and bytes."""
    findings: list[Finding] = []
    compute = [r for r in trace.records if r.kind == "compute"]
    on_target = [r for r in compute if TARGET in r.devices]
    if trace.parameters_on_host and not trace.parameters_on_target:
        findings.append(Finding("audit.model_not_on_device", Severity.BLOCKER,
                                f"none of the model's {trace.parameters_on_host} parameters is on the target device",
                                remedy="call model.to(device) before the step (and build the optimizer after it)"))
    elif trace.parameters_on_host:
        names = ", ".join(trace.parameter_names_on_host[:5])
        findings.append(Finding("audit.parameters_on_host", Severity.BLOCKER,
                                f"{trace.parameters_on_host} parameter tensor(s) stay on the CPU: {names}",
                                evidence={"names": names},
                                remedy="register them as nn.Parameter or buffers (register_buffer) so model.to() "
                                       "moves them, or create them on the model's device"))
    if trace.notes.get("device_kernels") == "0":
        findings.append(Finding("audit.no_device_kernels", Severity.BLOCKER,
                                "torch.profiler saw no device kernel in the step: nothing ran on the GPU",
                                evidence=dict(trace.notes),
                                remedy="check that the model and batch are on the device and that the build is a "
                                       "GPU build"))
    if compute and not on_target:
        findings.append(Finding("audit.no_device_work", Severity.BLOCKER,
                                f"the step ran {len(compute)} ops and none of them on the target device",
                                remedy="check that the model and the batch are moved to the device"))
    rules: tuple[tuple[str, Severity, Callable[[OpRecord], bool], str, str], ...] = (
        ("audit.mixed_device", Severity.BLOCKER,
         lambda r: r.kind in ("compute", "view") and r.op != "aten.copy_.default" and set(r.devices) == {TARGET, HOST},
         "an op mixes tensors on the device and on the CPU (a real GPU raises 'Expected all tensors to be on the "
         "same device'): {ops}",
         "create the tensor on the input's device (torch.ones(..., device=x.device)) or move it with .to(x.device)"),
        ("audit.cpu_fallback", Severity.WARN,
         lambda r: r.kind == "compute" and bool(r.devices) and set(r.devices) == {HOST} and bool(on_target),
         "ops run on the CPU while the model runs on the device: {ops}",
         "create these tensors on the device, or move the work after .to(device)"),
        ("audit.host_sync", Severity.WARN, lambda r: r.kind == "host_sync",
         "the step waits for the device ({ops}): each call stalls the GPU pipeline",
         "keep values on the device (torch.where, masks without nonzero), or read them once after the step"),
        ("audit.host_copy", Severity.WARN, lambda r: r.kind in ("host_copy", "numpy"),
         "device-to-host copies in the step ({ops})",
         "keep the computation in torch on the device; copy results out once, after the step"),
        ("audit.h2d_every_step", Severity.WARN, lambda r: r.kind == "h2d_copy",
         "a host tensor is copied to the device inside the step ({ops}): the same copy is paid again every step",
         "keep it on the device: register it as a buffer or parameter (model.to moves it) or create it there once"),
        ("audit.float64", Severity.WARN, lambda r: r.kind in ("compute", "view") and "float64" in r.dtypes,
         "float64 ops ({ops}): GPUs run fp64 at a fraction of fp32 speed (consumer GPUs at 1/32 or less)",
         "use float32 (torch.set_default_dtype, .float()), or make the fp64 deliberate"),
    )
    for code, severity, matches, message, remedy in rules:
        hits = [r for r in trace.records if matches(r)]
        for location, group in _grouped(hits):
            text = message.format(ops=_summary(group.ops))
            evidence = {"count": str(group.count), "ops": _summary(group.ops)}
            if group.bytes:
                evidence["bytes"] = str(group.bytes)
            if group.seconds:
                evidence["seconds"] = f"{group.seconds:.6f}"
            findings.append(Finding(code, severity, f"{text} — {group.count}x", evidence=evidence, remedy=remedy,
                                    location=location))
    order = {Severity.BLOCKER: 0, Severity.WARN: 1, Severity.INFO: 2}
    return sorted(findings, key=lambda f: (order[f.severity], -int(f.evidence.get("count", "0"))))
