"""A noise-aware regression rule over per-step samples (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpuready.stats import RatioInterval, median_ratio


@dataclass(frozen=True, slots=True)
class RegressionVerdict:
    """How much worse the current samples are than the baseline, and whether that counts as a regression."""

    slowdown: RatioInterval
    """current / baseline for lower-is-better metrics (baseline / current otherwise): >1 is worse."""
    threshold: float
    regressed: bool
    reason: str


def judge_regression(baseline: Sequence[float], current: Sequence[float], *, threshold: float = 0.05,
                     higher_is_better: bool = False, seed: int = 0) -> RegressionVerdict:
    """A slowdown counts only when it is beyond both the threshold and the measured noise.

    Beyond the threshold: the median slowdown exceeds ``1 + threshold``. Beyond the noise: the 95% bootstrap
    interval of the slowdown lies wholly above 1. With too few samples for an interval, the threshold alone decides.
    """
    ratio = median_ratio(baseline, current, seed=seed)
    slowdown = ratio.inverted() if higher_is_better else ratio
    beyond_threshold = slowdown.ratio > 1.0 + threshold
    beyond_noise = slowdown.low is None or slowdown.low > 1.0
    if beyond_threshold and beyond_noise:
        reason = f"{slowdown.ratio - 1:.1%} worse (threshold {threshold:.0%})"
        if slowdown.low is not None:
            reason += f", 95% interval {slowdown.low - 1:.1%} to {slowdown.high - 1 if slowdown.high else 0:.1%}"
    elif beyond_threshold:
        reason = f"{slowdown.ratio - 1:.1%} worse but within the measured noise"
    else:
        reason = f"{slowdown.ratio - 1:+.1%}, within the {threshold:.0%} threshold"
    return RegressionVerdict(slowdown, threshold, beyond_threshold and beyond_noise, reason)
