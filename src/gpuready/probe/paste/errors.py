"""Known error messages in a paste (``hipErrorNoBinaryForGpu``, ``no kernel image is available``, ...): each line
that shows one becomes an ``ErrorSeen``, the evidence doctor judges when an error is all a user posted."""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources

from gpuready.files import loads_yaml
from gpuready.model import ErrorSeen
from gpuready.probe.paste.prefilter import Caseless, JoinedLines, cut_lines, long_lines, required_word


@dataclass(frozen=True)
class ErrorPattern:
    """One known error and the line patterns that show it."""

    code: str
    patterns: tuple[re.Pattern[str], ...]
    """Case-insensitive; a line that one finds something in shows the error."""
    detail: re.Pattern[str] | None = None
    words: tuple[str, ...] = ()
    """Per pattern, the word a line must contain for it to match (prefilter.required_word)."""


@functools.cache
def _flat() -> tuple[tuple[str, Caseless, ErrorPattern], ...]:
    """Every pattern with its word and its error, in order."""
    return tuple((word, Caseless.of(pattern), known) for known in error_patterns()
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
         "false", "terminated", "matching", "native", "could not", "_c", "physical_device", "gpus available", "err!",
         "libamdhip64", "libhsa-runtime64", "offloaded 0/", "prohibited", "compatib", "detect", "recogni", "blas = 0")
"""A lower-cased line without any of these words is no error line: the patterns are not tried on it (a
case-insensitive pattern costs several times more than a plain search of the lower-cased lines for these words)."""


_LONGEST = 4000
"""Longer lines are not read for errors."""


GENERIC = frozenset({"gpu_runtime_error", "process_segfault"})
"""Codes for any runtime error or crash: on a line a more telling code also names, that one says it."""


@dataclass(frozen=True)
class ErrorIndex:
    """Per line (by number in the paste), the patterns worth trying on it: those whose word the line holds, among the
    lines that hold a word every pattern needs. Found by plain searches of the lines joined, so the line loop tries
    a handful of patterns on a few lines."""

    tried: dict[int, tuple[int, ...]]
    """Line number -> positions in the flat pattern list, in order (a line not here holds no error)."""

    @functools.cached_property
    def numbers(self) -> tuple[int, ...]:
        """The numbers of the lines worth trying, in order."""
        return tuple(sorted(self.tried))

    @classmethod
    def of(cls, lines: Sequence[str], first_line: int = 1, joined: JoinedLines | None = None) -> ErrorIndex:
        """The index of ``lines``; ``joined`` is the lines lower-cased and cut at 2,000 characters when already made
        (a longer line is searched whole here)."""
        if joined is None:
            joined = JoinedLines.of(cut_lines(lines))
        long = long_lines(lines)
        hinted = sorted(joined.where_any(_HINT) | {i for i in long if any(w in lines[i].lower() for w in _HINT)})
        by_word: dict[str, list[int]] = {}
        for position, (word, _, _) in enumerate(_flat()):
            by_word.setdefault(word, []).append(position)
        at: dict[int, set[int]] = {}
        part = joined.subset(hinted)
        for word, found in part.where_words(w for w in by_word if w).items():
            for index in found:
                at.setdefault(hinted[index], set()).update(by_word[word])
        for index in set(long) & set(hinted):  # a word may stand past the part of the line searched
            at.setdefault(index, set()).update(p for w, ps in by_word.items() if w in lines[index].lower() for p in ps)
        for index in hinted if "" in by_word else ():  # a pattern without a certain word: tried on every hinted line
            at.setdefault(index, set()).update(by_word[""])
        return cls({first_line + i: tuple(sorted(found)) for i, found in at.items()})


def errors_in(lines: tuple[str, ...] | list[str], first_line: int, section: str,
              index: ErrorIndex | None = None) -> Iterator[ErrorSeen]:
    """Every known error shown in ``lines``, once per code and line; ``index`` (:meth:`ErrorIndex.of` the whole
    paste) spares searching for the lines and patterns worth trying here."""
    index = ErrorIndex.of(lines, first_line) if index is None else index
    flat, numbers = _flat(), index.numbers
    for number in numbers[bisect_left(numbers, first_line):bisect_right(numbers, first_line + len(lines) - 1)]:
        offset, positions = number - first_line, index.tried[number]
        line = lines[offset]
        if len(line) > _LONGEST:
            continue
        done: dict[str, ErrorSeen] = {}
        lowered = line.lower() if line.isascii() else None  # once for every pattern tried on the line
        for position in positions:
            _, pattern, known = flat[position]
            if known.code not in done and (pattern.lowered.search(lowered) if lowered is not None else
                                           pattern.pattern.search(line)) is not None:
                detail = known.detail.search(line) if known.detail else None
                done[known.code] = ErrorSeen(known.code, line.strip()[:300], f"line {first_line + offset}, {section}",
                                             detail.group(1) if detail else "", line=first_line + offset)
        specific = any(code not in GENERIC for code in done)
        yield from (seen for code, seen in done.items() if not (specific and code in GENERIC))
