"""JAX checks: the backend in use, jit matmul numerics, grad and update of an MLP, bf16, a numpy checkpoint round
trip, and pmap/psum across local devices (several host devices on the CPU)."""

from __future__ import annotations

import os
import tempfile
from typing import Any

from gpuready.isolation.spec import CheckContext, Fail, Skip


def _jax() -> Any:
    try:
        import jax
    except ImportError as error:
        raise Skip(f"jax is not installed ({error})") from error
    return jax


def basics(context: CheckContext) -> None:
    """Every JAX check in one process (JAX's start-up is paid once)."""
    # This runs in a check process, never in gpuready's own: set before jax starts, so that pmap has two host devices
    # to work across on a CPU-only machine (it does not change what a GPU backend sees).
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
    if context.device == "cpu":
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
    jax = _jax()
    import jax.numpy as jnp
    import numpy as np

    devices = jax.devices()
    context.note("device", f"{jax.default_backend()}: {devices[0].device_kind}")
    context.note("backend", jax.default_backend())
    context.record("device_count", len(devices))
    misses: list[str] = []

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((256, 192)), rng.standard_normal((192, 128))
    product = jax.jit(lambda x, y: x @ y)(jnp.asarray(a, jnp.float32), jnp.asarray(b, jnp.float32))
    error = float(np.abs(np.asarray(product, np.float64) - a @ b).max() / np.abs(a @ b).max())
    context.record("matmul.float32.rel_err", error)
    if error > 1e-3:  # TF32-like defaults on some GPUs stay well inside this
        misses.append(f"jit matmul float32 relative error {error:.2e}")
    product16 = jax.jit(lambda x, y: x @ y)(jnp.asarray(a, jnp.bfloat16), jnp.asarray(b, jnp.bfloat16))
    error16 = float(np.abs(np.asarray(product16, np.float64) - a @ b).max() / np.abs(a @ b).max())
    context.record("matmul.bfloat16.rel_err", error16)
    if error16 > 5e-2:
        misses.append(f"jit matmul bfloat16 relative error {error16:.2e}")

    key = jax.random.PRNGKey(0)
    k1, k2 = jax.random.split(key)
    params = {"w1": jax.random.normal(k1, (16, 32)) * 0.1, "w2": jax.random.normal(k2, (32, 1)) * 0.1}
    x = jnp.asarray(rng.standard_normal((64, 16)), jnp.float32)
    y = jnp.sin(x[:, :1])

    def loss(p: Any) -> Any:
        return jnp.mean((jnp.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)

    def update(p: Any) -> Any:
        grads = jax.grad(loss)(p)
        return jax.tree_util.tree_map(lambda w, g: w - 0.1 * g, p, grads)

    step = jax.jit(update)

    before = float(loss(params))
    for _ in range(20):
        params = step(params)
    after = float(loss(params))
    context.record("mlp.loss_before", before)
    context.record("mlp.loss_after", after)
    if not after < before:
        misses.append(f"the MLP did not learn ({before} -> {after})")
    if not all(bool(jnp.isfinite(v).all()) for v in jax.tree_util.tree_leaves(params)):
        misses.append("non-finite parameters after training")

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "params.npz")
        arrays: dict[str, Any] = {k: np.asarray(v) for k, v in params.items()}
        np.savez(path, **arrays)
        loaded = np.load(path)
        if not all(np.array_equal(loaded[k], np.asarray(v)) for k, v in params.items()):
            misses.append("the numpy checkpoint round trip changed the parameters")

    count = jax.local_device_count()
    if count > 1:
        summed = jax.pmap(lambda v: jax.lax.psum(v, "i"), axis_name="i")(jnp.arange(count, dtype=jnp.float32))
        if not bool((summed == count * (count - 1) / 2).all()):
            misses.append(f"pmap/psum over {count} devices gave {summed}")
        context.record("pmap_devices", count)
    else:
        context.note("pmap", "one local device (set XLA_FLAGS=--xla_force_host_platform_device_count=2 on the CPU)")
    if misses:
        raise Fail("; ".join(misses))
