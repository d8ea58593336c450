"""Terminal rendering of a scan: the verdict, findings grouped by kind with their locations, skipped files."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Group, RenderableType
from rich.text import Text

from gpuready.model import Finding, Severity
from gpuready.scan.engine import ScanReport

_STYLE = {Severity.BLOCKER: "bold red", Severity.WARN: "yellow", Severity.INFO: "cyan"}
_VERDICT = {"blocked": "bold red", "needs alternatives": "bold yellow", "portable": "bold green"}


def render_scan(report: ScanReport, locations_shown: int = 5) -> RenderableType:
    """Worst first; each kind once with up to ``locations_shown`` places."""
    parts: list[RenderableType] = [Text(report.verdict.upper(), style=_VERDICT.get(report.verdict, "bold"))]
    counts = {s: sum(f.severity is s for f in report.findings) for s in Severity}
    parts.append(Text(f"{counts[Severity.BLOCKER]} blocker(s), {counts[Severity.WARN]} warning(s), "
                      f"{counts[Severity.INFO]} info — {report.files} files, {report.lines} lines in "
                      f"{report.seconds:.2f} s ({report.cached} from cache)", style="dim"))
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    first: dict[tuple[str, str], Finding] = {}
    for finding in report.findings:
        if finding.code == "scan.file_skipped":
            continue
        key = (finding.code, finding.message)
        groups[key].append(finding.location)
        first.setdefault(key, finding)
    for key, places in groups.items():
        finding = first[key]
        head = Text(f"\n[{finding.severity.value.upper()}] ", style=_STYLE[finding.severity])
        head.append(finding.code, style="bold")
        head.append(f"  {finding.message}")
        parts.append(head)
        shown = ", ".join(places[:locations_shown]) + (f" (+{len(places) - locations_shown} more)"
                                                       if len(places) > locations_shown else "")
        parts.append(Text(f"    at: {shown}", style="dim"))
        if finding.remedy:
            parts.append(Text(f"    instead: {finding.remedy}", style="green"))
        if finding.source_url:
            parts.append(Text(f"    source: {finding.source_url}", style="dim"))
    if report.skipped:
        parts.append(Text(f"\nSkipped {len(report.skipped)} file(s):", style="bold"))
        for skipped in report.skipped[:20]:
            parts.append(Text(f"    {skipped.path}: {skipped.reason}", style="dim"))
    return Group(*parts)
