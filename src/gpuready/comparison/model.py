"""What a comparison holds: the sides, the metric rows, cost lines and the plain-words conclusion."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuready.comparison.cost import CostLine
from gpuready.model import Run
from gpuready.stats import RatioInterval


@dataclass(frozen=True, slots=True)
class Side:
    """One machine's evidence: a bench Run and, optionally, check, audit, scan or doctor Runs of the same stack."""

    name: str
    runs: tuple[Run, ...]

    @property
    def compute_units(self) -> int | None:
        """The first probed device's compute units, which tell apart boards that share a name."""
        for run in self.runs:
            if run.fingerprint is not None:
                for device in run.fingerprint.devices:
                    if isinstance(device.compute_units.value, int):
                        return device.compute_units.value
        return None

    @property
    def device(self) -> str:
        for run in self.runs:
            if run.fingerprint is not None:
                for device in run.fingerprint.devices:
                    if device.name.value:
                        return str(device.name.value)
        for run in self.runs:
            for m in run.measurements:
                if m.settings.get("device"):
                    return str(m.settings["device"])
        return "cpu"


@dataclass(frozen=True, slots=True)
class MetricComparison:
    """One metric of one aligned workload on the baseline and on the other side."""

    metric: str
    unit: str
    workload: str
    settings: dict[str, object]
    baseline_median: float
    other_median: float
    baseline_count: int
    other_count: int
    ratio: RatioInterval
    """``other / baseline`` of the medians."""
    higher_is_better: bool
    alignment: str = "same settings"
    """``same settings``, or ``each side's best batch size`` when the two measured different batch sizes only."""
    noisy: bool = False
    """Either side's samples spread too widely for the ratio to mean anything; shown, never stated as a finding."""

    @property
    def advantage(self) -> RatioInterval:
        """How many times better the other side is (>1 means better), whatever the metric's direction."""
        return self.ratio if self.higher_is_better else self.ratio.inverted()


@dataclass(frozen=True, slots=True)
class SideSummary:
    """Everything beyond speed, for one side."""

    name: str
    device: str
    run_ids: tuple[str, ...]
    checks: dict[str, str] = field(default_factory=dict)
    """check id -> status."""
    blockers: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    scanned: bool = False
    max_batch: float | None = None
    peak_memory_bytes: float | None = None
    device_memory_bytes: float | None = None
    provenance: str = "measured"
    """``measured``, ``pasted`` or ``synthetic`` (the least trustworthy of the side's Runs)."""

    @property
    def checks_passed(self) -> int:
        return sum(1 for status in self.checks.values() if status == "pass")

    @property
    def checks_text(self) -> str:
        """``13 pass, 1 skipped`` (a skip is not a failure), or ``not run``."""
        if not self.checks:
            return "not run"
        skipped = sum(1 for status in self.checks.values() if status == "skip")
        failed = len(self.checks) - self.checks_passed - skipped
        return ", ".join([f"{self.checks_passed} pass"] + ([f"{failed} fail"] if failed else [])
                         + ([f"{skipped} skipped"] if skipped else []))

    @property
    def memory_headroom(self) -> float | None:
        """Share of the device memory left at the measured batch size."""
        if not self.peak_memory_bytes or not self.device_memory_bytes:
            return None
        return 1.0 - self.peak_memory_bytes / self.device_memory_bytes


@dataclass(frozen=True, slots=True)
class Pairing:
    """The baseline against one other side."""

    baseline: str
    other: str
    metrics: tuple[MetricComparison, ...]
    unmatched: tuple[str, ...] = ()
    """Workload settings measured on only one of the two sides."""
    cost: tuple[CostLine, ...] = ()
    parity: tuple[tuple[str, str, str], ...] = ()
    """(check id, baseline status, other status) where they differ."""
    conclusion: str = ""
    paper: PaperPeaks | None = None
    """The vendors' dense peaks for the headline's precision, when the catalogue has both GPUs."""


@dataclass(frozen=True, slots=True)
class PaperPeaks:
    """What the datasheets promise, to set the measured ratio against."""

    dtype: str
    baseline_tflops: float
    other_tflops: float
    confirmed: bool
    """False when either peak was read in a third-party copy of the vendor's figures."""

    @property
    def ratio(self) -> float:
        return self.other_tflops / self.baseline_tflops


@dataclass(frozen=True, slots=True)
class Comparison:
    """A baseline and one or more other sides."""

    sides: tuple[SideSummary, ...]
    pairings: tuple[Pairing, ...]
    environment: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(field, value per side) for every fingerprint field; ``differs`` tells which ones differ."""
    assumptions: tuple[str, ...] = ()

    @staticmethod
    def differs(values: tuple[str, ...]) -> bool:
        """True when the sides disagree on an environment field."""
        return len(set(values)) > 1
