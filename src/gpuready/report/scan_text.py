"""Terminal rendering of a scan: the verdict, findings grouped by kind with their locations, skipped files."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Group, RenderableType
from rich.text import Text

from gpuready.model import Finding, Run, Severity
from gpuready.report.doctor_text import verdict_line
from gpuready.scanner.driver import covered

_STYLE = {Severity.BLOCKER: "bold red", Severity.WARN: "yellow", Severity.INFO: "cyan"}


def _place(finding: Finding, lines_shown: int = 8) -> str:
    """``path:line``, with the file's other lines for the same rule when there are some: ``a.cu:10 (also 59, 60)``."""
    listed, _, hidden = finding.evidence.get("lines", "").partition(" (+")
    others = [n for n in listed.split(", ") if n.isdigit() and not finding.location.endswith(f":{n}")]
    if not others:
        return finding.location
    more = len(others) - lines_shown + int(hidden.split(" ")[0]) if hidden[:1].isdigit() else len(others) - lines_shown
    return f"{finding.location} (also {', '.join(others[:lines_shown])}{f' +{more}' if more > 0 else ''})"


def render_scan(run: Run, locations_shown: int = 5) -> RenderableType:
    """The verdict, then each kind of finding once (worst first) with up to ``locations_shown`` places."""
    parts: list[RenderableType] = [verdict_line(run.outcome)]
    stats = covered(run)
    if stats:
        parts.append(Text(f"{stats.get('files', 0):.0f} files, {stats.get('lines', 0):,.0f} lines in "
                          f"{next((r.duration_s for r in run.results), 0.0):.2f} s ({stats.get('cached', 0):.0f} "
                          "from cache)", style="dim"))
    groups: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    first: dict[tuple[str, str, str], Finding] = {}
    for finding in run.findings:
        if finding.code == "scan.file_skipped":
            continue
        key = (finding.code, finding.message, finding.evidence.get("component", "core"))  # one group per part
        groups[key].append(_place(finding))
        first.setdefault(key, finding)
    for key, places in groups.items():
        finding = first[key]
        head = Text(f"\n[{finding.severity.value.upper()}] ", style=_STYLE[finding.severity])
        head.append(finding.code, style="bold")
        part = finding.evidence.get("component", "core")
        if part not in ("core", "build"):  # a part that does not decide the verdict (PORTABLE may list blockers)
            head.append(f" [{part}]", style="dim")
        head.append(f"  {finding.message}")
        parts.append(head)
        shown = ", ".join(places[:locations_shown]) + (f" (+{len(places) - locations_shown} more)"
                                                       if len(places) > locations_shown else "")
        parts.append(Text(f"    at: {shown}", style="dim"))
        if finding.remedy:
            parts.append(Text(f"    instead: {finding.remedy}", style="green"))
        if finding.source_url:
            parts.append(Text(f"    source: {finding.source_url}", style="dim"))
    skipped = [f for f in run.findings if f.code == "scan.file_skipped"]
    if skipped:
        parts.append(Text(f"\nSkipped {len(skipped)} file(s):", style="bold"))
        for finding in skipped[:20]:
            parts.append(Text(f"    {finding.location}: {finding.evidence.get('reason', finding.message)}",
                              style="dim"))
    return Group(*parts)
