"""Command line: parse arguments, call one library function, render, return an exit code.

Only this module calls ``sys.exit``. Nothing heavy (rich, torch, jax) is imported until a command runs.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from gpuready import __version__
from gpuready.errors import ExitCode, GpureadyError, UsageError

REPORT_KINDS = ("run", "collect-env", "rocminfo", "amd-smi-static", "amd-smi-list", "amd-smi-version", "rocm-smi",
                "nvidia-smi-csv", "kfd-properties")


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
def env(as_json: bool, output: Path | None, from_file: Path | None, kind: str | None, no_redact: bool,
        no_frameworks: bool) -> None:
    """Fingerprint the machine: GPUs, OS, drivers, ROCm/CUDA, frameworks, device access."""
    from gpuready.model import Run, RunKind
    from gpuready.probe import collect_fingerprint, redact

    if kind and not from_file:
        raise click.UsageError("--kind only applies with --from")
    if from_file is not None:
        from gpuready.probe.reports import ReportKind, read_fingerprint

        _, fingerprint = read_fingerprint(from_file, ReportKind(kind) if kind else None)
        if not no_redact:
            fingerprint = redact(fingerprint)
    else:
        fingerprint = collect_fingerprint(frameworks=not no_frameworks, redact_identifiers=not no_redact)
    run = Run(kind=RunKind.ENV, tool_version=__version__, fingerprint=fingerprint)
    if as_json:
        from gpuready.report.json_report import render_json

        text = render_json(run)
    elif output is not None:
        from gpuready.report.env_text import render_env_text

        text = render_env_text(fingerprint)
    else:
        from rich.console import Console

        from gpuready.report.env_text import render_env

        Console().print(render_env(fingerprint))
        return
    if output is not None:
        write_output(output, text)
    else:
        click.echo(text, nl=False)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (``ExitCode``)."""
    try:
        cli.main(args=argv, prog_name="gpuready", standalone_mode=False)
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
    return int(ExitCode.OK)


if __name__ == "__main__":
    sys.exit(main())
