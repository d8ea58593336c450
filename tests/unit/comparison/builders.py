"""Recorded-shape bench, check and scan Runs with known step times (synthetic, for comparison tests)."""

from __future__ import annotations

import random

from gpuready.model import (
    CheckResult,
    CheckStatus,
    Device,
    Fact,
    Finding,
    Fingerprint,
    Framework,
    Host,
    Provenance,
    Run,
    RunKind,
    Severity,
    Stack,
    Vendor,
    make_run,
)
from gpuready.stats import measurement, rate

SETTINGS = {"workload": "transformer", "mode": "train", "precision": "bf16", "batch_size": 16, "compile": False,
            "dataloader_workers": 0}


def step_times(median: float, count: int = 60, spread: float = 0.02, seed: int = 1) -> list[float]:
    """``count`` step times around ``median`` with relative noise ``spread`` (Gaussian, fixed seed)."""
    generator = random.Random(seed)
    return [median * (1 + generator.gauss(0, spread)) for _ in range(count)]


def fingerprint(gpu: str, vendor: Vendor, memory_gib: int, *, rocm: str = "", cuda_driver: str = "") -> Fingerprint:
    from packaging.version import Version

    stack = Stack(rocm_version=Fact.of(Version(rocm)) if rocm else Fact.absent(),
                  cuda_driver_version=Fact.of(cuda_driver) if cuda_driver else Fact.absent())
    return Fingerprint(host=Host(os_name=Fact.of("Ubuntu 24.04.1 LTS"), kernel=Fact.of("6.8.0-45-generic")),
                       devices=(Device(0, vendor, name=Fact.of(gpu), memory_bytes=Fact.of(memory_gib * 2**30)),),
                       stack=stack, frameworks=(Framework("torch", version=Fact.of("2.9.1")),))


def bench_run(gpu: str, steps: list[float], *, tokens_per_step: int = 0, label: str = "",
              vendor: Vendor = Vendor.NVIDIA, memory_gib: int = 80, peak_memory_gib: float = 20.0,
              max_batch: float | None = None, workload: str = "transformer", batch_size: int = 16,
              **stack: str) -> Run:
    settings = {**SETTINGS, "workload": workload, "batch_size": batch_size}
    notes = {"device": gpu}
    measurements = [measurement("step_time", "s", steps, workload, settings, notes),
                    measurement("samples_per_s", "samples/s", rate(batch_size, steps), workload, settings, notes),
                    measurement("tokens_per_s", "tokens/s", rate(tokens_per_step or batch_size * 512, steps), workload,
                                settings, notes),
                    measurement("peak_memory", "bytes", [peak_memory_gib * 2**30], workload, settings, notes)]
    if max_batch is not None:
        measurements.append(measurement("max_batch", "samples", [max_batch], workload, settings, notes))
    return make_run(RunKind.BENCH, "test", fingerprint=fingerprint(gpu, vendor, memory_gib, **stack),
                    measurements=tuple(measurements), label=label, provenance=Provenance.SYNTHETIC)


def check_run(gpu: str, statuses: dict[str, CheckStatus]) -> Run:
    return make_run(RunKind.CHECK, "test", provenance=Provenance.SYNTHETIC,
                    results=tuple(CheckResult(check_id, status, device=gpu) for check_id, status in statuses.items()))


def scan_run(blockers: int, warnings: int) -> Run:
    findings = [Finding(f"scan.blocker{i}", Severity.BLOCKER, "blocks", location=f"model.py:{i + 1}")
                for i in range(blockers)]
    findings += [Finding(f"scan.warn{i}", Severity.WARN, "warns", location=f"ops.py:{i + 1}") for i in range(warnings)]
    return make_run(RunKind.SCAN, "test", findings=tuple(findings), provenance=Provenance.SYNTHETIC)
