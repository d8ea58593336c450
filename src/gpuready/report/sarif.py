"""SARIF 2.1.0 of scan findings, so they show in code-scanning interfaces."""

from __future__ import annotations

import json
import os
from urllib.parse import quote

from gpuready import __version__
from gpuready.model import Finding, Severity

LEVEL = {Severity.BLOCKER: "error", Severity.WARN: "warning", Severity.INFO: "note"}


def _location(finding: Finding) -> tuple[str, int]:
    path, _, line = finding.location.rpartition(":")
    return (path, int(line)) if line.isdigit() and path else (finding.location, 1)


def render_sarif(findings: list[Finding] | tuple[Finding, ...]) -> str:
    """One SARIF run; one rule per finding code, one result per finding with its file and line."""
    rules: dict[str, dict[str, object]] = {}
    results = []
    for finding in findings:
        if finding.code not in rules:
            rule: dict[str, object] = {
                "id": finding.code,
                "shortDescription": {"text": finding.message[:200]},
                "defaultConfiguration": {"level": LEVEL[finding.severity]},
            }
            if finding.remedy:
                rule["help"] = {"text": finding.remedy}
            if finding.source_url:
                rule["helpUri"] = finding.source_url
            rules[finding.code] = rule
        path, line = _location(finding)
        text = finding.message + (f" Alternative: {finding.remedy}" if finding.remedy else "")
        results.append({
            "ruleId": finding.code,
            "ruleIndex": list(rules).index(finding.code),
            "level": LEVEL[finding.severity],
            "message": {"text": text},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": quote(path.replace(os.sep, "/")),
                                                                     "uriBaseId": "%SRCROOT%"},
                                                "region": {"startLine": max(1, line)}}}],
        })
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "gpuready", "version": __version__, "rules": list(rules.values())}},
            "results": results,
        }],
    }
    return json.dumps(document, indent=2) + "\n"
