"""JUnit XML of a Run's check results, for CI systems."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from gpuready.model import CheckStatus, Run
from gpuready.report.terminal import xml_safe


def render_junit(run: Run) -> str:
    """One testsuite, one testcase per check; fail -> failure, error/timeout/crash -> error, skip -> skipped."""
    results = run.results
    suite = ElementTree.Element("testsuite", {
        "name": "gpuready", "tests": str(len(results)),
        "failures": str(sum(r.status is CheckStatus.FAIL for r in results)),
        "errors": str(sum(r.status in (CheckStatus.ERROR, CheckStatus.TIMEOUT, CheckStatus.CRASH) for r in results)),
        "skipped": str(sum(r.status is CheckStatus.SKIP for r in results)),
        "time": f"{sum(r.duration_s for r in results):.3f}", "timestamp": xml_safe(run.created_at),
    })
    for result in results:
        group, _, name = xml_safe(result.check_id).rpartition(".")
        case = ElementTree.SubElement(suite, "testcase", {"classname": group or result.check_id, "name": name,
                                                          "time": f"{result.duration_s:.3f}"})
        reason = xml_safe(str(result.details.get("reason", "")))
        if result.status is CheckStatus.FAIL:
            ElementTree.SubElement(case, "failure", {"message": reason}).text = reason
        elif result.status in (CheckStatus.ERROR, CheckStatus.TIMEOUT, CheckStatus.CRASH):
            body = xml_safe("\n".join(str(result.details[k]) for k in ("traceback", "output_tail")
                                       if result.details.get(k)))
            ElementTree.SubElement(case, "error", {"message": f"{result.status.value}: {reason}",
                                                   "type": result.status.value}).text = body or reason
        elif result.status is CheckStatus.SKIP:
            ElementTree.SubElement(case, "skipped", {"message": reason})
        if result.device:
            ElementTree.SubElement(case, "system-out").text = f"device: {xml_safe(result.device)}"
    ElementTree.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suite, encoding="unicode") + "\n"
