"""Re-verify a lock: what drifted, which checks and benchmarks regressed, and the change most likely to blame."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuready.compare.engine import alignment_key
from gpuready.lock.drift import Change, ChangeKind, classify_changes, likely_cause
from gpuready.lock.lockfile import Lock
from gpuready.lock.regression import RegressionVerdict, judge_regression
from gpuready.model import CheckResult, Fingerprint, Measurement, Package

CheckRunner = Callable[[Sequence[str], str], Sequence[CheckResult]]
"""(check ids, device) -> results."""
BenchRunner = Callable[[Mapping[str, Any]], Sequence[Measurement]]
"""(bench options) -> measurements."""

JUDGED_METRICS = ("step_time",)


@dataclass(frozen=True, slots=True)
class BenchVerdict:
    """One re-run benchmark metric against its baseline."""

    workload: str
    metric: str
    settings: dict[str, Any]
    verdict: RegressionVerdict


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """The outcome of ``gpuready verify``."""

    changes: tuple[Change, ...]
    strict_packages: bool
    check_regressions: tuple[tuple[str, str, str], ...]
    """(check id, status at lock time, status now) for checks that passed then and do not now."""
    benches: tuple[BenchVerdict, ...]
    missing: tuple[str, ...] = ()
    """Baseline measurements the re-run did not produce."""

    @property
    def drift(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.relevant or (self.strict_packages
                                                                and c.kind is ChangeKind.PYTHON_PACKAGES))

    @property
    def regressions(self) -> tuple[BenchVerdict, ...]:
        return tuple(b for b in self.benches if b.verdict.regressed)

    @property
    def ok(self) -> bool:
        return not self.drift and not self.check_regressions and not self.regressions and not self.missing

    @property
    def likely_cause(self) -> Change | None:
        return likely_cause(self.changes) if (self.check_regressions or self.regressions) else None


def with_distributions(fingerprint: Fingerprint, distributions: Mapping[str, str]) -> Fingerprint:
    """The fingerprint with every installed distribution as its package list (what drift compares)."""
    if not distributions:
        return fingerprint
    return dataclasses.replace(fingerprint, packages=tuple(Package(n, v) for n, v in sorted(distributions.items())))


def verify(lock: Lock, fingerprint: Fingerprint, distributions: Mapping[str, str], run_checks: CheckRunner | None,
           run_bench: BenchRunner | None) -> VerifyReport:
    """Compare the current environment with the lock and re-run what it names (runners ``None``: skip)."""
    changes = classify_changes(with_distributions(lock.fingerprint, lock.distributions),
                               with_distributions(fingerprint, distributions))
    check_regressions: list[tuple[str, str, str]] = []
    if lock.checks and run_checks is not None:
        now = {r.check_id: r.status.value for r in run_checks(sorted(lock.checks), lock.check_device)}
        check_regressions = [(check_id, was, now.get(check_id, "missing"))
                             for check_id, was in sorted(lock.checks.items())
                             if was == "pass" and now.get(check_id) != "pass"]
    verdicts: list[BenchVerdict] = []
    missing: list[str] = []
    if run_bench is not None:
        for bench in lock.benches:
            current = {alignment_key(m): m for m in run_bench(bench.options)}
            for baseline in bench.baseline:
                if baseline.metric not in JUDGED_METRICS:
                    continue
                again = current.get(alignment_key(baseline))
                if again is None:
                    missing.append(f"{baseline.workload} {baseline.metric}")
                    continue
                verdicts.append(BenchVerdict(baseline.workload, baseline.metric, dict(baseline.settings),
                                             judge_regression(baseline.samples, again.samples,
                                                              threshold=lock.thresholds.slowdown)))
    return VerifyReport(tuple(changes), lock.thresholds.strict_packages, tuple(check_regressions), tuple(verdicts),
                        tuple(missing))
