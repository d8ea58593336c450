"""Align the measurements of several sides and judge them against the first one (the baseline)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuready.compare.bootstrap import median_ratio
from gpuready.compare.cost import CostInputs, CostLine, cost_line, price_for
from gpuready.compare.environment import environment_rows
from gpuready.compare.model import Comparison, MetricComparison, Pairing, PaperPeaks, Side, SideSummary
from gpuready.model import Measurement, RunKind, Severity

if TYPE_CHECKING:
    from gpuready.compat.schema import GpuEntry

LOWER_IS_BETTER = frozenset({"step_time", "peak_memory", "energy_per_step", "joules_per_token", "data_time_share",
                             "average_power"})
NOT_SETTINGS = frozenset({"device", "flops_per_step", "peak_tflops", "peak", "fraction_of_peak", "peak_source",
                          "peak_confirmed", "peak_per_board", "devices_per_board", "peak_partition_share",
                          "device_memory_bytes"})
"""Measurement settings that describe the machine or the outcome, not the workload; ignored when aligning."""
SKIP_METRICS = frozenset({"mfu"})
"""Fractions of each machine's own peak: shown per side, not as a ratio."""


def alignment_key(m: Measurement) -> str:
    settings = {k: v for k, v in sorted(m.settings.items()) if k not in NOT_SETTINGS}
    return json.dumps([m.workload, m.metric, settings], default=str, sort_keys=True)


def _describe(m: Measurement) -> str:
    settings = ", ".join(f"{k}={v}" for k, v in sorted(m.settings.items())
                         if k not in NOT_SETTINGS and k != "workload")
    return f"{m.workload or 'workload'} {m.metric} ({settings})"


def _measurements(side: Side) -> dict[str, Measurement]:
    """The side's measurements by alignment key (a later Run replaces an earlier one for the same key)."""
    found: dict[str, Measurement] = {}
    for run in side.runs:
        for m in run.measurements:
            if m.metric not in SKIP_METRICS and m.samples:
                found[alignment_key(m)] = m
    return found


def summarize_side(side: Side) -> SideSummary:
    """Checks, scan findings, max batch and memory of one side."""
    checks: dict[str, str] = {}
    blockers: list[str] = []
    warnings: list[str] = []
    scanned = False
    max_batch = peak = None
    device_memory = None
    for run in side.runs:
        for result in run.results:
            if not result.check_id.startswith("bench."):
                checks[result.check_id] = result.status.value
        if run.kind is RunKind.SCAN:
            scanned = True
            for finding in run.findings:
                text = f"{finding.code} {finding.location}".strip()
                if finding.severity is Severity.BLOCKER:
                    blockers.append(text)
                elif finding.severity is Severity.WARN:
                    warnings.append(text)
        for m in run.measurements:
            if m.metric == "max_batch":
                max_batch = max(max_batch or 0.0, m.summary.median)
            elif m.metric == "peak_memory":
                peak = max(peak or 0.0, m.summary.median)
        if run.fingerprint is not None and device_memory is None:
            memory = next((d.memory_bytes.value for d in run.fingerprint.devices if d.memory_bytes.value), None)
            device_memory = float(memory) if memory else None
    return SideSummary(side.name, side.device, tuple(run.id for run in side.runs), checks, tuple(blockers),
                       tuple(warnings), scanned, max_batch, peak, device_memory)


def _metric_rows(baseline: Side, other: Side) -> tuple[list[MetricComparison], list[str]]:
    ours, theirs = _measurements(baseline), _measurements(other)
    rows = []
    for key in sorted(ours.keys() & theirs.keys()):
        a, b = ours[key], theirs[key]
        rows.append(MetricComparison(a.metric, a.unit, a.workload,
                                     {k: v for k, v in a.settings.items() if k not in NOT_SETTINGS},
                                     a.summary.median, b.summary.median, len(a.samples), len(b.samples),
                                     median_ratio(a.samples, b.samples), a.metric not in LOWER_IS_BETTER))
    unmatched = _one_sided(baseline.name, ours, theirs) + _one_sided(other.name, theirs, ours)
    return rows + _best_batch_rows(ours, theirs), unmatched


def _one_sided(name: str, found: dict[str, Measurement], elsewhere: dict[str, Measurement]) -> list[str]:
    """``mlp (batch_size=16, ...) on NAME only: samples_per_s, step_time`` for settings the other side lacks."""
    groups: dict[str, list[str]] = {}
    for key, m in found.items():
        if key not in elsewhere:
            settings = ", ".join(f"{k}={v}" for k, v in sorted(m.settings.items())
                                 if k not in NOT_SETTINGS and k not in ("workload", "kind"))
            groups.setdefault(f"{m.workload or 'workload'} ({settings})", []).append(m.metric)
    return [f"{what} on {name} only: {', '.join(sorted(metrics))}" for what, metrics in sorted(groups.items())]


THROUGHPUT = ("tokens_per_s", "samples_per_s")


def _best_by_workload(found: dict[str, Measurement]) -> dict[str, Measurement]:
    """Per workload setting other than the batch size: the throughput measurement with the best median."""
    best: dict[str, Measurement] = {}
    for m in found.values():
        if m.metric in THROUGHPUT and "batch_size" in m.settings:
            key = alignment_key(_without_batch(m))
            if key not in best or m.summary.median > best[key].summary.median:
                best[key] = m
    return best


def _without_batch(m: Measurement) -> Measurement:
    """The measurement with its batch size left out of the settings (for grouping only)."""
    return dataclasses.replace(m, settings={k: v for k, v in m.settings.items() if k != "batch_size"})


def _best_batch_rows(ours: dict[str, Measurement], theirs: dict[str, Measurement]) -> list[MetricComparison]:
    """Throughput of a workload both sides measured, but never at the same batch size: each side at its best."""
    exact = {alignment_key(_without_batch(m)) for key, m in ours.items() if key in theirs}
    a_best, b_best = _best_by_workload(ours), _best_by_workload(theirs)
    rows = []
    for key in sorted(a_best.keys() & b_best.keys() - exact):
        a, b = a_best[key], b_best[key]
        settings = {k: v for k, v in a.settings.items() if k not in NOT_SETTINGS}
        settings["batch_size"] = f"{a.settings['batch_size']} vs {b.settings['batch_size']}"
        rows.append(MetricComparison(a.metric, a.unit, a.workload, settings, a.summary.median, b.summary.median,
                                     len(a.samples), len(b.samples), median_ratio(a.samples, b.samples), True,
                                     "each side's best batch size"))
    return rows


def _throughput(side: Side) -> dict[str, tuple[str, float]]:
    """Per aligned workload: the best unit to price (tokens over samples) and its median rate."""
    rates: dict[str, tuple[str, float]] = {}
    for m in _measurements(side).values():
        if m.metric in ("tokens_per_s", "samples_per_s"):
            workload = _describe(m).replace(f" {m.metric} ", " ")
            unit = "tokens" if m.metric == "tokens_per_s" else "samples"
            if unit == "tokens" or workload not in rates:
                rates[workload] = (unit, m.summary.median)
    return rates


def _costs(side: Side, inputs: CostInputs) -> list[CostLine]:
    price = price_for(inputs, (side.name, side.device, *(run.id for run in side.runs),
                               *(run.label for run in side.runs)))
    if price is None:
        return []
    return [cost_line(side.name, workload, price, unit, rate, inputs)
            for workload, (unit, rate) in sorted(_throughput(side).items())]


def _headline(rows: Sequence[MetricComparison]) -> MetricComparison | None:
    for metric in ("tokens_per_s", "samples_per_s", "step_time"):
        candidates = [row for row in rows if row.metric == metric]
        if candidates:
            return max(candidates, key=lambda row: row.baseline_count + row.other_count)
    return rows[0] if rows else None


def paper_peaks(baseline: Side, other: Side, rows: Sequence[MetricComparison],
                gpus: Sequence[GpuEntry]) -> PaperPeaks | None:
    """Both GPUs' catalogue peaks for the headline workload's precision, when the catalogue has both."""
    from gpuready.compat.catalogue import PEAK_KEY_OF_PRECISION, peak_of

    headline = _headline(rows)
    if headline is None:
        return None
    dtype = PEAK_KEY_OF_PRECISION.get(str(headline.settings.get("precision", "fp32")), "fp32")
    base, mine = (peak_of(gpus, side.device, dtype, side.compute_units) for side in (baseline, other))
    if base is None or mine is None:
        return None
    return PaperPeaks(dtype, base.value, mine.value, base.confirmed and mine.confirmed)


def _conclusion(baseline: SideSummary, other: SideSummary, rows: Sequence[MetricComparison],
                costs: Sequence[CostLine], parity: Sequence[tuple[str, str, str]],
                paper: PaperPeaks | None = None) -> str:
    parts = []
    headline = _headline(rows)
    if headline is None:
        parts.append(f"{other.name} and {baseline.name} share no workload measured with the same settings, "
                     "so their speed cannot be compared")
    else:
        advantage = headline.advantage
        slower = advantage.ratio < 1 and not advantage.within_noise
        shown = advantage.inverted() if slower else advantage
        interval = (f" (CI {shown.low:.2f}-{shown.high:.2f})" if shown.low is not None and shown.high is not None
                    else " (too few samples for an interval)")
        subject = f"{headline.workload} {headline.metric}"
        if headline.alignment != "same settings":
            subject += f" at {headline.alignment} ({headline.settings.get('batch_size')})"
        if advantage.within_noise:
            parts.append(f"{other.name} and {baseline.name} are within noise of each other on {subject} "
                         f"({advantage.ratio:.2f}x, CI {advantage.low:.2f}-{advantage.high:.2f} contains 1)")
        else:
            word = "slower" if slower else "faster"
            parts.append(f"{other.name} is {shown.ratio:.2f}x {word} than {baseline.name}{interval} on {subject}")
        if paper is not None:
            parts.append(f"on paper the dense {paper.dtype} peaks give {paper.ratio:.2f}x ({paper.other_tflops:g} "
                         f"against {paper.baseline_tflops:g} TFLOP/s"
                         + ("" if paper.confirmed else "; a peak read in a third-party copy of vendor figures")
                         + f"), so the measured ratio is {advantage.ratio / paper.ratio:.0%} of the paper one")
    base_cost = {line.workload: line for line in costs if line.side == baseline.name}
    other_cost = {line.workload: line for line in costs if line.side == other.name}
    shared = sorted(base_cost.keys() & other_cost.keys())
    if shared:
        a, b = base_cost[shared[0]], other_cost[shared[0]]
        change = b.usd_per_million / a.usd_per_million - 1 if a.usd_per_million else 0.0
        word = "cheaper" if change < 0 else "more expensive"
        noisy = headline is not None and headline.advantage.within_noise
        parts.append(f"{abs(change):.0%} {word} per {b.unit[:-1]} (${b.usd_per_million:.4g} against "
                     f"${a.usd_per_million:.4g} per million" + (", a point estimate from throughputs that are within "
                                                                "noise of each other)" if noisy else ")"))
    if other.checks or baseline.checks:
        if parity:
            parts.append(f"{len(parity)} check(s) differ between the two ({', '.join(c for c, _, _ in parity[:3])})")
        else:
            parts.append(f"{other.checks_passed} of {len(other.checks)} checks pass on {other.name}")
    if other.scanned:
        parts.append(f"{len(other.blockers)} blocker(s) and {len(other.warnings)} warning(s) to port the code")
    return "; ".join(parts) + "."


def _parity(baseline: SideSummary, other: SideSummary) -> list[tuple[str, str, str]]:
    if not baseline.checks or not other.checks:
        return []  # parity needs checks on both sides; one side alone is shown as "not run"
    ids = sorted(baseline.checks.keys() | other.checks.keys())
    return [(check_id, baseline.checks.get(check_id, "not run"), other.checks.get(check_id, "not run"))
            for check_id in ids if baseline.checks.get(check_id) != other.checks.get(check_id)]


def compare_sides(sides: Sequence[Side], cost: CostInputs | None = None) -> Comparison:
    """The first side is the baseline; every other side is compared with it."""
    if len(sides) < 2:
        raise ValueError("a comparison needs at least two sides")
    from gpuready.compat.load import load_dataset

    summaries = [summarize_side(side) for side in sides]
    gpus = load_dataset().gpus.gpus
    costs = [line for side in sides for line in (_costs(side, cost) if cost else [])]
    pairings = []
    for side, summary in zip(sides[1:], summaries[1:], strict=True):
        rows, unmatched = _metric_rows(sides[0], side)
        pair_costs = tuple(line for line in costs if line.side in (sides[0].name, side.name))
        parity = _parity(summaries[0], summary)
        paper = paper_peaks(sides[0], side, rows, gpus)
        pairings.append(Pairing(sides[0].name, side.name, tuple(rows), tuple(unmatched), pair_costs,
                                tuple(parity), _conclusion(summaries[0], summary, rows, pair_costs, parity, paper),
                                paper))
    assumptions = []
    if cost:
        assumptions.append(f"prices are per GPU-hour; {cost.gpus_per_node} GPU(s) per node at "
                           f"{cost.utilisation:.0%} utilisation; throughput scales linearly across the node's GPUs")
    return Comparison(tuple(summaries), tuple(pairings), environment_rows(sides), tuple(assumptions))
