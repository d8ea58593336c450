"""Reading the user's files and writing results, in one place.

Reading: only regular files (a FIFO, a device such as ``/dev/zero`` or a socket is refused before it is opened, so
nothing hangs or reads forever), at most a size cap (enforced while reading, not by trusting ``stat``), as UTF-8
text, and JSON/YAML with a nesting limit. Every problem is an ``InputError`` naming the file.

Writing: whole or not at all (a temporary file beside the target, renamed over it), with the permissions ``open``
would give a new file under the current umask (as ``cp`` does), following a symlink to its target; an existing
FIFO or device (``/dev/stdout``) is written directly.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

from gpuready.errors import InputError, UsageError

MAX_NESTING = 200
"""Deeper JSON or YAML than this is refused (a Run is about 10 levels deep)."""
STDIN = "-"


def _refuse_special(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except NotADirectoryError:
        raise InputError("no such file (a part of the path is not a directory)", source=str(path)) from None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror or error}", source=str(path)) from error
    if stat.S_ISDIR(mode):
        raise InputError("is a directory, expected a file", source=str(path))
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else (
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        raise InputError(f"is {kind}, expected a regular file", source=str(path))


def read_bytes(path: Path | str, limit: int, what: str = "file") -> bytes:
    """A regular file's bytes (``-``: standard input), at most ``limit``; InputError otherwise."""
    if str(path) == STDIN:
        data = sys.stdin.buffer.read(limit + 1)
        name = "<stdin>"
    else:
        path = Path(path)
        _refuse_special(path)
        name = str(path)
        try:
            with open(path, "rb") as handle:
                data = handle.read(limit + 1)
        except OSError as error:
            raise InputError(f"cannot read: {error.strerror or error}", source=name) from error
    if len(data) > limit:
        raise InputError(f"the {what} is larger than {_size(limit)}", source=name)
    return data


def _size(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit // 1024} KiB"


def read_text(path: Path | str, limit: int, what: str = "file") -> str:
    """A regular file as UTF-8 text (a BOM is dropped); binary data and other encodings are refused."""
    data = read_bytes(path, limit, what)
    name = "<stdin>" if str(path) == STDIN else str(path)
    if b"\x00" in data:
        raise InputError(f"binary data: expected a text {what}", source=name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text (byte {error.start})", source=name) from error


_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")


def check_nesting(text: str, source: str, limit: int = MAX_NESTING) -> None:
    """Refuse text whose brackets (JSON, YAML flow style) nest deeper than ``limit`` — before any parser recurses."""
    brackets = _NOT_A_BRACKET.sub("", text)  # C speed; the loop below then sees brackets only
    if brackets.count("[") + brackets.count("{") <= limit:
        return
    depth = deepest = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    raise InputError(f"nested more than {limit} levels deep", source=source)
        elif char in "]}":
            depth = max(0, depth - 1)


_LONE_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})|"
                             r"(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")
"""A JSON escape of half a UTF-16 pair with no other half: decodes to a string no terminal or file can encode."""


def refuse_lone_surrogates(text: str, source: str) -> None:
    """InputError when JSON text escapes half a UTF-16 pair (a string no terminal or file could encode)."""
    if "\\u" in text and (lone := _LONE_SURROGATE.search(text)):
        raise InputError(f"a string holds a lone UTF-16 surrogate ({lone.group(0)}): not valid Unicode", source=source)


def loads_json(text: str, source: str) -> Any:
    """JSON with the nesting limit, integers of any length and lone surrogates refused politely."""
    check_nesting(text, source)
    refuse_lone_surrogates(text, source)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not valid JSON ({error.msg} at line {error.lineno} column {error.colno})",
                         source=source) from error
    except (ValueError, RecursionError) as error:  # integer strings past Python's digit limit, pathological input
        raise InputError(f"not readable JSON ({error})", source=source) from error


def read_json(path: Path | str, limit: int, what: str = "JSON file") -> Any:
    """A JSON file, size-capped and nesting-limited."""
    return loads_json(read_text(path, limit, what), str(path))


@functools.cache
def _unique_keys_loader() -> type:
    """The safe loader (libyaml's when present) refusing a key given twice in one mapping, which YAML forbids and
    PyYAML would let the later value overwrite silently (a data entry pasted over another one's fields)."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class UniqueKeys(base):  # type: ignore[valid-type,misc]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, (str, int, float, bool)):
                    continue  # a complex key (a list, a mapping) is left to the constructor
                if key in seen:
                    raise yaml.constructor.ConstructorError(None, None, f"the key {key!r} is given twice",
                                                            key_node.start_mark)
                seen.add(key)
            return super().construct_mapping(node, deep)

    return UniqueKeys


def loads_yaml(text: str, source: str, error: type[InputError] = InputError) -> Any:
    """YAML through the safe loader (libyaml's when present), with the nesting limit; ``error`` is raised (naming
    the line and column as its field) when the text is not YAML."""
    import yaml

    check_nesting(text, source)
    try:
        return yaml.load(text, Loader=_unique_keys_loader())  # noqa: S506 - a safe loader
    except yaml.YAMLError as problem:
        mark = getattr(problem, "problem_mark", None)
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark is not None else None
        reason = getattr(problem, "problem", None) or str(problem).splitlines()[0]
        raise error(f"not valid YAML: {reason}", source=source, field=where) from problem
    except (ValueError, RecursionError) as problem:
        raise error(f"not readable YAML ({problem})", source=source) from problem


def read_yaml(path: Path | str, limit: int, what: str = "YAML file", error: type[InputError] = InputError) -> Any:
    """A YAML file: regular, size-capped, UTF-8, nesting-limited."""
    try:
        text = read_text(path, limit, what)
    except InputError as problem:
        raise error(problem.reason, source=problem.source, field=problem.field) from problem
    return loads_yaml(text, str(path), error)


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_text(path: Path | str, text: str) -> None:
    """Write a result file whole or not at all, with the mode a new file gets under the umask."""
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        with open(target, "w", encoding="utf-8") as stream:
            stream.write(text)
        return
    if not target.parent.is_dir():
        raise UsageError(f"{path}: directory {target.parent} does not exist")
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else _new_file_mode()
    handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, prefix=f".{target.name}.",
                                         delete=False)
    try:
        with handle:
            handle.write(text)
        os.chmod(handle.name, mode)
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
