"""Prometheus text exposition of a Run, for node-exporter's textfile collector (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

from gpuready.model import Run, Severity

_STATUS = ("pass", "fail", "skip", "error", "timeout", "crash")
_NAME = re.compile(r"[^a-zA-Z0-9_]")


def label_value(text: object) -> str:
    """A label value escaped as the exposition format requires (backslash, double quote, newline)."""
    return str(text).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


def _labels(**labels: object) -> str:
    return "{" + ",".join(f'{key}="{label_value(value)}"' for key, value in labels.items()) + "}"


def _family(name: str, kind: str, help_text: str, samples: Iterable[tuple[str, float]]) -> list[str]:
    rows = [f"{name}{labels} {value:.10g}" for labels, value in samples]
    return [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}", *rows] if rows else []


def run_verdict(run: Run) -> str | None:
    """The verdict a Run stands for: doctor's and scan's own, pass/fail for checks; none for the rest."""
    if run.kind.value == "doctor":
        from gpuready.compat.judge import verdict

        return str(verdict(list(run.findings)).value)
    if run.kind.value == "scan":
        from gpuready.scan.engine import verdict as scan_verdict

        return scan_verdict(run.findings)
    if run.results:
        return "pass" if all(r.status.value in ("pass", "skip") for r in run.results) else "fail"
    return None


def render_prometheus(run: Run, verdict: str | None = None) -> str:
    """Verdict, findings by severity, check outcomes and the median of each measurement, labelled by the Run."""
    device = next((str(d.name.value) for d in run.fingerprint.devices if d.name.value), "cpu") \
        if run.fingerprint else ""
    base = {"kind": run.kind.value, "device": device, "label": run.label}
    created = datetime.fromisoformat(run.created_at).timestamp()
    lines = _family("gpuready_run_timestamp_seconds", "gauge", "When the run was recorded (Unix time).",
                    [(_labels(**base, run_id=run.id), created)])
    if verdict is not None:
        lines += _family("gpuready_verdict", "gauge", "1 for the run's verdict.",
                         [(_labels(**base, verdict=verdict), 1.0)])
    if run.findings or run.kind.value in ("doctor", "scan", "audit"):
        lines += _family("gpuready_findings", "gauge", "Findings of the run by severity.",
                         [(_labels(**base, severity=s.value), float(sum(1 for f in run.findings if f.severity is s)))
                          for s in Severity])
    if run.results:
        lines += _family("gpuready_checks", "gauge", "Checks of the run by outcome.",
                         [(_labels(**base, status=status),
                           float(sum(1 for r in run.results if r.status.value == status))) for status in _STATUS])
        lines += _family("gpuready_check_passed", "gauge", "1 when the check passed, 0 otherwise.",
                         [(_labels(**base, check=r.check_id, status=r.status.value),
                           1.0 if r.status.value == "pass" else 0.0) for r in run.results])
    lines += _family("gpuready_measurement_median", "gauge", "Median of a measured quantity (unit in the label).",
                     [(_labels(**base, metric=_NAME.sub("_", m.metric), unit=m.unit, workload=m.workload,
                               batch_size=m.settings.get("batch_size", ""), precision=m.settings.get("precision", "")),
                       m.summary.median) for m in run.measurements])
    return "\n".join(lines) + "\n"
