"""Judge a fingerprint against the data: findings worst first, and the Run of a ``doctor`` (or ``env``)."""

from __future__ import annotations

import datetime

from gpuready import __version__
from gpuready.compat.load import Dataset
from gpuready.compat.rules import ALL_RULES, Context
from gpuready.model import Finding, Fingerprint, Run, RunKind, Verdict, make_run, worst_first
from gpuready.model.outcome import readiness

__all__ = ["Verdict", "judge", "judged_run", "verdict"]


def judge(fingerprint: Fingerprint, data: Dataset, today: datetime.date | None = None) -> list[Finding]:
    """Every rule's findings, blockers first; duplicates (same code and message) removed."""
    context = Context(fingerprint, data, today or datetime.date.today())
    seen: set[tuple[str, str]] = set()
    findings: list[Finding] = []
    for rule in ALL_RULES:
        for item in rule(context):
            key = (item.code, item.message)
            if key not in seen:
                seen.add(key)
                findings.append(item)
    return worst_first(findings)


def verdict(findings: list[Finding]) -> Verdict:
    """READY, READY WITH WARNINGS or NOT READY (``gpuready.model.outcome.readiness``)."""
    return readiness(findings)


def judged_run(fingerprint: Fingerprint, data: Dataset, kind: RunKind = RunKind.DOCTOR,
               today: datetime.date | None = None) -> Run:
    """A Run of the fingerprint with its findings and readiness verdict, and the data set it was judged with."""
    findings = judge(fingerprint, data, today)
    tags = (f"data:{data.as_of.isoformat()}",)
    return make_run(kind, __version__, fingerprint=fingerprint, findings=findings, tags=tags)
