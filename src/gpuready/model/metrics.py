"""The metric catalogue: every quantity gpuready measures, its unit and which direction is better (one place)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MetricInfo:
    """What a metric means."""

    name: str
    unit: str
    higher_is_better: bool
    description: str
    comparable: bool = True
    """False for metrics relative to each machine's own peak (MFU): shown per side, never as a ratio."""


_CATALOGUE = (
    MetricInfo("step_time", "s", False, "time of one training or inference step (device time on a GPU)"),
    MetricInfo("samples_per_s", "samples/s", True, "samples processed per second"),
    MetricInfo("tokens_per_s", "tokens/s", True, "tokens processed per second"),
    MetricInfo("achieved_tflops", "TFLOP/s", True,
               "FLOPs per step (counted by torch, or by XLA's cost analysis for JAX) over the step time"),
    MetricInfo("mfu", "fraction", True, "achieved TFLOP/s over the catalogue's dense peak for the precision",
               comparable=False),
    MetricInfo("peak_memory", "bytes", False, "peak memory during the measured steps"),
    MetricInfo("energy_per_step", "J", False, "energy per step from the board's energy counter"),
    MetricInfo("average_power", "W", False, "average board power during the measured steps"),
    MetricInfo("joules_per_token", "J/token", False, "energy per token"),
    MetricInfo("data_time_share", "fraction", False, "share of wall time spent waiting for the next batch"),
    MetricInfo("max_batch", "samples", True, "largest batch that fits in memory"),
    MetricInfo("compile_time", "s", False, "time to compile the step (JAX/XLA, torch.compile)"),
    MetricInfo("copy_gbps", "GB/s", True, "device-to-device copy bandwidth (read + write)"),
)
_FAMILIES = (
    MetricInfo("gemm_tflops_", "TFLOP/s", True, "dense matrix multiply throughput, best shape of a sweep (per dtype)"),
    MetricInfo("h2d_gbps_", "GB/s", True, "host-to-device copy bandwidth"),
    MetricInfo("d2h_gbps_", "GB/s", True, "device-to-host copy bandwidth"),
    MetricInfo("allreduce_busbw_gbps_", "GB/s", True, "all_reduce bus bandwidth (per message size in bytes)"),
)
METRICS = {info.name: info for info in _CATALOGUE}


def metric_info(name: str) -> MetricInfo | None:
    """The catalogue entry of a metric (families such as ``gemm_tflops_bf16`` by their prefix), or None."""
    if name in METRICS:
        return METRICS[name]
    return next((info for info in _FAMILIES if name.startswith(info.name)), None)


def higher_is_better(name: str) -> bool:
    """The metric's direction; an unknown metric is taken as a rate (higher is better)."""
    info = metric_info(name)
    return info.higher_is_better if info else True


def comparable(name: str) -> bool:
    """Whether a ratio between two machines means something for this metric."""
    info = metric_info(name)
    return info.comparable if info else True
