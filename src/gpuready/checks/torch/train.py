"""Training checks: K AdamW steps on the device follow the CPU float32 trajectory; gradients finite, weights move."""

from __future__ import annotations

from typing import Any

from gpuready.checks.torch._util import Comparison, device_under_test, import_torch
from gpuready.isolation.spec import CheckContext
from gpuready.workloads.protocol import Recipe
from gpuready.workloads.torch_models import RECIPES

STEPS = 6
LOSS_TOLERANCE = 2e-3


def train_losses(workload: Recipe, device: Any, steps: int = STEPS, deterministic_dropout: bool = True
                 ) -> tuple[list[float], Any, Any]:
    """Losses of ``steps`` AdamW steps; also the model before and after."""
    torch = import_torch()
    model = workload.make_model().to(device)
    if deterministic_dropout:
        model.eval()  # dropout off: CPU and device RNG streams differ by design
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.train()
    before = {k: v.detach().clone().cpu() for k, v in model.state_dict().items()}
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    losses = []
    for step in range(steps):
        x, target = (t.to(device) for t in workload.batch(step))
        loss = workload.loss(model(x), target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        for name, parameter in model.named_parameters():
            if parameter.grad is not None and not torch.isfinite(parameter.grad).all():
                raise FloatingPointError(f"non-finite gradient in {name} at step {step}")
        optimizer.step()
        losses.append(float(loss.item()))
    return losses, before, model


def _train_check(context: CheckContext, name: str) -> None:
    torch = import_torch()
    device = device_under_test(context)
    compare = Comparison(context)
    workload = RECIPES[name]()
    try:
        losses, before, model = train_losses(workload, device)
    except FloatingPointError as error:
        compare.require(name, False, str(error))
        compare.finish()
        return
    reference, _, _ = train_losses(workload, torch.device("cpu"))
    context.note("losses", [round(v, 6) for v in losses])
    compare.close(f"{name}.loss_trajectory", torch.tensor(losses), torch.tensor(reference), LOSS_TOLERANCE)
    after = model.state_dict()
    moved = sum(not torch.equal(before[k], after[k].detach().cpu()) for k in before if before[k].is_floating_point())
    compare.require(f"{name}.parameters", moved > 0, "no parameter changed after the optimizer steps")
    compare.require(f"{name}.learning", losses[-1] < losses[0] * 1.5, f"loss rose from {losses[0]} to {losses[-1]}")
    context.record("final_loss", losses[-1])
    compare.finish()


def mlp(context: CheckContext) -> None:
    """MLP."""
    _train_check(context, "mlp")


def cnn(context: CheckContext) -> None:
    """Small CNN with BatchNorm."""
    _train_check(context, "cnn")


def transformer(context: CheckContext) -> None:
    """Small decoder-only transformer."""
    _train_check(context, "transformer")
