"""Terminal rendering of check results: a live line per check and a summary table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuready.isolation.spec import CheckSpec
from gpuready.model import CheckResult, CheckStatus, Run
from gpuready.report.doctor_text import verdict_line

STATUS_STYLE = {CheckStatus.PASS: "green", CheckStatus.SKIP: "dim", CheckStatus.FAIL: "bold red",
                CheckStatus.ERROR: "bold red", CheckStatus.TIMEOUT: "bold magenta", CheckStatus.CRASH: "bold magenta"}


def live_line(result: CheckResult) -> str:
    """``  PASS   torch.ops.matmul  0.05 s`` (plain text, for stderr)."""
    reason = str(result.details.get("reason", ""))
    return (f"  {result.status.value.upper():<7} {result.check_id:<34} {result.duration_s:7.2f} s"
            + (f"  {reason[:110]}" if reason and result.status is not CheckStatus.PASS else ""))


def render_checks(run: Run) -> RenderableType:
    """The summary table and the verdict with its counts (skips are not failures)."""
    results = run.results
    table = Table(title="Checks", title_justify="left")
    table.add_column("check", no_wrap=True)
    for column in ("status", "time", "device", "detail"):
        table.add_column(column, overflow="fold")
    for result in results:
        # Text, never markup: a reason quotes the failure ("[/tmp/x] ..."), which rich would read as a closing tag
        table.add_row(Text(result.check_id), Text(result.status.value, style=STATUS_STYLE[result.status]),
                      f"{result.duration_s:.2f} s", Text(result.device),
                      Text(str(result.details.get("reason", ""))[:200]))
    return Group(table, verdict_line(run.outcome))


def render_check_list(specs: Sequence[CheckSpec]) -> RenderableType:
    """``check --list``: id, framework, timeout and what each check does."""
    table = Table(box=None, pad_edge=False)
    for column in ("check", "framework", "timeout", "what it checks"):
        table.add_column(column, overflow="fold")
    for spec in specs:
        table.add_row(Text(spec.id), spec.framework, f"{spec.timeout_s:g} s", Text(spec.description))
    return table
