"""Time a JAX step (a built-in's or the user's): compile it once and apart (trace, lower and XLA compile are the
compile time), warm up until step times settle, then time each step to ``block_until_ready``. FLOPs come from the
compiled computation's own cost analysis, peak memory from the backend's memory statistics (the process's peak RSS on
the CPU, which keeps none)."""

from __future__ import annotations

import contextlib
import resource
import time
from typing import Any

from gpuready.benchmark.harness import StepReport, StepSettings, warmup_until_settled
from gpuready.workloads.jax_device import import_jax, is_gpu, jax_device, on, prepare
from gpuready.workloads.jax_loader import carrier, load_jax_workload

FLOPS_SOURCE = "XLA cost analysis of the compiled step"
MATMUL_PRECISION = {"fp32": "highest", "tf32": "tensorfloat32"}
"""float32 benchmarks ask XLA for true float32 matmuls (as torch's fp32 does), tf32 for TF32 where the GPU has it."""


def cost_flops(compiled: Any) -> float:
    """FLOPs of one run of a compiled computation by XLA's cost analysis (0 when the backend gives none)."""
    try:
        analysis = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 - a backend without cost analysis: FLOPs unknown
        return 0.0
    if isinstance(analysis, (list, tuple)):
        analysis = analysis[0] if analysis else {}
    return float((analysis or {}).get("flops", 0.0) or 0.0)


def matmul_precision(jax: Any, precision: str) -> Any:
    """The matmul precision a benchmark precision asks of XLA (a context for tracing and lowering)."""
    wanted = MATMUL_PRECISION.get(precision)
    return jax.default_matmul_precision(wanted) if wanted else contextlib.nullcontext()


def peak_memory(device: Any) -> tuple[int, str]:
    """Peak memory in bytes and what it is: the device's peak in use, or this process's peak RSS."""
    stats = device.memory_stats() if is_gpu(device) else None
    if stats and stats.get("peak_bytes_in_use"):
        return int(stats["peak_bytes_in_use"]), "device peak_bytes_in_use"
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "process peak RSS"


def time_jax_steps(settings: StepSettings, device_name: str = "auto") -> StepReport:
    """Compile (timed apart), warm up, then time ``config.steps`` steps one by one."""
    config = settings.config
    prepare(device_name)
    jax = import_jax()
    device = jax_device(device_name)
    workload = load_jax_workload(config.workload, batch_size=settings.batch_size, size=config.size,
                                 sequence=config.sequence, mode=config.mode, precision=config.precision)
    with on(device):
        state = jax.device_put(workload.params, device)
        first = workload.batch(0)
        probe = jax.device_put(first, device)
        carry, updates = carrier(state, jax.eval_shape(workload.step, state, probe), jax)
        donate = (0,) if is_gpu(device) and updates else ()  # the CPU cannot reuse donated buffers
        started = time.perf_counter()
        with matmul_precision(jax, config.precision):
            lowered = jax.jit(workload.step, donate_argnums=donate).lower(state, probe)
        lower_seconds = time.perf_counter() - started
        compiled = lowered.compile()
        compile_seconds = time.perf_counter() - started
        holder = {"state": state}

        def step(batch: Any) -> Any:
            output = compiled(holder["state"], jax.device_put(batch, device))
            holder["state"] = carry(output)
            return output

        warmup_used = warmup_until_settled(lambda index: jax.block_until_ready(step(workload.batch(index))),
                                           config.warmup, lambda: None)
        data_seconds, seconds = [], []
        for index in range(config.steps):
            wait = time.perf_counter()
            batch = workload.batch(index)
            data_seconds.append(time.perf_counter() - wait)
            begin = time.perf_counter()
            jax.block_until_ready(step(batch))
            seconds.append(time.perf_counter() - begin)
        peak, kind = peak_memory(device)
    leaves = jax.tree_util.tree_leaves(first)
    return StepReport(step_seconds=seconds, data_seconds=data_seconds,
                      items_per_step=int(leaves[0].shape[0]) if leaves and getattr(leaves[0], "shape", ()) else 1,
                      tokens_per_step=workload.tokens_per_step, flops_per_step=cost_flops(compiled),
                      peak_memory_bytes=peak, memory_kind=kind,
                      device=str(device.device_kind) if is_gpu(device) else "cpu", identity=dict(workload.identity),
                      extra={"jax": str(jax.__version__), "compile_seconds": compile_seconds,
                             "lower_seconds": lower_seconds, "warmup_steps": warmup_used,
                             "compute_units": getattr(device, "core_count", None) if is_gpu(device) else None,
                             "flops_source": FLOPS_SOURCE, "energy_per_step_j": None})
