"""Statistics of samples, in one place: percentiles, summaries, rates, and the ratio of medians with a bootstrap
interval. Pure; numpy does the resampling when it is installed (the pure-Python path gives the same kind of
interval, seeded the same way, just slower)."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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
                settings: dict[str, Any] | None = None, annotations: dict[str, Any] | None = None) -> Measurement:
    """A Measurement with its summary."""
    return Measurement(metric=metric, unit=unit, samples=tuple(float(s) for s in samples),
                       summary=summarize(samples), workload=workload, settings=dict(settings or {}),
                       annotations=dict(annotations or {}))


def rate(amount: float, seconds: Sequence[float]) -> list[float]:
    """Per-sample rates (amount per second) from per-sample durations."""
    return [amount / s for s in seconds if s > 0]


@dataclass(frozen=True, slots=True)
class RatioInterval:
    """``median(b) / median(a)`` and its bootstrap interval; the interval is ``None`` with too few samples."""

    ratio: float
    low: float | None
    high: float | None
    confidence: float = 0.95

    @property
    def within_noise(self) -> bool | None:
        """True when the interval contains 1.0; ``None`` when there is no interval."""
        if self.low is None or self.high is None:
            return None
        return self.low <= 1.0 <= self.high

    def inverted(self) -> RatioInterval:
        """The same comparison read the other way round (a / b)."""
        return RatioInterval(1.0 / self.ratio if self.ratio else float("inf"),
                             1.0 / self.high if self.high else None, 1.0 / self.low if self.low else None,
                             self.confidence)


MIN_SAMPLES = 3
"""Fewer samples than this on either side gives a ratio without an interval."""


def _bootstrap_ratios(a: Sequence[float], b: Sequence[float], resamples: int, seed: int) -> list[float]:
    """Sorted ratios of resampled medians (each side resampled with replacement on its own)."""
    try:
        import numpy
    except ImportError:
        generator = random.Random(seed)
        ratios = []
        for _ in range(resamples):
            resampled_a = statistics.median(generator.choices(a, k=len(a)))
            resampled_b = statistics.median(generator.choices(b, k=len(b)))
            if resampled_a:
                ratios.append(resampled_b / resampled_a)
        return sorted(ratios)
    rng = numpy.random.default_rng(seed)
    left = numpy.median(rng.choice(numpy.asarray(a, dtype=float), size=(resamples, len(a))), axis=1)
    right = numpy.median(rng.choice(numpy.asarray(b, dtype=float), size=(resamples, len(b))), axis=1)
    keep = left != 0
    return sorted(float(x) for x in right[keep] / left[keep])


def median_ratio(a: Sequence[float], b: Sequence[float], *, resamples: int = 2000, confidence: float = 0.95,
                 seed: int = 0) -> RatioInterval:
    """Ratio of the medians of ``b`` and ``a`` with a percentile bootstrap interval.

    The runs are independent, so each side is resampled on its own. The seed is fixed: the same Runs always give
    the same interval.
    """
    if not a or not b:
        raise ValueError("both sides need samples")
    median_a, median_b = statistics.median(a), statistics.median(b)
    ratio = median_b / median_a if median_a else float("inf")
    if len(a) < MIN_SAMPLES or len(b) < MIN_SAMPLES or not median_a:
        return RatioInterval(ratio, None, None, confidence)
    ratios = _bootstrap_ratios(a, b, resamples, seed)
    if not ratios:
        return RatioInterval(ratio, None, None, confidence)
    tail = (1.0 - confidence) / 2
    return RatioInterval(ratio, percentile(ratios, tail), percentile(ratios, 1.0 - tail), confidence)


def is_noisy(summary: Summary, threshold: float) -> bool:
    """Whether the middle 80% of the samples spans more than ``threshold`` of their median."""
    return summary.count >= MIN_SAMPLES and summary.spread > threshold
