"""Pure renderers: ``render_<format>(run) -> str`` or rich renderables. Nothing here probes or judges."""

from __future__ import annotations

import io
from typing import Any


def plain_text(renderable: Any, width: int = 100) -> str:
    """A rich renderable as plain text (no colour, fixed width), for files and pipes."""
    from rich.console import Console

    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(renderable, crop=False)  # a no-wrap line (a command to paste) keeps its full length
    text: str = console.file.getvalue()  # type: ignore[attr-defined]
    return text
