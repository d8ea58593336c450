"""The JAX GEMM micro-ceiling: TFLOP/s of square matmuls per dtype through XLA, the best shape of a sweep, timed to
``block_until_ready``, FLOPs from the compiled matmul's cost analysis. Settings as torch's GEMM ceiling plus
``framework: jax``, so ``compare`` sets the two side by side."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from gpuready.benchmark.jax_harness import cost_flops, matmul_precision
from gpuready.model import Measurement
from gpuready.stats import measurement
from gpuready.workloads.jax_device import import_jax, is_gpu, jax_device, on, prepare


def device_notes(device: Any) -> dict[str, object]:
    """What the parent needs to find this device's peaks in the catalogue: its name and compute units."""
    if not is_gpu(device):
        return {"device": "cpu"}
    return {"device": str(device.device_kind), "compute_units": getattr(device, "core_count", None)}


def gemm(device_name: str = "auto", repeat: int = 5, sizes: tuple[int, ...] | None = None) -> list[Measurement]:
    """TFLOP/s of square matmuls per dtype; the measurement is the best shape's samples, the sweep in annotations."""
    prepare(device_name)
    jax = import_jax()
    device = jax_device(device_name)
    sizes = sizes or ((1024, 2048, 4096, 8192) if is_gpu(device) else (128, 256, 512, 1024))
    dtypes = {"fp32": ("float32", "fp32"), "bf16": ("bfloat16", "bf16"), "fp16": ("float16", "fp16")}
    if is_gpu(device):
        dtypes["tf32"] = ("float32", "tf32")
    results = []
    rng = np.random.default_rng(0)
    with on(device):
        for label, (dtype, precision) in dtypes.items():
            sweep: dict[str, float] = {}
            best: tuple[float, list[float], int] | None = None
            for n in sizes:
                a, b = (jax.device_put(rng.standard_normal((n, n)).astype(jax.numpy.dtype(dtype)), device)
                        for _ in range(2))
                with matmul_precision(jax, precision):
                    compiled = jax.jit(lambda x, y: x @ y).lower(a, b).compile()
                flops = cost_flops(compiled) or 2.0 * n**3
                jax.block_until_ready(compiled(a, b))
                seconds = []
                for _ in range(repeat):
                    begin = time.perf_counter()
                    jax.block_until_ready(compiled(a, b))
                    seconds.append(time.perf_counter() - begin)
                tflops = [flops / s / 1e12 for s in seconds]
                sweep[str(n)] = sorted(tflops)[len(tflops) // 2]
                if best is None or sweep[str(n)] > best[0]:
                    best = (sweep[str(n)], tflops, n)
            assert best is not None
            results.append(measurement(f"gemm_tflops_{label}", "TFLOP/s", best[1], "micro.gemm",
                                       {"dtype": label, "sizes": list(sizes), "framework": "jax"},
                                       {"best_n": best[2], "sweep_median_tflops": sweep, **device_notes(device)}))
    return results
