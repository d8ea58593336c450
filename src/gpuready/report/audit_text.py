"""Terminal rendering of a placement audit: the verdict, then the worst offenders with their source lines."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from gpuready.model import Run
from gpuready.placement.driver import AuditView
from gpuready.report.doctor_text import render_findings, verdict_line


def render_audit(run: Run) -> RenderableType:
    """``CLEAN`` / ``PROBLEMS`` / ``BLOCKED`` with counts, what ran where, op coverage, and the findings."""
    parts: list[RenderableType] = [verdict_line(run.outcome)]
    model = next((t.removeprefix("model:") for t in run.tags if t.startswith("model:")), "the step")
    view = AuditView.of(run)
    trace = view.trace
    if trace is not None:
        where = "the CPU standing in for a GPU (no GPU here)" if trace.target == "standin" else trace.target
        compute = sum(r.kind == "compute" for r in trace.records)
        parts.append(Text(f"{model}: {compute} compute ops recorded on {where}; {trace.parameters_on_target} "
                          f"parameter tensors on the device, {trace.parameters_on_host} on the CPU", style="dim"))
    for result in run.results:
        if "platforms" in result.details:
            parts.append(Text(f"JAX step ran on: {', '.join(result.details.get('platforms') or ['?'])}", style="dim"))
    if view.coverage:
        counts: dict[str, int] = {}
        for entry in view.coverage:
            counts[str(entry.get("status"))] = counts.get(str(entry.get("status")), 0) + 1
        parts.append(Text("op coverage: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
                          + " (each distinct op replayed against float64 on the CPU)", style="dim"))
    parts.append(Text(""))
    for finding in run.findings:
        if finding.location:
            parts.append(Text(f"at {finding.location}", style="bold"))
        parts.extend(render_findings([finding]))
    return Group(*parts)
