"""Podman's ``/run/.containerenv``: ``key="value"`` lines (engine, name, id, image, imageid, rootless)."""

from __future__ import annotations

import re

from gpuready.errors import ParseError

_LINE = re.compile(r'^([A-Za-z][A-Za-z0-9_]*)=(?:"([^"\n]*)"|([^\s"]*))\s*$')


def parse_containerenv(text: str) -> dict[str, str]:
    """The file's pairs; an empty file (podman writes one for unprivileged containers) is an empty mapping.

    Raises ``ParseError`` on a line that is not ``key=value``.
    """
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        match = _LINE.match(line.strip())
        if match is None:
            raise ParseError(f"line {number} is not key=value")
        found[match.group(1)] = match.group(2) if match.group(2) is not None else match.group(3)
    return found
