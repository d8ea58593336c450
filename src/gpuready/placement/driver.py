"""The torch audit: run the user's step in an isolated process, judge its trace, replay its ops (op coverage)."""

from __future__ import annotations

from dataclasses import dataclass

from gpuready import __version__
from gpuready.isolation.launchers import InlineLauncher, SubprocessLauncher, raise_input_error
from gpuready.model import CheckResult, CheckStatus, Finding, Run, RunKind, Severity, from_dict, make_run, to_dict
from gpuready.model.config import AuditConfig
from gpuready.placement.phases import AUDIT_SPEC
from gpuready.placement.replay import COVERAGE_SPEC
from gpuready.placement.trace import Trace, analyse_trace
from gpuready.workloads.resolve import resolve


@dataclass(frozen=True)
class AuditView:
    """What a stored audit Run holds, decoded for rendering: the trace and the op coverage entries."""

    trace: Trace | None
    coverage: tuple[dict[str, object], ...]

    @classmethod
    def of(cls, run: Run) -> AuditView:
        """Read the trace and coverage back out of an audit Run's results."""
        trace = None
        coverage: tuple[dict[str, object], ...] = ()
        for result in run.results:
            if result.check_id == AUDIT_SPEC.id and isinstance(result.details.get("trace"), dict):
                trace = from_dict(Trace, result.details["trace"], source="audit trace")
            if result.check_id == COVERAGE_SPEC.id:
                coverage = tuple(result.details.get("ops") or ())
        return cls(trace, coverage)


def _model_failed(config: AuditConfig, result: CheckResult) -> Finding:
    reason = str(result.details.get("reason", result.status.value))
    return Finding("audit.model_failed", Severity.BLOCKER,
                   f"running {config.model!r} failed ({result.status.value}): {reason}",
                   evidence={"traceback": str(result.details.get("traceback", ""))[-2000:],
                             "output": str(result.details.get("output_tail", ""))[-1000:]},
                   remedy="fix the error above; the model must build and run one step on the CPU too")


def run_torch_audit(config: AuditConfig, *, perturb: str = "") -> Run:
    """Audit ``config.model`` (a built-in, ``module:factory`` or ``file.py:factory``) in a child process.

    The workload is checked before anything runs; a factory that imports but does not return a workload is the
    user's input error too (``InputError``), not a finding.
    """
    resolve(config.model)
    options = {"config": to_dict(config)}
    launcher = InlineLauncher(device=config.device, options=options) if config.inline else SubprocessLauncher(
        device=config.device, options=options, timeout_s=config.timeout_s)
    [result] = launcher.run([AUDIT_SPEC])
    raise_input_error([result])
    tags = (f"model:{config.model}", f"mode:{config.mode}")
    if result.status is not CheckStatus.PASS or "trace" not in result.details:
        return make_run(RunKind.AUDIT, __version__, findings=[_model_failed(config, result)], results=[result],
                        tags=tags)
    trace = from_dict(Trace, result.details["trace"], source="audit trace")
    findings = analyse_trace(trace)
    results = [result]
    if config.coverage and trace.replay:
        _, coverage_result, extra = replay_ops(trace, config.device, config.timeout_s, config.inline, perturb)
        findings += extra
        results.append(coverage_result)
    return make_run(RunKind.AUDIT, __version__, findings=findings, results=results, tags=tags)


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
