"""Measured figures set against the catalogue's vendor peaks (in the parent, from the data set the caller passed):
MFU for a workload's achieved TFLOP/s, "% of peak" for the GEMM and copy ceilings."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gpuready.compat.catalogue import PEAK_KEY_OF_PRECISION, Peak, peak_of
from gpuready.compat.schema import GpuEntry
from gpuready.model import Measurement
from gpuready.stats import measurement


def device_peak(gpus: Sequence[GpuEntry], m: Measurement, key: str) -> Peak | None:
    """The catalogue's peak for the device a measurement ran on (never for the CPU)."""
    device = str(m.annotations.get("device") or "")
    if not device or device == "cpu":
        return None
    units = m.annotations.get("compute_units")
    return peak_of(gpus, device, key, units if isinstance(units, int) else None)


def peak_tflops(gpus: Sequence[GpuEntry], device_name: str, precision: str,
                compute_units: int | None = None) -> float | None:
    """The dense peak for a device (as torch names it) and a benchmark precision, when the catalogue has one."""
    if device_name == "cpu":
        return None
    found = peak_of(gpus, device_name, PEAK_KEY_OF_PRECISION.get(precision, "fp32"), compute_units)
    return found.value if found else None


def _judged(m: Measurement, found: Peak) -> Measurement:
    return dataclasses.replace(m, annotations={**m.annotations, "peak": found.value,
                                               "fraction_of_peak": m.summary.median / found.value,
                                               **found.settings()})


def with_peaks(measurements: Sequence[Measurement], gpus: Sequence[GpuEntry]) -> list[Measurement]:
    """The measurements with peaks noted, and an ``mfu`` measurement for every achieved TFLOP/s with a known peak."""
    result: list[Measurement] = []
    for m in measurements:
        if m.metric == "achieved_tflops":
            key = PEAK_KEY_OF_PRECISION.get(str(m.settings.get("precision", "fp32")), "fp32")
            found = device_peak(gpus, m, key)
            result.append(m)
            if found:
                result.append(measurement("mfu", "fraction", [a / found.value for a in m.samples], m.workload,
                                          m.settings, {**m.annotations, "peak_tflops": found.value,
                                                       **found.settings()}))
            continue
        key = m.metric.removeprefix("gemm_tflops_") if m.metric.startswith("gemm_tflops_") else (
            "bandwidth" if m.metric == "copy_gbps" else "")
        found = device_peak(gpus, m, key) if key else None
        result.append(_judged(m, found) if found else m)
    return result
