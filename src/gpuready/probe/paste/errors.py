"""Known error messages in a paste (``hipErrorNoBinaryForGpu``, ``no kernel image is available``, ...): each line
that shows one becomes an ``ErrorSeen``, the evidence doctor judges when an error is all a user posted."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources

from gpuready.files import loads_yaml
from gpuready.model import ErrorSeen


@dataclass(frozen=True)
class ErrorPattern:
    """One known error and the line patterns that show it."""

    code: str
    patterns: tuple[re.Pattern[str], ...]
    detail: re.Pattern[str] | None = None


@functools.cache
def error_patterns() -> tuple[ErrorPattern, ...]:
    """The bundled patterns (``probe/paste/data/error_patterns.yaml``), read once."""
    text = resources.files("gpuready.probe.paste").joinpath("data/error_patterns.yaml").read_text(encoding="utf-8")
    data = loads_yaml(text, "error_patterns.yaml")
    return tuple(ErrorPattern(entry["code"], tuple(re.compile(p, re.IGNORECASE) for p in entry["patterns"]),
                              re.compile(entry["detail"], re.IGNORECASE) if entry.get("detail") else None)
                 for entry in data["errors"])


_HINT = re.compile(r"error|fail|denied|fault|not |no |unable|cannot|insufficient|invalid|hang|timeout|unsupported|"
                   r"fall|cpu|segment|reset|killed|exception|sigsegv|true|false", re.IGNORECASE)
"""A line without any of these words is no error line: the patterns are not tried on it."""


def errors_in(lines: tuple[str, ...] | list[str], first_line: int, section: str) -> Iterator[ErrorSeen]:
    """Every known error shown in ``lines``, once per code and line."""
    patterns = error_patterns()
    for offset, line in enumerate(lines):
        if len(line) > 4000 or not _HINT.search(line):
            continue
        for known in patterns:
            if any(p.search(line) for p in known.patterns):
                detail = known.detail.search(line) if known.detail else None
                yield ErrorSeen(known.code, line.strip()[:300], f"line {first_line + offset}, {section}",
                                detail.group(1) if detail else "", line=first_line + offset)
