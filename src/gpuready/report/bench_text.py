"""Terminal rendering of a benchmark Run: one table of measurements (median, p10-p90, spread) and the targets."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuready.bench.targets import TargetResult
from gpuready.model import Run
from gpuready.report.units import format_value as _value

UNCONFIRMED_MARK = "*"
UNCONFIRMED_NOTE = "* peak read in a third-party copy of the vendor's figures, not in the vendor's own text"


def _of_peak(measurement: object) -> str:
    settings = getattr(measurement, "settings", {})
    mark = UNCONFIRMED_MARK if settings.get("peak_confirmed") is False else ""
    if "fraction_of_peak" in settings:
        return f"{settings['fraction_of_peak']:.0%} of {settings['peak']:g}{mark}"
    if getattr(measurement, "metric", "") == "mfu":
        return f"of {settings.get('peak_tflops', '?')} TFLOP/s{mark}"
    return ""


def render_bench(run: Run, targets: tuple[TargetResult, ...]) -> RenderableType:
    """Measurements grouped by workload settings, then the targets."""
    table = Table(title="Measurements (median; p10-p90; spread = (p90-p10)/median)", title_justify="left")
    for column in ("metric", "batch", "median", "p10 - p90", "spread", "n", "of peak"):
        table.add_column(column, overflow="fold")
    for m in run.measurements:
        s = m.summary
        table.add_row(m.metric, str(m.settings.get("batch_size", "")), _value(s.median, m.unit),
                      f"{_value(s.p10, m.unit)} - {_value(s.p90, m.unit)}" if s.count > 1 else "",
                      f"{s.spread:.1%}" if s.count > 1 else "", str(s.count), _of_peak(m))
    parts: list[RenderableType] = [table]
    if any(m.settings.get("peak_confirmed") is False for m in run.measurements):
        parts.append(Text(UNCONFIRMED_NOTE, style="dim"))
    for result in run.results:
        if result.status.value != "pass":
            parts.append(Text(f"{result.check_id}: {result.status.value} {result.details.get('reason', '')}",
                              style="bold red"))
    for target in targets:
        parts.append(Text(f"{'MET   ' if target.met else 'MISSED'} {target.target}: {target.detail}",
                          style="green" if target.met else "bold red"))
    return Group(*parts)
