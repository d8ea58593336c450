"""Terminal rendering of a doctor verdict and its findings."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from gpuready.model import Finding, Fingerprint, Level, Outcome, Run, Severity

LEVEL_STYLE = {Level.OK: "bold green", Level.WARN: "bold yellow", Level.FAIL: "bold red"}
_SEVERITY_STYLE = {Severity.BLOCKER: "bold red", Severity.WARN: "yellow", Severity.INFO: "cyan"}


def render_findings(findings: list[Finding]) -> list[RenderableType]:
    """One block per finding: severity, code, message, fix, evidence, source."""
    parts: list[RenderableType] = []
    for item in findings:
        head = Text(f"[{item.severity.value.upper()}] ", style=_SEVERITY_STYLE[item.severity])
        head.append(item.code, style="bold")
        head.append(f"  {item.message}")
        parts.append(head)
        if item.remedy:
            parts.append(Text(f"    fix: {item.remedy}", style="green"))
        if item.evidence:
            parts.append(Text("    evidence: " + "; ".join(f"{k}={v}" for k, v in item.evidence.items()), style="dim"))
        if item.source_url:
            parts.append(Text(f"    source: {item.source_url}", style="dim"))
    return parts


def verdict_line(outcome: Outcome) -> Text:
    """``NOT READY: 2 blockers, 1 warning`` in the verdict's colour."""
    verdict, _, rest = outcome.summary.partition(":")
    text = Text(verdict, style=LEVEL_STYLE[outcome.level])
    if rest:
        text.append(":" + rest)
    return text


def sections_text(fingerprint: Fingerprint | None) -> Text | None:
    """Which parts of a pasted report were read as what, and which were not (None for a probe)."""
    if fingerprint is None or not fingerprint.sections:
        return None
    parts = []
    for note in fingerprint.sections:
        where = f"{note.first_line}-{note.last_line}" if note.last_line != note.first_line else f"{note.first_line}"
        where = f"{note.source} {where}" if note.source else where
        parts.append(f"{where} not recognised" if note.kind == "unrecognised" else f"{where} {note.kind}")
    return Text("paste lines read: " + "; ".join(parts), style="dim")


def render_doctor(run: Run) -> RenderableType:
    """The verdict first, then the findings, worst first."""
    origin = run.fingerprint.origin if run.fingerprint else "?"
    data = next((t.removeprefix("data:") for t in run.tags if t.startswith("data:")), "")
    parts: list[RenderableType] = [verdict_line(run.outcome),
                                   Text(f"judged from {origin}" + (f" with compatibility data of {data}" if data
                                                                   else ""), style="dim")]
    read = sections_text(run.fingerprint)
    if read is not None:
        parts.append(read)
    if run.findings:
        parts.append(Text(""))
        parts.extend(render_findings(list(run.findings)))
    return Group(*parts)
