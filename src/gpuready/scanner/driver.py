"""``run_scan(config, kb) -> Run``: the scan of a tree as a Run, with its verdict and what it covered."""

from __future__ import annotations

from gpuready import __version__
from gpuready.errors import InputError
from gpuready.model import CheckResult, CheckStatus, Run, RunKind, make_run
from gpuready.model.config import ScanConfig
from gpuready.model.outcome import Verdict, make_outcome
from gpuready.scanner.engine import ScanReport, scan_tree
from gpuready.scanner.kb import KnowledgeBase

TREE_RESULT = "scan.tree"
"""The result that records what the scan covered: files, lines, seconds, files served from the cache."""


def coverage_result(report: ScanReport) -> CheckResult:
    """What the scan read, as a result with metrics (the Run keeps it next to the findings)."""
    return CheckResult(TREE_RESULT, CheckStatus.PASS, duration_s=round(report.seconds, 6),
                       metrics={"files": float(report.files), "lines": float(report.lines),
                                "cached": float(report.cached), "skipped": float(len(report.skipped)),
                                **{k: float(v) for k, v in report.stats.items()}},
                       details={"root": report.root, "verdict": report.verdict,
                                **{f"component {name}": verdict for name, verdict in report.components.items()}})


_VERDICTS = {"blocked": Verdict.BLOCKED, "needs alternatives": Verdict.NEEDS_ALTERNATIVES, "portable": Verdict.PORTABLE}


def components(run: Run) -> dict[str, str]:
    """The verdicts of the parts outside the core (tests, ci, ``feature <package>`` ...) of a scan Run."""
    details = next((dict(r.details) for r in run.results if r.check_id == TREE_RESULT), {})
    return {k.removeprefix("component "): v for k, v in details.items() if k.startswith("component ")}


def run_scan(config: ScanConfig, kb: KnowledgeBase) -> Run:
    """Scan ``config.path`` (nothing in it is imported or executed) and judge it."""
    report = scan_tree(config.path, kb, jobs=config.jobs, cache=config.cache)
    if report.files == 0:
        unread = f" ({len(report.skipped)} file(s) could not be read: {report.skipped[0].reason})" if (
            report.skipped) else ""
        raise InputError("nothing to scan: no Python, requirements, build or kernel source files here" + unread,
                         source=str(config.path))
    verdict = _VERDICTS[report.verdict]
    outcome = make_outcome(verdict, report.findings)
    others = "; ".join(f"{name}: {value}" for name, value in report.components.items() if value != "portable")
    within = ", all of them outside the core: " if report.verdict == "portable" else "; outside the core: "
    summary = f"{outcome.summary} in {report.files} files ({report.lines:,} lines)" + (
        f"{within}{others}" if others else "")  # a PORTABLE project's blockers are in its optional parts
    return make_run(RunKind.SCAN, __version__, findings=report.findings, results=[coverage_result(report)],
                    outcome=make_outcome(verdict, report.findings, summary=summary), tags=(f"root:{config.path}",))


def covered(run: Run) -> dict[str, float]:
    """The coverage metrics of a scan Run (empty for a Run of schema 1)."""
    return next((dict(r.metrics) for r in run.results if r.check_id == TREE_RESULT), {})
