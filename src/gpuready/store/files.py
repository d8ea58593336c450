"""Runs as JSON files: read (size-capped, nesting-limited, older schemas migrated) and written atomically."""

from __future__ import annotations

import json
from pathlib import Path

from gpuready.files import read_json, write_text
from gpuready.model import Run

MAX_RUN_BYTES = 256 * 2**20
"""A Run with every sample of a long benchmark is a few MiB; far larger is not a Run."""


def read_run_file(path: Path | str) -> Run:
    """A Run saved as JSON; InputError naming the file (and the field) otherwise."""
    return Run.from_dict(read_json(path, MAX_RUN_BYTES, "Run file"), source=str(path))


def render_run(run: Run) -> str:
    """The Run as indented JSON with a trailing newline (what every gpuready command reads back)."""
    return json.dumps(run.to_dict(), indent=2) + "\n"


def write_run_file(path: Path | str, run: Run) -> None:
    """Write a Run as JSON, whole or not at all."""
    write_text(path, render_run(run))
