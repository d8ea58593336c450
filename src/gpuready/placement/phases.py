"""The audit as isolated work: it runs in the check process (the user's code is imported only there) and hands
its trace back as JSON."""

from __future__ import annotations

from gpuready.isolation.spec import CheckContext, CheckSpec
from gpuready.model import from_dict, to_dict
from gpuready.model.config import AuditConfig
from gpuready.placement.run import run_audit
from gpuready.workloads.loader import load_workload

AUDIT_SPEC = CheckSpec(id="audit.step", target="gpuready.placement.phases:audit_step", suites=(), framework="torch",
                       timeout_s=600.0, description="record where every op of the user's step runs")


def audit_step(context: CheckContext) -> None:
    """Load the workload (its import and construction are part of what is checked) and record its step."""
    import torch

    config = from_dict(AuditConfig, context.options["config"], source="audit configuration")
    device = context.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "standin"
    context.note("device", device)
    workload = load_workload(config.model)
    trace = run_audit(workload, device, steps=config.steps, mode=config.mode)
    context.note("trace", to_dict(trace))
    context.record("ops", len(trace.records))
