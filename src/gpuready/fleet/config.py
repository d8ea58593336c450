"""Typed configurations of fleet work: what every node runs (``NodeJob``), where its Runs go (``Destination``), and
the thresholds of the fleet report (``ReportConfig``). Each refuses a bad value when made, naming the field."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gpuready.errors import InputError
from gpuready.model.config import SUITES, check_device

JOBS = ("doctor", "check", "bench", "verify")
MICRO = ("gemm", "copy", "allreduce")


@dataclass(frozen=True)
class NodeJob:
    """The same work on every node. ``doctor`` always runs first: the fleet's consistency table needs every node's
    fingerprint. Then the check suite, the benchmark workloads and micro-ceilings, and a lock verify, as asked."""

    check_suite: str | None = "quick"
    only: tuple[str, ...] = ()
    """Glob patterns of check ids; only matching checks of the suite run."""
    workloads: tuple[str, ...] = ()
    """Built-in benchmark workloads (``mlp``, ``cnn``, ``transformer``) run with ``bench_steps`` steps each."""
    micro: tuple[str, ...] = ("gemm",)
    """Micro-ceilings: ``gemm`` (per dtype), ``copy``, ``allreduce`` (over the node's devices)."""
    bench_steps: int = 20
    lock_file: Path | None = None
    """Verify this lock on every node (the file must be readable there)."""
    device: str = "auto"
    timeout_s: float | None = None
    """Seconds per check, overriding each check's own limit."""

    def __post_init__(self) -> None:
        if self.check_suite is not None and self.check_suite not in SUITES:
            raise InputError(f"expected one of {', '.join(SUITES)}; got {self.check_suite!r}", field="check_suite")
        unknown = [m for m in self.micro if m not in MICRO]
        if unknown:
            raise InputError(f"{', '.join(unknown)}: choose from {', '.join(MICRO)}", field="micro")
        if any(not w.strip() for w in self.workloads):
            raise InputError("expected workload names, e.g. transformer", field="workloads")
        if isinstance(self.bench_steps, bool) or not isinstance(self.bench_steps, int) or self.bench_steps < 1:
            raise InputError(f"expected a positive integer; got {self.bench_steps!r}", field="bench_steps")
        check_device(self.device)
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise InputError(f"expected a positive number; got {self.timeout_s!r}", field="timeout_s")

    def to_args(self) -> tuple[str, ...]:
        """The same job as ``gpuready fleet node`` options, for engines that start a command on each node."""
        args: list[str] = ["--suite", self.check_suite or "none"]
        args += [a for pattern in self.only for a in ("--only", pattern)]
        args += [a for w in self.workloads for a in ("--workload", w)]
        args += ["--micro", ",".join(self.micro) or "none", "--bench-steps", str(self.bench_steps),
                 "--device", self.device]
        if self.lock_file is not None:
            args += ["--lock", str(self.lock_file)]
        if self.timeout_s is not None:
            args += ["--timeout", f"{self.timeout_s:g}"]
        return tuple(args)


@dataclass(frozen=True)
class Destination:
    """Where a node's Runs go: one store every node reaches (a PostgreSQL URL), or a folder (shared, or collected
    afterwards) where each node writes ``<fleet>/<node>/<run id>.json``. Both may be given."""

    store_url: str | None = None
    folder: Path | None = None

    def __post_init__(self) -> None:
        if not self.store_url and self.folder is None:
            raise InputError("expected --store URL or --out FOLDER (where the nodes write their Runs)",
                             field="destination")


@dataclass(frozen=True)
class ReportConfig:
    """How the fleet report judges nodes. An outlier is a node whose median sits more than ``mad_threshold``
    robust deviations (1.4826 x median absolute deviation) from the fleet median in the bad direction, and at least
    ``min_relative`` (a fraction) away from it, so a very tight fleet does not flag noise."""

    mad_threshold: float = 4.0
    min_relative: float = 0.05
    baseline: Path | None = None
    """A baseline file (``gpuready fleet baseline``): rules that every node must meet."""
    ignore_fields: tuple[str, ...] = field(default_factory=tuple)
    """Fingerprint fields that may differ across nodes without making a node defective (they are still listed)."""

    def __post_init__(self) -> None:
        for name in ("mad_threshold", "min_relative"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise InputError(f"expected a number 0 or more; got {value!r}", field=name)
