"""Self-contained HTML reports (inline CSS and SVG, no scripts): one Run, or a comparison of several."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gpuready import __version__
from gpuready.comparison import Comparison, Side
from gpuready.model import CheckResult, Run
from gpuready.model.fields import flatten
from gpuready.report import plots
from gpuready.report.compare_text import advantage_text
from gpuready.report.units import describe_settings, format_value, provenance_note


def _environment() -> Any:
    from jinja2 import Environment, PackageLoader, select_autoescape

    environment = Environment(loader=PackageLoader("gpuready.report", "templates"),
                              autoescape=select_autoescape(default=True, default_for_string=True))
    environment.globals.update(value=format_value, advantage=advantage_text, details=_details,
                               provenance=provenance_note,
                               settings=lambda settings: describe_settings(settings, None),
                               tool_version=__version__, plots_available=plots.available())
    return environment


def _details(result: CheckResult) -> str:
    text = json.dumps(result.details, default=str, sort_keys=True) if result.details else ""
    return text if len(text) <= 400 else text[:399] + "\u2026"


def _title(run: Run) -> str:
    device = next((str(d.name.value) for d in run.fingerprint.devices if d.name.value), "") if run.fingerprint else ""
    workload = next((m.workload for m in run.measurements if m.workload), "")
    return " · ".join(part for part in (f"gpuready {run.kind.value}", run.label, workload, device) if part)


def render_run_html(run: Run) -> str:
    """One Run: findings, checks, measurements with plots, and the environment."""
    figures = {"checks": plots.check_results(run.results),
               "steps": plots.step_time_distribution(run.measurements),
               "throughput": plots.throughput_by_batch(run.measurements)}
    environment = [(k, v) for k, v in flatten(run.fingerprint).items() if v]
    return str(_environment().get_template("run.html.j2").render(
        run=run, title=_title(run), plots=figures, environment=environment))


def render_comparison_html(comparison: Comparison, sides: Sequence[Side] = ()) -> str:
    """A comparison: conclusions, speed with intervals (table and bars), cost, beyond speed, environments."""
    bars = [plots.comparison_bars(p.metrics, p.baseline, p.other) for p in comparison.pairings]
    title = "gpuready compare · " + " vs ".join(side.name for side in comparison.sides)
    steps = [(side.name, m) for side in sides for run in side.runs for m in run.measurements
             if m.metric == "step_time"]
    distribution = plots.step_time_distribution([m for _, m in steps], [name for name, _ in steps])
    return str(_environment().get_template("compare.html.j2").render(comparison=comparison, bars=bars, title=title,
                                                                      distribution=distribution))
