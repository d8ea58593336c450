"""``Outcome``: what a Run adds up to, in one vocabulary per kind of Run, computed once in the library.

    env, doctor   READY / READY WITH WARNINGS / NOT READY
    scan          PORTABLE / NEEDS ALTERNATIVES / BLOCKED
    audit         CLEAN / PROBLEMS / BLOCKED
    check, bench  PASS / FAIL
    verify        VERIFIED / DRIFT / REGRESSION

Renderers show the outcome; they never derive a verdict of their own.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gpuready.model.results import CheckResult, CheckStatus, Finding, Severity


class Level(str, enum.Enum):
    """How a verdict weighs: ``fail`` makes a command exit 1; ``warn`` does so only when asked to be strict."""

    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


class Verdict(str, enum.Enum):
    """Every verdict gpuready gives (see the module docstring for which kind uses which)."""

    READY = "READY"
    READY_WITH_WARNINGS = "READY WITH WARNINGS"
    NOT_READY = "NOT READY"
    PORTABLE = "PORTABLE"
    NEEDS_ALTERNATIVES = "NEEDS ALTERNATIVES"
    BLOCKED = "BLOCKED"
    CLEAN = "CLEAN"
    PROBLEMS = "PROBLEMS"
    PASS = "PASS"
    FAIL = "FAIL"
    VERIFIED = "VERIFIED"
    DRIFT = "DRIFT"
    REGRESSION = "REGRESSION"
    NOT_JUDGED = "NOT JUDGED"
    """A Run of an older schema that recorded facts only (an ``env`` of schema 1)."""

    @property
    def level(self) -> Level:
        """ok, warn or fail."""
        return _LEVEL[self]


_LEVEL = {
    Verdict.READY: Level.OK, Verdict.READY_WITH_WARNINGS: Level.WARN, Verdict.NOT_READY: Level.FAIL,
    Verdict.PORTABLE: Level.OK, Verdict.NEEDS_ALTERNATIVES: Level.WARN, Verdict.BLOCKED: Level.FAIL,
    Verdict.CLEAN: Level.OK, Verdict.PROBLEMS: Level.WARN,
    Verdict.PASS: Level.OK, Verdict.FAIL: Level.FAIL,
    Verdict.VERIFIED: Level.OK, Verdict.DRIFT: Level.FAIL, Verdict.REGRESSION: Level.FAIL,
    Verdict.NOT_JUDGED: Level.WARN,
}

_BY_SEVERITY = {
    "readiness": (Verdict.NOT_READY, Verdict.READY_WITH_WARNINGS, Verdict.READY),
    "portability": (Verdict.BLOCKED, Verdict.NEEDS_ALTERNATIVES, Verdict.PORTABLE),
    "placement": (Verdict.BLOCKED, Verdict.PROBLEMS, Verdict.CLEAN),
}

NOT_COUNTED = frozenset({"scan.file_skipped", "scan.nothing_scanned"})
"""Finding codes that say what could not be looked at; they are listed, but do not make a verdict by severity."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The verdict, counts by severity (and by check status), and a one-line summary."""

    verdict: Verdict
    counts: dict[str, int] = field(default_factory=dict)
    """``blocker``, ``warn``, ``info`` for findings; ``pass``, ``fail``, ``skip`` ... for check results."""
    summary: str = ""

    @property
    def level(self) -> Level:
        return self.verdict.level

    def failed(self, *, strict: bool = False) -> bool:
        """Whether this outcome fails a gate: any fail level, or with ``strict`` a warning too."""
        return self.level is Level.FAIL or (strict and self.level is Level.WARN)


def _by_severity(scale: str, findings: Iterable[Finding]) -> Verdict:
    worst, middle, best = _BY_SEVERITY[scale]
    severities = {f.severity for f in findings if f.code not in NOT_COUNTED}
    if Severity.BLOCKER in severities:
        return worst
    if Severity.WARN in severities:
        return middle
    return best


def readiness(findings: Iterable[Finding]) -> Verdict:
    """NOT READY on any blocker; READY WITH WARNINGS on any warning (unknowns are warnings: a missing fact never
    passes as fine); READY otherwise."""
    return _by_severity("readiness", findings)


def portability(findings: Iterable[Finding]) -> Verdict:
    """BLOCKED on a blocker, NEEDS ALTERNATIVES on a warning, PORTABLE otherwise."""
    return _by_severity("portability", findings)


def placement(findings: Iterable[Finding]) -> Verdict:
    """BLOCKED on a blocker, PROBLEMS on a warning, CLEAN otherwise."""
    return _by_severity("placement", findings)


def passed(results: Iterable[CheckResult], findings: Iterable[Finding] = ()) -> Verdict:
    """PASS when every result passed or was skipped and no finding is a blocker; FAIL otherwise."""
    good = {CheckStatus.PASS, CheckStatus.SKIP}
    if any(r.status not in good for r in results) or any(f.severity is Severity.BLOCKER for f in findings):
        return Verdict.FAIL
    return Verdict.PASS


def verification(findings: Iterable[Finding]) -> Verdict:
    """REGRESSION when a check or benchmark regressed, DRIFT when the environment changed, VERIFIED otherwise."""
    codes = [f.code for f in findings if f.severity is Severity.BLOCKER]
    if any(code.startswith("verify.regress") for code in codes):
        return Verdict.REGRESSION
    if codes:
        return Verdict.DRIFT
    return Verdict.VERIFIED


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def counts_of(findings: Sequence[Finding], results: Sequence[CheckResult]) -> dict[str, int]:
    """Findings by severity, and check results by status when there are any."""
    counts = {s.value: sum(1 for f in findings if f.severity is s) for s in Severity}
    if results:
        counts |= {s.value: sum(1 for r in results if r.status is s) for s in CheckStatus}
    return counts


def summarize(verdict: Verdict, counts: dict[str, int], results: bool) -> str:
    """``NOT READY: 2 blockers, 1 warning`` or ``PASS: 12 pass, 2 skipped``."""
    if results:
        parts = [f"{counts.get('pass', 0)} pass"] + [f"{counts[s]} {word}" for s, word in (
            ("fail", "failed"), ("error", "errors"), ("timeout", "timed out"), ("crash", "crashed"),
            ("skip", "skipped")) if counts.get(s)]
        if counts.get("blocker"):
            parts.append(_plural(counts["blocker"], "blocker"))
    else:
        parts = [_plural(counts[s], word) for s, word in (("blocker", "blocker"), ("warn", "warning"),
                                                          ("info", "note")) if counts.get(s)]
    return f"{verdict.value}: {', '.join(parts) if parts else 'nothing to report'}"


def make_outcome(verdict: Verdict, findings: Sequence[Finding], results: Sequence[CheckResult] = (),
                 summary: str = "") -> Outcome:
    """An Outcome with the counts filled in and, unless given, the standard one-line summary."""
    counts = counts_of(findings, results)
    return Outcome(verdict, counts, summary or summarize(verdict, counts, bool(results)))
