"""Terminal rendering of ``gpuready verify``: verdict, drift by kind, regressions and the likely cause."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuready.lock.verify import VerifyReport


def render_verify(report: VerifyReport) -> RenderableType:
    """Verdict first, then what changed and what regressed."""
    parts: list[RenderableType] = [Text("VERIFIED: nothing relevant changed, nothing regressed" if report.ok
                                        else "NOT VERIFIED", style="bold green" if report.ok else "bold red")]
    if report.changes:
        table = Table(title="What changed since the lock", title_justify="left")
        for column in ("kind", "field", "locked", "now", "counts"):
            table.add_column(column, overflow="fold")
        drift = set(report.drift)
        for change in report.changes:
            table.add_row(change.kind.value, change.field, change.before or "-", change.after or "-",
                          "drift" if change in drift else "noted")
        parts.append(table)
    for check_id, was, now in report.check_regressions:
        parts.append(Text(f"check {check_id}: {was} at lock time, {now} now", style="red"))
    if report.benches:
        table = Table(title="Benchmarks against the locked samples", title_justify="left")
        for column in ("workload", "metric", "batch", "change", "verdict"):
            table.add_column(column)
        for bench in report.benches:
            table.add_row(bench.workload, bench.metric, str(bench.settings.get("batch_size", "")), bench.verdict.reason,
                          Text("REGRESSED", style="red") if bench.verdict.regressed else Text("ok", style="green"))
        parts.append(table)
    for missing in report.missing:
        parts.append(Text(f"the re-run did not produce {missing}", style="red"))
    cause = report.likely_cause
    if cause is not None:
        parts.append(Text(f"Most likely cause: {cause.kind.value} change {cause.field} "
                          f"{cause.before or '-'} -> {cause.after or '-'}", style="bold"))
    return Group(*parts)
