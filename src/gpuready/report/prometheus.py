"""Prometheus text exposition of a Run, for node-exporter's textfile collector, written by ``prometheus_client``."""

from __future__ import annotations

import re
from datetime import datetime

from gpuready.model import CheckStatus, Run, Severity

_NAME = re.compile(r"[^a-zA-Z0-9_]")


def label_value(text: object) -> str:
    """A label value escaped as the exposition format requires (what prometheus_client writes)."""
    return str(text).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


def render_prometheus(run: Run) -> str:
    """The verdict, findings by severity, check outcomes and the median of each measurement, labelled by the Run."""
    from prometheus_client import CollectorRegistry, Gauge, generate_latest

    device = next((str(d.name.value) for d in run.fingerprint.devices if d.name.value), "cpu") \
        if run.fingerprint else ""
    base = {"kind": run.kind.value, "device": device, "label": run.label}
    registry = CollectorRegistry()

    def gauge(name: str, documentation: str, *extra: str) -> Gauge:
        return Gauge(name, documentation, [*base, *extra], registry=registry)

    gauge("gpuready_run_timestamp_seconds", "When the run was recorded (Unix time).", "run_id").labels(
        **base, run_id=run.id).set(datetime.fromisoformat(run.created_at).timestamp())
    gauge("gpuready_verdict", "1 for the run's verdict (its level: ok, warn or fail).", "verdict", "level").labels(
        **base, verdict=run.outcome.verdict.value, level=run.outcome.level.value).set(1)
    if run.findings or run.kind.value in ("doctor", "scan", "audit", "env", "verify"):
        findings = gauge("gpuready_findings", "Findings of the run by severity.", "severity")
        for severity in Severity:
            findings.labels(**base, severity=severity.value).set(sum(1 for f in run.findings if f.severity is severity))
    if run.results:
        checks = gauge("gpuready_checks", "Checks of the run by outcome.", "status")
        for status in CheckStatus:
            checks.labels(**base, status=status.value).set(sum(1 for r in run.results if r.status is status))
        passed = gauge("gpuready_check_passed", "1 when the check passed, 0 otherwise.", "check", "status")
        for result in run.results:
            passed.labels(**base, check=result.check_id, status=result.status.value).set(
                1.0 if result.status is CheckStatus.PASS else 0.0)
    if run.measurements:
        median = gauge("gpuready_measurement_median", "Median of a measured quantity (unit in the label).",
                       "metric", "unit", "workload", "batch_size", "precision")
        for m in run.measurements:
            median.labels(**base, metric=_NAME.sub("_", m.metric), unit=m.unit, workload=m.workload,
                          batch_size=str(m.settings.get("batch_size", "")),
                          precision=str(m.settings.get("precision", ""))).set(m.summary.median)
    return generate_latest(registry).decode("utf-8")
