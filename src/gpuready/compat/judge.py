"""Judge a fingerprint against the data: findings ordered by severity, and the verdict they add up to."""

from __future__ import annotations

import datetime
import enum

from gpuready.compat.load import Dataset
from gpuready.compat.rules import ALL_RULES, Context
from gpuready.model import Finding, Fingerprint, Severity

_ORDER = {Severity.BLOCKER: 0, Severity.WARN: 1, Severity.INFO: 2}


class Verdict(str, enum.Enum):
    """What the findings add up to."""

    READY = "READY"
    READY_WITH_WARNINGS = "READY WITH WARNINGS"
    NOT_READY = "NOT READY"


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
    return sorted(findings, key=lambda f: _ORDER[f.severity])


def verdict(findings: list[Finding]) -> Verdict:
    """NOT READY on any blocker; READY WITH WARNINGS on any warning (unknowns are warnings: a missing fact never
    passes as fine); READY otherwise."""
    severities = {f.severity for f in findings}
    if Severity.BLOCKER in severities:
        return Verdict.NOT_READY
    if Severity.WARN in severities:
        return Verdict.READY_WITH_WARNINGS
    return Verdict.READY
