"""Terminal rendering of ``gpuready verify``: verdict, drift by kind, regressions and the likely cause."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuready.model import Run
from gpuready.report.doctor_text import verdict_line


def render_verify(run: Run) -> RenderableType:
    """Verdict first, then what changed and what regressed (all read from the Run's findings)."""
    parts: list[RenderableType] = [verdict_line(run.outcome)]
    changes = [f for f in run.findings if f.code.startswith("verify.drift.")]
    if changes:
        table = Table(title="What changed since the lock", title_justify="left")
        for column in ("kind", "field", "locked", "now", "counts"):
            table.add_column(column, overflow="fold")
        for change in changes:
            evidence = change.evidence
            table.add_row(evidence.get("kind", ""), evidence.get("field", ""), evidence.get("before") or "-",
                          evidence.get("after") or "-", evidence.get("counts", ""))
        parts.append(table)
    for finding in run.findings:
        if finding.code == "verify.regressed.check":
            parts.append(Text(finding.message, style="red"))
    benches = [f for f in run.findings if f.code in ("verify.bench", "verify.regressed.bench", "verify.bench_noisy")]
    if benches:
        table = Table(title="Benchmarks against the locked samples", title_justify="left")
        for column in ("workload", "metric", "batch", "change", "verdict"):
            table.add_column(column)
        style = {"verify.regressed.bench": ("REGRESSED", "red"), "verify.bench_noisy": ("too noisy", "yellow"),
                 "verify.bench": ("ok", "green")}
        for finding in benches:
            word, colour = style[finding.code]
            evidence = finding.evidence
            table.add_row(evidence.get("workload", ""), evidence.get("metric", ""), evidence.get("batch_size", ""),
                          evidence.get("reason", ""), Text(word, style=colour))
        parts.append(table)
    for finding in run.findings:
        if finding.code == "verify.missing":
            parts.append(Text(finding.message, style="red"))
        elif finding.code == "verify.likely_cause":
            parts.append(Text(finding.message[0].upper() + finding.message[1:], style="bold"))
    return Group(*parts)
