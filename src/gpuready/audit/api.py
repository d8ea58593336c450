"""``audit(model, ...) -> (trace, findings)``: run the step in an isolated process and judge its trace."""

from __future__ import annotations

from dataclasses import dataclass

from gpuready.audit.check import AUDIT_SPEC
from gpuready.audit.trace import Trace, analyse_trace
from gpuready.checks.launchers import InlineLauncher, SubprocessLauncher
from gpuready.model import CheckResult, CheckStatus, Finding, Severity, from_dict


@dataclass(frozen=True)
class AuditOutcome:
    """What the audit found, and the raw result of the isolated run."""

    trace: Trace | None
    findings: tuple[Finding, ...]
    result: CheckResult

    @property
    def blocked(self) -> bool:
        """Any blocker."""
        return any(f.severity is Severity.BLOCKER for f in self.findings)


def audit(model: str, *, device: str = "auto", mode: str = "train", steps: int = 1, timeout_s: float = 600.0,
          inline: bool = False) -> AuditOutcome:
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
    return AuditOutcome(trace, tuple(analyse_trace(trace)), result)
