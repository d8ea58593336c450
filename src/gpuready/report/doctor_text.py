"""Terminal rendering of a doctor verdict and its findings."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from gpuready.compat.judge import Verdict
from gpuready.model import Finding, Severity

_VERDICT_STYLE = {Verdict.READY: "bold green", Verdict.READY_WITH_WARNINGS: "bold yellow",
                  Verdict.NOT_READY: "bold red"}
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


def render_doctor(verdict: Verdict, findings: list[Finding], origin: str) -> RenderableType:
    """The verdict first, then the findings, worst first."""
    counts = {s: sum(f.severity is s for f in findings) for s in Severity}
    parts: list[RenderableType] = [Text(verdict.value, style=_VERDICT_STYLE[verdict])]
    summary = ", ".join(f"{n} {s.value}" + ("s" if n != 1 and s is not Severity.INFO else "")
                        for s, n in counts.items() if n)
    parts.append(Text(f"{summary or 'no findings'} — judged from {origin}", style="dim"))
    if findings:
        parts.append(Text(""))
        parts.extend(render_findings(findings))
    return Group(*parts)
