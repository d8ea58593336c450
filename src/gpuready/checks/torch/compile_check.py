"""torch.compile gives what eager mode gives (skipped with the reason when no compiler toolchain works)."""

from __future__ import annotations

from gpuready.checks.torch._util import Comparison, device_under_test, import_torch
from gpuready.isolation.spec import CheckContext, Skip
from gpuready.workloads.torch_models import build_transformer


def equivalence(context: CheckContext) -> None:
    """Forward and backward of a small transformer, compiled against eager."""
    torch = import_torch()
    device = device_under_test(context)
    if not hasattr(torch, "compile"):
        raise Skip("this torch has no torch.compile")
    workload = build_transformer()
    model = workload.make_model().to(device)
    tokens, target = (t.to(device) for t in workload.batch(0))
    eager_loss = workload.loss(model(tokens), target)
    eager_loss.backward()
    eager_grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    compiled = torch.compile(model)
    try:
        compiled_loss = workload.loss(compiled(tokens), target)
        compiled_loss.backward()
    except Exception as error:  # noqa: BLE001 - a missing compiler is a skip, with the reason
        message = str(error).splitlines()[0][:300]
        if any(word in message.lower() for word in ("compiler", "gcc", "g++", "cc1plus", "triton", "inductor")):
            raise Skip(f"torch.compile could not build kernels here: {message}") from error
        raise
    compare = Comparison(context)
    compare.close("compile.loss", compiled_loss, eager_loss, 1e-4)
    worst = max((n for n in eager_grads), key=lambda n: eager_grads[n].abs().max().item())
    for name, parameter in model.named_parameters():
        if name in (worst, "head.weight", "embed.weight"):
            compare.close(f"compile.grad.{name}", parameter.grad, eager_grads[name], 1e-3)
    compare.finish()
