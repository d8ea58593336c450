"""What reaches a terminal or an XML file is inert: control characters in data (ESC sequences that clear the
screen or set the window title, from a pasted report, a file name or a Run) are shown as visible escapes."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from gpuready.model import from_dict, to_dict

T = TypeVar("T")

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def inert(text: str) -> str:
    """``text`` with every control character but newline and tab written as ``\\xNN``."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def xml_safe(text: str) -> str:
    """``text`` with what XML 1.0 cannot hold (control characters, lone surrogates) written as ``\\xNN``."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else "\ufffd", text)


def _walk(data: Any) -> Any:
    if isinstance(data, str):
        return inert(data)
    if isinstance(data, list):
        return [_walk(item) for item in data]
    if isinstance(data, dict):
        return {inert(str(key)): _walk(value) for key, value in data.items()}
    return data


def inert_copy(value: T) -> T:
    """A dataclass tree (a Run, a Plan, a Comparison) with every string made inert, for printing."""
    return from_dict(type(value), _walk(to_dict(value)))


def console() -> Any:
    """A rich Console for stdout (colour on a terminal, plain in a pipe); markup in data is never interpreted."""
    from rich.console import Console

    return Console(highlight=False)
