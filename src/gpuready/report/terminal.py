"""The terminal: a rich console on stdout whose markup and control characters in data are never interpreted."""

from __future__ import annotations

from typing import Any


def console() -> Any:
    """A rich Console for stdout (colour on a terminal, plain in a pipe)."""
    from rich.console import Console

    return Console(highlight=False)
