"""Robust statistics of samples (pure)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from gpuready.model import Measurement, Summary


def percentile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile of sorted values (q in [0, 1])."""
    if not ordered:
        raise ValueError("no samples")
    position = q * (len(ordered) - 1)
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(samples: Sequence[float]) -> Summary:
    """Median, p10, p90, mean and standard deviation."""
    ordered = sorted(samples)
    return Summary(count=len(ordered), median=statistics.median(ordered), p10=percentile(ordered, 0.1),
                   p90=percentile(ordered, 0.9), mean=statistics.fmean(ordered),
                   stdev=statistics.stdev(ordered) if len(ordered) > 1 else 0.0)


def measurement(metric: str, unit: str, samples: Sequence[float], workload: str = "",
                settings: dict[str, object] | None = None) -> Measurement:
    """A Measurement with its summary."""
    return Measurement(metric=metric, unit=unit, samples=tuple(float(s) for s in samples),
                       summary=summarize(samples), workload=workload, settings=dict(settings or {}))


def rate(amount: float, seconds: Sequence[float]) -> list[float]:
    """Per-sample rates (amount per second) from per-sample durations."""
    return [amount / s for s in seconds if s > 0]
