"""JAX training checks: K optax AdamW steps on the device follow the float64 trajectory on the CPU (MLP, small
transformer); mixed precision (bfloat16 parameters and compute, float32 master weights) tracks the float32 run."""

from __future__ import annotations

from typing import Any

import numpy as np

from gpuready.checks.jax._util import begin
from gpuready.isolation.spec import CheckContext, Skip
from gpuready.workloads.jax_device import cpu_device, enable_x64, equations, import_jax, on, on_device
from gpuready.workloads.jax_models import RECIPES
from gpuready.workloads.protocol import JaxRecipe

STEPS = 6
LOSS_TOLERANCE = 2e-3
AMP_TOLERANCE = 5e-2


def import_optax() -> Any:
    """optax, or Skip when it is not installed."""
    try:
        import optax
    except ImportError as error:
        raise Skip(f"optax is not installed ({error}); pip install 'gpuready[jax]'") from error
    return optax


def _inputs(recipe: JaxRecipe, step: int, dtype: Any) -> tuple[Any, Any]:
    inputs, target = recipe.batch(step)
    return (on_device(inputs, inputs.dtype if recipe.tokens else dtype),
            on_device(target, target.dtype if recipe.tokens else dtype))


def train_losses(recipe: JaxRecipe, device: Any, dtype: str, steps: int = STEPS, compute: str | None = None
                 ) -> tuple[list[float], Any, Any]:
    """Losses of ``steps`` AdamW steps with parameters in ``dtype`` (and the forward and backward in ``compute``
    when given: mixed precision with ``dtype`` master weights); also the parameters before, and after with the
    dtypes of parameters and gradients and the loss's jaxpr. The optimizer's start and the step are compiled
    functions (eager JAX compiles every small op on first use)."""
    jax, optax = import_jax(), import_optax()
    jnp = jax.numpy
    optimizer = optax.adamw(1e-3, weight_decay=0.01)

    def loss_of(master: Any, inputs: Any, target: Any) -> Any:
        params = master if compute is None else jax.tree_util.tree_map(lambda p: p.astype(compute), master)
        cast = inputs if compute is None or recipe.tokens else inputs.astype(compute)
        return recipe.loss(recipe.apply(params, cast).astype(master_dtype), target)

    def update(params: Any, state: Any, inputs: Any, target: Any) -> tuple[Any, Any, Any, Any, Any]:
        loss, grads = jax.value_and_grad(loss_of)(params, inputs, target)
        finite = jnp.all(jnp.asarray([jnp.isfinite(g).all() for g in jax.tree_util.tree_leaves(grads)]))
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss, finite, grads

    step = jax.jit(update)

    master_dtype = jnp.dtype(dtype) if dtype != "float64" else np.float64
    with on(device):
        params = recipe.init(master_dtype)
        state = jax.jit(optimizer.init)(params)
        before = [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(params)]
        losses = []
        for index in range(steps):
            params, state, loss, finite, grads = step(params, state, *_inputs(recipe, index, master_dtype))
            if not bool(finite):
                raise FloatingPointError(f"non-finite gradient at step {index}")
            losses.append(float(loss))
    dtypes = {str(leaf.dtype) for tree in (params, grads) for leaf in jax.tree_util.tree_leaves(tree)}
    return losses, before, (params, dtypes, jax.make_jaxpr(loss_of)(params, *_inputs(recipe, 0, master_dtype)))


def reference_losses(recipe: JaxRecipe, device: Any) -> list[float]:
    """The float64 trajectory on the CPU (on the device in float64 when JAX was started without a CPU backend)."""
    with enable_x64():
        losses, _, _ = train_losses(recipe, cpu_device() or device, "float64")
    return losses


def _train_check(context: CheckContext, name: str) -> None:
    device, jax, compare = begin(context)
    recipe = RECIPES[name]()
    try:
        losses, before, (params, _, _) = train_losses(recipe, device, "float32")
    except FloatingPointError as error:
        compare.require(name, False, str(error))
        compare.finish()
        return
    reference = reference_losses(recipe, device)
    context.note("losses", [round(v, 6) for v in losses])
    compare.close(f"{name}.loss_trajectory", losses, reference, LOSS_TOLERANCE)
    moved = sum(not np.array_equal(a, np.asarray(b)) for a, b in zip(before, jax.tree_util.tree_leaves(params),
                                                                         strict=True))
    compare.require(f"{name}.parameters", moved > 0, "no parameter changed after the optimizer steps")
    compare.require(f"{name}.learning", losses[-1] < losses[0] * 1.5, f"loss rose from {losses[0]} to {losses[-1]}")
    context.record("final_loss", losses[-1])
    compare.finish()


def mlp(context: CheckContext) -> None:
    """MLP."""
    _train_check(context, "mlp")


def transformer(context: CheckContext) -> None:
    """Small decoder-only transformer."""
    _train_check(context, "transformer")


def mixed_precision(context: CheckContext) -> None:
    """bfloat16 forward and backward with float32 master weights: the losses track the float32 run, master weights
    and gradients stay float32, the matmuls really run in bfloat16, and updates below a bfloat16 ulp accumulate."""
    device, jax, compare = begin(context)
    jnp = jax.numpy
    recipe = RECIPES["mlp"]()
    reference, _, _ = train_losses(recipe, device, "float32")
    mixed, _, (_, dtypes, jaxpr) = train_losses(recipe, device, "float32", compute="bfloat16")
    compare.close("mixed_precision.bfloat16.losses", mixed, reference, AMP_TOLERANCE)
    compare.require("master_weights", dtypes == {"float32"}, f"master weights and gradients are {sorted(dtypes)}")
    dots = [e for e in equations(jaxpr) if e.primitive.name == "dot_general"]
    compare.require("compute_dtype", bool(dots) and all(str(v.aval.dtype) == "bfloat16" for e in dots
                                                        for v in e.invars),
                    "the forward matmuls do not take bfloat16 operands")
    with on(device):
        tiny = jax.jit(lambda w: jax.lax.fori_loop(0, 10, lambda _, v: v + jnp.asarray(1e-3, v.dtype), w))
        master = float(tiny(jnp.ones((), jnp.float32)))
        low = float(tiny(jnp.ones((), jnp.bfloat16)))
    context.record("sub_ulp.master", master)
    compare.require("sub_ulp.master", abs(master - 1.01) < 1e-5, f"float32 master weights reached {master}, not 1.01")
    compare.require("sub_ulp.bfloat16", low == 1.0, f"bfloat16 weights moved to {low} (1 + 1e-3 must round to 1)")
    compare.finish()
