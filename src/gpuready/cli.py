"""Command line: parse options, build the configuration, call the public API (``gpuready.api``), render, exit.

Only this module calls ``sys.exit`` or knows option names. Nothing heavy (rich, torch, jax) is imported until a
command runs.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gpuready import __version__
from gpuready.errors import ExitCode, GpureadyError, InputError

if TYPE_CHECKING:
    from gpuready.model import Run

REPORT_KINDS = ("run", "collect-env", "rocminfo", "amd-smi-static", "amd-smi-list", "amd-smi-version",
                "amd-smi-default", "rocm-smi", "nvidia-smi-csv", "kfd-properties", "os-release", "lsb-release",
                "nvidia-proc-version", "rocm-version-file", "topology")
"""The values of ``probe.paste.ReportKind``, kept here so ``--help`` does not import the probe layer (tested)."""

FIELD_OPTIONS = {"gpu": "--gpu", "os": "--os", "rocm": "--rocm", "framework": "--framework", "device": "--device",
                 "suite": "--suite", "only": "--only", "timeout_s": "--timeout", "checks": "--only",
                 "workload": "WORKLOAD", "batch_sizes": "--batch-size", "targets": "--target", "micro": "--micro",
                 "prices": "--price", "gpus_per_node": "--gpus-per-node", "utilisation": "--utilisation",
                 "train_tokens": "--train-tokens", "steps": "--steps", "warmup": "--warmup", "sequence": "--seq-len",
                 "jobs": "--jobs", "report_kind": "--kind", "check_suite": "--checks", "bench_steps": "--bench-steps",
                 "threshold": "--threshold", "benches": "--bench", "size": "--size", "mode": "--mode",
                 "dataloader_workers": "--dataloader-workers", "sides": "SIDES", "since": "--since",
                 "out": "--out", "sources": "--sources", "compile": "--compile", "fleet": "FLEET_RUN",
                 "mad_threshold": "--mad", "min_relative": "--min-relative", "destination": "--out/--store",
                 "workloads": "--workload", "lock_file": "--lock",
                 "fleet_run": "--fleet-run", "node": "--node", "job_id": "--job-id", "engine": "--engine"}
"""Library errors name configuration fields; the CLI says which option that was."""

PATH = click.Path(dir_okay=False, path_type=Path)
DATA_DIR = click.Path(path_type=Path, file_okay=False)


def _option_error(error: InputError) -> str:
    """The error as the user typed it: the field replaced by the option it came from."""
    if error.field and error.field in FIELD_OPTIONS:
        option = FIELD_OPTIONS[error.field]
        if option.isupper():  # an argument: say which value
            return f"{option} {error.source!r}: {error.reason}" if error.source else f"{option}: {error.reason}"
        where = ": ".join(p for p in (error.source, option) if p)
        return f"{where}: {error.reason}"
    return str(error)


def store_options(function: Any) -> Any:
    """--no-save, --store, --label, --tag: where and how a command's Run is kept; --prom for monitoring."""
    for option in (click.option("--prom", type=PATH, help="Also write verdict and key figures as a Prometheus "
                                                          "textfile."),
                   click.option("--tag", "tags", multiple=True, help="Tag the stored Run (repeatable)."),
                   click.option("--label", default="", help="A label for the stored Run (e.g. the host's role)."),
                   _store_option,
                   click.option("--no-save", is_flag=True, help="Do not store the Run.")):
        function = option(function)
    return function


def _checked_store_url(_: click.Context, __: click.Parameter, value: str | None) -> str | None:
    """A store URL that cannot be one is refused before anything runs (not after a run is measured)."""
    if value:
        from gpuready.store.database import check_url

        check_url(value)
    return value


def _store_option(function: Any) -> Any:
    return click.option("--store", "store_url", callback=_checked_store_url,
                        help="Store URL (SQLAlchemy), e.g. postgresql://host/db; default: SQLite in the user's data "
                        "directory.")(function)


def _say(text: str) -> None:
    click.echo(text, err=True)


def _write(path: Path, text: str, what: str) -> None:
    from gpuready.files import write_text

    write_text(path, text)
    if not str(path).startswith("/dev/"):
        _say(f"wrote {what} to {path}")


def _rich_text(renderable: object) -> str:
    from gpuready.report import plain_text

    return renderable if isinstance(renderable, str) else plain_text(renderable)


def _show(result: Any, render: Callable[[Any], object], as_json: bool, output: Path | None, what: str) -> None:
    """A result that is not a Run (a plan, a comparison): JSON or text, to --output or the terminal."""
    import json

    from gpuready.model import to_dict

    document = json.dumps(to_dict(result), indent=2) + "\n" if as_json else None
    if output is not None:
        _write(output, document or _rich_text(render(result)), what)
    elif document is not None:
        click.echo(document, nl=False)
    else:
        _print_rich(render(_inert(result)))


def _print_rich(renderable: object) -> None:
    if isinstance(renderable, str):  # already rendered (Markdown): printed as is, never re-wrapped
        click.echo(renderable, nl=not renderable.endswith("\n"))
        return
    from gpuready.report.terminal import console

    console().print(renderable, crop=False)  # a no-wrap line (a command to paste) keeps its full length


def _inert(value: Any) -> Any:
    """Data made safe for a terminal: control characters from reports, file names and Runs made visible."""
    from gpuready.report.terminal import inert_copy

    return inert_copy(value)


@dataclasses.dataclass
class Finish:
    """What a command does with its Run: files, the terminal, the store, the exit code."""

    render: Callable[[Run], object]
    as_json: bool = False
    output: Path | None = None
    output_json: bool = False
    """-o always writes the Run as JSON (check, bench), else the same as the terminal."""
    strict: bool = False
    gate: bool = True
    """Whether the verdict sets the exit code (not for ``env``, which records facts)."""
    files: tuple[tuple[Path | None, Callable[[Run], str], str], ...] = ()
    """(path, renderer, what) of extra outputs: --junit, --sarif, --md ..."""

    def __call__(self, run: Run, store: dict[str, Any]) -> None:
        from gpuready.store import render_run

        run = dataclasses.replace(run, label=store.get("label") or run.label,
                                  tags=tuple(run.tags) + tuple(store.get("tags") or ()))
        if self.output is not None:
            _write(self.output, render_run(run) if self.as_json or self.output_json else _rich_text(self.render(run)),
                   "the Run" if self.as_json or self.output_json else "the report")
        for path, renderer, what in (*self.files, (store.get("prom"), _prometheus, "the Prometheus textfile")):
            if path is not None:
                _write(path, renderer(run), what)
        if self.output is None or self.output_json:  # else -o took what the terminal would have shown
            if self.as_json:
                click.echo(render_run(run), nl=False)
            else:
                _print_rich(self.render(_inert(run)))
        if not store.get("no_save"):
            from gpuready.api import save

            save(run, store.get("store_url"))
            _say(f"saved run {run.id[:12]} ({run.kind.value}) to {store.get('store_url') or 'the default store'}")
        failed = self.gate and run.outcome.failed(strict=self.strict)
        raise click.exceptions.Exit(int(ExitCode.FINDINGS if failed else ExitCode.OK))


def _prometheus(run: Run) -> str:
    from gpuready.report.prometheus import render_prometheus

    return render_prometheus(run)


def _data_option(function: Any) -> Any:
    return click.option("--data", "data_dir", type=DATA_DIR,
                        help="Use the compatibility data in DIR instead of the bundled set.")(function)


def _fingerprint_config(from_files: tuple[Path, ...], kind: str | None, no_redact: bool, no_frameworks: bool) -> Any:
    from gpuready.model.config import FingerprintConfig

    return FingerprintConfig(reports=tuple(from_files), report_kind=kind, frameworks=not no_frameworks,
                             redact=not no_redact)


def _render_env(run: Run) -> object:
    from rich.console import Group

    from gpuready.report.doctor_text import sections_text, verdict_line
    from gpuready.report.env_text import render_env

    assert run.fingerprint is not None
    read = sections_text(run.fingerprint)
    return Group(render_env(run.fingerprint), *([read] if read is not None else []), verdict_line(run.outcome))


def _render_doctor(run: Run) -> object:
    from gpuready.report.doctor_text import render_doctor

    return render_doctor(run)


def _render_triage(run: Run) -> object:
    from gpuready.report.triage import render_triage

    return render_triage(run)


def _source_options(function: Any) -> Any:
    for option in (click.option("--no-frameworks", is_flag=True, help="Do not start torch/jax child processes."),
                   click.option("--no-redact", is_flag=True, help="Show GPU UUIDs, serials and the hostname."),
                   click.option("--kind", type=click.Choice(REPORT_KINDS), help="What --from holds (detected when "
                                "omitted)."),
                   click.option("--from", "from_files", type=click.Path(path_type=Path, allow_dash=True),
                                multiple=True, help="Read a saved gpuready JSON, one tool's output, or a whole pasted "
                                "issue (Markdown, prompts, several outputs, tracebacks) instead of probing this "
                                "machine; repeat to merge several files; - reads standard input."),
                   click.option("-o", "--output", type=PATH, help="Write the result to FILE."),
                   click.option("--json", "as_json", is_flag=True, help="Print the Run as JSON (schema: "
                                "docs/schema/run.schema.json).")):
        function = option(function)
    return function


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="gpuready")
def cli() -> None:
    """Is this accelerator stack (ROCm, CUDA or CPU) ready for my model?"""


@cli.command()
@_source_options
@store_options
def env(as_json: bool, output: Path | None, from_files: tuple[Path, ...], kind: str | None, no_redact: bool,
        no_frameworks: bool, **store: Any) -> None:
    """Fingerprint the machine: GPUs, OS, drivers, ROCm/CUDA, frameworks, device access."""
    from gpuready import api

    run = api.fingerprint(_fingerprint_config(from_files, kind, no_redact, no_frameworks))
    Finish(_render_env, as_json, output, gate=False)(run, store)


@cli.command()
@_source_options
@_data_option
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too (READY WITH WARNINGS).")
@click.option("--md", "as_markdown", is_flag=True, help="Print a Markdown triage comment to post under an issue: "
              "what the paste shows, the verdict, the fixes, what to paste next.")
@store_options
def doctor(as_json: bool, output: Path | None, from_files: tuple[Path, ...], kind: str | None, data_dir: Path | None,
           strict: bool, as_markdown: bool, no_redact: bool, no_frameworks: bool, **store: Any) -> None:
    """Judge the stack: READY, READY WITH WARNINGS or NOT READY, each finding with its fix."""
    from gpuready import api
    from gpuready.model.config import DoctorConfig

    run = api.doctor(DoctorConfig(_fingerprint_config(from_files, kind, no_redact, no_frameworks), data_dir))
    Finish(_render_triage if as_markdown else _render_doctor, as_json, output, strict=strict)(run, store)


@cli.command()
@click.option("--gpu", required=True, help="Product name: 'Instinct MI300X', 'mi300x', '7900xtx', 'rtx 4090'.")
@click.option("--os", "os_text", help="Target OS, e.g. 'Ubuntu 24.04', 'RHEL 9.6', 'SLES 15 SP6'.")
@click.option("--framework", type=click.Choice(["torch", "jax"]), default="torch", show_default=True)
@click.option("--rocm", help="Only this ROCm release (AMD GPUs), e.g. 7.1.")
@_data_option
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@click.option("-o", "--output", type=PATH, help="Write the result to FILE.")
def plan(gpu: str, os_text: str | None, framework: str, rocm: str | None, data_dir: Path | None, as_json: bool,
         output: Path | None) -> None:
    """Before installing: supported releases and framework builds for a GPU (and OS), and what to install."""

    from gpuready import api
    from gpuready.model.config import PlanConfig
    from gpuready.report.plan_text import render_plan

    result = api.plan(PlanConfig(gpu, os_text, framework, rocm, data_dir))
    _show(result, render_plan, as_json, output, "the plan")


def _junit(run: Run) -> str:
    from gpuready.report.junit import render_junit

    return render_junit(run)


@cli.command()
@click.option("--suite", type=click.Choice(["quick", "full", "distributed"]), default="quick", show_default=True)
@click.option("--only", multiple=True, help="Only checks whose id matches this glob (repeatable), e.g. 'torch.ops.*'.")
@click.option("--device", default="auto", show_default=True, help="auto, cpu, cuda or cuda:N (ROCm GPUs are 'cuda').")
@click.option("--framework", type=click.Choice(["torch", "jax"]), help="Only this framework's checks.")
@click.option("--timeout", "timeout_s", type=float, help="Seconds per check (overrides each check's own limit).")
@click.option("--junit", type=PATH, help="Also write JUnit XML to FILE.")
@click.option("--json", "as_json", is_flag=True, help="Print the Run as JSON.")
@click.option("-o", "--output", type=PATH, help="Write the Run (JSON) to FILE.")
@click.option("--inline", is_flag=True, help="Run in this process (no isolation; for debugging).")
@click.option("--list", "list_only", is_flag=True, help="List the selected checks and exit.")
@store_options
def check(suite: str, only: tuple[str, ...], device: str, framework: str | None, timeout_s: float | None,
          junit: Path | None, as_json: bool, output: Path | None, inline: bool, list_only: bool, **store: Any) -> None:
    """Validate on the device: operators, training, mixed precision, checkpoints, compile, collectives."""
    from gpuready import api
    from gpuready.checks.driver import selected
    from gpuready.model.config import CheckConfig
    from gpuready.report.check_text import render_checks
    from gpuready.report.progress import ProgressLines

    config = CheckConfig(suite, only, framework, device, timeout_s, inline)
    specs = selected(config)
    if list_only:
        from gpuready.report.check_text import render_check_list

        _print_rich(render_check_list(specs))
        return
    _say(f"gpuready check: {len(specs)} check(s), suite {suite}, device {device}")
    run = api.check(config, progress=ProgressLines(len(specs)))
    Finish(render_checks, as_json, output, output_json=True, files=((junit, _junit, "JUnit XML"),))(run, store)


@cli.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the Run (findings with file:line) as JSON.")
@click.option("-o", "--output", type=PATH, help="Write the result to FILE.")
@click.option("--sarif", type=PATH, help="Also write SARIF 2.1.0 to FILE.")
@click.option("--fail-on", type=click.Choice(["blocker", "warning", "never"]), default="blocker", show_default=True,
              help="Exit 1 when the project verdict (core code and build; not tests, examples, CI or optional "
                   "features) is BLOCKED (blocker) or not PORTABLE (warning).")
@click.option("--kb", "kb_file", type=PATH, help="Use this packages knowledge base (YAML) instead of the bundled one.")
@click.option("--jobs", type=int, help="Parallel workers (default: all cores).")
@click.option("--no-cache", is_flag=True, help="Read every file again (no content cache).")
@store_options
def scan(path: Path, as_json: bool, output: Path | None, sarif: Path | None, fail_on: str, kb_file: Path | None,
         jobs: int | None, no_cache: bool, **store: Any) -> None:
    """Find CUDA-only dependencies and code in a project, with ROCm alternatives. Nothing is executed."""
    from gpuready import api
    from gpuready.model.config import ScanConfig
    from gpuready.report.sarif import render_sarif
    from gpuready.report.scan_text import render_scan

    run = api.scan(ScanConfig(path, kb_file, jobs, not no_cache))
    finish = Finish(render_scan, as_json, output, strict=fail_on == "warning",
                    files=((sarif, lambda r: render_sarif(r.findings), "SARIF"),))
    if fail_on == "never":
        run = dataclasses.replace(run, outcome=dataclasses.replace(run.outcome, verdict=run.outcome.verdict))
        finish.strict = False
    try:
        finish(run, store)
    except click.exceptions.Exit as done:
        raise click.exceptions.Exit(0 if fail_on == "never" else done.exit_code) from None


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
              help="jax: run a JAX step (the built-in or a JAX factory): where it runs, host transfers, callbacks, "
                   "recompilation.")
@click.option("--json", "as_json", is_flag=True, help="Print the Run (findings with file:line) as JSON.")
@click.option("-o", "--output", type=PATH, help="Write the result to FILE.")
@store_options
def audit(model: str, mode: str, steps: int, device: str, timeout_s: float, no_coverage: bool, framework: str,
          as_json: bool, output: Path | None, **store: Any) -> None:
    """Prove placement: ops on the CPU, mixed devices, host syncs and copies, float64 — at file:line."""
    from gpuready import api
    from gpuready.model.config import AuditConfig
    from gpuready.report.audit_text import render_audit

    config = AuditConfig(model, mode, steps, device, timeout_s, not no_coverage, framework)
    Finish(render_audit, as_json, output)(api.audit(config), store)


def _batch_sizes(text: str | None) -> tuple[int, ...]:
    sizes = []
    for part in (text or "").split(","):
        if part.strip():
            if not part.strip().isdigit():
                raise InputError(f"{text!r}: expected positive integers, e.g. 8,16,32", field="batch_sizes")
            sizes.append(int(part))
    return tuple(sizes)


def _render_bench(run: Run) -> object:
    from gpuready.report.bench_text import render_bench

    return render_bench(run)


@cli.command()
@click.argument("workload", default="transformer")
@click.option("--mode", type=click.Choice(["train", "infer"]), default="train", show_default=True)
@click.option("--precision", type=click.Choice(["fp32", "tf32", "bf16", "fp16", "amp"]), default="fp32",
              show_default=True)
@click.option("--batch-size", "batch_sizes", help="A batch size or a comma-separated sweep, e.g. 8,16,32 (a factory "
              "of yours must take a batch_size argument).")
@click.option("--size", type=click.Choice(["tiny", "small", "medium", "large"]), default="tiny", show_default=True,
              help="Built-in transformer preset (large is about 1B parameters).")
@click.option("--seq-len", "sequence", type=int, help="Sequence length (transformer and --hf workloads).")
@click.option("--steps", type=int, default=20, show_default=True)
@click.option("--warmup", type=int, default=5, show_default=True,
              help="At most this many warm-up steps (fewer once step times settle).")
@click.option("--framework", type=click.Choice(["torch", "jax"]), default="torch", show_default=True,
              help="jax: the built-in mlp or transformer (same sizes as torch's) or a JAX factory, always jitted.")
@click.option("--compile", "compile_model", is_flag=True, help="torch.compile the model.")
@click.option("--dataloader-workers", type=int, default=0, show_default=True)
@click.option("--find-max-batch", is_flag=True, help="Also find the largest batch that fits (doubling, bisection).")
@click.option("--hf", "hf_family", help="A Hugging Face architecture built from its config with random weights: "
              "llama, mistral, qwen2, gpt2 (needs transformers; nothing is downloaded).")
@click.option("--hf-size", type=click.Choice(["tiny", "small", "medium"]), default="tiny", show_default=True)
@click.option("--micro", default="", help="Micro-benchmarks: comma-separated gemm,copy,allreduce.")
@click.option("--target", "targets", multiple=True, help="e.g. 'tokens_per_s>=5000', 'p90_step_ms<=120'.")
@click.option("--device", default="auto", show_default=True)
@_data_option
@click.option("--json", "as_json", is_flag=True, help="Print the Run (measurements with samples) as JSON.")
@click.option("-o", "--output", type=PATH, help="Write the Run (JSON) to FILE.")
@store_options
def bench(workload: str, mode: str, precision: str, batch_sizes: str | None, size: str, sequence: int | None,
          steps: int, warmup: int, framework: str, compile_model: bool, dataloader_workers: int, find_max_batch: bool,
          hf_family: str | None, hf_size: str, micro: str, targets: tuple[str, ...], device: str,
          data_dir: Path | None, as_json: bool, output: Path | None, **store: Any) -> None:
    """Benchmark WORKLOAD (mlp, cnn, transformer, file.py:factory or module:factory) and the device's ceilings."""
    from gpuready import api
    from gpuready.model.config import BenchConfig
    from gpuready.report.progress import ProgressLines

    if hf_family:
        workload, size = f"hf:{hf_family}", hf_size
    config = BenchConfig(workload, mode, precision, _batch_sizes(batch_sizes), size, sequence, steps, warmup,
                         compile_model, dataloader_workers, find_max_batch,
                         micro=tuple(m.strip() for m in micro.split(",") if m.strip()), targets=targets, device=device,
                         framework=framework)
    phases = 1 + int(find_max_batch) + len(config.micro)
    run = api.bench(config, data=api.load_data(data_dir), progress=ProgressLines(phases, results=False))
    Finish(_render_bench, as_json, output, output_json=True)(run, store)


@cli.group()
def runs() -> None:
    """Stored Runs: list, show, export, import, delete."""


@runs.command("list")
@_store_option
@click.option("--kind", type=click.Choice(["env", "doctor", "plan", "check", "audit", "scan", "bench", "verify"]))
@click.option("--device", help="Device name contains this.")
@click.option("--host", help="Host (OS) contains this.")
@click.option("--since", help="Created at or after this ISO date, e.g. 2026-11-01.")
@click.option("--tag")
@click.option("--label")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def runs_list(store_url: str | None, kind: str | None, device: str | None, host: str | None, since: str | None,
              tag: str | None, label: str | None, limit: int, as_json: bool) -> None:
    """Stored runs, newest first."""
    import json

    from gpuready.report.runs_text import render_runs
    from gpuready.store import open_store

    rows = open_store(store_url).list(kind, device, host, since, tag, label, limit)
    if as_json:
        click.echo(json.dumps([dataclasses.asdict(r) for r in rows], indent=2))
    else:
        _print_rich(render_runs([_inert(row) for row in rows]))


@runs.command("show")
@_store_option
@click.argument("run_id")
def runs_show(store_url: str | None, run_id: str) -> None:
    """One stored Run as JSON."""
    from gpuready.store import open_store, render_run

    click.echo(render_run(open_store(store_url).get(run_id)), nl=False)


@runs.command("export")
@_store_option
@click.argument("run_id")
@click.option("-o", "--output", type=PATH, required=True)
def runs_export(store_url: str | None, run_id: str, output: Path) -> None:
    """Write a stored Run to a JSON file."""
    from gpuready.store import open_store, render_run

    _write(output, render_run(open_store(store_url).get(run_id)), "the Run")


@runs.command("import")
@_store_option
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the imported run ids as JSON.")
def runs_import(store_url: str | None, files: tuple[Path, ...], as_json: bool) -> None:
    """Store Runs saved as JSON (from another machine)."""
    import json

    from gpuready.store import open_store, read_run_file

    runs_read = [read_run_file(file) for file in files]  # every file is read before anything is stored
    with open_store(store_url) as store:
        ids = store.save_all(runs_read)
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
    """Delete stored Runs by their full ids."""
    import json

    from gpuready.store import open_store

    with open_store(store_url) as store:
        deleted = store.delete_exact(run_ids)
    click.echo(json.dumps(deleted) if as_json else f"deleted {len(deleted)} run(s)")


@cli.command()
@click.argument("run_ref")
@_store_option
@click.option("--html", "html_file", type=PATH, help="Self-contained HTML with plots (no scripts, no network).")
@click.option("--md", "md_file", type=PATH, help="Markdown for a PR or an issue.")
@click.option("--junit", type=PATH, help="JUnit XML of the checks.")
@click.option("--prom", type=PATH, help="Prometheus textfile (node-exporter's textfile collector).")
@click.option("--json", "as_json", is_flag=True, help="Print the Run as JSON instead of Markdown.")
def report(run_ref: str, store_url: str | None, html_file: Path | None, md_file: Path | None, junit: Path | None,
           prom: Path | None, as_json: bool) -> None:
    """Render a stored run (id or unique prefix) or a Run JSON file; Markdown on stdout without options."""
    from gpuready import api
    from gpuready.report.html import render_run_html
    from gpuready.report.markdown import render_run_markdown
    from gpuready.store import render_run

    [run] = api.load_runs(run_ref, store_url)[:1]
    outputs = ((html_file, render_run_html, "HTML"), (md_file, render_run_markdown, "Markdown"),
               (junit, _junit, "JUnit XML"), (prom, _prometheus, "the Prometheus textfile"))
    for path, renderer, what in outputs:
        if path is not None:
            _write(path, renderer(run), what)
    if as_json:
        click.echo(render_run(run), nl=False)
    elif not any(path for path, _, _ in outputs):
        click.echo(render_run_markdown(run), nl=False)


@cli.command()
@click.argument("sides", nargs=-1, required=True)
@_store_option
@click.option("--price", "prices", multiple=True,
              help="NAME=USD_PER_GPU_HOUR, NAME a side's label, run id or device name (repeatable).")
@click.option("--gpus-per-node", type=int, default=1, show_default=True)
@click.option("--utilisation", type=float, default=1.0, show_default=True,
              help="Share of wall time spent on the measured step.")
@click.option("--train-tokens", type=float, help="Size of a training run to price, in tokens (e.g. 2e9).")
@click.option("--noise", "noisy_spread", type=float, default=0.5, show_default=True,
              help="Step-time spread ((p90-p10)/median) above which a ratio is not stated.")
@click.option("--html", "html_file", type=PATH, help="Also write an HTML report.")
@click.option("--md", "md_file", type=PATH, help="Also write Markdown.")
@_data_option
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.option("-o", "--output", type=PATH, help="Write the result to FILE.")
def compare(sides: tuple[str, ...], store_url: str | None, prices: tuple[str, ...], gpus_per_node: int,
            utilisation: float, train_tokens: float | None, noisy_spread: float, html_file: Path | None,
            md_file: Path | None, data_dir: Path | None, as_json: bool, output: Path | None) -> None:
    """Compare runs of two or more machines: the first is the baseline.

    Each SIDE is a stored run id (a unique prefix is enough) or a Run JSON file; join a machine's bench,
    check and scan runs with '+', e.g. 'a1b2+c3d4'.
    """

    from gpuready import api
    from gpuready.comparison.cost import parse_prices
    from gpuready.model.config import CompareConfig
    from gpuready.report.compare_text import render_comparison
    from gpuready.report.html import render_comparison_html
    from gpuready.report.markdown import render_comparison_markdown

    if len(sides) < 2:
        raise InputError("compare needs at least two sides (a baseline and one other)", field="sides")
    config = CompareConfig(tuple(parse_prices(prices).items()), gpus_per_node, utilisation, train_tokens, noisy_spread)
    groups = [api.load_runs(side, store_url) for side in sides]
    comparison = api.compare(groups, config, data=api.load_data(data_dir))
    if html_file is not None:
        _write(html_file, render_comparison_html(comparison, _sides(groups)), "HTML")
    if md_file is not None:
        _write(md_file, render_comparison_markdown(comparison), "Markdown")
    _show(comparison, render_comparison, as_json, output, "the comparison")


def _sides(groups: list[list[Run]]) -> list[Any]:
    from gpuready.comparison.load import make_sides

    return make_sides(groups)


@cli.command()
@click.option("--checks", "check_suite", type=click.Choice(["quick", "full", "distributed"]),
              help="Run this check suite now and record its results as the baseline.")
@click.option("--bench", "benches", multiple=True, help="Benchmark this workload now (repeatable): a built-in "
              "(mlp, cnn, transformer) or path.py:function.")
@click.option("--bench-steps", type=int, default=30, show_default=True, help="Measured steps per benchmark.")
@click.option("--model", "models", multiple=True, help="A model verified on this stack (for the runtime guard).")
@click.option("--device", default="auto", show_default=True)
@click.option("--threshold", type=float, default=0.05, show_default=True,
              help="Slowdown that counts as a regression (beyond the measured noise).")
@click.option("--strict-packages", is_flag=True, help="Count changes to any Python package as drift.")
@click.option("--container-image", default="", help="The container image these results were obtained in; "
              "NAME@sha256:... pins it. Default: $GPUREADY_CONTAINER_IMAGE, else what the container tells (podman "
              "--privileged only).")
@click.option("--requirements", type=PATH, help="Also write a pinned requirements file for this framework build.")
@click.option("-o", "--output", type=PATH, default=Path("gpuready.lock"), show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Also print the lock document on stdout.")
def lock(check_suite: str | None, benches: tuple[str, ...], bench_steps: int, models: tuple[str, ...], device: str,
         threshold: float, strict_packages: bool, container_image: str, requirements: Path | None,
         output: Path, as_json: bool) -> None:
    """Pin the tested environment: fingerprint, every installed package, check and benchmark baselines."""
    from gpuready import api
    from gpuready.model.config import LockConfig
    from gpuready.pinning.lockfile import pinned_requirements, render_lock

    config = LockConfig(check_suite, benches, bench_steps, models, device, threshold, strict_packages,
                        container_image)
    result = api.lock(config, say=_say)
    _write(output, render_lock(result), f"the lock ({len(result.distributions)} packages, {len(result.checks)} "
                                        f"checks, {len(result.benches)} benchmark(s), models: "
                                        f"{', '.join(models) or 'none'})")
    if requirements is not None:
        _write(requirements, pinned_requirements(result), "the pinned requirements")
    if as_json:
        click.echo(render_lock(result), nl=False)


def _render_verify(run: Run) -> object:
    from gpuready.report.verify_text import render_verify

    return render_verify(run)


@cli.command()
@click.argument("lock_file", type=PATH, default=Path("gpuready.lock"))
@click.option("--no-rerun", is_flag=True, help="Only compare the environment; do not re-run checks or benchmarks.")
@click.option("--device", help="Device for the re-runs (default: the one in the lock).")
@click.option("--json", "as_json", is_flag=True, help="Print the verification Run as JSON.")
@store_options
def verify(lock_file: Path, no_rerun: bool, device: str | None, as_json: bool, **store: Any) -> None:
    """Re-verify after an upgrade: what drifted, what regressed, the likely cause. Exit 1 on drift or regression."""
    from gpuready import api
    from gpuready.model.config import VerifyConfig

    run = api.verify(VerifyConfig(lock_file, not no_rerun, device), say=_say)
    Finish(_render_verify, as_json)(run, store)


@cli.command("diff")
@click.argument("run_a")
@click.argument("run_b")
@_store_option
@click.option("--all", "show_all", is_flag=True, help="Also list non-framework Python packages.")
@click.option("--json", "as_json", is_flag=True)
def diff_runs(run_a: str, run_b: str, store_url: str | None, show_all: bool, as_json: bool) -> None:
    """Environment differences between two Runs (ids or JSON files), classified; exit 1 when relevant ones exist."""
    import json

    from gpuready import api
    from gpuready.model import to_dict
    from gpuready.pinning import classify_changes

    fingerprints = [api.load_runs(ref, store_url)[0].fingerprint for ref in (run_a, run_b)]
    if fingerprints[0] is None or fingerprints[1] is None:
        raise InputError("both runs need a fingerprint to diff", source=run_a if fingerprints[0] is None else run_b)
    changes = classify_changes(fingerprints[0], fingerprints[1])
    shown = [c for c in changes if show_all or c.relevant]
    if as_json:
        click.echo(json.dumps([{**to_dict(c), "relevant": c.relevant} for c in shown], indent=2))
    else:
        from gpuready.report.runs_text import render_changes

        _print_rich(render_changes([_inert(change) for change in shown], len(changes) - len(shown)))
    raise click.exceptions.Exit(int(ExitCode.FINDINGS if any(c.relevant for c in changes) else ExitCode.OK))


@cli.group()
def data() -> None:
    """The compatibility data gpuready judges with."""


@data.command("validate")
@click.argument("directory", required=False, type=DATA_DIR)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def data_validate(directory: Path | None, as_json: bool) -> None:
    """Check a data set (the bundled one by default): every file, key and value."""
    import datetime
    import json

    from gpuready import api
    from gpuready.compat.load import data_summary

    summary = data_summary(api.load_data(directory), datetime.date.today())
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    click.echo(f"ok: {summary['directory']}")
    click.echo(f"  as of {summary['as_of']} ({summary['age_days']} days old{'; STALE' if summary['stale'] else ''})")
    click.echo(f"  {summary['gpus']} GPUs, {summary['rocm_releases']} ROCm releases, {summary['torch_releases']} "
               f"PyTorch releases, {summary['cuda_toolkits']} CUDA toolkits, {summary['jax_rocm_pairings']} JAX ROCm "
               f"pairings, {summary['links']} link types, {summary['container_images']} container images")


@data.command("update")
@click.option("--out", type=DATA_DIR, help="Write the new data set here (a new or empty directory).")
@click.option("--data", "data_dir", type=DATA_DIR, help="Compare with this data set instead of the installed one.")
@click.option("--sources", type=DATA_DIR, help="Read recorded copies of the sources (*.source.yaml) instead of the "
              "network.")
def data_update(out: Path | None, data_dir: Path | None, sources: Path | None) -> None:
    """Read AMD's, PyTorch's and PyPI's sources and write a new data set with a diff; the installed one is kept."""
    from gpuready import api
    from gpuready.model.config import DataUpdateConfig

    found, written = api.update_data(DataUpdateConfig(out, data_dir, sources))
    counts = {s: sum(1 for c in found.changes if c.status == s) for s in ("added", "changed", "removed")}
    click.echo(f"wrote {written} ({', '.join(f'{n} {s}' for s, n in counts.items())}; see {written / 'DIFF.md'})")
    for failure in found.failed:
        _say(f"could not read: {failure}")
    click.echo(f"use it with --data {written} or GPUREADY_DATA={written}")


@cli.group()
def fleet() -> None:
    """Many nodes: run gpuready on each through Slurm, Ray, Kubernetes or torchrun, and find the bad nodes."""


# ---- fleet node / report / baseline ---------------------------------------------------------------------------
def _node_job(suite: str, only: tuple[str, ...], workloads: tuple[str, ...], micro: str, bench_steps: int, device: str,
              lock_file: Path | None, timeout_s: float | None) -> Any:
    from gpuready.fleet.config import NodeJob

    return NodeJob(check_suite=None if suite == "none" else suite, only=only, workloads=workloads,
                   micro=tuple(m.strip() for m in micro.split(",") if m.strip() and m.strip() != "none"),
                   bench_steps=bench_steps, device=device, lock_file=lock_file, timeout_s=timeout_s)


def node_job_options(function: Any) -> Any:
    """What each node runs: the options ``fleet node`` and ``fleet run`` share."""
    for option in (click.option("--timeout", "timeout_s", type=float, help="Seconds per check (overrides each "
                                                                            "check's own limit)."),
                   click.option("--lock", "lock_file", type=PATH, help="Also verify this lock on every node."),
                   click.option("--device", default="auto", show_default=True, help="auto, cpu, cuda or cuda:N."),
                   click.option("--bench-steps", type=int, default=20, show_default=True,
                                help="Measured steps per benchmark workload."),
                   click.option("--micro", default="gemm", show_default=True,
                                help="Micro-ceilings per node: comma-separated gemm,copy,allreduce, or none."),
                   click.option("--workload", "workloads", multiple=True,
                                help="Benchmark this built-in workload on every node (repeatable)."),
                   click.option("--only", multiple=True, help="Only the suite's checks matching this glob "
                                "(repeatable)."),
                   click.option("--suite", type=click.Choice(["quick", "full", "distributed", "none"]),
                                default="quick", show_default=True, help="The check suite every node runs.")):
        function = option(function)
    return function


@fleet.command("node")
@node_job_options
@click.option("--fleet-run", "fleet_id", required=True, help="The fleet run this node's Runs belong to.")
@click.option("--node", "node", help="This node's name (default: Slurm's node name, NODE_NAME, or the host name).")
@click.option("--job-id", help="The engine's job id (default: read from Slurm's or Kubernetes' environment).")
@click.option("--engine", default="", help="The engine that started this job (slurm, ray, kubernetes, torchrun).")
@click.option("--out", "folder", type=click.Path(path_type=Path, file_okay=False),
              help="Write each Run to FOLDER/<fleet run>/<node>/ (a shared folder, or one collected afterwards).")
@_store_option
def fleet_node(suite: str, only: tuple[str, ...], workloads: tuple[str, ...], micro: str, bench_steps: int, device: str,
               lock_file: Path | None, timeout_s: float | None, fleet_id: str, node: str | None,
               job_id: str | None, engine: str, folder: Path | None, store_url: str | None) -> None:
    """Run the fleet's job on this node (engines start this on every node) and write the tagged Runs."""
    from gpuready.fleet.config import Destination
    from gpuready.fleet.node import run_node
    from gpuready.fleet.tags import Placement, node_name
    from gpuready.fleet.tags import job_id as engine_job_id

    job = _node_job(suite, only, workloads, micro, bench_steps, device, lock_file, timeout_s)
    placement = Placement(fleet_id, node or node_name(), job_id if job_id is not None else engine_job_id(), engine)
    runs = run_node(job, placement, Destination(store_url, folder), say=lambda step: _say(f"[{placement.node}] {step}"))
    for run in runs:
        _say(f"[{placement.node}] {run.kind.value}: {run.outcome.verdict.value} (run {run.id[:12]})")
    failed = any(run.outcome.failed(strict=False) for run in runs)
    raise click.exceptions.Exit(int(ExitCode.FINDINGS if failed else ExitCode.OK))


def _fleet_source(function: Any) -> Any:
    for option in (click.option("--out", "folder", type=click.Path(path_type=Path, file_okay=False),
                                help="Read the Runs the nodes wrote under FOLDER/<fleet run>/."),
                   _store_option,
                   click.argument("fleet_id", metavar="FLEET_RUN")):
        function = option(function)
    return function


def _report_config(mad: float, min_relative: float, baseline: Path | None, ignore: tuple[str, ...]) -> Any:
    from gpuready.fleet.config import ReportConfig

    return ReportConfig(mad_threshold=mad, min_relative=min_relative, baseline=baseline, ignore_fields=ignore)


def _report_options(function: Any) -> Any:
    for option in (click.option("--ignore-field", "ignore", multiple=True, help="A fingerprint field (or prefix, "
                                "e.g. packages) that may differ without making a node defective (repeatable)."),
                   click.option("--min-relative", type=float, default=0.05, show_default=True,
                                help="An outlier is also at least this fraction away from the fleet median."),
                   click.option("--mad", type=float, default=4.0, show_default=True,
                                help="Outlier threshold in robust deviations (1.4826 x MAD) from the fleet median.")):
        function = option(function)
    return function


@fleet.command("report")
@_fleet_source
@_report_options
@click.option("--baseline", type=PATH, help="Also judge every node against this baseline file (fleet baseline).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--md", "as_markdown", is_flag=True, help="Print the report as Markdown.")
@click.option("--html", "html_file", type=PATH, help="Also write a self-contained HTML report with a heatmap.")
@click.option("--textfile-dir", type=click.Path(path_type=Path, file_okay=False),
              help="Also write a Prometheus textfile per node (<node>.prom) for node-exporter.")
@click.option("-o", "--output", type=PATH, help="Write the report to FILE instead of the terminal.")
def fleet_report(fleet_id: str, folder: Path | None, store_url: str | None, mad: float, min_relative: float,
                 ignore: tuple[str, ...], baseline: Path | None, as_json: bool, as_markdown: bool,
                 html_file: Path | None, textfile_dir: Path | None, output: Path | None) -> None:
    """Per-node table, fields that differ, failing checks, outliers and the defective nodes; exit 1 when any."""
    from gpuready.fleet import render
    from gpuready.fleet.report import fleet_report

    report = fleet_report(fleet_id, store_url=store_url, folder=folder,
                              config=_report_config(mad, min_relative, baseline, ignore))
    if html_file is not None:
        _write(html_file, render.render_html(report), "the HTML report")
    if textfile_dir is not None:
        from gpuready.files import write_text

        try:
            textfile_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"cannot make the folder ({error.strerror or error})", source=str(textfile_dir)) from None
        for node, textfile in render.node_textfiles(report).items():
            write_text(textfile_dir / f"{node.replace('/', '_')}.prom", textfile)
        _say(f"wrote {len(report.nodes)} Prometheus textfiles to {textfile_dir}")
    if as_json:
        text: object = render.render_json(report)
    elif as_markdown:
        text = render.render_markdown(report)
    else:
        text = render.render_text(report if output is not None else _inert(report))
    if output is not None:
        _write(output, _rich_text(text), "the report")
    else:
        _print_rich(text)
    raise click.exceptions.Exit(int(ExitCode.OK if report.healthy else ExitCode.FINDINGS))


@fleet.command("baseline")
@_fleet_source
@_report_options
@click.option("--threshold", type=float, default=0.1, show_default=True,
              help="How much worse than the baseline a node's metric may be (a fraction).")
@click.option("-o", "--output", type=PATH, required=True, help="Write the baseline (YAML) to FILE.")
@click.option("--force", is_flag=True, help="Write it even though the fleet run has defective nodes.")
def fleet_baseline(fleet_id: str, folder: Path | None, store_url: str | None, mad: float, min_relative: float,
                   ignore: tuple[str, ...], threshold: float, output: Path, force: bool) -> None:
    """Write a baseline from a healthy fleet run: metric medians, checks that passed everywhere, shared fields."""
    from gpuready.fleet.baseline import dump_baseline, make_baseline
    from gpuready.fleet.report import fleet_report

    report = fleet_report(fleet_id, store_url=store_url, folder=folder,
                              config=_report_config(mad, min_relative, None, ignore))
    if not report.healthy and not force:
        raise InputError(f"fleet run {fleet_id} has {len(report.defective)} defective nodes: a baseline is made "
                         "from a healthy fleet (see 'gpuready fleet report'; --force writes it anyway)",
                         field="fleet")
    baseline = make_baseline(report, threshold)
    _write(output, dump_baseline(baseline), "the baseline")
    _say(f"{len(baseline.metrics)} metric rules, {len(baseline.checks)} checks, {len(baseline.fields)} fields")


def _inert_text(text: str) -> str:
    from gpuready.report.terminal import inert

    return " ".join(inert(text).splitlines())


# ---- fleet run: dispatch through an engine (gpuready.fleet.engines; after fleet node, whose options it shares) ---
FIELD_OPTIONS.update({  # the engines' configuration fields, as fleet run's options name them
    "nodes": "--nodes", "partition": "--partition", "account": "--account", "time_min": "--time",
    "gpus_per_node": "--gpus-per-node", "cpus_per_task": "--cpus-per-task", "container_image": "--container-image",
    "container_mounts": "--container-mount", "node_timeout_s": "--node-timeout", "address": "--address",
    "gpus_per_task": "--gpus-per-node", "image": "--image", "vendor": "--vendor", "namespace": "--namespace",
    "name": "--name", "node_selector": "--node-selector", "tolerations": "--toleration",
    "store_secret": "--store-secret", "volume": "--volume", "claim": "--claim", "endpoint": "--endpoint",
    "node_names": "--node-name", "nproc_per_node": "--nproc-per-node", "fleet_run": "--fleet-run",
    "write": "--write", "destination": "--out/--store", "engine": "--engine", "kind": "--daemonset",
    "job_name": "--job-name", "python": "--python", "log_folder": "--log-folder"})


def fleet_run_options(function: Any) -> Any:
    """Where the nodes are and how the engine reaches them: fleet run's own options."""
    text: dict[str, Any] = {"type": str, "default": None}
    options: list[tuple[str, dict[str, Any]]] = [
        ("--engine", {"type": click.Choice(["slurm", "ray", "kubernetes", "torchrun"]), "required": True,
                      "help": "slurm (submitit or --sbatch-only), ray, kubernetes (a manifest, or --apply), torchrun "
                              "(the collectives across nodes: a per-node script)."}),
        ("--fleet-run", {"default": None, "help": "The fleet run id (default: a new one)."}),
        ("--out", {"type": DATA_DIR, "help": "Each node writes its Runs to OUT/<fleet run>/<node>/ (shared, or "
                                             "collected afterwards)."}),
        ("--write", {"type": PATH, "help": "Write the sbatch script, manifest or torchrun script here."}),
        ("--nodes", {"type": int, "help": "Nodes (slurm, kubernetes Job, torchrun)."}),
        ("--gpus-per-node", {"type": int, "help": "GPUs each node's job asks for."}),
        ("--cpus-per-task", {"type": float, "help": "CPUs per node's task (slurm, ray)."}),
        ("--node-timeout", {"type": float, "help": "Seconds a node's job may run (slurm, ray)."}),
        ("--partition", text), ("--account", text), ("--time", {"type": int, "help": "Slurm time limit (minutes)."}),
        ("--container-image", {"help": "Slurm: run each task in this image (pyxis)."}),
        ("--container-mount", {"multiple": True, "help": "Slurm: SRC:DST for the container (repeatable)."}),
        ("--array", {"is_flag": True, "help": "Slurm: a job array of exclusive one-node jobs."}),
        ("--sbatch-only", {"is_flag": True, "help": "Slurm: write the sbatch script (--write) and submit nothing."}),
        ("--log-folder", {"type": DATA_DIR, "help": "Slurm: submitit's and the script's log folder."}),
        ("--address", {"help": "Ray: the cluster's address (default: auto)."}),
        ("--image", {"help": "Kubernetes: the container image with gpuready."}),
        ("--vendor", {"type": click.Choice(["amd", "nvidia", "none"]), "help": "Kubernetes: amd.com/gpu or "
                                                                              "nvidia.com/gpu (default amd)."}),
        ("--namespace", text), ("--name", text),
        ("--daemonset", {"is_flag": True, "help": "Kubernetes: a DaemonSet (every matching node)."}),
        ("--node-selector", {"multiple": True, "help": "Kubernetes: KEY=VALUE (repeatable)."}),
        ("--toleration", {"multiple": True, "help": "Kubernetes: key[=value][:Effect] (repeatable)."}),
        ("--store-secret", {"help": "Kubernetes: SECRET/KEY holding the store URL."}),
        ("--volume", {"type": click.Choice(["hostpath", "pvc", "emptydir"]), "help": "Kubernetes: what --out is."}),
        ("--claim", {"help": "Kubernetes: the PersistentVolumeClaim for --volume pvc."}),
        ("--apply", {"is_flag": True, "help": "Kubernetes: create it with the kubeconfig instead of writing it."}),
        ("--endpoint", {"help": "torchrun: HOST:PORT of the c10d rendezvous."}),
        ("--node-name", {"multiple": True, "help": "torchrun: the nodes' names in node-rank order (repeatable)."}),
        ("--nproc-per-node", {"type": int, "help": "torchrun: ranks per node (default 1)."}),
        ("--python", {"help": "The interpreter on the nodes (default python3)."})]
    for name, settings in reversed(options):
        function = click.option(name, **settings)(function)
    return _store_option(function)


_RENAMED = {"time": "time_min", "container_mount": "container_mounts", "node_timeout": "node_timeout_s",
            "toleration": "tolerations", "node_name": "node_names"}


@fleet.command("run")
@node_job_options
@fleet_run_options
def fleet_run(suite: str, only: tuple[str, ...], workloads: tuple[str, ...], micro: str, bench_steps: int,
              device: str, lock_file: Path | None, timeout_s: float | None, **options: Any) -> None:
    """Start the node job on every node through an engine, or write what to submit; then name the report."""
    from gpuready.fleet.config import Destination
    from gpuready.fleet.engines.kubernetes import SECRET_STORE
    from gpuready.fleet.engines.launch import engine_config, report_hint, start
    from gpuready.fleet.tags import check_value, new_fleet_id

    engine, store_url, folder = options["engine"], options.pop("store_url"), options.pop("out")
    fleet_id = check_value("fleet_run", options.pop("fleet_run") or new_fleet_id())
    if engine == "kubernetes" and options["store_secret"] and not store_url:
        store_url = SECRET_STORE
    job = _node_job(suite, only, workloads, micro, bench_steps, device, lock_file, timeout_s)
    config = engine_config(engine, {_RENAMED.get(k, k): v for k, v in options.items()})
    destination = Destination(store_url, folder)
    done = start(engine, job, fleet_id, config, destination, write=options["write"], apply=options["apply"],
                 sbatch_only=options["sbatch_only"], say=_say)
    for path in done.written:
        _say(f"wrote {path}")
    for answer in done.answers:
        _say(f"[{answer.node}] " + ("timed out" if answer.timed_out else f"exit {answer.returncode}"))
    if done.submitted:
        _say(f"submitted Slurm job {', '.join(done.submitted)}")
    click.echo(f"fleet run {fleet_id}")
    click.echo(f"report: {report_hint(destination, fleet_id)}".replace(SECRET_STORE, "URL"))


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (``ExitCode``)."""
    from gpuready.isolation.signals import terminate_like_interrupt

    terminate_like_interrupt()
    try:
        returned = cli.main(args=argv, prog_name="gpuready", standalone_mode=False)
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.ClickException as error:  # one line, as every bad input: the command, then what was wrong
        context = getattr(error, "ctx", None)
        where = f"{context.command_path}: " if context is not None else ""
        click.echo(f"gpuready: error: {where}{_inert_text(error.format_message())} (see --help)", err=True)
        return int(ExitCode.USAGE)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("gpuready: interrupted", err=True)
        return 130
    except InputError as error:
        click.echo(f"gpuready: error: {_inert_text(_option_error(error))}", err=True)
        return int(error.exit_code)
    except GpureadyError as error:
        click.echo(f"gpuready: error: {_inert_text(str(error))}", err=True)
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
