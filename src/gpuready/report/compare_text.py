"""Terminal rendering of a comparison: conclusion first, then speed, cost, beyond-speed and the environments."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuready.comparison import Comparison
from gpuready.comparison.model import MetricComparison
from gpuready.report.units import describe_settings, format_value, provenance_note


def advantage_text(row: MetricComparison) -> tuple[str, str]:
    """('1.31x (1.27-1.35)', verdict) where >1 means the other side is better."""
    advantage = row.advantage
    interval = f" ({advantage.low:.2f}-{advantage.high:.2f})" if advantage.low is not None else ""
    if row.noisy:
        verdict = "too noisy to judge"
    elif advantage.within_noise is None:
        verdict = "no interval (too few samples)"
    elif advantage.within_noise:
        verdict = "within noise"
    else:
        verdict = "better" if advantage.ratio > 1 else "worse"
    return f"{advantage.ratio:.3f}x{interval}", verdict


def render_comparison(comparison: Comparison) -> RenderableType:
    """Everything in one group of rich renderables."""
    parts: list[RenderableType] = [Text(f"{side.name}: {provenance_note(side.provenance)}", style="bold yellow")
                                   for side in comparison.sides if provenance_note(side.provenance)]
    for pairing in comparison.pairings:
        parts.append(Text(f"{pairing.other} against {pairing.baseline}", style="bold"))
        parts.append(Text(pairing.conclusion))
        table = Table(title="Speed (advantage > 1: the second side is better; 95% bootstrap CI)",
                      title_justify="left")
        for column in ("workload", "settings", "metric", pairing.baseline, pairing.other, "advantage", "verdict"):
            table.add_column(column, overflow="fold")
        for row in pairing.metrics:
            table.add_row(row.workload, describe_settings(row.settings), row.metric,
                          format_value(row.baseline_median, row.unit),
                          format_value(row.other_median, row.unit), *advantage_text(row))
        if pairing.metrics:
            parts.append(table)
        if pairing.unmatched:
            parts.append(Text("Not compared:", style="bold"))
            parts.extend(Text(f"  {line}", style="dim") for line in pairing.unmatched)
        if pairing.cost:
            cost = Table(title="Cost", title_justify="left")
            for column in ("side", "workload", "$/GPU-h", "rate per GPU", "$ per 1M", "training run"):
                cost.add_column(column, overflow="fold")
            for line in pairing.cost:
                train = (f"{line.train_hours:,.1f} h, ${line.train_usd:,.0f}" if line.train_hours is not None
                         and line.train_usd is not None else "")
                cost.add_row(line.side, line.workload, f"{line.usd_per_gpu_hour:g}",
                             f"{line.per_second_per_gpu:,.4g} {line.unit}/s", f"${line.usd_per_million:,.4g}", train)
            parts.append(cost)
        if pairing.parity:
            parity = Table(title="Checks that differ", title_justify="left")
            for column in ("check", pairing.baseline, pairing.other):
                parity.add_column(column)
            for check_id, a, b in pairing.parity:
                parity.add_row(check_id, a, b)
            parts.append(parity)
    beyond = Table(title="Beyond speed", title_justify="left")
    beyond.add_column("")
    for side in comparison.sides:
        beyond.add_column(side.name, overflow="fold")
    beyond.add_row("device", *(s.device for s in comparison.sides))
    beyond.add_row("checks", *(s.checks_text for s in comparison.sides))
    beyond.add_row("max batch", *(f"{s.max_batch:g}" if s.max_batch else "not measured" for s in comparison.sides))
    beyond.add_row("memory headroom", *(f"{s.memory_headroom:.0%}" if s.memory_headroom is not None else "unknown"
                                        for s in comparison.sides))
    beyond.add_row("porting blockers / warnings", *(f"{len(s.blockers)} / {len(s.warnings)}" if s.scanned
                                                    else "not scanned" for s in comparison.sides))
    parts.append(beyond)
    if comparison.environment:
        env = Table(title="Environments (* differs)", title_justify="left")
        env.add_column("")
        for side in comparison.sides:
            env.add_column(side.name, overflow="fold")
        for name, values in comparison.environment:
            marker = "* " if comparison.differs(values) else "  "
            env.add_row(marker + name, *values)
        parts.append(env)
    for assumption in comparison.assumptions:
        parts.append(Text("Assumption: " + assumption, style="dim"))
    return Group(*parts)
