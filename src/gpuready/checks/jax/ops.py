"""JAX operator checks, part one: matmul and ``dot_general`` per dtype (and the long GEMMs judged against float32
accumulation), fp8 matmul, convolution and ``jax.nn.dot_product_attention`` per implementation. Each result on the
device is compared with the same inputs in float64 NumPy on the CPU (``checks/numpy_reference.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gpuready.checks import numpy_reference
from gpuready.checks.jax._util import begin
from gpuready.checks.reference import RELATIVE_TOLERANCE, ArrayComparison
from gpuready.isolation.spec import CheckContext, Skip
from gpuready.workloads.jax_device import enable_x64, is_gpu, on, on_device

LONG_K = 4096
LOW_PRECISIONS = ("bfloat16", "float16")


def _random(*shape: int, seed: int = 0) -> Any:
    return np.random.default_rng(seed).standard_normal(shape)


def _rounded(array: Any, dtype: str) -> Any:
    """``array`` as ``dtype`` on the device under test, and the float64 value of what that rounding kept."""
    value = on_device(array, dtype)
    return value, np.asarray(value, np.float64)


def matmul(context: CheckContext) -> None:
    """``matmul`` (at the highest precision and at JAX's default), batched ``dot_general`` and ``einsum`` in float32,
    bfloat16, float16 and float64; GEMMs with K=4096 against the error bound of float32 accumulation."""
    device, jax, compare = begin(context)
    jnp, highest = jax.numpy, jax.lax.Precision.HIGHEST
    a, b, c = _random(192, 256, seed=1), _random(256, 160, seed=2), _random(192, 160, seed=3)
    batch_a, batch_b = _random(4, 64, 96, seed=4), _random(4, 96, 80, seed=5)
    batched = (((2,), (1,)), ((0,), (0,)))

    def compute(x: Any, y: Any, z: Any, bx: Any, by: Any) -> tuple[Any, Any, Any]:
        return (jnp.matmul(x, y, precision=highest), jax.lax.dot_general(bx, by, batched, precision=highest),
                jnp.einsum("ij,jk->ik", x, y, precision=highest) * 2 + z * 0.5)

    products = jax.jit(compute)

    with on(device):
        for name in ("float32", *LOW_PRECISIONS):
            got = products(*(on_device(t, name) for t in (a, b, c, batch_a, batch_b)))
            for label, value, want in zip(("matmul", "dot_general.batched", "einsum"), got,
                                          (a @ b, np.matmul(batch_a, batch_b), 2 * (a @ b) + 0.5 * c), strict=True):
                compare.close(f"{label}.{name}", value, want, RELATIVE_TOLERANCE[name])
        default = on_device(a, "float32") @ on_device(b, "float32")
        compare.close("matmul.float32.default_precision", default, a @ b, RELATIVE_TOLERANCE["tf32"])
        with enable_x64():
            compare.close("matmul.float64", jnp.matmul(on_device(a, "float64"), on_device(b, "float64")), a @ b,
                          RELATIVE_TOLERANCE["float64"])
        _long_gemm(jax, compare, context)
    compare.finish()


def _long_gemm(jax: Any, compare: ArrayComparison, context: CheckContext) -> None:
    """A kernel that accumulates in bf16/fp16, or a float32 GEMM at the highest precision computed in TF32, fails.
    JAX's default precision for float32 may be TF32 on a GPU by design: its error is recorded and noted, not judged."""
    jnp = jax.numpy
    a, b = _random(128, LONG_K, seed=11), _random(LONG_K, 128, seed=12)
    for name in ("float32", *LOW_PRECISIONS):
        (x, x64), (y, y64) = _rounded(a, name), _rounded(b, name)
        exact, spread = x64 @ y64, np.sqrt((x64**2) @ (y64**2))
        eps = float(jnp.finfo(name).eps)
        compare.accumulated(f"gemm_k{LONG_K}.{name}", jnp.matmul(x, y, precision=jax.lax.Precision.HIGHEST), exact,
                            spread, LONG_K, eps)
        if name == "float32":
            scratch = ArrayComparison(context)
            ratio = scratch.accumulated(f"gemm_k{LONG_K}.float32.default_precision", x @ y, exact, spread, LONG_K, eps)
            if ratio > 1:
                context.note("float32_default_precision", f"float32 matmuls at JAX's default precision are computed "
                             f"in a lower precision here ({ratio:.0f}x the float32 bound; TF32 or bf16 passes): use "
                             "precision='highest' or jax_default_matmul_precision='float32' where it matters")


FP8 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")


def fp8_matmul(context: CheckContext) -> None:
    """fp8 (e4m3, e5m2; the fnuz variants of AMD Instinct) matmuls with float32 accumulation, where they run."""
    device, jax, compare = begin(context)
    jnp = jax.numpy
    a, b = _random(64, 128, seed=1), _random(128, 96, seed=2)
    ran, unavailable = [], {}
    with on(device):
        for name in FP8:
            if not hasattr(jnp, name):
                continue
            try:
                (x, x64), (y, y64) = _rounded(a, name), _rounded(b, name)
                out = jax.lax.dot_general(x, y, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32)
                out.block_until_ready()
            except Exception as error:  # noqa: BLE001 - an unsupported dtype is noted, not a failure
                unavailable[name] = str(error).splitlines()[0][:200]
                continue
            ran.append(name)
            compare.close(f"fp8_matmul.{name}", out, x64 @ y64, 1e-2)
    context.note("fp8_run", ran)
    context.note("fp8_unavailable", unavailable)
    if not ran:
        raise Skip(f"no fp8 matmul runs here: {unavailable}")
    if not is_gpu(device):
        context.note("emulated", "the CPU has no fp8 units: XLA computes these in a wider type")
    compare.finish()


def conv(context: CheckContext) -> None:
    """``lax.conv_general_dilated`` forward and both gradients, NCHW and NHWC ("channels last")."""
    device, jax, compare = begin(context)
    x, w, bias, upstream = _random(2, 8, 16, 16, seed=1), _random(16, 8, 3, 3, seed=2), _random(16, seed=3), _random(
        2, 16, 16, 16, seed=4)
    reference = (numpy_reference.conv2d(x, w, bias, 1), *numpy_reference.conv2d_grads(x, w, upstream, 1))
    layouts = {"nchw": (("NCHW", "OIHW", "NCHW"), (0, 1, 2, 3), (0, 1, 2, 3)),
               "nhwc": (("NHWC", "HWIO", "NHWC"), (0, 2, 3, 1), (2, 3, 1, 0))}
    dtypes = ("float32", *LOW_PRECISIONS) if is_gpu(device) else ("float32", "bfloat16")
    with on(device):
        for layout, (numbers, data_axes, weight_axes) in layouts.items():
            for name in dtypes:
                xi, wi = on_device(x.transpose(data_axes), name), on_device(w.transpose(weight_axes), name)
                shaped_bias = on_device(bias, name).reshape([-1 if i == 1 else 1 for i in data_axes])

                def forward(xv: Any, wv: Any, numbers: Any = numbers, shaped_bias: Any = shaped_bias) -> Any:
                    return jax.lax.conv_general_dilated(xv, wv, (1, 1), ((1, 1), (1, 1)),
                                                        dimension_numbers=numbers) + shaped_bias

                out, pullback = jax.vjp(forward, xi, wi)
                grad_x, grad_w = pullback(on_device(upstream.transpose(data_axes), name))
                back = np.argsort(data_axes)
                for part, got, want in (("out", np.asarray(out, np.float64).transpose(back), reference[0]),
                                        ("grad_input", np.asarray(grad_x, np.float64).transpose(back), reference[1]),
                                        ("grad_weight", np.asarray(grad_w, np.float64).transpose(
                                            np.argsort(weight_axes)), reference[2])):
                    compare.close(f"conv.{layout}.{name}.{part}", got, want, RELATIVE_TOLERANCE[name] * 4)
    compare.finish()


def attention(context: CheckContext) -> None:
    """``jax.nn.dot_product_attention`` with a causal mask, for each implementation this build offers."""
    device, jax, compare = begin(context)
    q, k, v = (_random(2, 64, 4, 32, seed=s) for s in (1, 2, 3))
    reference = numpy_reference.causal_attention(q, k, v)
    name = "float16" if is_gpu(device) else "float32"
    ran, unavailable = [], {}
    with on(device):
        inputs = [on_device(t, name) for t in (q, k, v)]
        for implementation in (None, "xla", "cudnn"):
            label = implementation or "default"
            try:
                out = jax.nn.dot_product_attention(*inputs, is_causal=True, implementation=implementation)
                out.block_until_ready()
            except Exception as error:  # noqa: BLE001 - an implementation this build or device lacks is noted
                unavailable[label] = str(error).splitlines()[0][:200]
                continue
            ran.append(label)
            compare.close(f"attention.{label}.{name}", out, reference, RELATIVE_TOLERANCE[name] * 2)
    context.note("implementations_run", ran)
    context.note("implementations_unavailable", unavailable)
    compare.require("attention", bool(ran), "no attention implementation ran")
    compare.finish()
