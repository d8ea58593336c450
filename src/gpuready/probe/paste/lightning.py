"""PyTorch Lightning's environment details, the block its bug-report template asks for (``collect_env_details.py``:
``* CUDA:`` with ``- GPU:`` and the device names one level further in, ``- available: True``, ``- version: 12.1``;
``* System:`` with ``- release`` and ``- python``). Pure: lines in, clues out.

Layout from Lightning's ``requirements/collect_env_details.py`` (``nice_print``: a ``* key:`` line per section, ``-
key: value`` padded to 20 characters one tab in, a list's items one tab further, each ``- item``); source
https://github.com/Lightning-AI/pytorch-lightning/blob/master/requirements/collect_env_details.py."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from gpuready.probe.paste.clues import TOOL, Clue

_SECTION = re.compile(r"^\s*\*\s+(CUDA|System|Lightning|Packages|Variables):\s*$")
_ITEM = re.compile(r"^\s*-\s+([\w.-]+):(?:\s+(\S.*?))?\s*$")
_LISTED = re.compile(r"^\s*-\s+(\S.*?)\s*$")
_CUDA = {"available": "torch.available", "version": "torch.cuda"}
_SYSTEM = {"release": "host.kernel", "python": "host.python"}


def lightning_details(lines: Sequence[str], first_line: int) -> Iterator[Clue]:
    """The facts of Lightning's ``* CUDA:`` and ``* System:`` sections in ``lines`` (``first_line`` is the number of
    ``lines[0]`` in the paste); nothing where the lines hold no such section."""
    section, in_gpus = "", False
    for number, line in enumerate(lines, first_line):
        if heading := _SECTION.match(line):
            section, in_gpus = heading.group(1), False
            continue
        if section not in ("CUDA", "System"):
            continue
        item = _ITEM.match(line)
        if in_gpus and item is None and (listed := _LISTED.match(line)):
            yield Clue("gpu.name", listed.group(1), number, TOOL)  # one line per device, as torch names it
            continue
        in_gpus = False
        if item is None:
            if line.strip():
                section = ""  # something else follows the block
            continue
        key, value = item.group(1), (item.group(2) or "").strip()
        if section == "CUDA" and key == "GPU":
            in_gpus = not value
            if value and value != "None" and not value.startswith("["):
                yield Clue("gpu.name", value, number, TOOL)
        elif value and value != "None" and (field := (_CUDA if section == "CUDA" else _SYSTEM).get(key)):
            if field != "host.kernel" or re.match(r"\d+\.\d+", value):
                yield Clue(field, value, number, TOOL)
