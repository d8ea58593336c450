"""``benchmark(...) -> Run``: every phase isolated, its Measurements collected, peaks compared, targets judged."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpuready import __version__
from gpuready.bench.check import phase_specs
from gpuready.bench.targets import Target, TargetResult, judge_targets
from gpuready.checks.launchers import InlineLauncher, SubprocessLauncher
from gpuready.checks.spec import CheckSpec
from gpuready.model import (
    CheckResult,
    CheckStatus,
    Finding,
    Fingerprint,
    Measurement,
    Run,
    RunKind,
    Severity,
    from_dict,
)


@dataclass(frozen=True)
class BenchOutcome:
    """The Run and the targets judged against it."""

    run: Run
    targets: tuple[TargetResult, ...]

    @property
    def failed(self) -> bool:
        """A phase that did not pass, or a missed target."""
        return any(r.status not in (CheckStatus.PASS, CheckStatus.SKIP) for r in self.run.results) or any(
            not t.met for t in self.targets)


def benchmark(options: dict[str, Any], *, micro: Sequence[str] = (), find_max: bool = False,
              targets: Sequence[Target] = (), device: str = "auto", inline: bool = False,
              progress: Callable[[str, CheckSpec, CheckResult | None], None] | None = None,
              fingerprint: Fingerprint | None = None) -> BenchOutcome:
    """Run the phases (workload sweep, max batch, micro-benchmarks) each isolated, and assemble a Run."""
    specs = phase_specs(tuple(micro), find_max)
    launcher = InlineLauncher(device=device, options=options) if inline else SubprocessLauncher(
        device=device, options=options)
    results = launcher.run(specs, progress) if progress else launcher.run(specs)
    measurements: list[Measurement] = []
    findings: list[Finding] = []
    for result in results:
        for data in result.details.pop("measurements", []) or []:
            measurements.append(from_dict(Measurement, data, source=result.check_id))
        if result.status is not CheckStatus.PASS:
            findings.append(Finding(f"bench.{result.status.value}", Severity.BLOCKER,
                                    f"{result.check_id} {result.status.value}: {result.details.get('reason', '')}"))
    if fingerprint is not None:
        from gpuready.bench.links import judge_allreduce
        from gpuready.compat.load import load_dataset

        findings += judge_allreduce(fingerprint, measurements, load_dataset().links.links)
    judged = judge_targets(targets, measurements)
    for target in judged:
        findings.append(Finding("bench.target", Severity.INFO if target.met else Severity.BLOCKER,
                                f"{'met' if target.met else 'MISSED'}: {target.target} — {target.detail}",
                                evidence={"measured": f"{target.measured}", "spread": f"{target.spread}"}))
    run = Run(kind=RunKind.BENCH, tool_version=__version__, fingerprint=fingerprint, results=tuple(results),
              measurements=tuple(measurements), findings=tuple(findings),
              tags=tuple(f"{k}:{v}" for k, v in options.items() if k in ("workload", "mode", "precision")))
    return BenchOutcome(run, tuple(judged))
