"""What the per-file analysers report: raw hits, before the knowledge base turns them into findings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Hit:
    """Something found at a line: a rule id (``python.version_cuda``), an import (``import``), or a requirement."""

    rule: str
    line: int
    detail: str = ""
    """The module imported, the requirement line, or the matched text."""
    optional: bool = False
    """Guarded by try/except ImportError or a feature flag: the project runs without it."""
