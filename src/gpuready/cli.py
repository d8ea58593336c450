"""Command line: parse arguments, call one library function, render, return an exit code.

Only this module calls ``sys.exit``. Nothing heavy (rich, torch, jax) is imported until a command runs.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gpuready import __version__
from gpuready.errors import ExitCode, GpureadyError, UsageError

if TYPE_CHECKING:
    from gpuready.model import Fingerprint, Run

REPORT_KINDS = ("run", "collect-env", "rocminfo", "amd-smi-static", "amd-smi-list", "amd-smi-version", "rocm-smi",
                "nvidia-smi-csv", "kfd-properties", "os-release", "lsb-release", "nvidia-proc-version",
                "rocm-version-file", "topology")
"""The values of ``probe.reports.ReportKind``, kept here so ``--help`` does not import the probe layer (tested)."""


def write_output(path: Path, text: str) -> None:
    """Write a result file whole or not at all.

    A regular file (or a new one) is written to a temporary file beside it and renamed over it, so a failure never
    leaves half a file; a symlink is followed, and a device or pipe (``/dev/stdout``, a FIFO) is written directly.
    """
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        with open(target, "w", encoding="utf-8") as stream:
            stream.write(text)
        return
    if not target.parent.is_dir():
        raise UsageError(f"{path}: directory {target.parent} does not exist")
    handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, prefix=f".{target.name}.",
                                         delete=False)
    try:
        with handle:
            handle.write(text)
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def store_options(function: Any) -> Any:
    """--no-save, --store, --label, --tag: where and how a command's Run is kept; --prom for monitoring."""
    function = click.option("--prom", type=click.Path(dir_okay=False, path_type=Path),
                            help="Also write verdict and key figures as a Prometheus textfile.")(function)
    function = click.option("--tag", "tags", multiple=True, help="Tag the stored Run (repeatable).")(function)
    function = click.option("--label", default="", help="A label for the stored Run (e.g. the host's role).")(function)
    function = click.option("--store", "store_url", help="Store URL (SQLAlchemy), e.g. "
                            "postgresql://host/db; default: SQLite in the user's data directory.")(function)
    return click.option("--no-save", is_flag=True, help="Do not store the Run.")(function)


def _save(run: Run, options: dict[str, Any]) -> Run:
    """Store the Run unless --no-save; label and tags are set first. Returns the Run as stored."""
    import dataclasses

    from gpuready.store import open_store

    run = dataclasses.replace(run, label=options.get("label") or run.label,
                              tags=tuple(run.tags) + tuple(options.get("tags") or ()))
    if not options.get("no_save"):
        with open_store(options.get("store_url")) as store:
            store.save(run)
        click.echo(f"saved run {run.id[:12]} ({run.kind.value}) to {store.url}", err=True)
    if options.get("prom") is not None:
        from gpuready.report.prometheus import render_prometheus, run_verdict

        write_output(options["prom"], render_prometheus(run, run_verdict(run)))
    return run


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gpuready")
def cli() -> None:
    """Is this accelerator stack (ROCm, CUDA or CPU) ready for my model?"""


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the Run as JSON (schema: docs/schema/run.schema.json).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the result to FILE.")
@click.option("--from", "from_file", type=click.Path(path_type=Path),
              help="Read a saved gpuready JSON or a pasted collect_env / rocminfo / amd-smi / rocm-smi / nvidia-smi "
                   "report instead of probing this machine.")
@click.option("--kind", type=click.Choice(REPORT_KINDS), help="What --from holds (detected when omitted).")
@click.option("--no-redact", is_flag=True, help="Show GPU UUIDs, serials and the hostname.")
@click.option("--no-frameworks", is_flag=True, help="Do not start torch/jax child processes (faster).")
@store_options
def env(as_json: bool, output: Path | None, from_file: Path | None, kind: str | None, no_redact: bool,
        no_frameworks: bool, **store: Any) -> None:
    """Fingerprint the machine: GPUs, OS, drivers, ROCm/CUDA, frameworks, device access."""
    from gpuready.model import Run, RunKind

    fingerprint = _fingerprint(from_file, kind, no_redact, no_frameworks)
    run = _save(Run(kind=RunKind.ENV, tool_version=__version__, fingerprint=fingerprint), store)
    if as_json:
        from gpuready.report.json_report import render_json

        _emit(render_json(run), output)
    else:
        from gpuready.report.env_text import render_env

        _print_rich(render_env(fingerprint), output)


def _fingerprint(from_file: Path | None, kind: str | None, no_redact: bool, no_frameworks: bool) -> Fingerprint:
    """This machine's fingerprint, or one read from --from."""
    from gpuready.probe import collect_fingerprint, redact

    if kind and not from_file:
        raise click.UsageError("--kind only applies with --from")
    if from_file is not None:
        from gpuready.probe.reports import ReportKind, read_fingerprint

        _, fingerprint = read_fingerprint(from_file, ReportKind(kind) if kind else None)
        return fingerprint if no_redact else redact(fingerprint)
    return collect_fingerprint(frameworks=not no_frameworks, redact_identifiers=not no_redact)


def _emit(text: str, output: Path | None) -> None:
    if output is not None:
        write_output(output, text)
    else:
        click.echo(text, nl=False)


def _print_rich(renderable: object, output: Path | None) -> None:
    """Colour on a terminal; plain text into --output."""
    from rich.console import Console

    if output is None:
        Console().print(renderable)
        return
    from gpuready.report import plain_text

    write_output(output, plain_text(renderable))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the Run (findings included) as JSON.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the result to FILE.")
@click.option("--from", "from_file", type=click.Path(path_type=Path),
              help="Judge a saved gpuready JSON or a pasted report from another machine.")
@click.option("--kind", type=click.Choice(REPORT_KINDS), help="What --from holds (detected when omitted).")
@click.option("--data", "data_dir", type=click.Path(path_type=Path, file_okay=False),
              help="Use the compatibility data in DIR instead of the bundled set.")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too (READY WITH WARNINGS).")
@click.option("--no-redact", is_flag=True, help="Show GPU UUIDs, serials and the hostname.")
@click.option("--no-frameworks", is_flag=True, help="Do not start torch/jax child processes.")
@store_options
def doctor(as_json: bool, output: Path | None, from_file: Path | None, kind: str | None, data_dir: Path | None,
           strict: bool, no_redact: bool, no_frameworks: bool, **store: Any) -> None:
    """Judge the stack: READY, READY WITH WARNINGS or NOT READY, each finding with its fix."""
    from gpuready.compat.judge import Verdict, judge, verdict
    from gpuready.compat.load import load_dataset
    from gpuready.model import Run, RunKind

    data = load_dataset(data_dir)
    fingerprint = _fingerprint(from_file, kind, no_redact, no_frameworks)
    findings = judge(fingerprint, data)
    outcome = verdict(findings)
    run = _save(Run(kind=RunKind.DOCTOR, tool_version=__version__, fingerprint=fingerprint,
                    findings=tuple(findings), tags=(f"verdict:{outcome.value}",)), store)
    if as_json:
        from gpuready.report.json_report import render_json

        _emit(render_json(run), output)
    else:
        from gpuready.report.doctor_text import render_doctor

        _print_rich(render_doctor(outcome, findings, fingerprint.origin), output)
    failed = outcome is Verdict.NOT_READY or (strict and outcome is Verdict.READY_WITH_WARNINGS)
    raise click.exceptions.Exit(int(ExitCode.FINDINGS if failed else ExitCode.OK))


@cli.command()
@click.option("--gpu", required=True, help="Product name: 'Instinct MI300X', 'mi300x', '7900xtx', 'rtx 4090'.")
@click.option("--os", "os_text", help="Target OS, e.g. 'Ubuntu 24.04', 'RHEL 9.6', 'SLES 15 SP6'.")
@click.option("--framework", type=click.Choice(["torch", "jax"]), default="torch", show_default=True)
@click.option("--rocm", help="Only this ROCm release (AMD GPUs), e.g. 7.1.")
@click.option("--data", "data_dir", type=click.Path(path_type=Path, file_okay=False),
              help="Use the compatibility data in DIR instead of the bundled set.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the result to FILE.")
def plan(gpu: str, os_text: str | None, framework: str, rocm: str | None, data_dir: Path | None, as_json: bool,
         output: Path | None) -> None:
    """Before installing: supported releases and framework builds for a GPU (and OS), and what to install."""
    import json

    from gpuready.compat.load import load_dataset
    from gpuready.compat.plan import make_plan
    from gpuready.model import to_dict

    result = make_plan(load_dataset(data_dir), gpu, os_text, framework, rocm)
    if as_json:
        _emit(json.dumps(to_dict(result), indent=2) + "\n", output)
    else:
        from gpuready.report.plan_text import render_plan

        _print_rich(render_plan(result), output)


@cli.command()
@click.option("--suite", type=click.Choice(["quick", "full", "distributed"]), default="quick", show_default=True)
@click.option("--only", multiple=True, help="Only checks whose id matches this glob (repeatable), e.g. 'torch.ops.*'.")
@click.option("--device", default="auto", show_default=True, help="auto, cpu, cuda or cuda:N (ROCm GPUs are 'cuda').")
@click.option("--framework", type=click.Choice(["torch", "jax"]), help="Only this framework's checks.")
@click.option("--timeout", "timeout_s", type=float, help="Seconds per check (overrides each check's own limit).")
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), help="Also write JUnit XML to FILE.")
@click.option("--json", "as_json", is_flag=True, help="Print the Run as JSON.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the Run (JSON) to FILE.")
@click.option("--inline", is_flag=True, help="Run in this process (no isolation; for debugging).")
@click.option("--list", "list_only", is_flag=True, help="List the selected checks and exit.")
@store_options
def check(suite: str, only: tuple[str, ...], device: str, framework: str | None, timeout_s: float | None,
          junit: Path | None, as_json: bool, output: Path | None, inline: bool, list_only: bool, **store: Any) -> None:
    """Validate on the device: operators, training, mixed precision, checkpoints, compile, collectives."""
    from gpuready.checks.registry import BUILTIN

    specs = BUILTIN.select(suite, only, framework)
    if list_only:
        for spec in specs:
            click.echo(f"{spec.id:<34} {spec.description}")
        return
    import threading

    from gpuready.checks.launchers import InlineLauncher, SubprocessLauncher
    from gpuready.model import Run, RunKind
    from gpuready.probe import collect_fingerprint
    from gpuready.report.check_text import live_line

    fingerprints: list[Fingerprint] = []
    probe = threading.Thread(target=lambda: fingerprints.append(collect_fingerprint()), daemon=True)
    probe.start()
    launcher = InlineLauncher(device=device) if inline else SubprocessLauncher(device=device, timeout_s=timeout_s)
    click.echo(f"gpuready check: {len(specs)} check(s), suite {suite}, device {device}", err=True)

    def progress(event: str, spec: object, result: object) -> None:
        if event == "done" and result is not None:
            click.echo(live_line(result), err=True)  # type: ignore[arg-type]

    results = launcher.run(specs, progress)
    probe.join(timeout=120)
    run = _save(Run(kind=RunKind.CHECK, tool_version=__version__,
                    fingerprint=fingerprints[0] if fingerprints else None, results=tuple(results),
                    tags=(f"suite:{suite}", f"device:{device}")), store)
    from gpuready.report.json_report import render_json

    if junit is not None:
        from gpuready.report.junit import render_junit

        write_output(junit, render_junit(run))
    if output is not None:
        write_output(output, render_json(run))
    if as_json:
        click.echo(render_json(run), nl=False)
    else:
        from gpuready.report.check_text import render_checks

        _print_rich(render_checks(results), None)
    failed = any(r.status.value not in ("pass", "skip") for r in results)
    raise click.exceptions.Exit(int(ExitCode.FINDINGS if failed else ExitCode.OK))


@cli.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the Run (findings with file:line) as JSON.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the result to FILE.")
@click.option("--sarif", type=click.Path(dir_okay=False, path_type=Path), help="Also write SARIF 2.1.0 to FILE.")
@click.option("--fail-on", type=click.Choice(["blocker", "warning", "never"]), default="blocker", show_default=True,
              help="Exit 1 when a finding of this severity (or worse) is present.")
@click.option("--kb", "kb_file", type=click.Path(dir_okay=False, path_type=Path, exists=True),
              help="Use this packages knowledge base (YAML) instead of the bundled one.")
@click.option("--jobs", type=int, help="Parallel workers (default: all cores).")
@click.option("--no-cache", is_flag=True, help="Read every file again (no content cache).")
@store_options
def scan(path: Path, as_json: bool, output: Path | None, sarif: Path | None, fail_on: str, kb_file: Path | None,
         jobs: int | None, no_cache: bool, **store: Any) -> None:
    """Find CUDA-only dependencies and code in a project, with ROCm alternatives. Nothing is executed."""
    from gpuready.model import Run, RunKind, Severity
    from gpuready.scan.engine import scan_tree
    from gpuready.scan.kb import load_kb

    report = scan_tree(path, load_kb(kb_file), jobs=jobs, cache=not no_cache)
    run = _save(Run(kind=RunKind.SCAN, tool_version=__version__, findings=report.findings,
                    tags=(f"verdict:{report.verdict}", f"root:{path}")), store)
    if sarif is not None:
        from gpuready.report.sarif import render_sarif

        write_output(sarif, render_sarif(report.findings))
    if as_json:
        from gpuready.report.json_report import render_json

        _emit(render_json(run), output)
    else:
        from gpuready.report.scan_text import render_scan

        _print_rich(render_scan(report), output)
    worst = {f.severity for f in report.findings}
    failed = (fail_on == "blocker" and Severity.BLOCKER in worst) or (
        fail_on == "warning" and bool({Severity.BLOCKER, Severity.WARN} & worst))
    raise click.exceptions.Exit(int(ExitCode.FINDINGS if failed else ExitCode.OK))


@cli.command()
@click.option("--model", "model", default="transformer", show_default=True,
              help="mlp, cnn, transformer, or your model: 'pkg.module:factory' / 'path/file.py:factory'.")
@click.option("--mode", type=click.Choice(["train", "infer"]), default="train", show_default=True)
@click.option("--steps", type=int, default=1, show_default=True)
@click.option("--device", default="auto", show_default=True,
              help="auto (the GPU, or the CPU standing in for one), cuda, cuda:N, or standin.")
@click.option("--timeout", "timeout_s", type=float, default=600.0, show_default=True)
@click.option("--no-coverage", is_flag=True, help="Skip replaying the step's ops against the float64 reference.")
@click.option("--framework", type=click.Choice(["torch", "jax"]), default="torch", show_default=True,
              help="jax: where a jitted step runs, and a silent CPU fallback.")
@click.option("--json", "as_json", is_flag=True, help="Print the Run (findings with file:line) as JSON.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the result to FILE.")
@store_options
def audit(model: str, mode: str, steps: int, device: str, timeout_s: float, no_coverage: bool, framework: str,
          as_json: bool, output: Path | None, **store: Any) -> None:
    """Prove placement: ops on the CPU, mixed devices, host syncs and copies, float64 — at file:line."""
    from gpuready.audit.api import audit as run
    from gpuready.model import Run, RunKind

    if framework == "jax":
        from gpuready.audit.jax_audit import audit_jax
        from gpuready.probe import collect_fingerprint
        from gpuready.report.json_report import render_json

        fingerprint = collect_fingerprint(frameworks=False)
        jax_findings, jax_result = audit_jax(fingerprint)
        jax_run = _save(Run(kind=RunKind.AUDIT, tool_version=__version__, fingerprint=fingerprint,
                            findings=tuple(jax_findings), results=(jax_result,), tags=("framework:jax",)), store)
        if as_json:
            _emit(render_json(jax_run), output)
        else:
            from rich.console import Group
            from rich.text import Text

            from gpuready.report.doctor_text import render_findings

            head = Text(f"JAX step ran on: {', '.join(jax_result.details.get('platforms') or ['?'])}", style="bold")
            _print_rich(Group(head, *render_findings(jax_findings)), output)
        blocked = any(f.severity.value == "blocker" for f in jax_findings)
        raise click.exceptions.Exit(int(ExitCode.FINDINGS if blocked else ExitCode.OK))

    outcome = run(model, device=device, mode=mode, steps=steps, timeout_s=timeout_s, coverage=not no_coverage)
    results = (outcome.result,) + ((outcome.coverage_result,) if outcome.coverage_result else ())
    run_record = _save(Run(kind=RunKind.AUDIT, tool_version=__version__, findings=outcome.findings,
                           results=results, tags=(f"model:{model}", f"mode:{mode}")), store)
    if as_json:
        from gpuready.report.json_report import render_json

        _emit(render_json(run_record), output)
    else:
        from gpuready.report.audit_text import render_audit

        _print_rich(render_audit(model, outcome), output)
    raise click.exceptions.Exit(int(ExitCode.FINDINGS if outcome.blocked else ExitCode.OK))


@cli.command()
@click.argument("workload", default="transformer")
@click.option("--mode", type=click.Choice(["train", "infer"]), default="train", show_default=True)
@click.option("--precision", type=click.Choice(["fp32", "tf32", "bf16", "fp16", "amp"]), default="fp32",
              show_default=True)
@click.option("--batch-size", "batch_sizes", help="A batch size or a comma-separated sweep, e.g. 8,16,32.")
@click.option("--size", type=click.Choice(["tiny", "small", "medium", "large"]), default="tiny", show_default=True,
              help="Built-in transformer preset (large is about 1B parameters).")
@click.option("--seq-len", "sequence", type=int, help="Sequence length (transformer and --hf workloads).")
@click.option("--steps", type=int, default=20, show_default=True)
@click.option("--warmup", type=int, default=5, show_default=True, help="At most this many warm-up steps "
                                                                       "(fewer once step times settle).")
@click.option("--compile", "compile_model", is_flag=True, help="torch.compile the model.")
@click.option("--dataloader-workers", type=int, default=0, show_default=True)
@click.option("--find-max-batch", is_flag=True, help="Also find the largest batch that fits (doubling, bisection).")
@click.option("--hf", "hf_family", help="A Hugging Face architecture built from its config with random weights: "
                                        "llama, mistral, qwen2, gpt2 (needs transformers; nothing is downloaded).")
@click.option("--hf-size", type=click.Choice(["tiny", "small", "medium"]), default="tiny", show_default=True)
@click.option("--micro", default="", help="Micro-benchmarks: comma-separated gemm,copy,allreduce.")
@click.option("--target", "targets", multiple=True, help="e.g. 'tokens_per_s>=5000', 'p90_step_ms<=120'.")
@click.option("--device", default="auto", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the Run (measurements with samples) as JSON.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the Run (JSON) to FILE.")
@store_options
def bench(workload: str, mode: str, precision: str, batch_sizes: str | None, size: str, sequence: int | None,
          steps: int, warmup: int,
          compile_model: bool, dataloader_workers: int, find_max_batch: bool, hf_family: str | None, hf_size: str,
          micro: str, targets: tuple[str, ...], device: str, as_json: bool, output: Path | None, **store: Any) -> None:
    """Benchmark WORKLOAD (mlp, cnn, transformer, or module:factory) and the device's ceilings."""
    from gpuready.bench.api import benchmark
    from gpuready.bench.micro import MICRO
    from gpuready.bench.targets import parse_target

    parsed = [parse_target(t) for t in targets]
    chosen = tuple(m.strip() for m in micro.split(",") if m.strip())
    unknown = [m for m in chosen if m not in MICRO]
    if unknown:
        raise click.UsageError(f"--micro {', '.join(unknown)}: choose from {', '.join(MICRO)}")
    sizes: list[int] = []
    for part in (batch_sizes or "").split(","):
        if part.strip():
            if not part.strip().isdigit() or int(part) < 1:
                raise click.UsageError(f"--batch-size {batch_sizes!r}: expected positive integers, e.g. 8,16,32")
            sizes.append(int(part))
    if hf_family:
        from gpuready.bench.hf import FAMILIES

        if hf_family not in FAMILIES:
            raise click.UsageError(f"--hf {hf_family!r}: choose from {', '.join(FAMILIES)}")
        workload, size = f"hf:{hf_family}", hf_size
    options = {"workload": workload, "mode": mode, "precision": precision, "batch_sizes": sizes or None,
               "size": size, "sequence": sequence, "steps": steps, "warmup": warmup, "compile": compile_model,
               "dataloader_workers": dataloader_workers}
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("benchmarking", total=1 + len(chosen) + int(find_max_batch))

        def progress(event: str, spec: object, result: object) -> None:
            if event == "start":
                bar.update(task, description=f"{getattr(spec, 'id', '')}")
            else:
                bar.advance(task)

        from gpuready.probe import collect_fingerprint

        outcome = benchmark(options, micro=chosen, find_max=find_max_batch, targets=parsed, device=device,
                            progress=progress, fingerprint=collect_fingerprint(frameworks=False))
    from gpuready.report.json_report import render_json

    saved = _save(outcome.run, store)
    if output is not None:
        write_output(output, render_json(saved))
    if as_json:
        click.echo(render_json(saved), nl=False)
    else:
        from gpuready.report.bench_text import render_bench

        _print_rich(render_bench(saved, outcome.targets), None)
    raise click.exceptions.Exit(int(ExitCode.FINDINGS if outcome.failed else ExitCode.OK))


@cli.group()
def runs() -> None:
    """Stored Runs: list, show, export, import, delete."""


def _store_option(function: Any) -> Any:
    return click.option("--store", "store_url", help="Store URL (default: SQLite in the user's data directory).")(
        function)


@runs.command("list")
@_store_option
@click.option("--kind", type=click.Choice(["env", "doctor", "plan", "check", "audit", "scan", "bench", "verify"]))
@click.option("--device", help="Device name contains this.")
@click.option("--host", help="Host (OS) contains this.")
@click.option("--since", help="Created at or after this ISO date, e.g. 2026-11-01.")
@click.option("--tag")
@click.option("--label")
@click.option("--limit", type=int, default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def runs_list(store_url: str | None, kind: str | None, device: str | None, host: str | None, since: str | None,
              tag: str | None, label: str | None, limit: int, as_json: bool) -> None:
    """Stored runs, newest first."""
    import dataclasses
    import json

    from gpuready.store import open_store

    rows = open_store(store_url).list(kind, device, host, since, tag, label, limit)
    if as_json:
        click.echo(json.dumps([dataclasses.asdict(r) for r in rows], indent=2))
        return
    for row in rows:
        click.echo(f"{row.id[:12]}  {row.created_at}  {row.kind:<7} {row.device[:30]:<30} {row.label:<16} "
                   f"{','.join(row.tags)}")


@runs.command("show")
@_store_option
@click.argument("run_id")
def runs_show(store_url: str | None, run_id: str) -> None:
    """One stored Run as JSON."""
    from gpuready.report.json_report import render_json
    from gpuready.store import open_store

    click.echo(render_json(open_store(store_url).get(run_id)), nl=False)


@runs.command("export")
@_store_option
@click.argument("run_id")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
def runs_export(store_url: str | None, run_id: str, output: Path) -> None:
    """Write a stored Run to a JSON file."""
    from gpuready.report.json_report import render_json
    from gpuready.store import open_store

    write_output(output, render_json(open_store(store_url).get(run_id)))


@runs.command("import")
@_store_option
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the imported run ids as JSON.")
def runs_import(store_url: str | None, files: tuple[Path, ...], as_json: bool) -> None:
    """Store Runs saved as JSON (from another machine)."""
    import json

    from gpuready.compare.load import read_run_file
    from gpuready.store import open_store

    runs = [read_run_file(file) for file in files]  # every file is read before anything is stored
    with open_store(store_url) as store:
        ids = [store.save(run) for run in runs]
    if as_json:
        click.echo(json.dumps(ids))
    else:
        for run_id, file in zip(ids, files, strict=True):
            click.echo(f"imported {run_id[:12]} from {file}")


@runs.command("delete")
@_store_option
@click.argument("run_ids", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the deleted run ids as JSON.")
def runs_delete(store_url: str | None, run_ids: tuple[str, ...], as_json: bool) -> None:
    """Delete stored Runs by id."""
    import json

    from gpuready.store import open_store

    with open_store(store_url) as store:
        ids = [store.get(run_id).id for run_id in run_ids]
        count = store.delete(ids)
    click.echo(json.dumps(ids) if as_json else f"deleted {count} run(s)")


@cli.command()
@click.argument("run_ref")
@_store_option
@click.option("--html", "html_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Self-contained HTML with plots (no scripts, no network).")
@click.option("--md", "md_file", type=click.Path(dir_okay=False, path_type=Path), help="Markdown for a PR or an issue.")
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), help="JUnit XML of the checks.")
@click.option("--prom", type=click.Path(dir_okay=False, path_type=Path),
              help="Prometheus textfile (node-exporter's textfile collector).")
@click.option("--json", "as_json", is_flag=True, help="Print the Run as JSON instead of Markdown.")
def report(run_ref: str, store_url: str | None, html_file: Path | None, md_file: Path | None, junit: Path | None,
           prom: Path | None, as_json: bool) -> None:
    """Render a stored run (id or unique prefix) or a Run JSON file; Markdown on stdout without options."""
    from gpuready.compare.load import load_sides
    from gpuready.report.markdown import render_run_markdown
    from gpuready.store import open_store

    run = load_sides([run_ref], lambda: open_store(store_url))[0].runs[0]
    if html_file is not None:
        from gpuready.report.html import render_run_html

        write_output(html_file, render_run_html(run))
    if md_file is not None:
        write_output(md_file, render_run_markdown(run))
    if junit is not None:
        from gpuready.report.junit import render_junit

        write_output(junit, render_junit(run))
    if prom is not None:
        from gpuready.report.prometheus import render_prometheus, run_verdict

        write_output(prom, render_prometheus(run, run_verdict(run)))
    if as_json:
        from gpuready.report.json_report import render_json

        click.echo(render_json(run), nl=False)
    elif not any((html_file, md_file, junit, prom)):
        click.echo(render_run_markdown(run), nl=False)


@cli.command()
@click.argument("sides", nargs=-1, required=True)
@_store_option
@click.option("--price", "prices", multiple=True,
              help="NAME=USD_PER_GPU_HOUR, NAME a side's label, run id or device name (repeatable).")
@click.option("--gpus-per-node", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--utilisation", type=click.FloatRange(min=0.01, max=1.0), default=1.0, show_default=True,
              help="Share of wall time spent on the measured step.")
@click.option("--train-tokens", type=float, help="Size of a training run to price, in tokens (e.g. 2e9).")
@click.option("--html", "html_file", type=click.Path(dir_okay=False, path_type=Path), help="Also write an HTML report.")
@click.option("--md", "md_file", type=click.Path(dir_okay=False, path_type=Path), help="Also write Markdown.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the result to FILE.")
def compare(sides: tuple[str, ...], store_url: str | None, prices: tuple[str, ...], gpus_per_node: int,
            utilisation: float, train_tokens: float | None, html_file: Path | None, md_file: Path | None,
            as_json: bool, output: Path | None) -> None:
    """Compare runs of two or more machines: the first is the baseline.

    Each SIDE is a stored run id (a unique prefix is enough) or a Run JSON file; join a machine's bench,
    check and scan runs with '+', e.g. 'a1b2+c3d4'.
    """
    import json

    from gpuready.compare import CostInputs, compare_sides, parse_prices
    from gpuready.compare.load import load_sides
    from gpuready.errors import UsageError
    from gpuready.model import to_dict
    from gpuready.store import open_store

    if len(sides) < 2:
        raise UsageError("compare needs at least two sides (a baseline and one other)")
    loaded = load_sides(sides, lambda: open_store(store_url))
    cost = CostInputs(parse_prices(prices), gpus_per_node, utilisation, train_tokens) if prices else None
    comparison = compare_sides(loaded, cost)
    if html_file is not None:
        from gpuready.report.html import render_comparison_html

        write_output(html_file, render_comparison_html(comparison, loaded))
    if md_file is not None:
        from gpuready.report.markdown import render_comparison_markdown

        write_output(md_file, render_comparison_markdown(comparison))
    if as_json:
        _emit(json.dumps(to_dict(comparison), indent=2) + "\n", output)
        return
    from gpuready.report.compare_text import render_comparison

    _print_rich(render_comparison(comparison), output)


def _check_runner(inline: bool = False) -> Any:
    """Re-run checks by id, each isolated as in ``gpuready check``."""

    def run(check_ids: Any, device: str) -> Any:
        from gpuready.checks.launchers import InlineLauncher, SubprocessLauncher
        from gpuready.checks.registry import BUILTIN

        specs = [BUILTIN.get(check_id) for check_id in check_ids]
        launcher = InlineLauncher(device=device) if inline else SubprocessLauncher(device=device)
        return launcher.run(specs, lambda *_: None)

    return run


def _bench_options(workload: str, steps: int) -> dict[str, Any]:
    return {"workload": workload, "mode": "train", "precision": "fp32", "batch_sizes": None, "size": "tiny",
            "sequence": None, "steps": steps, "warmup": 5, "compile": False, "dataloader_workers": 0}


def _bench_runner(device: str) -> Any:
    def run(options: Any) -> Any:
        from gpuready.bench.api import benchmark

        return benchmark(dict(options), device=device).run.measurements

    return run


@cli.command()
@click.option("--checks", "check_suite", type=click.Choice(["quick", "full", "distributed"]),
              help="Run this check suite now and record its results as the baseline.")
@click.option("--bench", "benches", multiple=True, help="Benchmark this workload now (repeatable): a built-in "
              "(mlp, cnn, transformer) or path.py:function.")
@click.option("--bench-steps", type=int, default=30, show_default=True, help="Measured steps per benchmark.")
@click.option("--model", "models", multiple=True, help="A model verified on this stack (for the runtime guard).")
@click.option("--device", default="auto", show_default=True)
@click.option("--threshold", type=click.FloatRange(min=0.0, max=1.0), default=0.05, show_default=True,
              help="Slowdown that counts as a regression (beyond the measured noise).")
@click.option("--strict-packages", is_flag=True, help="Count changes to any Python package as drift.")
@click.option("--container-image", default="", help="The container image these results were obtained in.")
@click.option("--requirements", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a pinned requirements file for this framework build.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=Path("gpuready.lock"),
              show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Also print the lock document on stdout.")
def lock(check_suite: str | None, benches: tuple[str, ...], bench_steps: int, models: tuple[str, ...], device: str,
         threshold: float, strict_packages: bool, container_image: str, requirements: Path | None,
         output: Path, as_json: bool) -> None:
    """Pin the tested environment: fingerprint, every installed package, check and benchmark baselines."""
    from gpuready.checks.registry import BUILTIN
    from gpuready.lock.lockfile import (
        Lock,
        LockedBench,
        Thresholds,
        installed_distributions,
        pinned_requirements,
        render_lock,
    )
    from gpuready.probe import collect_fingerprint

    fingerprint = collect_fingerprint()
    distributions, sources = installed_distributions()
    checks: dict[str, str] = {}
    if check_suite:
        ids = [spec.id for spec in BUILTIN.select(check_suite)]
        checks = {r.check_id: r.status.value for r in _check_runner()(ids, device)}
        click.echo(f"checks: {sum(v == 'pass' for v in checks.values())}/{len(checks)} pass", err=True)
    locked_benches = []
    for workload in benches:
        options = _bench_options(workload, bench_steps)
        locked_benches.append(LockedBench(options, tuple(_bench_runner(device)(options))))
        click.echo(f"benchmarked {workload}", err=True)
    image = container_image or os.environ.get("GPUREADY_CONTAINER_IMAGE", "")
    result = Lock(fingerprint, distributions, sources, image, tuple(models), check_suite or "", device, checks,
                  tuple(locked_benches), Thresholds(threshold, strict_packages), __version__)
    write_output(output, render_lock(result))
    if requirements is not None:
        write_output(requirements, pinned_requirements(result))
    if as_json:
        click.echo(render_lock(result), nl=False)
    click.echo(f"wrote {output}: {len(distributions)} packages, {len(checks)} checks, {len(locked_benches)} "
               f"benchmark(s), models: {', '.join(models) or 'none'}", err=as_json)


@cli.command()
@click.argument("lock_file", type=click.Path(dir_okay=False, path_type=Path), default=Path("gpuready.lock"))
@click.option("--no-rerun", is_flag=True, help="Only compare the environment; do not re-run checks or benchmarks.")
@click.option("--device", help="Device for the re-runs (default: the one in the lock).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def verify(lock_file: Path, no_rerun: bool, device: str | None, as_json: bool) -> None:
    """Re-verify after an upgrade: what drifted, what regressed, the likely cause. Exit 1 on drift or regression."""
    import json

    from gpuready.lock.lockfile import installed_distributions, read_lock
    from gpuready.lock.verify import verify as verify_lock
    from gpuready.model import to_dict
    from gpuready.probe import collect_fingerprint

    locked = read_lock(lock_file)
    chosen = device or locked.check_device
    report = verify_lock(locked, collect_fingerprint(), installed_distributions()[0],
                         None if no_rerun else _check_runner(), None if no_rerun else _bench_runner(chosen))
    if as_json:
        data = to_dict(report)
        data.update(ok=report.ok, drift=to_dict(report.drift), likely_cause=to_dict(report.likely_cause))
        click.echo(json.dumps(data, indent=2))
    else:
        from gpuready.report.verify_text import render_verify

        _print_rich(render_verify(report), None)
    raise click.exceptions.Exit(int(ExitCode.OK if report.ok else ExitCode.FINDINGS))


@cli.command("diff")
@click.argument("run_a")
@click.argument("run_b")
@_store_option
@click.option("--all", "show_all", is_flag=True, help="Also list non-framework Python packages.")
@click.option("--json", "as_json", is_flag=True)
def diff_runs(run_a: str, run_b: str, store_url: str | None, show_all: bool, as_json: bool) -> None:
    """Environment differences between two Runs (ids or JSON files), classified; exit 1 when relevant ones exist."""
    import json

    from gpuready.compare.load import load_sides
    from gpuready.errors import InputError
    from gpuready.lock import classify_changes
    from gpuready.model import to_dict
    from gpuready.store import open_store

    sides = load_sides([run_a, run_b], lambda: open_store(store_url))
    fingerprints = [side.runs[0].fingerprint for side in sides]
    if fingerprints[0] is None or fingerprints[1] is None:
        raise InputError("both runs need a fingerprint to diff", source=run_a if fingerprints[0] is None else run_b)
    changes = classify_changes(fingerprints[0], fingerprints[1])
    shown = [c for c in changes if show_all or c.relevant]
    if as_json:
        click.echo(json.dumps([{**to_dict(c), "relevant": c.relevant} for c in shown], indent=2))
    else:
        for change in shown:
            click.echo(f"{change.kind.value:<22} {change.field:<32} {change.before or '-'} -> {change.after or '-'}")
        hidden = len(changes) - len(shown)
        click.echo(f"{len(shown)} difference(s)" + (f"; {hidden} other package change(s) (--all)" if hidden else ""))
    raise click.exceptions.Exit(int(ExitCode.FINDINGS if any(c.relevant for c in changes) else ExitCode.OK))


@cli.group()
def data() -> None:
    """The compatibility data gpuready judges with."""


@data.command("validate")
@click.argument("directory", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def data_validate(directory: Path | None, as_json: bool) -> None:
    """Check a data set (the bundled one by default): every file, key and value."""
    import datetime
    import json

    from gpuready.compat.load import STALE_AFTER_DAYS, load_dataset

    dataset = load_dataset(directory)
    age = dataset.age_days(datetime.date.today())
    summary = {
        "directory": dataset.directory, "as_of": dataset.as_of.isoformat(), "age_days": age,
        "stale": age > STALE_AFTER_DAYS, "gpus": len(dataset.gpus.gpus), "rocm_releases": len(dataset.rocm.releases),
        "torch_releases": len(dataset.torch.releases), "cuda_toolkits": len(dataset.cuda.toolkits),
        "jax_rocm_pairings": len(dataset.jax.rocm),
    }
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    click.echo(f"ok: {dataset.directory}")
    click.echo(f"  as of {summary['as_of']} ({age} days old{'; STALE' if summary['stale'] else ''})")
    click.echo(f"  {summary['gpus']} GPUs, {summary['rocm_releases']} ROCm releases, {summary['torch_releases']} "
               f"PyTorch releases, {summary['cuda_toolkits']} CUDA toolkits, {summary['jax_rocm_pairings']} JAX ROCm "
               f"pairings, {len(dataset.links.links)} link types")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (``ExitCode``)."""
    try:
        returned = cli.main(args=argv, prog_name="gpuready", standalone_mode=False)
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.ClickException as error:
        error.show()
        return int(ExitCode.USAGE)
    except click.exceptions.Abort:
        click.echo("gpuready: aborted", err=True)
        return int(ExitCode.USAGE)
    except GpureadyError as error:
        click.echo(f"gpuready: error: {error}", err=True)
        return int(error.exit_code)
    except BrokenPipeError:
        return int(ExitCode.OK)
    except Exception as error:  # noqa: BLE001 - the last line of defence reports a bug, with a way to see it
        if os.environ.get("GPUREADY_DEBUG"):
            raise
        click.echo(f"gpuready: internal error: {type(error).__name__}: {error} "
                   "(set GPUREADY_DEBUG=1 for the traceback)", err=True)
        return int(ExitCode.INTERNAL)
    return returned if isinstance(returned, int) else int(ExitCode.OK)


if __name__ == "__main__":
    sys.exit(main())
