"""JAX operator checks, part two: norms and activations (with gradients), reductions, scatter and gather, FFT,
sort and top-k, and the RNG; each against float64 NumPy on the CPU (or exact equality where results are exact)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gpuready.checks.jax._util import begin
from gpuready.checks.numpy_reference import EPSILON, NORMS_ACTIVATIONS
from gpuready.checks.reference import RELATIVE_TOLERANCE
from gpuready.isolation.spec import CheckContext
from gpuready.workloads.jax_device import cpu_device, is_gpu, on, on_device


def _operations(jax: Any) -> dict[str, Callable[[Any, Any], Any]]:
    return {
        "layer_norm": lambda x, w: jax.nn.standardize(x, axis=-1, epsilon=EPSILON) * w,
        "rms_norm": lambda x, w: x * jax.lax.rsqrt((x * x).mean(axis=-1, keepdims=True) + EPSILON) * w,
        "softmax": lambda x, w: jax.nn.softmax(x, axis=-1),
        "log_softmax": lambda x, w: jax.nn.log_softmax(x, axis=-1),
        "gelu": lambda x, w: jax.nn.gelu(x, approximate=False),
        "silu": lambda x, w: jax.nn.silu(x),
    }


def _with_grad(jax: Any, operation: Callable[[Any, Any], Any], x: Any, w: Any, upstream: Any) -> tuple[Any, Any]:
    out, pullback = jax.vjp(lambda t: operation(t, w), x)
    return out, pullback(upstream)[0]


def norms_activations(context: CheckContext) -> None:
    """layer norm, RMS norm, softmax, log_softmax, GELU and SiLU, forward and gradient, float32 and bfloat16."""
    device, jax, compare = begin(context)
    rng = np.random.default_rng(1)
    x, weight, upstream = rng.standard_normal((32, 256)), rng.standard_normal(256), rng.standard_normal((32, 256))
    with on(device):
        for name, operation in _operations(jax).items():
            want, want_grad = NORMS_ACTIVATIONS[name](x, weight, upstream)
            run = jax.jit(lambda t, w, g, operation=operation: _with_grad(jax, operation, t, w, g))
            for dtype in ("float32", "bfloat16"):
                out, grad = run(*(on_device(v, dtype) for v in (x, weight, upstream)))
                tolerance = RELATIVE_TOLERANCE[dtype] * (4 if dtype == "bfloat16" else 1)
                compare.close(f"{name}.{dtype}", out, want, tolerance)
                compare.close(f"{name}.{dtype}.grad", grad, want_grad, tolerance * 4)
    compare.finish()


def reductions(context: CheckContext) -> None:
    """sum and mean of 2^20 low-precision elements (float32 accumulation asked for, and in the dtype itself),
    cumsum, max/argmax and logsumexp."""
    device, jax, compare = begin(context)
    jnp = jax.numpy
    x = np.random.default_rng(0).random(1 << 20)
    with on(device):
        for name in ("float32", "float16", "bfloat16"):
            tested = on_device(x, name)
            compare.close(f"sum.{name}", jnp.sum(tested, dtype=jnp.float32), x.sum(), 1e-3)
            compare.close(f"mean.{name}", jnp.mean(tested, dtype=jnp.float32), x.mean(), 1e-2)
            centred = on_device(x - 0.5, name)  # a sum that fits in fp16
            rounded = np.asarray(centred, np.float64)
            compare.accumulated(f"sum_in_dtype.{name}", jnp.sum(centred), rounded.sum(), np.sqrt((rounded**2).sum()),
                                x.size, float(jnp.finfo(name).eps))
        head = on_device(x[:65536], "float32")
        compare.close("cumsum.float32", jnp.cumsum(head), np.cumsum(x[:65536]), 1e-5)
        compare.equal("max.float32", jnp.max(head), np.float32(x[:65536]).max())
        compare.equal("argmax.float32", jnp.argmax(head), np.float32(x[:65536]).argmax())
        compare.close("logsumexp.float32", jax.nn.logsumexp(head), np.log(np.exp(x[:65536]).sum()), 1e-5)
    compare.finish()


def scatter_gather(context: CheckContext) -> None:
    """Scatter-add and segment_sum with many colliding indices, gather and take_along_axis."""
    device, jax, compare = begin(context)
    jnp = jax.numpy
    rng = np.random.default_rng(0)
    source, index = rng.standard_normal(200_000), rng.integers(0, 64, 200_000)
    reference = np.zeros(64)
    np.add.at(reference, index, source)
    table, positions = rng.standard_normal((128, 256)), rng.integers(0, 256, (128, 64))
    with on(device):
        values, where = on_device(source, "float32"), on_device(index, "int32")
        compare.close("scatter_add", jnp.zeros(64, "float32").at[where].add(values), reference, 1e-5)
        compare.close("segment_sum", jax.ops.segment_sum(values, where, num_segments=64), reference, 1e-5)
        rows = on_device(table, "float32")
        compare.equal("take_along_axis", jnp.take_along_axis(rows, on_device(positions, "int32"), axis=1),
                      np.take_along_axis(table.astype(np.float32), positions, axis=1))
        picked = positions[:, 0] % 128
        compare.equal("gather_rows", rows[on_device(picked, "int32")], table.astype(np.float32)[picked])
    compare.finish()


def fft(context: CheckContext) -> None:
    """FFT, inverse FFT and real FFT of complex64 / float32 against complex128 NumPy."""
    device, jax, compare = begin(context)
    jnp = jax.numpy
    rng = np.random.default_rng(1)
    signal = rng.standard_normal((16, 1024)) + 1j * rng.standard_normal((16, 1024))
    with on(device):
        spectrum = jnp.fft.fft(on_device(signal, "complex64"))
        compare.close("fft", spectrum, np.fft.fft(signal), 1e-5)
        compare.close("ifft", jnp.fft.ifft(spectrum), signal, 1e-5)
        compare.close("rfft", jnp.fft.rfft(on_device(signal.real, "float32")), np.fft.rfft(signal.real), 1e-5)
    compare.finish()


def sort_topk(context: CheckContext) -> None:
    """sort, argsort and top_k return exactly what NumPy returns."""
    device, jax, compare = begin(context)
    jnp = jax.numpy
    x = np.random.default_rng(0).permutation(100_000).astype(np.float32)
    with on(device):
        tested = on_device(x, "float32")
        compare.equal("sort.values", jnp.sort(tested), np.sort(x))
        compare.equal("argsort.permutation", x[np.asarray(jnp.argsort(tested))], np.sort(x))
        values, indices = jax.lax.top_k(tested, 100)
        compare.equal("top_k.values", values, np.sort(x)[::-1][:100])
        compare.equal("top_k.indices", x[np.asarray(indices)], np.sort(x)[::-1][:100])
    compare.finish()


def random(context: CheckContext) -> None:
    """The same key gives the same numbers (eager, jitted, and on the CPU as on the device), split keys differ, and
    the distributions are in range."""
    device, jax, compare = begin(context)
    key = jax.random.PRNGKey(1234)
    with on(device):
        first = np.asarray(jax.random.uniform(key, (4096,)))
        compare.equal("same key", jax.random.uniform(key, (4096,)), first)
        compare.equal("jit", jax.jit(lambda k: jax.random.uniform(k, (4096,)))(key), first)
        left, right = jax.random.split(key)
        compare.require("split", not np.array_equal(np.asarray(jax.random.uniform(left, (64,))),
                                                    np.asarray(jax.random.uniform(right, (64,)))),
                        "two split keys gave the same numbers")
        normal = np.asarray(jax.random.normal(key, (1 << 16,)), np.float64)
    compare.require("range", bool((first >= 0).all() and (first < 1).all()), "uniform outside [0, 1)")
    compare.require("normal", abs(normal.mean()) < 4 / 256 and abs(normal.std() - 1) < 0.02,
                    f"normal samples have mean {normal.mean():.4f} and std {normal.std():.4f}")
    cpu = cpu_device()
    if is_gpu(device) and cpu is not None:
        with on(cpu):
            compare.equal("device equals cpu", jax.random.uniform(key, (4096,)), first)
    compare.finish()
