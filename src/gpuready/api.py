"""The front door: one function per job, each taking a typed, frozen configuration and returning a ``Run``
(``plan`` a ``Plan``, ``compare`` a ``Comparison``, ``lock`` a ``Lock``).

    import gpuready
    run = gpuready.doctor(gpuready.DoctorConfig(source=gpuready.FingerprintConfig(reports=(Path("issue.md"),))))
    print(run.outcome.verdict.value, run.outcome.summary)
    for finding in run.findings:
        print(finding.severity.value, finding.code, finding.message, finding.remedy)

Every function validates its configuration before running anything and raises ``gpuready.errors.InputError``
(naming the field) for bad input. Functions that judge against compatibility data take ``data`` (a ``Dataset``
from ``load_data``); without it they load the bundled data set, or the one in ``config.data_dir``. Nothing here
imports torch or jax: experiments run in child processes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpuready.model import (
    CheckResult,
    CheckStatus,
    Fact,
    FactStatus,
    Finding,
    Fingerprint,
    Level,
    Measurement,
    Outcome,
    Provenance,
    Run,
    RunKind,
    Severity,
    Verdict,
)
from gpuready.model.config import (
    AuditConfig,
    BenchConfig,
    CheckConfig,
    CompareConfig,
    DataUpdateConfig,
    DoctorConfig,
    FingerprintConfig,
    LockConfig,
    PlanConfig,
    ScanConfig,
    VerifyConfig,
)

if TYPE_CHECKING:
    from gpuready.comparison.model import Comparison
    from gpuready.compat.importers.update import Update
    from gpuready.compat.load import Dataset
    from gpuready.compat.plan import Plan
    from gpuready.isolation.launchers import Progress
    from gpuready.pinning.lockfile import Lock

Say = Callable[[str], None]

__all__ = [
    "AuditConfig", "BenchConfig", "CheckConfig", "CheckResult", "CheckStatus", "CompareConfig", "DataUpdateConfig",
    "DoctorConfig", "Fact", "FactStatus", "Finding", "Fingerprint", "FingerprintConfig", "Level", "LockConfig",
    "Measurement", "Outcome", "PlanConfig", "Provenance", "Run", "RunKind", "ScanConfig", "Severity", "Verdict",
    "VerifyConfig", "audit", "bench", "check", "compare", "doctor", "fingerprint", "load_data", "load_runs", "lock",
    "plan", "save", "scan", "update_data", "verify",
]


def load_data(directory: Path | None = None) -> Dataset:
    """The compatibility data set: the bundled one, or the one in ``directory`` (checked as it loads)."""
    from gpuready.compat.load import load_dataset

    return load_dataset(directory)


def update_data(config: DataUpdateConfig | None = None) -> tuple[Update, Path]:
    """Read the vendors' sources (or recorded copies), compare with the installed data set and write a new data set
    with ``DIFF.md`` beside it; the installed one is never changed. Returns what was found and where it was written."""
    import datetime

    import platformdirs

    from gpuready.compat.importers.sources import fetch_url, recorded
    from gpuready.compat.importers.update import run, write

    config = config or DataUpdateConfig()
    installed = load_data(config.data_dir)
    today = datetime.date.today()
    fetch = recorded(config.sources) if config.sources else fetch_url
    found = run(installed, fetch, today)
    out = config.out or Path(platformdirs.user_data_dir("gpuready")) / f"data-{today.isoformat()}"
    return found, write(found, installed, out, today)


def fingerprint(config: FingerprintConfig | None = None, *, data: Dataset | None = None) -> Run:
    """An ``env`` Run: this machine's facts (or a pasted report's), judged, so it carries a readiness verdict."""
    from gpuready.compat.judge import judged_run
    from gpuready.probe import fingerprint_of

    return judged_run(fingerprint_of(config or FingerprintConfig()), data or load_data(), RunKind.ENV)


def doctor(config: DoctorConfig | None = None, *, data: Dataset | None = None) -> Run:
    """A ``doctor`` Run: READY, READY WITH WARNINGS or NOT READY, each finding with its evidence, fix and source."""
    from gpuready.compat.judge import judged_run
    from gpuready.probe import fingerprint_of

    config = config or DoctorConfig()
    return judged_run(fingerprint_of(config.source), data or load_data(config.data_dir))


def plan(config: PlanConfig, *, data: Dataset | None = None) -> Plan:
    """Before installing: supported releases, framework builds and the install line for a GPU (and OS)."""
    from gpuready.compat.plan import make_plan

    return make_plan(data or load_data(config.data_dir), config.gpu, config.os, config.framework, config.rocm)


def check(config: CheckConfig | None = None, *, progress: Progress | None = None,
          fingerprint_machine: bool = True) -> Run:
    """A ``check`` Run: the selected checks, each in an isolated child with a timeout; PASS or FAIL."""
    from gpuready.checks.driver import run_checks
    from gpuready.probe import collect_fingerprint

    return run_checks(config or CheckConfig(), progress=progress,
                      probe=collect_fingerprint if fingerprint_machine else None)


def audit(config: AuditConfig | None = None) -> Run:
    """An ``audit`` Run: where every op of a training or inference step runs (CLEAN, PROBLEMS or BLOCKED)."""
    config = config or AuditConfig()
    if config.framework == "jax":
        from gpuready.placement.jax_audit import run_jax_audit
        from gpuready.probe import collect_fingerprint

        return run_jax_audit(collect_fingerprint(frameworks=False), config)
    from gpuready.placement.driver import run_torch_audit

    return run_torch_audit(config)


def scan(config: ScanConfig) -> Run:
    """A ``scan`` Run: CUDA-only code and dependencies with ROCm alternatives; PORTABLE, NEEDS ALTERNATIVES or
    BLOCKED. Nothing scanned is imported or executed."""
    from gpuready.scanner.driver import run_scan
    from gpuready.scanner.kb import load_kb

    return run_scan(config, load_kb(config.kb_file))


def bench(config: BenchConfig | None = None, *, data: Dataset | None = None, progress: Progress | None = None,
          fingerprint_machine: bool = True) -> Run:
    """A ``bench`` Run: the workload's step times, throughput, FLOPs, MFU, memory, and the micro-ceilings."""
    from gpuready.benchmark.driver import run_bench, validate
    from gpuready.probe import collect_fingerprint

    config = config or BenchConfig()
    validate(config)
    machine = collect_fingerprint(frameworks=False) if fingerprint_machine else None
    return run_bench(config, data or load_data(), fingerprint=machine, progress=progress)


def compare(sides: Sequence[Sequence[Run]], config: CompareConfig | None = None, *,
            data: Dataset | None = None) -> Comparison:
    """Runs of two or more machines, the first the baseline; each side is one machine's Runs (bench, check, scan)."""
    from gpuready.comparison.cost import CostInputs
    from gpuready.comparison.engine import compare_sides
    from gpuready.comparison.load import make_sides

    config = config or CompareConfig()
    cost = CostInputs(dict(config.prices), config.gpus_per_node, config.utilisation, config.train_tokens) if (
        config.prices) else None
    return compare_sides(make_sides(sides), (data or load_data()).gpus.gpus, cost, config.noisy_spread)


def lock(config: LockConfig | None = None, *, data: Dataset | None = None, say: Say | None = None) -> Lock:
    """Pin the tested environment: fingerprint, every package, and the check and benchmark baselines."""
    from gpuready.pinning.driver import make_lock, validate
    from gpuready.probe import collect_fingerprint

    config = config or LockConfig()
    validate(config)
    return make_lock(config, data or load_data(), collect_fingerprint(), say or (lambda _: None))


def verify(config: VerifyConfig | None = None, *, data: Dataset | None = None, say: Say | None = None) -> Run:
    """A ``verify`` Run: what drifted and what regressed since the lock; VERIFIED, DRIFT or REGRESSION."""
    from gpuready.pinning.driver import verify_lock
    from gpuready.pinning.lockfile import read_lock
    from gpuready.probe import collect_fingerprint

    config = config or VerifyConfig()
    read_lock(config.lock_file)  # a bad lock file is the user's input: refused before probing
    return verify_lock(config, data or load_data(), collect_fingerprint(), say or (lambda _: None))


def load_runs(spec: str, store_url: str | None = None) -> list[Run]:
    """The Runs a side names: stored run ids (a unique prefix is enough) or Run JSON files, joined with ``+``."""
    from gpuready.comparison.load import runs_of
    from gpuready.store import open_store

    return runs_of(spec, lambda: open_store(store_url))


def save(run: Run, store_url: str | None = None) -> str:
    """Store a Run (SQLite under the user's data directory by default, any SQLAlchemy URL); returns its id."""
    from gpuready.store import open_store

    with open_store(store_url) as store:
        return store.save(run)
