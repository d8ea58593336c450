"""JSON rendering of a Run (the format every other gpuready command can read back)."""

from __future__ import annotations

import json

from gpuready.model import Run


def render_json(run: Run) -> str:
    """The Run as indented JSON with a trailing newline."""
    return json.dumps(run.to_dict(), indent=2) + "\n"
