"""Build a JAX workload in the process that runs it: a built-in (``mlp``, ``transformer``) or the user's factory.

Importing the user's module runs their code: only isolated child processes call ``load_jax_workload``. What a
factory returns is described in ``gpuready.workloads.protocol.JaxWorkload``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuready.errors import InputError
from gpuready.workloads.loader import builtin_identity, call_factory
from gpuready.workloads.protocol import JaxWorkload
from gpuready.workloads.resolve import JAX_FACTORY_CONTRACT, require_framework, resolve


def _get(produced: Any, key: str) -> Any:
    return produced.get(key) if isinstance(produced, dict) else getattr(produced, key, None)


def _from_factory(spec: str, produced: Any, identity: dict[str, Any]) -> JaxWorkload:
    missing = [k for k in ("step", "params", "batch") if _get(produced, k) is None]
    if missing:
        raise InputError(f"the factory returned {type(produced).__name__}, which has no {', '.join(missing)} "
                         f"({JAX_FACTORY_CONTRACT})", source=spec, field="workload")
    for key in ("step", "batch"):
        if not callable(_get(produced, key)):
            raise InputError(f"the factory's {key} is not callable ({JAX_FACTORY_CONTRACT})", source=spec,
                             field="workload")
    tokens = _get(produced, "tokens_per_step") or 0
    return JaxWorkload(spec, _get(produced, "step"), _get(produced, "params"), _get(produced, "batch"),
                       int(tokens), identity)


def load_jax_workload(spec: str, *, batch_size: int | None = None, size: str = "tiny", sequence: int | None = None,
                      mode: str = "train", precision: str = "fp32") -> JaxWorkload:
    """The JAX workload ``spec`` names, built at ``batch_size`` (its own batch when None)."""
    ref = resolve(spec)
    require_framework(ref, "jax")
    if ref.kind == "user":
        produced, identity = call_factory(ref, spec, batch_size, JAX_FACTORY_CONTRACT)
        return _from_factory(spec, produced, identity)
    from gpuready.workloads.jax_models import RECIPES, make_step

    preset, identity = builtin_identity(spec, size, sequence)
    recipe = RECIPES[spec](**preset, **({"batch": batch_size} if batch_size else {}))
    step, params = make_step(recipe, mode, precision)
    inputs, _ = recipe.batch(0)
    return JaxWorkload(spec, step, params, recipe.batch, int(inputs.size) if recipe.tokens else 0, identity)


def carrier(state: Any, output: Any, jax: Any) -> tuple[Callable[[Any], Any], bool]:
    """How a step's output becomes the next state (the output itself, or its first element), and whether it does;
    otherwise (an inference step) the state is used again (``JaxWorkload``'s contract)."""
    shape = jax.tree_util.tree_structure(state)
    if jax.tree_util.tree_structure(output) == shape:
        return (lambda out: out), True
    if isinstance(output, tuple) and len(output) == 2 and jax.tree_util.tree_structure(output[0]) == shape:
        return (lambda out: out[0]), True
    return (lambda out: state), False
