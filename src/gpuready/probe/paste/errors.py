"""Known error messages in a paste (``hipErrorNoBinaryForGpu``, ``no kernel image is available``, ...): each line
that shows one becomes an ``ErrorSeen``, the evidence doctor judges when an error is all a user posted."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources

from gpuready.files import loads_yaml
from gpuready.model import ErrorSeen
from gpuready.probe.paste.prefilter import lines_with_any, required_word


@dataclass(frozen=True)
class ErrorPattern:
    """One known error and the line patterns that show it."""

    code: str
    patterns: tuple[re.Pattern[str], ...]
    detail: re.Pattern[str] | None = None
    words: tuple[str, ...] = ()
    """Per pattern, the word a line must contain for it to match (prefilter.required_word)."""


@functools.cache
def _flat() -> tuple[tuple[str, re.Pattern[str], ErrorPattern], ...]:
    """Every pattern with its word and its error, in order."""
    return tuple((word, pattern, known) for known in error_patterns()
                 for word, pattern in zip(known.words, known.patterns, strict=True))


@functools.cache
def error_patterns() -> tuple[ErrorPattern, ...]:
    """The bundled patterns (``probe/paste/data/error_patterns.yaml``), read once."""
    text = resources.files("gpuready.probe.paste").joinpath("data/error_patterns.yaml").read_text(encoding="utf-8")
    data = loads_yaml(text, "error_patterns.yaml")
    return tuple(ErrorPattern(entry["code"], tuple(re.compile(p, re.IGNORECASE) for p in entry["patterns"]),
                              re.compile(entry["detail"], re.IGNORECASE) if entry.get("detail") else None,
                              tuple(required_word(p) for p in entry["patterns"]))
                 for entry in data["errors"])


_HINT = ("error", "fail", "denied", "fault", "not ", "no ", "unable", "cannot", "insufficient", "invalid", "hang",
         "timeout", "unsupported", "ignor", "fall", "cpu", "segment", "reset", "killed", "exception", "sigsegv", "true",
         "false", "terminated", "matching", "native", "could not", "_c")
"""A lower-cased line without any of these words is no error line: the patterns are not tried on it (a
case-insensitive pattern costs several times more than a plain search of the lower-cased lines for these words)."""


def hint_lines(lines: Sequence[str], first_line: int = 1) -> frozenset[int]:
    """The numbers of the lines that hold a word every error pattern needs (one search per word over them all)."""
    return frozenset(first_line + i for i in lines_with_any(_HINT, lines))


def errors_in(lines: tuple[str, ...] | list[str], first_line: int, section: str,
              hints: frozenset[int] | None = None) -> Iterator[ErrorSeen]:
    """Every known error shown in ``lines``, once per code and line; ``hints`` (:func:`hint_lines` of the whole
    paste) spares searching for the lines worth trying here."""
    numbers = hint_lines(lines, first_line) if hints is None else hints
    for offset, line in enumerate(lines):
        if first_line + offset not in numbers:
            continue
        if len(line) > 4000:
            continue
        lowered = line.lower()
        done: set[str] = set()
        for word, pattern, known in _flat():
            if known.code not in done and (not word or word in lowered) and pattern.search(line):
                done.add(known.code)
                detail = known.detail.search(line) if known.detail else None
                yield ErrorSeen(known.code, line.strip()[:300], f"line {first_line + offset}, {section}",
                                detail.group(1) if detail else "", line=first_line + offset)
