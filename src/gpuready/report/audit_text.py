"""Terminal rendering of a placement audit: the verdict, then the worst offenders with their source lines."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from gpuready.audit.api import AuditOutcome
from gpuready.model import Severity
from gpuready.report.doctor_text import render_findings


def render_audit(model: str, outcome: AuditOutcome) -> RenderableType:
    """``CLEAN`` / ``PROBLEMS`` / ``BLOCKED`` and the findings, worst first."""
    severities = {f.severity for f in outcome.findings}
    verdict = "BLOCKED" if Severity.BLOCKER in severities else "PROBLEMS" if Severity.WARN in severities else "CLEAN"
    style = {"BLOCKED": "bold red", "PROBLEMS": "bold yellow", "CLEAN": "bold green"}[verdict]
    parts: list[RenderableType] = [Text(verdict, style=style)]
    trace = outcome.trace
    if trace is not None:
        where = "the CPU standing in for a GPU (no GPU here)" if trace.target == "standin" else trace.target
        compute = sum(r.kind == "compute" for r in trace.records)
        parts.append(Text(f"{model}: {compute} compute ops recorded on {where}; {trace.parameters_on_target} "
                          f"parameter tensors on the device, {trace.parameters_on_host} on the CPU", style="dim"))
    if outcome.coverage:
        counts: dict[str, int] = {}
        for entry in outcome.coverage:
            counts[str(entry.get("status"))] = counts.get(str(entry.get("status")), 0) + 1
        parts.append(Text("op coverage: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
                          + " (each distinct op replayed against float64 on the CPU)", style="dim"))
    parts.append(Text(""))
    for finding in outcome.findings:
        if finding.location:
            parts.append(Text(f"at {finding.location}", style="bold"))
        parts.extend(render_findings([finding]))
    return Group(*parts)
