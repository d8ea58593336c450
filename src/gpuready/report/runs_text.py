"""Terminal tables of stored runs (``runs list``) and of environment differences (``diff``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text


def render_runs(rows: Sequence[Any]) -> RenderableType:
    """One row per stored run, newest first, with a header."""
    if not rows:
        return Text("no stored runs match", style="dim")
    table = Table(box=None, pad_edge=False)
    for column in ("id", "created (UTC)", "kind", "device", "label", "tags"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row.id[:12], row.created_at.replace("+00:00", "").replace("T", " "), row.kind, row.device,
                      row.label, ", ".join(row.tags))
    return table


def render_changes(changes: Sequence[Any], hidden: int) -> RenderableType:
    """What differs between two fingerprints, by kind."""
    table = Table(box=None, pad_edge=False)
    for column in ("kind", "field", "before", "after"):
        table.add_column(column, overflow="fold")
    for change in changes:
        table.add_row(change.kind.value, change.field, change.before or "-", change.after or "-")
    note = f"{len(changes)} difference(s)" + (f"; {hidden} other package change(s) (--all)" if hidden else "")
    return Group(table, Text(note, style="dim")) if changes else Text(note, style="dim")
