"""A fleet baseline: rules every healthy node meets, written from a healthy fleet run (``gpuready fleet baseline``)
and checked by later reports (``--baseline``). In the spirit of SuperBench's rule files, a small YAML document:

    fleet_baseline: 1
    made_from: f3a9c2d1e0b4
    created: "2026-12-01"
    metrics:    # a node fails when its median is more than `threshold` (a fraction) worse than `baseline`
      - {metric: "gemm_tflops_bf16 (dtype=bf16)", baseline: 612.5, unit: TFLOP/s, higher_is_better: true,
         threshold: 0.1}
    checks:     # checks (glob patterns of ids) that must pass on every node
      - "torch.*"
    fields:     # fingerprint fields that must hold exactly this value
      stack.rocm_version: "6.4.1"
"""

from __future__ import annotations

import datetime
import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuready.errors import InputError

if TYPE_CHECKING:
    from gpuready.fleet.analysis import FleetReport

FORMAT = 1
MAX_BASELINE_BYTES = 8 * 2**20
DEFAULT_THRESHOLD = 0.1
BASELINE_FIELDS = ("host.os_name", "host.kernel", "host.container", "devices.", "stack.", "frameworks.")
"""Fingerprint fields a baseline pins when the whole healthy fleet agreed on them (packages and environment
variables are left to the consistency table: they change too often to be a rule)."""


@dataclass(frozen=True, slots=True)
class MetricRule:
    metric: str
    baseline: float
    unit: str
    higher_is_better: bool
    threshold: float


@dataclass(frozen=True, slots=True)
class Baseline:
    metrics: tuple[MetricRule, ...] = ()
    checks: tuple[str, ...] = ()
    fields: tuple[tuple[str, str], ...] = ()
    made_from: str = ""
    created: str = ""
    source: str = ""

    def described(self) -> str:
        where = f" ({self.source})" if self.source else ""
        return f"baseline from fleet run {self.made_from or '?'} of {self.created or '?'}{where}"


def violations(baseline: Baseline, fields: Mapping[str, str], metrics: Mapping[str, float],
               checks: Mapping[str, str]) -> list[str]:
    """What a node breaks of the baseline: a metric more than its threshold worse (or not measured), a required
    check not passing (or not run), a pinned field with another value."""
    found = []
    for rule in baseline.metrics:
        value = metrics.get(rule.metric)
        if value is None:
            found.append(f"{rule.metric}: not measured (baseline {rule.baseline:.4g} {rule.unit})")
            continue
        limit = rule.baseline * (1 - rule.threshold) if rule.higher_is_better else rule.baseline * (1 + rule.threshold)
        if (value < limit) if rule.higher_is_better else (value > limit):
            change = (value - rule.baseline) / abs(rule.baseline) if rule.baseline else float("inf")
            found.append(f"{rule.metric}: {value:.4g} {rule.unit} is {abs(change):.1%} "
                         f"{'below' if rule.higher_is_better else 'above'} the baseline {rule.baseline:.4g} "
                         f"(allowed {rule.threshold:.0%})")
    for pattern in baseline.checks:
        matching = {c: s for c, s in checks.items() if fnmatch.fnmatchcase(c, pattern)}
        if not matching:
            found.append(f"checks {pattern}: not run")
        for check, status in sorted(matching.items()):
            if status not in ("pass", "skip"):
                found.append(f"check {check}: {status} (the baseline requires a pass)")
    for field, expected in baseline.fields:
        held = fields.get(field)
        if held != expected:
            found.append(f"{field} is {held if held is not None else '(not seen)'!r}; the baseline has {expected!r}")
    return found


def make_baseline(report: FleetReport, threshold: float = DEFAULT_THRESHOLD) -> Baseline:
    """A baseline from a healthy fleet run: every metric's fleet median, the checks that passed everywhere, and
    the driver-near fingerprint fields the whole fleet agreed on."""
    if not 0 < threshold < 1:
        raise InputError(f"expected a fraction between 0 and 1, e.g. 0.1; got {threshold!r}", field="threshold")
    metrics = tuple(MetricRule(m.key, m.median, m.unit, m.higher_is_better, threshold) for m in report.metrics)
    passed: set[str] | None = None
    for node in report.nodes:
        if node.checks:
            here = {check for check, status in node.checks if status == "pass"}
            passed = here if passed is None else passed & here
    differing = {spread.field for spread in report.consistency}
    shared: dict[str, str] = {}
    for node in report.nodes:
        for field, value in node.fields:
            if field not in differing and field.startswith(BASELINE_FIELDS):
                shared.setdefault(field, value)
    return Baseline(metrics, tuple(sorted(passed or ())), tuple(sorted(shared.items())), report.fleet,
                    datetime.date.today().isoformat())


def dump_baseline(baseline: Baseline) -> str:
    import yaml

    document: dict[str, Any] = {
        "fleet_baseline": FORMAT, "made_from": baseline.made_from, "created": baseline.created,
        "metrics": [{"metric": r.metric, "baseline": r.baseline, "unit": r.unit,
                     "higher_is_better": r.higher_is_better, "threshold": r.threshold} for r in baseline.metrics],
        "checks": list(baseline.checks), "fields": dict(baseline.fields)}
    text: str = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120)
    return text


def _fail(path: Path, field: str, expected: str) -> InputError:
    return InputError(f"expected {expected}", source=str(path), field=field)


def _number(value: Any, path: Path, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise _fail(path, field, f"a number; got {str(value)[:60]!r}")
    return float(value)


def load_baseline(path: Path) -> Baseline:
    """Read a baseline file; a wrong shape raises InputError naming the file and the field."""
    import yaml

    from gpuready.files import read_text

    text = read_text(path, MAX_BASELINE_BYTES, "baseline file")
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise InputError(f"not YAML{where}: {getattr(error, 'problem', None) or error}", source=str(path)) from None
    if not isinstance(document, dict) or document.get("fleet_baseline") != FORMAT:
        raise _fail(path, "fleet_baseline", f"a fleet baseline (fleet_baseline: {FORMAT}) written by "
                                            "'gpuready fleet baseline'")
    rules = []
    metrics = document.get("metrics") or []
    if not isinstance(metrics, list):
        raise _fail(path, "metrics", "a list of rules")
    for index, item in enumerate(metrics):
        where = f"metrics[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("metric"), str):
            raise _fail(path, f"{where}.metric", "a metric name")
        threshold = _number(item.get("threshold", DEFAULT_THRESHOLD), path, f"{where}.threshold")
        if not 0 <= threshold < 1:
            raise _fail(path, f"{where}.threshold", f"a fraction from 0 to 1; got {threshold}")
        better = item.get("higher_is_better", True)
        if not isinstance(better, bool):
            raise _fail(path, f"{where}.higher_is_better", "true or false")
        rules.append(MetricRule(item["metric"], _number(item.get("baseline"), path, f"{where}.baseline"),
                                str(item.get("unit", "")), better, threshold))
    checks = document.get("checks") or []
    if not isinstance(checks, list) or not all(isinstance(c, str) and c for c in checks):
        raise _fail(path, "checks", "a list of check ids or glob patterns")
    fields = document.get("fields") or {}
    if not isinstance(fields, dict) or not all(isinstance(k, str) and isinstance(v, (str, int, float))
                                               and not isinstance(v, bool) for k, v in fields.items()):
        raise _fail(path, "fields", "a mapping of fingerprint field to value")
    return Baseline(tuple(rules), tuple(checks), tuple(sorted((k, str(v)) for k, v in fields.items())),
                    str(document.get("made_from", "")), str(document.get("created", "")), str(path))
