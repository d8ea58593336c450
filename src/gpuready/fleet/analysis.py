"""The fleet report's judgement: consistency of fingerprints across nodes, checks failing on some nodes, metric
outliers against the fleet median (a robust rule), baseline rules, nodes missing Runs the others have, and the
defective nodes with every reason. Pure functions of the collected digests."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpuready.fleet.baseline import Baseline, violations
from gpuready.fleet.collect import FAILED_STATUSES, Collected, RunDigest, Unreadable
from gpuready.fleet.config import ReportConfig

MAD_SCALE = 1.4826
"""Turns a median absolute deviation into a standard deviation's equivalent for normally spread values."""
MIN_NODES_FOR_OUTLIERS = 3
SAMPLE_NODES = 8
"""How many node names a table cell lists before it says "and N more"."""


@dataclass(frozen=True, slots=True)
class NodeSummary:
    """One row of the per-node table: the node's Runs' verdicts, failed checks and metric medians."""

    node: str
    jobs: tuple[str, ...]
    engine: str
    runs: int
    verdicts: tuple[tuple[str, str], ...]
    """(kind, verdict) of the node's newest Run of each kind."""
    checks: tuple[tuple[str, str], ...]
    """(check id, status) of the node's newest check Run."""
    metrics: tuple[tuple[str, float], ...]
    """(metric key, median over the node's Runs)."""
    fields: tuple[tuple[str, str], ...]

    @property
    def failed_checks(self) -> tuple[tuple[str, str], ...]:
        return tuple((check, status) for check, status in self.checks if status in FAILED_STATUSES)


@dataclass(frozen=True, slots=True)
class FieldSpread:
    """A fingerprint field whose value differs across nodes."""

    field: str
    values: tuple[tuple[str, int, tuple[str, ...]], ...]
    """(value, how many nodes, the first few of them), most common first."""
    majority: str | None
    """The value more than half the nodes hold, if one does; the others are the odd ones out."""
    odd_nodes: tuple[str, ...]
    ignored: bool = False


@dataclass(frozen=True, slots=True)
class CheckFailure:
    """A check that failed on some nodes."""

    check_id: str
    failed_on: tuple[tuple[str, str], ...]
    """(node, status)."""
    ran_on: int


@dataclass(frozen=True, slots=True)
class Outlier:
    node: str
    value: float
    relative: float
    """(value - median) / median."""
    robust_z: float
    """How many robust deviations from the median, in the bad direction (inf when every other node agrees)."""


@dataclass(frozen=True, slots=True)
class MetricSpread:
    """One metric across the fleet."""

    key: str
    label: str
    metric: str
    unit: str
    higher_is_better: bool
    nodes: int
    median: float
    mad: float
    minimum: float
    maximum: float
    outliers: tuple[Outlier, ...]


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a node is defective. ``kind``: check, outlier, consistency, baseline, verdict or missing."""

    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class FleetReport:
    """Everything ``gpuready fleet report`` shows."""

    fleet: str
    nodes: tuple[NodeSummary, ...]
    consistency: tuple[FieldSpread, ...]
    failures: tuple[CheckFailure, ...]
    metrics: tuple[MetricSpread, ...]
    defective: tuple[tuple[str, tuple[Reason, ...]], ...]
    unreadable: tuple[Unreadable, ...]
    mad_threshold: float
    min_relative: float
    baseline: str = ""
    """Where the baseline came from (its fleet run and file), if one was used."""
    provenance: tuple[str, ...] = ("measured",)
    """Where the Runs' numbers came from (measured, pasted, synthetic): a report of made-up Runs says so."""

    @property
    def fleet_wide(self) -> tuple[Reason, ...]:
        """Reasons every node shares (with more than one node): a problem of the whole fleet, not an odd node out."""
        if len(self.nodes) < 2 or len(self.defective) < len(self.nodes):
            return ()
        common = set(self.defective[0][1])
        for _, reasons in self.defective[1:]:
            common &= set(reasons)
        return tuple(r for r in self.defective[0][1] if r in common)

    @property
    def healthy(self) -> bool:
        return not self.defective


def _newest(digests: Sequence[RunDigest]) -> RunDigest:
    return max(digests, key=lambda d: (d.created_at, d.id))


def summarize_nodes(digests: Iterable[RunDigest]) -> list[NodeSummary]:
    """Each node's Runs folded into one row: newest verdict per kind, failed checks of its newest check Runs, the
    median of every metric over its Runs, its newest fingerprint's fields."""
    by_node: dict[str, list[RunDigest]] = defaultdict(list)
    for found in digests:
        by_node[found.node].append(found)
    rows = []
    for node in sorted(by_node):
        runs = by_node[node]
        by_kind: dict[str, list[RunDigest]] = defaultdict(list)
        for found in runs:
            by_kind[found.kind].append(found)
        verdicts = tuple((kind, _newest(items).verdict) for kind, items in sorted(by_kind.items()))
        checks = tuple(sorted(_newest(by_kind["check"]).checks)) if "check" in by_kind else ()
        values: dict[str, list[float]] = defaultdict(list)
        for found in runs:
            for metric in found.metrics:
                values[metric.key].append(metric.median)
        with_fields = [d for d in runs if d.fields]
        fields = _newest(with_fields).fields if with_fields else ()
        rows.append(NodeSummary(node, tuple(sorted({d.job for d in runs if d.job})),
                                next((d.engine for d in runs if d.engine), ""), len(runs), verdicts,
                                checks,
                                tuple((key, statistics.median(v)) for key, v in sorted(values.items())), fields))
    return rows


def consistency(nodes: Sequence[NodeSummary], ignore: Sequence[str] = ()) -> list[FieldSpread]:
    """Every fingerprint field that is not the same on every node that reported a fingerprint. A node that lacks a
    field others have counts as the value ``(not seen)``."""
    reporting = [n for n in nodes if n.fields]
    holders: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for node in reporting:
        for field, value in node.fields:
            holders[field][value].append(node.node)
    spreads = []
    total = len(reporting)
    for field in sorted(holders):
        values = holders[field]
        seen = sum(len(v) for v in values.values())
        if seen < total:
            having = {n for v in values.values() for n in v}
            values["(not seen)"] = [n.node for n in reporting if n.node not in having]
        if len(values) < 2:
            continue
        ranked = sorted(values.items(), key=lambda item: (-len(item[1]), item[0]))
        majority = ranked[0][0] if len(ranked[0][1]) * 2 > total else None
        odd = tuple(sorted(n for value, names in ranked if value != majority for n in names)) if majority else ()
        spreads.append(FieldSpread(field, tuple((value, len(names), tuple(sorted(names)[:SAMPLE_NODES]))
                                               for value, names in ranked), majority, odd,
                                   ignored=any(field == p or field.startswith(p + ".") for p in ignore)))
    return spreads


def failures(nodes: Sequence[NodeSummary]) -> list[CheckFailure]:
    """Checks that failed (fail, error, timeout, crash) on at least one node, with how many nodes ran them."""
    ran: Counter[str] = Counter()
    for node in nodes:
        ran.update({check for check, _ in node.checks})
    failed: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for node in nodes:
        for check_id, status in node.failed_checks:
            failed[check_id].append((node.node, status))
    return [CheckFailure(check_id, tuple(sorted(on)), ran[check_id] or len(on))
            for check_id, on in sorted(failed.items())]


def outliers(nodes: Sequence[NodeSummary], digests: Sequence[RunDigest], config: ReportConfig) -> list[MetricSpread]:
    """Per metric: the fleet median, the median absolute deviation, and the nodes that sit more than
    ``mad_threshold`` robust deviations (and ``min_relative``) from the median on the bad side."""
    info = {m.key: m for d in digests for m in d.metrics}
    per_key: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for node in nodes:
        for key, value in node.metrics:
            per_key[key].append((node.node, value))
    spreads = []
    for key in sorted(per_key):
        pairs = per_key[key]
        values = [v for _, v in pairs]
        median = statistics.median(values)
        mad = statistics.median([abs(v - median) for v in values])
        metric = info[key]
        found = []
        if len(pairs) >= MIN_NODES_FOR_OUTLIERS:
            sigma = MAD_SCALE * mad
            for name, value in pairs:
                worse = (median - value) if metric.higher_is_better else (value - median)
                if worse <= 0:
                    continue
                relative = (value - median) / abs(median) if median else float("inf")
                z = worse / sigma if sigma > 0 else float("inf")
                if z > config.mad_threshold and abs(relative) >= config.min_relative:
                    found.append(Outlier(name, value, relative, z))
        spreads.append(MetricSpread(key, metric.label, metric.metric, metric.unit, metric.higher_is_better,
                                    len(pairs), median, mad, min(values), max(values),
                                    tuple(sorted(found, key=lambda o: -abs(o.relative)))))
    return spreads


def _number(value: float, unit: str) -> str:
    return f"{value:.4g} {unit}".strip()


def defective_nodes(nodes: Sequence[NodeSummary], spreads: Sequence[FieldSpread], failed: Sequence[CheckFailure],
                    metrics: Sequence[MetricSpread], baseline: Baseline | None) -> list[tuple[str, tuple[Reason, ...]]]:
    """Every node with at least one reason, and the reasons, in a stable order."""
    reasons: dict[str, list[Reason]] = defaultdict(list)
    fields_of = {n.node: dict(n.fields) for n in nodes}
    kinds_seen: Counter[str] = Counter(kind for node in nodes for kind, _ in node.verdicts)
    for node in nodes:
        kinds = {kind for kind, _ in node.verdicts}
        for kind, count in sorted(kinds_seen.items()):
            if kind not in kinds:
                reasons[node.node].append(Reason("missing", f"no {kind} Run ({count} other nodes have one)"))
        for kind, verdict in node.verdicts:
            if verdict in ("NOT READY", "FAIL", "REGRESSION", "BLOCKED"):
                reasons[node.node].append(Reason("verdict", f"{kind}: {verdict}"))
    for failure in failed:
        for name, status in failure.failed_on:
            reasons[name].append(Reason("check", f"check {failure.check_id}: {status}"))
    for spread in spreads:
        if spread.ignored or spread.majority is None:
            continue
        for name in spread.odd_nodes:
            held = fields_of[name].get(spread.field, "(not seen)")
            reasons[name].append(Reason("consistency", f"{spread.field} is {held!r} where most nodes have "
                                                       f"{spread.majority!r}"))
    for metric in metrics:
        for outlier in metric.outliers:
            reasons[outlier.node].append(Reason(
                "outlier", f"{metric.label}: {_number(outlier.value, metric.unit)} is {abs(outlier.relative):.1%} "
                           f"{'below' if metric.higher_is_better else 'above'} the fleet median "
                           f"{_number(metric.median, metric.unit)}"))
    if baseline is not None:
        for node in nodes:
            for text in violations(baseline, fields_of[node.node], dict(node.metrics), dict(node.checks)):
                reasons[node.node].append(Reason("baseline", text))
    return [(name, tuple(reasons[name])) for name in sorted(reasons) if reasons[name]]


def analyse(collected: Collected, config: ReportConfig | None = None, baseline: Baseline | None = None) -> FleetReport:
    """The fleet report of a collected fleet run."""
    config = config or ReportConfig()
    nodes = summarize_nodes(collected.digests)
    spreads = consistency(nodes, config.ignore_fields)
    failed = failures(nodes)
    metrics = outliers(nodes, collected.digests, config)
    defective = defective_nodes(nodes, spreads, failed, metrics, baseline)
    return FleetReport(collected.fleet, tuple(nodes), tuple(spreads), tuple(failed), tuple(metrics), tuple(defective),
                       collected.unreadable, config.mad_threshold, config.min_relative,
                       baseline.described() if baseline else "",
                       tuple(sorted({d.provenance for d in collected.digests})) or ("measured",))
