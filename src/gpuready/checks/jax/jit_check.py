"""``jax.jit`` gives what eager execution (``jax.disable_jit``) gives, and compiles exactly when it should: once per
new shape, dtype or static argument, never for a repeat."""

from __future__ import annotations

from typing import Any

import numpy as np

from gpuready.checks.jax._util import begin
from gpuready.isolation.spec import CheckContext
from gpuready.workloads.jax_compiles import Compiles
from gpuready.workloads.jax_device import on, on_device
from gpuready.workloads.jax_models import build_mlp


def equivalence(context: CheckContext) -> None:
    """Loss and gradients of the MLP, jitted against op-by-op eager execution (eager JAX compiles every op on first
    use: on a CPU a transformer would take seconds, so the model is the MLP)."""
    device, jax, compare = begin(context)
    recipe = build_mlp()
    inputs, target = (on_device(v, "float32") for v in recipe.batch(0))

    def loss_and_grads(params: Any, x: Any, y: Any) -> Any:
        return jax.value_and_grad(lambda p: recipe.loss(recipe.apply(p, x), y))(params)

    with on(device):
        params = recipe.init("float32")
        compiled_loss, compiled_grads = jax.jit(loss_and_grads)(params, inputs, target)
        with jax.disable_jit():
            eager_loss, eager_grads = loss_and_grads(params, inputs, target)
    compare.close("jit.mlp.loss", compiled_loss, eager_loss, 1e-5)
    for (path, got), want in zip(jax.tree_util.tree_leaves_with_path(compiled_grads),
                                 jax.tree_util.tree_leaves(eager_grads), strict=True):
        compare.close(f"jit.mlp.grad{jax.tree_util.keystr(path)}", got, want, 1e-3)
    compare.finish()


def recompilation(context: CheckContext) -> None:
    """Count compilations around each call: a new shape, dtype or static argument compiles once, a repeat and new
    values of the same shape compile nothing."""
    device, jax, compare = begin(context)

    def scaled_sum(x: Any, scale: int) -> Any:
        return (x * scale).sum()

    function = jax.jit(scaled_sum, static_argnums=1)
    rng = np.random.default_rng(0)
    with on(device):
        x, other_values = on_device(rng.random((64, 32)), "float32"), on_device(rng.random((64, 32)), "float32")
        other_shape = on_device(rng.random((65, 32)), "float32")
        other_dtype = on_device(rng.random((64, 32)), "bfloat16")
        calls = [("first call", (x, 2), 1), ("repeat", (x, 2), 0), ("new values, same shape", (other_values, 2), 0),
                 ("new shape", (other_shape, 2), 1), ("new dtype", (other_dtype, 2), 1),
                 ("new static argument", (x, 3), 1), ("repeat of the new shape", (other_shape, 2), 0)]
        counts = {}
        for label, arguments, expected in calls:
            with Compiles() as counted:
                jax.block_until_ready(function(*arguments))
            counts[label] = counted.traces
            compare.require(f"recompilation.{label}", counted.traces == expected,
                            f"{counted.traces} compilation(s), expected {expected}")
    context.note("compilations", counts)
    cache_size = getattr(function, "_cache_size", None)
    if callable(cache_size):
        context.record("cache_entries", cache_size())
        compare.require("cache_entries", cache_size() == 4, f"{cache_size()} cached programs, expected 4")
    compare.finish()
