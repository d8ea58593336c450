"""Judgements and experiment outcomes: ``Finding``, ``CheckResult``, ``Measurement``."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


class Severity(str, enum.Enum):
    """How much a finding matters."""

    INFO = "info"
    WARN = "warn"
    BLOCKER = "blocker"

    @property
    def rank(self) -> int:
        """0 for a blocker, 1 for a warning, 2 for information: sort by it to put the worst first."""
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {Severity.BLOCKER: 0, Severity.WARN: 1, Severity.INFO: 2}


def worst_first(findings: Iterable[Finding]) -> list[Finding]:
    """Findings ordered blockers, warnings, information (stable within a severity)."""
    return sorted(findings, key=lambda f: f.severity.rank)


@dataclass(frozen=True, slots=True)
class Finding:
    """One judgement about the stack, with the evidence it rests on and what to do."""

    code: str
    """Stable identifier, e.g. ``compat.gpu_unsupported``."""
    severity: Severity
    message: str
    evidence: dict[str, str] = field(default_factory=dict)
    remedy: str = ""
    source_url: str = ""
    """Where the rule's data comes from."""
    location: str = ""
    """``path:line`` in the user's code, for findings of the scanner."""


class CheckStatus(str, enum.Enum):
    """Outcome of one check."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    ERROR = "error"
    """The check itself raised (traceback in details)."""
    TIMEOUT = "timeout"
    CRASH = "crash"
    """The process died (signal name and stderr tail in details)."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The outcome of one experiment on a device."""

    check_id: str
    status: CheckStatus
    duration_s: float = 0.0
    device: str = ""
    metrics: dict[str, float] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    """Max error against the reference, signal, stderr tail, skip reason ..."""


@dataclass(frozen=True, slots=True)
class Summary:
    """Robust statistics of a sample set."""

    count: int
    median: float
    p10: float
    p90: float
    mean: float
    stdev: float

    @property
    def spread(self) -> float:
        """(p90 - p10) / median: the relative width of the middle 80%."""
        return (self.p90 - self.p10) / self.median if self.median else 0.0


@dataclass(frozen=True, slots=True)
class Measurement:
    """One measured quantity with every sample kept.

    ``settings`` identify what was measured (two measurements are comparable only when their workload, metric and
    settings agree): the workload's id, framework, mode, precision, batch size, model size and sequence length, a
    hash of the model's configuration and, for a user's workload, of its source. ``annotations`` describe the
    machine or the result (device name, FLOPs per step, the catalogue's peak, the memory counter used) and never
    take part in alignment.
    """

    metric: str
    unit: str
    samples: tuple[float, ...]
    summary: Summary
    workload: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    annotations: dict[str, Any] = field(default_factory=dict)
