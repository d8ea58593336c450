"""The built-in models in plain JAX, the same architectures and sizes as ``torch_models`` (MLP, decoder-only
transformer), with deterministic data; and the training or inference step the benchmark times.

A transformer built here from a preset has the same parameters, shapes and initialisation scheme as the PyTorch one
from the same preset, so their benchmarks measure the same model (the workload identity says so; compare aligns
them). Parameters are nested dicts of arrays; every ``init`` draws from a fixed NumPy seed in float32 whatever the
dtype asked for (so a float64 reference starts from the same numbers) and compiles nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from gpuready.workloads.jax_device import import_jax, on_device
from gpuready.workloads.protocol import JaxRecipe

Params = dict[str, Any]


def _linear(rng: Any, fan_in: int, fan_out: int, dtype: Any, bias: bool = True) -> Params:
    """As ``torch.nn.Linear`` initialises: weights and bias uniform in +-1/sqrt(fan_in); stored (in, out)."""
    bound = 1 / math.sqrt(fan_in)
    layer = {"w": on_device(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32), dtype)}
    if bias:
        layer["b"] = on_device(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32), dtype)
    return layer


def _dense(layer: Params, x: Any) -> Any:
    return x @ layer["w"] + layer["b"] if "b" in layer else x @ layer["w"]


def _layer_norm(norm: Params, x: Any) -> Any:
    jnp = import_jax().numpy
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) * jnp.reciprocal(jnp.sqrt(variance + 1e-5)) * norm["w"] + norm["b"]


def _norm(width: int, dtype: Any) -> Params:
    return {"w": on_device(np.ones(width, np.float32), dtype), "b": on_device(np.zeros(width, np.float32), dtype)}


def build_mlp(width: int = 128, batch: int = 64) -> JaxRecipe:
    """The 3-layer MLP regression of ``torch_models.build_mlp`` (GELU, dropout 0.1, SiLU)."""
    jax = import_jax()

    def init(dtype: Any) -> Params:
        rng = np.random.default_rng(0)
        return {"fc1": _linear(rng, 32, width, dtype), "fc2": _linear(rng, width, width, dtype),
                "out": _linear(rng, width, 1, dtype)}

    def apply(params: Params, x: Any, dropout_key: Any = None) -> Any:
        hidden = jax.nn.gelu(_dense(params["fc1"], x), approximate=False)
        if dropout_key is not None:
            keep = jax.random.bernoulli(dropout_key, 0.9, hidden.shape)
            hidden = jax.numpy.where(keep, hidden / 0.9, 0)
        return _dense(params["out"], jax.nn.silu(_dense(params["fc2"], hidden)))

    def data(step: int) -> tuple[Any, Any]:
        x = np.random.default_rng(1000 + step).standard_normal((batch, 32)).astype(np.float32)
        return x, np.sin(x[:, :4].sum(axis=1, keepdims=True))

    return JaxRecipe("mlp", init, apply, data, lambda out, target: ((out - target) ** 2).mean())


def build_transformer(vocab: int = 256, width: int = 64, heads: int = 4, layers: int = 2, sequence: int = 32,
                      batch: int = 8) -> JaxRecipe:
    """The decoder-only language model of ``torch_models.build_transformer`` (pre-norm blocks, causal attention
    through ``jax.nn.dot_product_attention``, learned positions, an untied head without bias)."""
    jax = import_jax()
    jnp = jax.numpy

    def init(dtype: Any) -> Params:
        rng = np.random.default_rng(0)
        embed = on_device(rng.standard_normal((vocab, width)).astype(np.float32), dtype)
        blocks = [{"norm1": _norm(width, dtype), "norm2": _norm(width, dtype),
                   "qkv": _linear(rng, width, 3 * width, dtype), "proj": _linear(rng, width, width, dtype),
                   "fc1": _linear(rng, width, 4 * width, dtype), "fc2": _linear(rng, 4 * width, width, dtype)}
                  for _ in range(layers)]
        return {"embed": embed, "position": on_device(np.zeros((1, sequence, width), np.float32), dtype),
                "blocks": blocks, "norm": _norm(width, dtype), "head": _linear(rng, width, vocab, dtype, bias=False)}

    def block(params: Params, x: Any) -> Any:
        b, t, c = x.shape
        q, k, v = jnp.split(_dense(params["qkv"], _layer_norm(params["norm1"], x)), 3, axis=-1)
        q, k, v = (z.reshape(b, t, heads, c // heads) for z in (q, k, v))
        attended = jax.nn.dot_product_attention(q, k, v, is_causal=True).reshape(b, t, c)
        x = x + _dense(params["proj"], attended)
        hidden = jax.nn.gelu(_dense(params["fc1"], _layer_norm(params["norm2"], x)), approximate=False)
        return x + _dense(params["fc2"], hidden)

    def apply(params: Params, tokens: Any, dropout_key: Any = None) -> Any:
        x = params["embed"][tokens] + params["position"][:, : tokens.shape[1]]
        for parameters in params["blocks"]:
            x = block(parameters, x)
        return _dense(params["head"], _layer_norm(params["norm"], x))

    def data(step: int) -> tuple[Any, Any]:
        tokens = np.random.default_rng(3000 + step).integers(0, vocab, (batch, sequence + 1), dtype=np.int32)
        return tokens[:, :-1], tokens[:, 1:]

    def loss(logits: Any, target: Any) -> Any:
        log_probs = jax.nn.log_softmax(logits.astype(jnp.promote_types(logits.dtype, jnp.float32)), axis=-1)
        return -jnp.take_along_axis(log_probs, target[..., None], axis=-1).mean()

    return JaxRecipe("transformer", init, apply, data, loss, tokens=True)


RECIPES: dict[str, Callable[..., JaxRecipe]] = {"mlp": build_mlp, "transformer": build_transformer}
COMPUTE_DTYPES = {"fp32": "float32", "tf32": "float32", "bf16": "bfloat16", "fp16": "float16", "amp": "bfloat16"}
"""The dtype a benchmark precision computes in; parameters stay float32 (master weights) in every precision."""


def make_step(recipe: JaxRecipe, mode: str, precision: str, learning_rate: float = 1e-4
              ) -> tuple[Callable[[Any, Any], Any], Any]:
    """``(step, params)`` for the benchmark: AdamW training (float32 master weights, the forward and backward in the
    precision's dtype) or the forward pass alone."""
    jax = import_jax()
    jnp = jax.numpy
    compute = jnp.dtype(COMPUTE_DTYPES[precision])
    params = recipe.init(jnp.float32)

    def forward_loss(master: Any, batch: tuple[Any, Any]) -> Any:
        inputs, target = batch
        cast = jax.tree_util.tree_map(lambda p: p.astype(compute), master)
        inputs = inputs if recipe.tokens else inputs.astype(compute)
        return recipe.loss(recipe.apply(cast, inputs).astype(jnp.float32), target)

    if mode == "infer":
        def infer(state: Any, batch: tuple[Any, Any]) -> Any:
            cast = jax.tree_util.tree_map(lambda p: p.astype(compute), state)
            inputs = batch[0] if recipe.tokens else batch[0].astype(compute)
            return recipe.apply(cast, inputs)

        return infer, params
    import optax

    optimizer = optax.adamw(learning_rate, weight_decay=0.01)

    def train(state: Any, batch: tuple[Any, Any]) -> Any:
        master, moments = state
        loss, grads = jax.value_and_grad(forward_loss)(master, batch)
        updates, moments = optimizer.update(grads, moments, master)
        return (optax.apply_updates(master, updates), moments), loss

    return train, (params, optimizer.init(params))


def parameter_count(params: Any) -> int:
    """Number of scalars in a parameter pytree."""
    jax = import_jax()
    return sum(int(np.prod(leaf.shape)) for leaf in jax.tree_util.tree_leaves(params))
