"""Re-verify a lock: what drifted, which checks and benchmarks regressed, and the change most likely to blame."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuready import __version__
from gpuready.model import (
    CheckResult,
    Finding,
    Fingerprint,
    Measurement,
    Package,
    Run,
    RunKind,
    Severity,
    make_run,
)
from gpuready.model.identity import alignment_key
from gpuready.pinning.drift import Change, ChangeKind, classify_changes, likely_cause
from gpuready.pinning.lockfile import Lock
from gpuready.pinning.regression import RegressionVerdict, judge_regression
from gpuready.stats import is_noisy

CheckRunner = Callable[[Sequence[str], str], Sequence[CheckResult]]
"""(check ids, device) -> results."""
BenchRunner = Callable[[Mapping[str, Any]], Sequence[Measurement]]
"""(bench options) -> measurements."""

JUDGED_METRICS = ("step_time",)
NOISY_SPREAD = 0.5
"""Step times whose middle 80% spans more than this share of the median are too noisy to call a regression."""


@dataclass(frozen=True, slots=True)
class BenchVerdict:
    """One re-run benchmark metric against its baseline."""

    workload: str
    metric: str
    settings: dict[str, Any]
    verdict: RegressionVerdict
    noisy: bool = False
    """The baseline or the re-run is too noisy for a regression verdict: shown, never counted."""


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
        return tuple(b for b in self.benches if b.verdict.regressed and not b.noisy)

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


def matching(baseline: Measurement, current: Sequence[Measurement]) -> Measurement | None:
    """The re-run measurement of the same metric and workload whose settings include every locked setting (a newer
    gpuready may record more of a workload's identity than the lock did)."""
    exact = {alignment_key(m): m for m in current}.get(alignment_key(baseline))
    if exact is not None:
        return exact
    return next((m for m in current if m.metric == baseline.metric and m.workload == baseline.workload
                 and all(m.settings.get(k) == v for k, v in baseline.settings.items())), None)


def verify(lock: Lock, fingerprint: Fingerprint, distributions: Mapping[str, str], run_checks: CheckRunner | None,
           run_bench: BenchRunner | None, *, noise: float = NOISY_SPREAD) -> VerifyReport:
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
            current = list(run_bench(bench.options))
            for baseline in bench.baseline:
                if baseline.metric not in JUDGED_METRICS:
                    continue
                again = matching(baseline, current)
                if again is None:
                    missing.append(f"{baseline.workload} {baseline.metric}")
                    continue
                noisy = is_noisy(baseline.summary, noise) or is_noisy(again.summary, noise)
                verdicts.append(BenchVerdict(baseline.workload, baseline.metric, dict(baseline.settings),
                                             judge_regression(baseline.samples, again.samples,
                                                              threshold=lock.thresholds.slowdown), noisy))
    return VerifyReport(tuple(changes), lock.thresholds.strict_packages, tuple(check_regressions), tuple(verdicts),
                        tuple(missing))


def _change_finding(change: Change, counted: bool) -> Finding:
    return Finding(f"verify.drift.{change.kind.value}", Severity.BLOCKER if counted else Severity.INFO,
                   f"{change.field}: {change.before or '-'} -> {change.after or '-'}",
                   evidence={"kind": change.kind.value, "field": change.field, "before": change.before,
                             "after": change.after, "counts": "drift" if counted else "noted"},
                   remedy="re-lock after checking this change on purpose (gpuready lock), or restore the locked "
                          "environment" if counted else "")


def _bench_finding(bench: BenchVerdict) -> Finding:
    evidence = {"workload": bench.workload, "metric": bench.metric,
                "batch_size": str(bench.settings.get("batch_size", "")), "reason": bench.verdict.reason,
                "noisy": str(bench.noisy).lower()}
    if bench.noisy:
        return Finding("verify.bench_noisy", Severity.WARN, f"{bench.workload} {bench.metric}: {bench.verdict.reason} "
                       "(too noisy to judge)", evidence=evidence,
                       remedy="re-run verify on an idle machine, or lock with more --bench-steps")
    if bench.verdict.regressed:
        return Finding("verify.regressed.bench", Severity.BLOCKER, f"{bench.workload} {bench.metric}: "
                       f"{bench.verdict.reason}", evidence=evidence)
    return Finding("verify.bench", Severity.INFO, f"{bench.workload} {bench.metric}: {bench.verdict.reason}",
                   evidence=evidence)


def report_run(report: VerifyReport, fingerprint: Fingerprint, rerun: Sequence[CheckResult] = (),
               measurements: Sequence[Measurement] = ()) -> Run:
    """The verification as a Run: a finding per change, regression and missing baseline; the verdict VERIFIED,
    DRIFT or REGRESSION."""
    drift = set(report.drift)
    findings = [_change_finding(change, change in drift) for change in report.changes]
    findings += [Finding("verify.regressed.check", Severity.BLOCKER, f"check {check_id}: {was} at lock time, {now} now",
                         evidence={"check": check_id, "before": was, "after": now})
                 for check_id, was, now in report.check_regressions]
    findings += [_bench_finding(bench) for bench in report.benches]
    findings += [Finding("verify.missing", Severity.BLOCKER, f"the re-run did not produce {missing}",
                         evidence={"missing": missing}) for missing in report.missing]
    cause = report.likely_cause
    if cause is not None:
        findings.append(Finding("verify.likely_cause", Severity.INFO,
                                f"most likely cause: {cause.kind.value} change {cause.field} {cause.before or '-'} "
                                f"-> {cause.after or '-'}", evidence={"kind": cause.kind.value, "field": cause.field}))
    return make_run(RunKind.VERIFY, __version__, fingerprint=fingerprint, findings=findings, results=rerun,
                    measurements=measurements)
