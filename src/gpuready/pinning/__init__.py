"""Pin the tested environment and re-verify it: drift between fingerprints, noise-aware regressions, lock files.

The names below are loaded on first use, so ``import gpuready.pinning.lockfile`` (the runtime guard's path) does not
pull in the statistics the regression rule needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuready.pinning.drift import Change, ChangeKind, classify_changes, likely_cause
    from gpuready.pinning.regression import RegressionVerdict, judge_regression

_WHERE = {"Change": "drift", "ChangeKind": "drift", "classify_changes": "drift", "likely_cause": "drift",
          "RegressionVerdict": "regression", "judge_regression": "regression"}

__all__ = ["Change", "ChangeKind", "RegressionVerdict", "classify_changes", "judge_regression", "likely_cause"]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"gpuready.pinning.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'gpuready.pinning' has no attribute {name!r}")
