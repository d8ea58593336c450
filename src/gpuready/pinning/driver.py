"""``make_lock(config) -> Lock`` and ``verify_lock(config) -> Run``: what runs at lock time, and again after an
upgrade. Checks and benchmarks run isolated, as ``gpuready check`` and ``bench`` run them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gpuready import __version__
from gpuready.errors import InputError
from gpuready.model import CheckResult, Fingerprint, Measurement, Run, from_dict, to_dict
from gpuready.model.config import BenchConfig, LockConfig, VerifyConfig
from gpuready.pinning.lockfile import Lock, LockedBench, Thresholds, installed_distributions, read_lock
from gpuready.pinning.verify import report_run, verify
from gpuready.probe.container import identify_container
from gpuready.probe.system import LocalSystem, System

if TYPE_CHECKING:
    from gpuready.compat.load import Dataset

Say = Callable[[str], None]
"""Where a long step reports what it is doing (stderr in the CLI)."""


def _quiet(_: str) -> None:
    return None


def bench_config(workload: str, steps: int, device: str) -> BenchConfig:
    """The benchmark a lock records for a workload (re-run the same way by verify)."""
    return BenchConfig(workload=workload, steps=steps, device=device)


def validate(config: LockConfig) -> None:
    """Refuse unknown workloads and check suites before anything runs (a typo must not lock an empty baseline)."""
    from gpuready.benchmark.driver import validate as validate_bench

    for workload in config.benches:
        validate_bench(bench_config(workload, config.bench_steps, config.device))


def make_lock(config: LockConfig, data: Dataset, fingerprint: Fingerprint, say: Say = _quiet,
              system: System | None = None) -> Lock:
    """Run what the lock records (checks, benchmarks) and pin the environment, with the container image as far as
    the container can tell (``system`` is the machine seam; the local one by default)."""
    from gpuready.benchmark.driver import run_bench
    from gpuready.checks.driver import run_checks
    from gpuready.model.config import CheckConfig

    validate(config)
    distributions, sources = installed_distributions()
    checks: dict[str, str] = {}
    if config.check_suite:
        say(f"lock: running the {config.check_suite} check suite")
        run = run_checks(CheckConfig(suite=config.check_suite, device=config.device))
        checks = {r.check_id: r.status.value for r in run.results}
        say(f"lock: {run.outcome.summary}")
    benches = []
    for index, workload in enumerate(config.benches, 1):
        say(f"lock: benchmark {index}/{len(config.benches)}: {workload} ({config.bench_steps} steps)")
        options = bench_config(workload, config.bench_steps, config.device)
        run = run_bench(options, data)
        benches.append(LockedBench(to_dict(options), run.measurements))
    container = identify_container(system or LocalSystem(), config.container_image)
    if container.engine and container.note:
        say(f"lock: container image: {container.note}")
    return Lock(fingerprint, distributions, sources, container, tuple(config.models), config.check_suite or "",
                config.device, checks, tuple(benches), Thresholds(config.threshold, config.strict_packages),
                __version__)


def _bench_options(options: Mapping[str, Any], device: str) -> BenchConfig:
    """A locked benchmark's options as a configuration (locks of the first release kept a smaller option set)."""
    known = {k: v for k, v in options.items() if k in BenchConfig.__dataclass_fields__}
    known["batch_sizes"] = list(known.get("batch_sizes") or [])
    known["device"] = device
    try:
        return from_dict(BenchConfig, known, source="lock benches")
    except InputError as error:
        raise InputError(f"a locked benchmark cannot be re-run: {error}", field="benches") from error


def verify_lock(config: VerifyConfig, data: Dataset, fingerprint: Fingerprint, say: Say = _quiet) -> Run:
    """Compare this machine with the lock and re-run what it names: VERIFIED, DRIFT or REGRESSION."""
    from gpuready.benchmark.driver import run_bench
    from gpuready.checks.driver import rerun

    locked = read_lock(config.lock_file)
    device = config.device or locked.check_device
    rerun_results: list[CheckResult] = []
    measured: list[Measurement] = []

    def checks(ids: Sequence[str], check_device: str) -> Sequence[CheckResult]:
        say(f"verify: re-running {len(ids)} check(s)")
        rerun_results.extend(rerun(list(ids), config.device or check_device).results)
        return rerun_results

    def bench(options: Mapping[str, Any]) -> Sequence[Measurement]:
        say(f"verify: re-running the {options.get('workload')} benchmark")
        found = run_bench(_bench_options(options, device), data).measurements
        measured.extend(found)
        return found

    report = verify(locked, fingerprint, installed_distributions()[0], checks if config.rerun else None,
                    bench if config.rerun else None)
    return report_run(report, fingerprint, rerun_results, measured)
