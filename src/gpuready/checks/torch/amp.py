"""Mixed precision: autocast in bf16 and fp16 stays close to fp32; GradScaler skips a step with an inf and recovers."""

from __future__ import annotations

from typing import Any

from gpuready.checks.torch._util import Comparison, device_under_test, import_torch
from gpuready.checks.torch.train import train_losses
from gpuready.isolation.spec import CheckContext, Skip
from gpuready.workloads.torch_models import build_mlp

STEPS = 6
AMP_TOLERANCE = 5e-2


def _scaler(torch: Any, device: Any) -> Any:
    if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
        try:
            return torch.amp.GradScaler(device.type, init_scale=2.0**12)
        except (TypeError, RuntimeError, ValueError) as error:
            raise Skip(f"GradScaler is not available for {device.type}: {error}") from error
    if device.type == "cuda":
        return torch.cuda.amp.GradScaler(init_scale=2.0**12)
    raise Skip("this torch has no GradScaler for the CPU")


def _amp_losses(torch: Any, device: Any, dtype: Any, scaler: Any | None, inject_inf_at: int | None = None
                ) -> tuple[list[float], dict[str, Any]]:
    workload = build_mlp()
    model = workload.make_model().to(device).eval()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    losses: list[float] = []
    events: dict[str, Any] = {}
    for step in range(STEPS):
        x, target = (t.to(device) for t in workload.batch(step))
        with torch.autocast(device_type=device.type, dtype=dtype):
            loss = workload.loss(model(x).float(), target)
        optimizer.zero_grad(set_to_none=True)
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:
            scaler.scale(loss).backward()
            if step == inject_inf_at:
                first = next(model.parameters())
                first.grad.view(-1)[0] = float("inf")
                events["weights_before"] = first.detach().clone()
                events["scale_before"] = scaler.get_scale()
            scaler.step(optimizer)
            scaler.update()
            if step == inject_inf_at:
                events["skipped"] = torch.equal(first.detach(), events.pop("weights_before"))
                events["scale_after"] = scaler.get_scale()
        losses.append(float(loss.item()))
    return losses, events


def autocast(context: CheckContext) -> None:
    """bf16 and fp16 autocast training steps against fp32; an injected inf is skipped by the scaler."""
    torch = import_torch()
    device = device_under_test(context)
    compare = Comparison(context)
    reference, _, _ = train_losses(build_mlp(), device, steps=STEPS)
    bf16, _ = _amp_losses(torch, device, torch.bfloat16, None)
    compare.close("autocast.bfloat16.losses", torch.tensor(bf16), torch.tensor(reference), AMP_TOLERANCE)
    try:
        scaler = _scaler(torch, device)
        fp16, events = _amp_losses(torch, device, torch.float16, scaler, inject_inf_at=2)
    except Skip as reason:
        context.note("float16", str(reason))
    except RuntimeError as error:
        if device.type == "cpu":
            context.note("float16", f"fp16 autocast is not supported on this CPU build: {error}")
        else:
            raise
    else:
        compare.close("autocast.float16.losses", torch.tensor(fp16), torch.tensor(reference), AMP_TOLERANCE)
        compare.require("grad_scaler.skip", bool(events.get("skipped")), "the step with an inf gradient was applied")
        compare.require("grad_scaler.backoff", events.get("scale_after", 0) < events.get("scale_before", 0),
                        f"the scale did not back off ({events.get('scale_before')} -> {events.get('scale_after')})")
        compare.require("grad_scaler.recovery", all(v == v and abs(v) != float("inf") for v in fp16[3:]),
                        "training did not recover after the skipped step")
        context.record("scale_after_inf", float(events.get("scale_after", 0)))
    compare.finish()
