"""Ratio of medians with a percentile-bootstrap confidence interval (pure)."""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from gpuready.bench.stats import percentile


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


def median_ratio(a: Sequence[float], b: Sequence[float], *, resamples: int = 2000, confidence: float = 0.95,
                 seed: int = 0) -> RatioInterval:
    """Ratio of the medians of ``b`` and ``a`` with a percentile bootstrap interval.

    Each side is resampled with replacement on its own (the runs are independent). The seed is fixed so the
    same Runs always give the same interval.
    """
    if not a or not b:
        raise ValueError("both sides need samples")
    median_a, median_b = statistics.median(a), statistics.median(b)
    ratio = median_b / median_a if median_a else float("inf")
    if len(a) < MIN_SAMPLES or len(b) < MIN_SAMPLES or not median_a:
        return RatioInterval(ratio, None, None, confidence)
    generator = random.Random(seed)
    ratios = []
    for _ in range(resamples):
        resampled_a = statistics.median(generator.choices(a, k=len(a)))
        resampled_b = statistics.median(generator.choices(b, k=len(b)))
        if resampled_a:
            ratios.append(resampled_b / resampled_a)
    ratios.sort()
    tail = (1.0 - confidence) / 2
    return RatioInterval(ratio, percentile(ratios, tail), percentile(ratios, 1.0 - tail), confidence)
