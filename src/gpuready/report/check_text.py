"""Terminal rendering of check results: a live line per check and a summary table."""

from __future__ import annotations

from collections import Counter

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuready.model import CheckResult, CheckStatus

STATUS_STYLE = {CheckStatus.PASS: "green", CheckStatus.SKIP: "dim", CheckStatus.FAIL: "bold red",
                CheckStatus.ERROR: "bold red", CheckStatus.TIMEOUT: "bold magenta", CheckStatus.CRASH: "bold magenta"}


def live_line(result: CheckResult) -> str:
    """``  PASS   torch.ops.matmul  0.05 s`` (plain text, for stderr)."""
    reason = str(result.details.get("reason", ""))
    return (f"  {result.status.value.upper():<7} {result.check_id:<34} {result.duration_s:7.2f} s"
            + (f"  {reason[:110]}" if reason and result.status is not CheckStatus.PASS else ""))


def render_checks(results: list[CheckResult]) -> RenderableType:
    """The summary table and the counts."""
    table = Table(title="Checks", title_justify="left")
    table.add_column("check", no_wrap=True)
    for column in ("status", "time", "device", "detail"):
        table.add_column(column, overflow="fold")
    for result in results:
        table.add_row(result.check_id, Text(result.status.value, style=STATUS_STYLE[result.status]),
                      f"{result.duration_s:.2f} s", result.device, str(result.details.get("reason", ""))[:200])
    counts = Counter(r.status.value for r in results)
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    failed = any(r.status not in (CheckStatus.PASS, CheckStatus.SKIP) for r in results)
    verdict = Text("FAILED" if failed else "PASSED", style="bold red" if failed else "bold green")
    return Group(table, verdict + Text(f"  {summary}"))
