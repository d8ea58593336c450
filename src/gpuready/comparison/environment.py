"""The fingerprints of the sides, flattened into rows a person can scan for what differs (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuready.model.fields import flatten

if TYPE_CHECKING:
    from gpuready.comparison.model import Side


def environment_rows(sides: Sequence[Side]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(field, value on each side) for every field known on at least one side."""
    flat = []
    for side in sides:
        merged: dict[str, str] = {}
        for run in side.runs:
            merged.update({k: v for k, v in flatten(run.fingerprint).items() if v})
        flat.append(merged)
    names: list[str] = []
    for values in flat:
        names.extend(name for name in values if name not in names)
    return tuple((name, tuple(values.get(name, "") for values in flat)) for name in names)
