"""Targets written down before choosing a platform: ``tokens_per_s>=5000``, ``p90_step_ms<=120``."""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpuready.errors import InputError
from gpuready.model import Measurement

_OPERATORS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
_TARGET = re.compile(r"^\s*([a-z0-9_]+)\s*(>=|<=|>|<)\s*([0-9.eE+-]+)\s*$")
# target name -> (measurement metric, which statistic, scale to the target's unit)
METRICS = {
    "tokens_per_s": ("tokens_per_s", "median", 1.0),
    "samples_per_s": ("samples_per_s", "median", 1.0),
    "median_step_ms": ("step_time", "median", 1e3),
    "p90_step_ms": ("step_time", "p90", 1e3),
    "p10_step_ms": ("step_time", "p10", 1e3),
    "peak_mem_gb": ("peak_memory", "median", 1e-9),
    "mfu": ("mfu", "median", 1.0),
    "tflops": ("achieved_tflops", "median", 1.0),
}


@dataclass(frozen=True, slots=True)
class Target:
    """``metric op value``."""

    name: str
    op: str
    value: float

    def __str__(self) -> str:
        return f"{self.name}{self.op}{self.value:g}"


@dataclass(frozen=True, slots=True)
class TargetResult:
    """A target judged against a measurement."""

    target: Target
    measured: float | None
    spread: float | None
    met: bool
    detail: str


def parse_target(text: str) -> Target:
    """``tokens_per_s>=5000`` -> Target; bad text raises InputError naming the known metrics."""
    match = _TARGET.match(text)
    if not match or match.group(1) not in METRICS:
        raise InputError(f"{text!r}: expected METRIC(>=|<=|>|<)NUMBER with METRIC one of {', '.join(METRICS)}",
                         field="targets")
    try:
        value = float(match.group(3))
    except ValueError:
        raise InputError(f"{text!r}: {match.group(3)!r} is not a number", field="targets") from None
    return Target(match.group(1), match.group(2), value)


def judge_targets(targets: Sequence[Target], measurements: Sequence[Measurement]) -> list[TargetResult]:
    """Each target against the measurement it names (the last one of that metric, e.g. the largest batch)."""
    results = []
    for target in targets:
        metric, statistic, scale = METRICS[target.name]
        found = [m for m in measurements if m.metric == metric]
        if not found:
            results.append(TargetResult(target, None, None, False, f"no {metric} was measured"))
            continue
        summary = found[-1].summary
        value = getattr(summary, statistic) * scale
        met = bool(_OPERATORS[target.op](value, target.value))
        results.append(TargetResult(target, value, summary.spread, met,
                                    f"{target.name} = {value:.4g} ({statistic}; spread {summary.spread:.1%})"))
    return results
