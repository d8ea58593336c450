"""Typed, frozen configurations of the public functions (``gpuready.doctor(DoctorConfig(...))`` ...).

Each one checks its own values when it is made and raises ``InputError`` naming the field, so a bad value is
refused before anything runs. Defaults live here and nowhere else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gpuready.errors import InputError

_DEVICE = re.compile(r"^(auto|cpu|standin|cuda(:\d{1,3})?)$")
DEVICES = "auto, cpu, cuda or cuda:N (ROCm GPUs are 'cuda' too)"
SUITES = ("quick", "full", "distributed")
MODES = ("train", "infer")
PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "amp")
SIZES = ("tiny", "small", "medium", "large")
FRAMEWORKS = ("torch", "jax")


def check_device(device: str, *, standin: bool = False) -> str:
    """``device`` if it names a device gpuready can test (``standin`` only where allowed), else InputError."""
    if not _DEVICE.match(device) or (device == "standin" and not standin):
        raise InputError(f"expected {DEVICES}{', or standin' if standin else ''}; got {device!r}", field="device")
    return device


def _choice(name: str, value: str | None, allowed: tuple[str, ...], optional: bool = False) -> None:
    if value is None and optional:
        return
    if value not in allowed:
        raise InputError(f"expected one of {', '.join(allowed)}; got {value!r}", field=name)


def _positive(name: str, value: float | None, optional: bool = False) -> None:
    if value is None and optional:
        return
    if value is None or isinstance(value, bool) or not value > 0:
        raise InputError(f"expected a positive number; got {value!r}", field=name)


@dataclass(frozen=True)
class FingerprintConfig:
    """Where the facts come from: this machine (probed), or reports pasted from another one."""

    reports: tuple[Path, ...] = ()
    """Pasted reports or saved Runs to read instead of probing (several are merged); ``-`` is standard input."""
    report_kind: str | None = None
    """What the reports hold, when detection should be skipped (``rocminfo``, ``collect-env`` ...)."""
    frameworks: bool = True
    """Start torch/jax child processes to ask the frameworks what they see."""
    redact: bool = True
    """Hide hostnames, GPU UUIDs and serials."""

    def __post_init__(self) -> None:
        if self.report_kind and not self.reports:
            raise InputError("a report kind applies only when reports are read", field="report_kind")


@dataclass(frozen=True)
class DoctorConfig:
    """Judge a fingerprint against the compatibility data."""

    source: FingerprintConfig = field(default_factory=FingerprintConfig)
    data_dir: Path | None = None
    """A compatibility data directory to use instead of the bundled one."""


@dataclass(frozen=True)
class PlanConfig:
    """What to install for a GPU (and OS), before installing."""

    gpu: str
    os: str | None = None
    framework: str = "torch"
    rocm: str | None = None
    data_dir: Path | None = None

    def __post_init__(self) -> None:
        if not self.gpu.strip():
            raise InputError("expected a GPU product name, e.g. 'mi300x' or 'rtx 4090'", field="gpu")
        _choice("framework", self.framework, FRAMEWORKS)


@dataclass(frozen=True)
class CheckConfig:
    """Which checks to run, where, and for how long at most."""

    suite: str = "quick"
    only: tuple[str, ...] = ()
    """Glob patterns of check ids; only matching checks run."""
    framework: str | None = None
    device: str = "auto"
    timeout_s: float | None = None
    """Seconds per check, overriding each check's own limit."""
    inline: bool = False
    """Run in this process: no isolation (debugging only)."""

    def __post_init__(self) -> None:
        _choice("suite", self.suite, SUITES)
        _choice("framework", self.framework, FRAMEWORKS, optional=True)
        check_device(self.device)
        _positive("timeout_s", self.timeout_s, optional=True)


@dataclass(frozen=True)
class AuditConfig:
    """Which model's step to audit, and how."""

    model: str = "transformer"
    """``mlp``, ``cnn``, ``transformer``, ``pkg.module:factory`` or ``path/file.py:factory``."""
    mode: str = "train"
    steps: int = 1
    device: str = "auto"
    timeout_s: float = 600.0
    coverage: bool = True
    """Replay the step's distinct ops against a float64 CPU reference."""
    framework: str = "torch"
    inline: bool = False

    def __post_init__(self) -> None:
        _choice("mode", self.mode, MODES)
        _choice("framework", self.framework, FRAMEWORKS)
        check_device(self.device, standin=True)
        _positive("steps", self.steps)
        _positive("timeout_s", self.timeout_s)


@dataclass(frozen=True)
class ScanConfig:
    """What to scan and with which knowledge base."""

    path: Path
    kb_file: Path | None = None
    jobs: int | None = None
    cache: bool = True

    def __post_init__(self) -> None:
        _positive("jobs", self.jobs, optional=True)


@dataclass(frozen=True)
class BenchConfig:
    """What to benchmark, how long, and the goals it must meet."""

    workload: str = "transformer"
    """``mlp``, ``cnn``, ``transformer``, ``hf:FAMILY`` or the user's ``file.py:factory`` / ``module:factory``."""
    mode: str = "train"
    precision: str = "fp32"
    batch_sizes: tuple[int, ...] = ()
    """A sweep; empty: the workload's own batch size."""
    size: str = "tiny"
    sequence: int | None = None
    steps: int = 20
    warmup: int = 5
    compile: bool = False
    dataloader_workers: int = 0
    find_max_batch: bool = False
    max_batch_limit: int = 1024
    micro: tuple[str, ...] = ()
    """Micro-benchmarks: ``gemm``, ``copy``, ``allreduce``."""
    targets: tuple[str, ...] = ()
    """Goals such as ``tokens_per_s>=5000``; a missed one fails the run."""
    device: str = "auto"
    framework: str = "torch"
    """``torch`` or ``jax`` (JAX: the built-in mlp and transformer, or a factory of the JAX contract; always jitted)."""
    inline: bool = False

    def __post_init__(self) -> None:
        _choice("mode", self.mode, MODES)
        _choice("precision", self.precision, PRECISIONS)
        _choice("framework", self.framework, FRAMEWORKS)
        if self.framework == "jax":
            self._jax_options()
        _choice("size", self.size, SIZES)
        check_device(self.device)
        for name in ("steps", "warmup", "max_batch_limit"):
            _positive(name, getattr(self, name))
        _positive("sequence", self.sequence, optional=True)
        if self.dataloader_workers < 0:
            raise InputError(f"expected 0 or more; got {self.dataloader_workers}", field="dataloader_workers")
        if any(isinstance(b, bool) or not isinstance(b, int) or b < 1 for b in self.batch_sizes):
            raise InputError(f"expected positive integers, e.g. 8,16,32; got {self.batch_sizes}", field="batch_sizes")
        unknown = [m for m in self.micro if m not in ("gemm", "copy", "allreduce")]
        if unknown:
            raise InputError(f"{', '.join(unknown)}: choose from gemm, copy, allreduce", field="micro")
        if not self.workload.strip():
            raise InputError("expected a workload", field="workload")


    def _jax_options(self) -> None:
        if self.compile:
            raise InputError("a JAX step is always compiled (jax.jit); compile asks for torch.compile", field="compile")
        if self.dataloader_workers:
            raise InputError("JAX benchmarks read their batches in the process; no data loader workers",
                             field="dataloader_workers")
        if set(self.micro) - {"gemm"}:
            raise InputError(f"{', '.join(sorted(set(self.micro) - {'gemm'}))}: with JAX only the gemm "
                             "micro-benchmark runs (copy and allreduce are measured through torch)", field="micro")


@dataclass(frozen=True)
class CompareConfig:
    """How to price and judge a comparison."""

    prices: tuple[tuple[str, float], ...] = ()
    """(side label, run id or device name; USD per GPU-hour)."""
    gpus_per_node: int = 1
    utilisation: float = 1.0
    """Share of wall time spent on the measured step."""
    train_tokens: float | None = None
    """Size of a training run to price, in tokens."""
    noisy_spread: float = 0.5
    """A measurement whose middle 80% spans more than this share of its median is noisy; ratios between noisy
    measurements are shown but never stated as a finding."""

    def __post_init__(self) -> None:
        _positive("gpus_per_node", self.gpus_per_node)
        if not 0 < self.utilisation <= 1:
            raise InputError(f"expected a share in (0, 1]; got {self.utilisation}", field="utilisation")
        _positive("train_tokens", self.train_tokens, optional=True)
        for name, price in self.prices:
            if not price >= 0:
                raise InputError(f"{name}: expected a price of 0 or more; got {price}", field="prices")


@dataclass(frozen=True)
class LockConfig:
    """What to run and record as the baseline of a lock."""

    check_suite: str | None = None
    benches: tuple[str, ...] = ()
    bench_steps: int = 30
    models: tuple[str, ...] = ()
    """Models verified on this stack (the runtime guard's allow list)."""
    device: str = "auto"
    threshold: float = 0.05
    strict_packages: bool = False
    container_image: str = ""

    def __post_init__(self) -> None:
        _choice("check_suite", self.check_suite, SUITES, optional=True)
        check_device(self.device)
        _positive("bench_steps", self.bench_steps)
        if not 0 <= self.threshold < 10:
            raise InputError(f"expected a share between 0 and 10; got {self.threshold}", field="threshold")


@dataclass(frozen=True)
class VerifyConfig:
    """How to re-verify a lock."""

    lock_file: Path = Path("gpuready.lock")
    rerun: bool = True
    """Re-run the locked checks and benchmarks (False: compare the environment only)."""
    device: str | None = None
    """Device for the re-runs (default: the one in the lock)."""

    def __post_init__(self) -> None:
        if self.device is not None:
            check_device(self.device)


@dataclass(frozen=True)
class DataUpdateConfig:
    """Where ``data update`` writes the new data set, what it compares with, and (offline) recorded sources."""

    out: Path | None = None
    """A new or empty directory; default: ``data-<date>`` under the user's gpuready data directory."""
    data_dir: Path | None = None
    """The data set to compare with (the installed one by default)."""
    sources: Path | None = None
    """Read recorded copies of the sources from this directory instead of the network."""
