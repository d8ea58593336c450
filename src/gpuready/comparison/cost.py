"""Cost per million samples or tokens and per training run, from throughput and a price per GPU-hour (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gpuready.errors import InputError


@dataclass(frozen=True, slots=True)
class CostInputs:
    """What the user tells us: prices and how the hardware is used."""

    prices: Mapping[str, float]
    """Side name, run id prefix or device name (case-insensitive substring) -> USD per GPU-hour."""
    gpus_per_node: int = 1
    utilisation: float = 1.0
    """Share of wall time spent on the measured step (input, evaluation and restarts cost the rest)."""
    train_tokens: float | None = None


@dataclass(frozen=True, slots=True)
class CostLine:
    """The cost of one side for one workload."""

    side: str
    workload: str
    usd_per_gpu_hour: float
    unit: str
    """``samples`` or ``tokens``."""
    per_second_per_gpu: float
    usd_per_million: float
    train_hours: float | None = None
    train_usd: float | None = None


def parse_prices(values: Iterable[str]) -> dict[str, float]:
    """``NAME=USD_PER_GPU_HOUR`` options into a mapping; a clear error for anything else."""
    prices: dict[str, float] = {}
    for value in values:
        name, sep, amount = value.rpartition("=")
        try:
            price = float(amount)
        except ValueError:
            price = -1.0
        if not sep or not name.strip() or price < 0:
            raise InputError(f"{value!r}: expected NAME=USD_PER_GPU_HOUR, e.g. 'MI300X=2.10'", field="prices")
        prices[name.strip()] = price
    return prices


def price_for(inputs: CostInputs, keys: Iterable[str]) -> float | None:
    """The first price whose name equals or is contained in one of the side's keys (name, run ids, device)."""
    lowered = [key.lower() for key in keys if key]
    for name, price in inputs.prices.items():
        wanted = name.lower()
        if any(key == wanted or key.startswith(wanted) or wanted in key for key in lowered):
            return price
    return None


def cost_line(side: str, workload: str, usd_per_gpu_hour: float, unit: str, per_second_per_gpu: float,
              inputs: CostInputs) -> CostLine:
    """Cost per million items and, for tokens with ``train_tokens``, the wall time and cost of that run."""
    effective = per_second_per_gpu * inputs.utilisation
    usd_per_million = usd_per_gpu_hour / 3600.0 / effective * 1e6 if effective > 0 else float("inf")
    hours = usd = None
    if inputs.train_tokens and unit == "tokens" and effective > 0:
        hours = inputs.train_tokens / (effective * inputs.gpus_per_node) / 3600.0
        usd = hours * inputs.gpus_per_node * usd_per_gpu_hour
    return CostLine(side, workload, usd_per_gpu_hour, unit, per_second_per_gpu, usd_per_million, hours, usd)
