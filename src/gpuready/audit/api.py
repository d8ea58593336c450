"""``audit(model, ...) -> (trace, findings)``: run the step in an isolated process and judge its trace."""

from __future__ import annotations

from dataclasses import dataclass

from gpuready.audit.check import AUDIT_SPEC
from gpuready.audit.replay import COVERAGE_SPEC
from gpuready.audit.trace import Trace, analyse_trace
from gpuready.checks.launchers import InlineLauncher, SubprocessLauncher
from gpuready.model import CheckResult, CheckStatus, Finding, Severity, from_dict


@dataclass(frozen=True)
class AuditOutcome:
    """What the audit found, and the raw results of the isolated runs (step, then op coverage)."""

    trace: Trace | None
    findings: tuple[Finding, ...]
    result: CheckResult
    coverage: tuple[dict[str, object], ...] = ()
    coverage_result: CheckResult | None = None

    @property
    def blocked(self) -> bool:
        """Any blocker."""
        return any(f.severity is Severity.BLOCKER for f in self.findings)


def audit(model: str, *, device: str = "auto", mode: str = "train", steps: int = 1, timeout_s: float = 600.0,
          inline: bool = False, coverage: bool = True, perturb: str = "") -> AuditOutcome:
    """Audit ``model`` (a built-in or ``module:factory`` / ``file.py:factory``) in a child process."""
    options = {"model": model, "mode": mode, "steps": steps}
    launcher = InlineLauncher(device=device, options=options) if inline else SubprocessLauncher(
        device=device, options=options, timeout_s=timeout_s)
    [result] = launcher.run([AUDIT_SPEC])
    if result.status is not CheckStatus.PASS or "trace" not in result.details:
        reason = str(result.details.get("reason", result.status.value))
        finding = Finding("audit.model_failed", Severity.BLOCKER,
                          f"loading or running {model!r} failed ({result.status.value}): {reason}",
                          evidence={"traceback": str(result.details.get("traceback", ""))[-2000:],
                                    "output": str(result.details.get("output_tail", ""))[-1000:]},
                          remedy="fix the error above; the model must import, build and run one step on the CPU too")
        return AuditOutcome(None, (finding,), result)
    trace = from_dict(Trace, result.details["trace"], source="audit trace")
    findings = analyse_trace(trace)
    if not coverage or not trace.replay:
        return AuditOutcome(trace, tuple(findings), result)
    ops, coverage_result, extra = replay_ops(trace, device, timeout_s, inline, perturb)
    return AuditOutcome(trace, tuple(findings + extra), result, tuple(ops), coverage_result)


def replay_ops(trace: Trace, device: str, timeout_s: float, inline: bool, perturb: str = ""
               ) -> tuple[list[dict[str, object]], CheckResult, list[Finding]]:
    """Replay the trace's distinct ops on the device (isolated) against float64 on the CPU."""
    import os
    import tempfile
    from pathlib import Path

    from gpuready.model import to_dict

    replay_device = "cpu" if device == "standin" or trace.target == "standin" else device
    with tempfile.TemporaryDirectory(prefix="gpuready-coverage-") as folder:
        progress = os.path.join(folder, "progress")
        options = {"ops": [to_dict(op) for op in trace.replay], "progress_file": progress, "perturb": perturb}
        launcher = InlineLauncher(device=replay_device, options=options) if inline else SubprocessLauncher(
            device=replay_device, options=options, timeout_s=timeout_s)
        [result] = launcher.run([COVERAGE_SPEC])
        started = Path(progress).read_text(encoding="utf-8").split() if os.path.exists(progress) else []
    findings: list[Finding] = []
    ops = list(result.details.get("ops") or [])
    if result.status is not CheckStatus.PASS:
        culprit = started[-1] if started else "(before the first op)"
        findings.append(Finding("audit.op_crash", Severity.BLOCKER,
                                f"replaying the step's ops {result.status.value}ed at {culprit}: "
                                f"{result.details.get('reason', '')}", evidence={"op": culprit},
                                remedy="this op kills or hangs the process on this device: report it upstream and "
                                       "avoid it (another dtype, a torch fallback)"))
    for entry in ops:
        status = entry.get("status")
        if status == "mismatch":
            findings.append(Finding("audit.op_mismatch", Severity.BLOCKER,
                                    f"{entry['op']} gives wrong results on this device "
                                    f"(max relative error {entry.get('max_rel_error', entry.get('detail'))})",
                                    evidence={k: str(v) for k, v in entry.items()},
                                    remedy="compare dtypes and backends; report it upstream with these shapes"))
        elif status == "unsupported":
            findings.append(Finding("audit.op_unsupported", Severity.BLOCKER,
                                    f"{entry['op']} does not run on this device: {entry.get('detail')}",
                                    evidence={k: str(v) for k, v in entry.items()},
                                    remedy="use a build that supports it, or a different dtype or implementation"))
    return ops, result, findings
