"""Terminal rendering of a benchmark Run: one table of measurements (median, p10-p90, spread) and the targets."""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuready.model import Run
from gpuready.report.doctor_text import verdict_line
from gpuready.report.units import format_value as _value

UNCONFIRMED_MARK = "*"
UNCONFIRMED_NOTE = "* peak read in a third-party copy of the vendor's figures, not in the vendor's own text"


def _of_peak(measurement: object) -> str:
    notes = getattr(measurement, "annotations", {})
    mark = UNCONFIRMED_MARK if notes.get("peak_confirmed") is False else ""
    if "fraction_of_peak" in notes:
        return f"{notes['fraction_of_peak']:.0%} of {notes['peak']:g}{mark}"
    if getattr(measurement, "metric", "") == "mfu":
        return f"of {notes.get('peak_tflops', '?')} TFLOP/s{mark}"
    return ""


def _batch(measurement: object) -> str:
    if getattr(measurement, "metric", "") == "max_batch" and getattr(measurement, "annotations", {}).get(
            "reached_limit"):
        return "search limit"
    return str(getattr(measurement, "settings", {}).get("batch_size", ""))


def render_bench(run: Run) -> RenderableType:
    """The verdict, the measurements, failed phases, noise warnings and the targets."""
    table = Table(title="Measurements: median over n samples, spread = (p90 - p10) / median", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("metric", no_wrap=True)
    table.add_column("batch", justify="right", no_wrap=True)
    table.add_column("median", justify="right", no_wrap=True)
    table.add_column("spread", justify="right", no_wrap=True)
    table.add_column("n", justify="right", no_wrap=True)
    table.add_column("of peak", overflow="fold")
    for m in run.measurements:
        s = m.summary
        table.add_row(m.metric, _batch(m), _value(s.median, m.unit), f"{s.spread:.0%}" if s.count > 1 else "",
                      str(s.count), _of_peak(m))
    parts: list[RenderableType] = [verdict_line(run.outcome), table]
    if any(m.annotations.get("peak_confirmed") is False for m in run.measurements):
        parts.append(Text(UNCONFIRMED_NOTE, style="dim"))
    for result in run.results:
        if result.status.value != "pass":
            parts.append(Text(f"{result.check_id}: {result.status.value} {result.details.get('reason', '')}",
                              style="bold red"))
    for finding in run.findings:
        if finding.code == "bench.target":
            met = finding.evidence.get("met") == "true"
            parts.append(Text(f"{'MET   ' if met else 'MISSED'} {finding.message.split(' — ', 1)[-1]}",
                              style="green" if met else "bold red"))
        elif finding.code in ("bench.noisy", "bench.allreduce_vs_link", "bench.allreduce_link_unknown"):
            parts.append(Text(f"{finding.severity.value.upper()}: {finding.message}",
                              style="yellow" if finding.severity.value == "warn" else "dim"))
    return Group(*parts)
