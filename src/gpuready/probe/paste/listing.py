"""Commands whose output is a list of one thing, a line each: the GPU targets ``amdgpu-arch`` / ``offload-arch`` print,
the names Windows' WMI gives its video controllers and processors (``(Get-WmiObject win32_VideoController).Name``,
``Get-CimInstance``, ``wmic path win32_VideoController get name``); and ``pip show``'s record of a package, whose name
and version stand on two lines (``Name: torch``, ``Version: 1.9.0a0+c3d40fd``). Pure: a command and its output lines
to clues."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from gpuready.probe.parse.kfd import normalise_gfx_name
from gpuready.probe.paste.clues import TOOL, Clue, clues, looks_like_cpu, looks_like_gpu

_TARGET = re.compile(r"^(gfx[0-9a-f]{3,4})$")


def _target(text: str) -> str | None:
    match = _TARGET.match(text)
    return normalise_gfx_name(match.group(1)) if match and match.group(1) != "gfx000" else None  # gfx000: the CPU


_LISTS: tuple[tuple[re.Pattern[str], str, Callable[[str], str | None]], ...] = (
    (re.compile(r"\b(?:amdgpu-arch|offload-arch)\b", re.IGNORECASE), "gpu.arch", _target),
    (re.compile(r"\bwin32_VideoController\b", re.IGNORECASE), "gpu.name",
     lambda text: text if looks_like_gpu(text) else None),
    (re.compile(r"\bwin32_Processor\b|\bwmic\s+cpu\s+get\s+name\b", re.IGNORECASE), "host.cpu",
     lambda text: text if looks_like_cpu(text) else None),
)
"""(the command, the field each output line is, what a line must be to count)."""
_END = re.compile(r"^\s*$|^\s*(?:PS [A-Z]:\\|[$#>❯]\s|#{1,6}\s|```)")
"""Where a listing ends: a blank line, the next prompt, a heading or a fence (a listing has no blank lines inside)."""


def listed(command: str, output: Sequence[str], first_line: int) -> Iterator[Clue]:
    """The values a listing command printed, one clue per line (``first_line`` is the number of ``output[0]`` in
    the paste); WMI's ``Name`` heading and lines of another shape are passed over."""
    for pattern, field, value_of in _LISTS:
        if not pattern.search(command):
            continue
        started = False
        for offset, line in enumerate(output):
            if _END.match(line):
                if started:
                    return
                continue
            started = True
            value = value_of(line.strip())
            if value is not None:
                yield Clue(field, value, first_line + offset, TOOL)
        return


_SHOWN_NAME = re.compile(r"^\s*Name:\s*([A-Za-z0-9][\w.\-]*)\s*$")
_SHOWN_VERSION = re.compile(r"^\s*Version:\s*(\d+\.\d+[\w.+\-]*)\s*$")


def shown_packages(output: Sequence[str], first_line: int) -> Iterator[Clue]:
    """The packages ``pip show`` describes: a ``Name:`` line, then its ``Version:`` line, read as the same package's
    ``name==version`` would be in a requirements list (so only the packages that one reads), at the version's line."""
    for offset in range(len(output) - 1):
        if (name := _SHOWN_NAME.match(output[offset])) and (version := _SHOWN_VERSION.match(output[offset + 1])):
            number = first_line + offset + 1
            yield from clues([f"{name.group(1)}=={version.group(1)}"], number)
