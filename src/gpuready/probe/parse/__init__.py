"""Pure parsers: each turns one tool's output (or one file) into data, and raises ``ParseError`` otherwise.

No parser runs a command, reads a file or looks at the clock. ``parse_fact`` turns the outcome into a ``Fact``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from gpuready.errors import ParseError
from gpuready.model.fact import Fact

T = TypeVar("T")


def parse_fact(parser: Callable[[str], T], text: str, source: str) -> Fact[T]:
    """Run a parser; malformed input becomes a Fact with status error and the reason."""
    try:
        return Fact.of(parser(text), source)
    except ParseError as error:
        return Fact.error(source, f"could not read {source} output: {error.reason}")


__all__ = ["ParseError", "parse_fact"]
