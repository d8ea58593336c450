"""Sides of a comparison: each is one machine's Runs, named after its label or device."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from gpuready.comparison.model import Side
from gpuready.errors import InputError
from gpuready.model import Run, RunKind
from gpuready.store import RunStore, read_run_file


def _name(runs: Sequence[Run]) -> str:
    for run in runs:
        if run.label:
            return run.label
    side = Side("", tuple(runs))
    bench = next((run for run in runs if run.kind is RunKind.BENCH), runs[0])
    return f"{side.device} ({bench.id[:8]})"


def make_sides(groups: Sequence[Sequence[Run]]) -> list[Side]:
    """One Side per group of Runs; sides that would share a name are numbered."""
    sides = []
    for runs in groups:
        if not runs:
            raise InputError("a side has no Run", field="sides")
        sides.append(Side(_name(runs), tuple(runs)))
    names = [side.name for side in sides]
    return [Side(f"{side.name} #{index + 1}", side.runs) if names.count(side.name) > 1 else side
            for index, side in enumerate(sides)]


def runs_of(spec: str, store: Callable[[], RunStore]) -> list[Run]:
    """The Runs ``a+b`` names: Run JSON files, or stored run ids (``store`` is opened only when one is needed)."""
    runs = []
    for part in filter(None, spec.split("+")):
        path = Path(part)
        if path.suffix == ".json" or path.is_file():
            runs.append(read_run_file(path))
        else:
            runs.append(store().get(part))
    if not runs:
        raise InputError(f"empty side {spec!r}", field="sides")
    return runs


def load_sides(specs: Sequence[str], store: Callable[[], RunStore]) -> list[Side]:
    """One Side per spec; ``a+b`` joins several Runs (a bench, a check and a scan of one machine)."""
    return make_sides([runs_of(spec, store) for spec in specs])
