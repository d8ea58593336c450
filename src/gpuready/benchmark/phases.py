"""Benchmark phases as isolated work: each runs in the check process and hands back Measurements as JSON.

Phases measure; they read no catalogue. Peaks, MFU and "% of peak" are added in the parent
(``gpuready.benchmark.peaks``) from the data set the caller passed in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuready.benchmark.harness import StepReport, StepSettings, time_steps
from gpuready.benchmark.micro import MICRO
from gpuready.benchmark.search import find_max_batch
from gpuready.isolation.spec import CheckContext, CheckSpec
from gpuready.model import Measurement, from_dict, to_dict
from gpuready.model.config import BenchConfig
from gpuready.model.identity import DEFAULT_FLOPS_SOURCE
from gpuready.stats import measurement, rate


def phase_specs(config: BenchConfig) -> list[CheckSpec]:
    """The phases of one ``gpuready bench`` run, in order."""
    framework = config.framework
    specs = [CheckSpec(id="bench.workload", target="gpuready.benchmark.phases:workload_phase", suites=(),
                       framework=framework, timeout_s=3600)]
    if config.find_max_batch:
        specs.append(CheckSpec(id="bench.max_batch", target="gpuready.benchmark.phases:max_batch_phase", suites=(),
                               framework=framework, timeout_s=3600))
    specs += [CheckSpec(id=f"bench.micro.{name}", target=f"gpuready.benchmark.phases:micro_{name}", suites=(),
                        framework=framework, timeout_s=1800) for name in config.micro]
    return specs


def phase_options(config: BenchConfig) -> dict[str, Any]:
    """What the isolated phases receive: the configuration as JSON data."""
    return {"config": to_dict(config)}


def _config(context: CheckContext) -> BenchConfig:
    return from_dict(BenchConfig, context.options["config"], source="bench configuration")


def settings_of(config: BenchConfig, report: StepReport | None = None) -> dict[str, Any]:
    """What identifies the measured workload: its identity, framework, mode, precision, batch and compilation (a
    JAX step is always compiled). ``compare`` aligns runs of two frameworks on everything but the framework and the
    compilation (``model.identity.IMPLEMENTATION_SETTINGS``)."""
    settings = {**(report.identity if report else {}), "framework": config.framework, "mode": config.mode,
                "precision": config.precision, "compile": config.compile or config.framework == "jax"}
    if report is not None:
        settings |= {"batch_size": report.items_per_step, "dataloader_workers": config.dataloader_workers}
    return settings


def measurements_of(report: StepReport, config: BenchConfig) -> list[Measurement]:
    """Per-step samples turned into the metrics people compare."""
    label = str(report.identity.get("workload", config.workload))
    settings = settings_of(config, report)
    notes = {"device": report.device, "flops_per_step": report.flops_per_step,
             "flops_source": report.extra.get("flops_source", DEFAULT_FLOPS_SOURCE),
             "compute_units": report.extra.get("compute_units"), "warmup_steps": report.extra.get("warmup_steps")}
    steps = report.step_seconds

    def made(metric: str, unit: str, samples: list[float], extra: dict[str, Any] | None = None) -> Measurement:
        return measurement(metric, unit, samples, label, settings, {**notes, **(extra or {})})

    result = [made("step_time", "s", steps), made("samples_per_s", "samples/s", rate(report.items_per_step, steps))]
    if report.tokens_per_step:
        result.append(made("tokens_per_s", "tokens/s", rate(report.tokens_per_step, steps)))
    if report.flops_per_step:
        result.append(made("achieved_tflops", "TFLOP/s", rate(report.flops_per_step / 1e12, steps)))
    result.append(made("peak_memory", "bytes", [report.peak_memory_bytes], {"kind": report.memory_kind}))
    if report.extra.get("compile_seconds") is not None:
        result.append(made("compile_time", "s", [report.extra["compile_seconds"]],
                           {"lower_seconds": report.extra.get("lower_seconds")}))
    energy = report.extra.get("energy_per_step_j")
    if energy is not None:
        result.append(made("energy_per_step", "J", [energy]))
        result.append(made("average_power", "W", [energy / (sum(steps) / len(steps))]))
        if report.tokens_per_step:
            result.append(made("joules_per_token", "J/token", [energy / report.tokens_per_step]))
    total = sum(report.data_seconds) + sum(steps)
    result.append(made("data_time_share", "fraction", [sum(report.data_seconds) / total if total else 0.0]))
    return result


def _store(context: CheckContext, measurements: list[Measurement]) -> None:
    context.note("measurements", [to_dict(m) for m in measurements])
    context.record("measurements", len(measurements))


def _timer(config: BenchConfig) -> Callable[[StepSettings, str], StepReport]:
    """The step timer of the configuration's framework."""
    if config.framework == "jax":
        from gpuready.benchmark.jax_harness import time_jax_steps

        return time_jax_steps
    return time_steps


def workload_phase(context: CheckContext) -> None:
    """Time the workload at each batch size of the sweep."""
    config = _config(context)
    collected: list[Measurement] = []
    sizes = config.batch_sizes or (None,)
    timer = _timer(config)
    for index, batch_size in enumerate(sizes, 1):
        context.progress(f"{config.workload} ({config.framework}) at batch size {batch_size or 'default'} "
                         f"({index}/{len(sizes)}): warm-up, then {config.steps} timed steps")
        collected += measurements_of(timer(StepSettings(config, batch_size), context.device), config)
    _store(context, collected)


def _out_of_memory(error: BaseException) -> bool:
    text = str(error).lower()
    return "out of memory" in text or "can't allocate" in text or "cannot allocate" in text or (
        "resource_exhausted" in text)


def _release(config: BenchConfig) -> None:
    """Give cached device memory back after an out-of-memory try."""
    if config.framework == "jax":
        import gc

        import jax

        jax.clear_caches()
        gc.collect()
        return
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def max_batch_phase(context: CheckContext) -> None:
    """Largest batch that fits: doubling then bisection; out-of-memory is contained in each try."""
    import dataclasses

    config = _config(context)
    once = dataclasses.replace(config, steps=1, warmup=1)
    identity: dict[str, Any] = {}
    timer = _timer(config)

    def fits(batch: int) -> bool:
        try:
            report = timer(StepSettings(once, batch), context.device)
        except (RuntimeError, MemoryError) as error:  # XlaRuntimeError is a RuntimeError
            if isinstance(error, MemoryError) or _out_of_memory(error):
                _release(config)
                return False
            raise
        identity.update(report.identity)
        return True

    best = find_max_batch(fits, start=1, limit=config.max_batch_limit)
    reached_limit = best >= config.max_batch_limit
    settings = {**identity, **settings_of(config)}
    _store(context, [measurement("max_batch", "samples", [best], str(identity.get("workload", config.workload)),
                                 settings, {"limit": config.max_batch_limit, "reached_limit": reached_limit})])


def micro_gemm(context: CheckContext) -> None:
    """GEMM ceiling per dtype (through the configuration's framework)."""
    if _config(context).framework == "jax":
        from gpuready.benchmark.jax_micro import gemm

        _store(context, gemm(context.device))
        return
    _store(context, MICRO["gemm"](context.device))


def micro_copy(context: CheckContext) -> None:
    """Copy and host<->device bandwidth."""
    _store(context, MICRO["copy"](context.device))


def micro_allreduce(context: CheckContext) -> None:
    """all_reduce bus bandwidth."""
    _store(context, MICRO["allreduce"](context.device))
