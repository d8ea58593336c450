"""Sides from the command line: run ids (any unique prefix) or Run JSON files, joined with '+'."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from gpuready.compare.model import Side
from gpuready.errors import InputError
from gpuready.model import Run, RunKind
from gpuready.store import RunStore


def read_run_file(path: Path) -> Run:
    """A Run saved as JSON; a clear error naming the file otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"not a JSON Run: {error}", source=str(path)) from error
    return Run.from_dict(data, source=str(path))


def _name(runs: Sequence[Run]) -> str:
    for run in runs:
        if run.label:
            return run.label
    side = Side("", tuple(runs))
    bench = next((run for run in runs if run.kind is RunKind.BENCH), runs[0])
    return f"{side.device} ({bench.id[:8]})"


def load_sides(specs: Sequence[str], store: Callable[[], RunStore]) -> list[Side]:
    """One Side per spec; ``a+b`` joins several Runs (a bench, a check and a scan of one machine).

    ``store`` is called (and the database opened) only when a spec names a stored run.
    """
    sides = []
    for spec in specs:
        runs = []
        for part in filter(None, spec.split("+")):
            path = Path(part)
            if path.suffix == ".json" or path.is_file():
                runs.append(read_run_file(path))
            else:
                runs.append(store().get(part))
        if not runs:
            raise InputError(f"empty side {spec!r}")
        sides.append(Side(_name(runs), tuple(runs)))
    names = [side.name for side in sides]
    return [Side(f"{side.name} #{index + 1}", side.runs) if names.count(side.name) > 1 else side
            for index, side in enumerate(sides)]
