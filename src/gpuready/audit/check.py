"""The audit as a check: it runs in the isolated check process, and hands its trace back as JSON."""

from __future__ import annotations

from gpuready.audit.run import run_audit
from gpuready.audit.workload import load_workload
from gpuready.checks.spec import CheckContext, CheckSpec
from gpuready.model import to_dict

AUDIT_SPEC = CheckSpec(id="audit.step", target="gpuready.audit.check:audit_step", suites=(), framework="torch",
                       timeout_s=600.0, description="record where every op of the user's step runs")


def audit_step(context: CheckContext) -> None:
    """Load the workload (its import and construction are part of what is checked) and record its step."""
    import torch

    device = context.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "standin"
    context.note("device", device)
    workload = load_workload(str(context.options["model"]))
    trace = run_audit(workload, device, steps=int(context.options.get("steps", 1)),
                      mode=str(context.options.get("mode", "train")))
    context.note("trace", to_dict(trace))
    context.record("ops", len(trace.records))
