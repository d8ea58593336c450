"""Pin the tested environment and re-verify it: drift between fingerprints, noise-aware regressions, lock files."""

from gpuready.lock.drift import Change, ChangeKind, classify_changes, likely_cause
from gpuready.lock.regression import RegressionVerdict, judge_regression

__all__ = ["Change", "ChangeKind", "RegressionVerdict", "classify_changes", "judge_regression", "likely_cause"]
