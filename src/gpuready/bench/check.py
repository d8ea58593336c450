"""Benchmarks as checks: each phase runs in the isolated check process and hands back Measurements as JSON."""

from __future__ import annotations

from typing import Any

from gpuready.bench.micro import MICRO
from gpuready.bench.search import find_max_batch
from gpuready.bench.stats import measurement, rate
from gpuready.bench.workload import StepReport, StepSettings, time_steps
from gpuready.checks.spec import CheckContext, CheckSpec
from gpuready.compat.catalogue import PEAK_KEY_OF_PRECISION, Peak, peak_of
from gpuready.model import Measurement, to_dict


def phase_specs(micro: tuple[str, ...], find_max: bool) -> list[CheckSpec]:
    """The phases of one ``gpuready bench`` run, in order."""
    specs = [CheckSpec(id="bench.workload", target="gpuready.bench.check:workload_phase", suites=(), timeout_s=3600)]
    if find_max:
        specs.append(CheckSpec(id="bench.max_batch", target="gpuready.bench.check:max_batch_phase", suites=(),
                               timeout_s=3600))
    specs += [CheckSpec(id=f"bench.micro.{name}", target=f"gpuready.bench.check:micro_{name}", suites=(),
                        timeout_s=1800) for name in micro]
    return specs


def _settings(options: dict[str, Any], batch_size: int | None) -> StepSettings:
    return StepSettings(workload=str(options.get("workload", "transformer")), mode=str(options.get("mode", "train")),
                        precision=str(options.get("precision", "fp32")), batch_size=batch_size,
                        steps=int(options.get("steps", 20)), warmup=int(options.get("warmup", 5)),
                        compile=bool(options.get("compile", False)),
                        dataloader_workers=int(options.get("dataloader_workers", 0)),
                        size=str(options.get("size", "tiny")),
                        sequence=int(options["sequence"]) if options.get("sequence") else None)


def peak_tflops(device_name: str, precision: str, compute_units: int | None = None) -> float | None:
    """The catalogue's dense peak for this GPU and dtype, when it has one."""
    found = catalogue_peak_of(device_name, PEAK_KEY_OF_PRECISION.get(precision, "fp32"), compute_units)
    return found.value if found else None


def catalogue_peak_of(device_name: str, key: str, compute_units: int | None = None) -> Peak | None:
    """The bundled catalogue's peak for a device as torch names it (see ``compat.catalogue.peak_of``)."""
    if device_name == "cpu":
        return None
    from gpuready.compat.load import load_dataset

    return peak_of(load_dataset().gpus.gpus, device_name, key, compute_units)


def measurements_of(report: StepReport, settings: StepSettings) -> list[Measurement]:
    """Per-step samples turned into the metrics people compare."""
    label = settings.workload if settings.workload in ("mlp", "cnn", "transformer") else "user"
    common = {"workload": settings.workload, "mode": settings.mode, "precision": settings.precision,
              "batch_size": report.items_per_step, "compile": settings.compile, "device": report.device,
              "dataloader_workers": settings.dataloader_workers, "flops_per_step": report.flops_per_step}
    steps = report.step_seconds
    result = [measurement("step_time", "s", steps, label, common),
              measurement("samples_per_s", "samples/s", rate(report.items_per_step, steps), label, common)]
    if report.tokens_per_step:
        result.append(measurement("tokens_per_s", "tokens/s", rate(report.tokens_per_step, steps), label, common))
    if report.flops_per_step:
        achieved = rate(report.flops_per_step / 1e12, steps)
        result.append(measurement("achieved_tflops", "TFLOP/s", achieved, label, common))
        found = catalogue_peak_of(report.device, PEAK_KEY_OF_PRECISION.get(settings.precision, "fp32"),
                                  report.extra.get("compute_units"))
        if found:
            result.append(measurement("mfu", "fraction", [a / found.value for a in achieved], label,
                                      {**common, "peak_tflops": found.value, **found.settings()}))
    result.append(measurement("peak_memory", "bytes", [report.peak_memory_bytes], label,
                              {**common, "kind": report.memory_kind}))
    energy = report.extra.get("energy_per_step_j")
    if energy is not None:
        result.append(measurement("energy_per_step", "J", [energy], label, common))
        result.append(measurement("average_power", "W", [energy / (sum(steps) / len(steps))], label, common))
        if report.tokens_per_step:
            result.append(measurement("joules_per_token", "J/token", [energy / report.tokens_per_step], label,
                                      common))
    total = sum(report.data_seconds) + sum(steps)
    result.append(measurement("data_time_share", "fraction", [sum(report.data_seconds) / total if total else 0.0],
                              label, common))
    return result


def _store(context: CheckContext, measurements: list[Measurement]) -> None:
    context.note("measurements", [to_dict(m) for m in measurements])
    context.record("measurements", len(measurements))


def workload_phase(context: CheckContext) -> None:
    """Time the workload at each batch size of the sweep."""
    sizes = context.options.get("batch_sizes") or [None]
    collected: list[Measurement] = []
    for batch_size in sizes:
        settings = _settings(context.options, batch_size)
        collected += measurements_of(time_steps(settings, context.device), settings)
    _store(context, collected)


def _out_of_memory(error: BaseException) -> bool:
    text = str(error).lower()
    return "out of memory" in text or "can't allocate" in text or "cannot allocate" in text


def max_batch_phase(context: CheckContext) -> None:
    """Largest batch that fits: doubling then bisection; out-of-memory is contained in each try."""
    options = context.options

    def fits(batch: int) -> bool:
        try:
            time_steps(StepSettings(**{**_settings(options, batch).__dict__, "steps": 1, "warmup": 1}),
                       context.device)
        except (RuntimeError, MemoryError) as error:
            if isinstance(error, MemoryError) or _out_of_memory(error):
                import torch

                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                return False
            raise
        return True

    limit = int(options.get("max_batch_limit", 1024))
    best = find_max_batch(fits, start=1, limit=limit)
    _store(context, [measurement("max_batch", "samples", [best], str(options.get("workload", "")),
                                 {"limit": limit, "precision": options.get("precision", "fp32")})])


def micro_gemm(context: CheckContext) -> None:
    """GEMM ceiling per dtype."""
    _store(context, MICRO["gemm"](context.device))


def micro_copy(context: CheckContext) -> None:
    """Copy and host<->device bandwidth."""
    _store(context, MICRO["copy"](context.device))


def micro_allreduce(context: CheckContext) -> None:
    """all_reduce bus bandwidth."""
    _store(context, MICRO["allreduce"](context.device))
