"""``run_bench(config, data) -> Run``: every phase isolated, its Measurements collected, peaks noted from the data
set passed in, noise flagged, targets judged."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuready import __version__
from gpuready.benchmark.peaks import with_peaks
from gpuready.benchmark.phases import phase_options, phase_specs
from gpuready.benchmark.targets import judge_targets, parse_target
from gpuready.isolation.launchers import InlineLauncher, Progress, SubprocessLauncher, raise_input_error
from gpuready.model import CheckStatus, Finding, Fingerprint, Measurement, Run, RunKind, Severity, from_dict, make_run
from gpuready.model.config import BenchConfig
from gpuready.stats import is_noisy
from gpuready.workloads.resolve import require_batch_size, require_framework, resolve

if TYPE_CHECKING:
    from gpuready.compat.load import Dataset

NOISY_SPREAD = 0.5
"""A step-time spread ((p90 - p10) / median) above this makes a measurement noisy: its numbers are shown, but a
comparison or a regression verdict never rests on it."""


def validate(config: BenchConfig) -> None:
    """Everything that can be known wrong before anything runs: the workload, batch options, targets."""
    ref = resolve(config.workload)
    require_framework(ref, config.framework)
    if config.batch_sizes:
        require_batch_size(ref, "a batch size sweep")
    if config.find_max_batch:
        require_batch_size(ref, "a search for the largest batch")
    for text in config.targets:
        parse_target(text)


def noise_findings(measurements: Sequence[Measurement], threshold: float = NOISY_SPREAD) -> list[Finding]:
    """A warning per noisy step-time measurement."""
    return [Finding("bench.noisy", Severity.WARN,
                    f"{m.workload} at batch {m.settings.get('batch_size', '?')}: step times spread "
                    f"{m.summary.spread:.0%} of their median (over {threshold:.0%}); this run's speed is not a "
                    "reliable baseline", evidence={"spread": f"{m.summary.spread:.3f}",
                                                   "p10": f"{m.summary.p10:.6g}", "p90": f"{m.summary.p90:.6g}"},
                    remedy="run on an idle machine, with more --steps, or pin the process to its cores")
            for m in measurements if m.metric == "step_time" and is_noisy(m.summary, threshold)]


def run_bench(config: BenchConfig, data: Dataset, *, fingerprint: Fingerprint | None = None,
              progress: Progress | None = None) -> Run:
    """Validate, run the phases (workload sweep, max batch, micro-benchmarks) each isolated, and assemble the Run."""
    validate(config)
    specs = phase_specs(config)
    options = phase_options(config)
    launcher = InlineLauncher(device=config.device, options=options) if config.inline else SubprocessLauncher(
        device=config.device, options=options)
    results = launcher.run(specs, progress) if progress else launcher.run(specs)
    raise_input_error(results)
    measurements: list[Measurement] = []
    findings: list[Finding] = []
    for result in results:
        for item in result.details.pop("measurements", []) or []:
            measurements.append(from_dict(Measurement, item, source=result.check_id))
        if result.status is not CheckStatus.PASS:
            findings.append(Finding(f"bench.{result.status.value}", Severity.BLOCKER,
                                    f"{result.check_id} {result.status.value}: {result.details.get('reason', '')}"))
    measurements = with_peaks(measurements, data.gpus.gpus)
    if fingerprint is not None:
        from gpuready.benchmark.links import judge_allreduce

        findings += judge_allreduce(fingerprint, measurements, data.links.links)
    findings += noise_findings(measurements)
    for target in judge_targets([parse_target(t) for t in config.targets], measurements):
        findings.append(Finding("bench.target", Severity.INFO if target.met else Severity.BLOCKER,
                                f"{'met' if target.met else 'MISSED'}: {target.target} — {target.detail}",
                                evidence={"target": str(target.target), "measured": f"{target.measured}",
                                          "spread": f"{target.spread}", "met": str(target.met).lower()}))
    return make_run(RunKind.BENCH, __version__, fingerprint=fingerprint, results=results,
                    measurements=measurements, findings=findings,
                    tags=(f"workload:{config.workload}", f"mode:{config.mode}", f"precision:{config.precision}",
                          f"framework:{config.framework}"))


__all__ = ["NOISY_SPREAD", "noise_findings", "run_bench", "validate"]
