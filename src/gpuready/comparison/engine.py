"""Align the measurements of several sides and judge them against the first one (the baseline)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gpuready.comparison.cost import CostInputs, CostLine, cost_line, price_for
from gpuready.comparison.environment import environment_rows
from gpuready.comparison.model import Comparison, MetricComparison, Pairing, PaperPeaks, Side, SideSummary
from gpuready.model import Measurement, RunKind, Severity
from gpuready.model.identity import (
    DEFAULT_FRAMEWORK,
    IMPLEMENTATION_SETTINGS,
    alignment_key,
    flops_source,
    framework_of,
    same_work,
    settings_text,
    workload_key,
)
from gpuready.model.metrics import comparable, higher_is_better
from gpuready.stats import is_noisy, median_ratio

if TYPE_CHECKING:
    from gpuready.compat.schema import GpuEntry

HIDDEN_SETTINGS = ("model_config", "source_hash")
"""Identity settings that are hashes: they decide alignment but say nothing to a reader."""
NOISY_SPREAD = 0.5
"""Default threshold of a noisy measurement (see ``CompareConfig.noisy_spread``)."""


def _describe(m: Measurement) -> str:
    return f"{m.workload or 'workload'} {m.metric} ({settings_text(m.settings, ('workload', *HIDDEN_SETTINGS))})"


def _measurements(side: Side) -> dict[str, Measurement]:
    """The side's measurements by alignment key (a later Run replaces an earlier one for the same key)."""
    found: dict[str, Measurement] = {}
    for run in side.runs:
        for m in run.measurements:
            if comparable(m.metric) and m.samples:
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
    provenances = {run.provenance.value for run in side.runs}
    provenance = next((p for p in ("synthetic", "pasted") if p in provenances), "measured")
    return SideSummary(side.name, side.device, tuple(run.id for run in side.runs), checks, tuple(blockers),
                       tuple(warnings), scanned, max_batch, peak, device_memory, provenance)


def _row(a: Measurement, b: Measurement, noise: float, settings: dict[str, object] | None = None,
         alignment: str = "same settings") -> MetricComparison:
    shown = {k: v for k, v in (settings if settings is not None else a.settings).items() if k not in HIDDEN_SETTINGS}
    return MetricComparison(a.metric, a.unit, a.workload, shown, a.summary.median, b.summary.median, len(a.samples),
                            len(b.samples), median_ratio(a.samples, b.samples), higher_is_better(a.metric),
                            alignment, noisy=is_noisy(a.summary, noise) or is_noisy(b.summary, noise))


def _pairs(ours: dict[str, Measurement], theirs: dict[str, Measurement],
           view: Callable[[Measurement], Measurement] = lambda m: m) -> list[tuple[Measurement, Measurement]]:
    """Measurements of the two sides under the same key; then, of those left on both sides, two frameworks'
    measurements that agree on everything but the framework and its compilation (``workload_key``), when exactly one
    on each side does."""
    pairs = [(ours[key], theirs[key]) for key in sorted(ours.keys() & theirs.keys())]
    left: list[dict[str, list[Measurement]]] = [{}, {}]
    for group, found in zip(left, (ours, theirs), strict=True):
        for key, m in found.items():
            if key not in ours.keys() & theirs.keys():
                group.setdefault(workload_key(view(m)), []).append(m)
    for key in sorted(left[0].keys() & left[1].keys()):
        if len(left[0][key]) == 1 and len(left[1][key]) == 1 and framework_of(left[0][key][0]) != framework_of(
                left[1][key][0]):
            pairs.append((left[0][key][0], left[1][key][0]))
    return pairs


def _implementations(a: Measurement, b: Measurement) -> tuple[dict[str, object], str]:
    """The settings to show (an implementation setting that differs as ``torch vs jax``) and the alignment's name."""
    settings = dict(a.settings)
    for name in IMPLEMENTATION_SETTINGS:
        if a.settings.get(name) != b.settings.get(name):
            settings[name] = f"{a.settings.get(name, DEFAULT_FRAMEWORK if name == 'framework' else '?')} vs " \
                             f"{b.settings.get(name, DEFAULT_FRAMEWORK if name == 'framework' else '?')}"
    frameworks = (framework_of(a), framework_of(b))
    return settings, "same settings" if frameworks[0] == frameworks[1] else " vs ".join(frameworks)


def _metric_rows(baseline: Side, other: Side, noise: float = NOISY_SPREAD) -> tuple[list[MetricComparison], list[str]]:
    ours, theirs = _measurements(baseline), _measurements(other)
    rows = []
    different: dict[str, str] = {}
    aligned: tuple[set[str], set[str]] = (set(), set())
    for a, b in _pairs(ours, theirs):
        if a.metric == "achieved_tflops" and flops_source(a) != flops_source(b):
            different[f"{a.workload} achieved_tflops ({settings_text(a.settings, ('workload', *HIDDEN_SETTINGS))})"] \
                = f"FLOPs counted by {flops_source(a)} against {flops_source(b)}"
            continue
        if not same_work(a, b):
            different[f"{a.workload} ({settings_text(a.settings, ('workload', *HIDDEN_SETTINGS))})"] = (
                f"{a.annotations.get('flops_per_step'):.4g} vs {b.annotations.get('flops_per_step'):.4g} FLOPs per "
                "step")
            continue
        rows.append(_row(a, b, noise, *_implementations(a, b)))
        aligned[0].add(alignment_key(a))
        aligned[1].add(alignment_key(b))
    unmatched = [f"{what}: " + (why if why.startswith("FLOPs counted") else f"the settings agree but the work "
                                                                              f"differs ({why})") + "; not compared"
                 for what, why in sorted(different.items())]
    unmatched += _one_sided(baseline.name, ours, aligned[0]) + _one_sided(other.name, theirs, aligned[1])
    return rows + _best_batch_rows(ours, theirs, aligned, noise), unmatched


def _one_sided(name: str, found: dict[str, Measurement], aligned: set[str]) -> list[str]:
    """``mlp (batch_size=16, ...) on NAME only: samples_per_s, step_time`` for what was not compared."""
    groups: dict[str, list[str]] = {}
    for key, m in found.items():
        if key not in aligned:
            settings = settings_text(m.settings, ("workload", *HIDDEN_SETTINGS))
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


def _best_batch_rows(ours: dict[str, Measurement], theirs: dict[str, Measurement], aligned: tuple[set[str], set[str]],
                     noise: float) -> list[MetricComparison]:
    """Throughput of a workload both sides measured, but never at the same batch size: each side at its best."""
    exact = [{alignment_key(_without_batch(m)) for key, m in found.items() if key in done}
             for found, done in zip((ours, theirs), aligned, strict=True)]
    a_best, b_best = ({k: m for k, m in _best_by_workload(found).items() if k not in done}
                      for found, done in zip((ours, theirs), exact, strict=True))
    rows = []
    for a, b in _pairs(a_best, b_best, _without_batch):
        if not same_work(a, b):
            continue
        settings, frameworks = _implementations(a, b)
        settings["batch_size"] = f"{a.settings['batch_size']} vs {b.settings['batch_size']}"
        alignment = "each side's best batch size" + ("" if frameworks == "same settings" else f", {frameworks}")
        rows.append(_row(a, b, noise, settings, alignment))
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
        if headline.alignment.startswith("each side's best batch size"):
            subject += f" at each side's best batch size ({headline.settings.get('batch_size')})"
        if " vs " in str(headline.settings.get("framework", "")):
            subject += f" ({headline.settings['framework']})"
        if headline.noisy:
            parts.append(f"the step times of {subject} are too noisy on one side or both to state a speed ratio "
                         f"(measured {advantage.ratio:.2f}x); measure again on an idle machine")
        elif advantage.within_noise:
            parts.append(f"{other.name} and {baseline.name} are within noise of each other on {subject} "
                         f"({advantage.ratio:.2f}x, CI {advantage.low:.2f}-{advantage.high:.2f} contains 1)")
        else:
            word = "slower" if slower else "faster"
            parts.append(f"{other.name} is {shown.ratio:.2f}x {word} than {baseline.name}{interval} on {subject}")
        if paper is not None and not headline.noisy:
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
        noisy = headline is not None and (headline.advantage.within_noise or headline.noisy)
        parts.append(f"{abs(change):.0%} {word} per {b.unit[:-1]} (${b.usd_per_million:.4g} against "
                     f"${a.usd_per_million:.4g} per million" + (", a point estimate from throughputs that are within "
                                                                "noise of each other)" if noisy else ")"))
    if other.checks or baseline.checks:
        if parity:
            parts.append(f"{len(parity)} check(s) differ between the two ({', '.join(c for c, _, _ in parity[:3])})")
        else:
            skipped = sum(1 for status in other.checks.values() if status == "skip")
            failed = len(other.checks) - other.checks_passed - skipped
            parts.append(f"{other.checks_passed} check(s) pass on {other.name}" + (f", {failed} fail" if failed else "")
                         + (f", {skipped} skipped" if skipped else ""))
    if other.scanned:
        parts.append(f"{len(other.blockers)} blocker(s) and {len(other.warnings)} warning(s) to port the code")
    return "; ".join(parts) + "."


def _parity(baseline: SideSummary, other: SideSummary) -> list[tuple[str, str, str]]:
    if not baseline.checks or not other.checks:
        return []  # parity needs checks on both sides; one side alone is shown as "not run"
    ids = sorted(baseline.checks.keys() | other.checks.keys())
    return [(check_id, baseline.checks.get(check_id, "not run"), other.checks.get(check_id, "not run"))
            for check_id in ids if baseline.checks.get(check_id) != other.checks.get(check_id)]


def compare_sides(sides: Sequence[Side], gpus: Sequence[GpuEntry], cost: CostInputs | None = None,
                  noise: float = NOISY_SPREAD) -> Comparison:
    """The first side is the baseline; every other side is compared with it. ``gpus`` is the catalogue to read the
    vendors' peaks from; ``noise`` the step-time spread above which a measurement is too noisy to state a ratio."""
    if len(sides) < 2:
        raise ValueError("a comparison needs at least two sides")
    summaries = [summarize_side(side) for side in sides]
    costs = [line for side in sides for line in (_costs(side, cost) if cost else [])]
    pairings = []
    for side, summary in zip(sides[1:], summaries[1:], strict=True):
        rows, unmatched = _metric_rows(sides[0], side, noise)
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
