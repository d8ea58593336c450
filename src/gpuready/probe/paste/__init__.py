"""Reports from another machine: a saved gpuready Run, one tool's output, or whatever people paste into an issue
(Markdown, prompts, several outputs, fragments, tracebacks), read into a ``Fingerprint``.

``kinds`` reads one known kind of output whole; ``segment`` splits a paste into sections; ``clues`` reads facts
from single lines; ``errors`` finds known error messages; ``reader`` puts them together and merges.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path

from gpuready.errors import InputError, ParseError
from gpuready.files import STDIN, check_nesting
from gpuready.model import Fingerprint
from gpuready.probe.paste.kinds import (
    ReportKind,
    detect_kind,
    fingerprint_of_kind,
    read_report_text,
)
from gpuready.probe.paste.reader import merge, read_paste

__all__ = ["ReportKind", "detect_kind", "read_fingerprint", "read_fingerprints", "read_paste"]


_PROMPT_FIRST = re.compile(r"\s*\[[^\]\n]{1,100}\]\s?[$#%>]")
"""A paste that opens with a shell prompt in brackets (``[user@host ~]$ nvidia-smi``, as Red Hat's and CentOS's shells
print it), not with a JSON list."""


def _name(path: Path) -> str:
    return "standard input" if str(path) == STDIN else path.name


def read_fingerprint(path: Path, kind: ReportKind | None = None) -> tuple[ReportKind | None, Fingerprint]:
    """Read ``path`` (``-``: standard input) into a Fingerprint: as ``kind`` when given, a saved Run or a JSON
    report whole, anything else as a paste. Returns the kind when the file was one kind of report."""
    text = read_report_text(path)
    detected = kind or detect_kind(text)
    if kind is not None or detected is ReportKind.RUN or text.lstrip().startswith(("{", "[")) and not (
            _PROMPT_FIRST.match(text)):
        if detected is None:  # JSON of no known kind, or cut short: read as a paste (a web UI's sysinfo dump)
            try:
                return None, read_paste(text, f"paste: {_name(path)}")
            except InputError:
                raise InputError(_unknown_json(text), source=str(path)) from None
        try:
            return detected, fingerprint_of_kind(detected, text, f"{detected.value}: {_name(path)}", str(path))
        except ParseError as error:
            raise InputError(f"not a readable {detected.value} report: {error.reason}", source=str(path),
                             field=error.field) from error
        except (ValueError, OverflowError, RecursionError) as error:  # numbers past any real size, and the like
            raise InputError(f"not a readable {detected.value} report ({type(error).__name__}: "
                             f"{str(error)[:100]})", source=str(path)) from error
        except InputError as error:
            if error.source:
                raise
            raise InputError(error.reason, source=str(path), field=error.field) from error
    origin = f"{detected.value}: {_name(path)}" if detected is not None else f"paste: {_name(path)}"
    whole = None
    if detected is not None:  # one tool's output as a file: its parser reads it whole, the paste reader adds errors
        try:
            whole = fingerprint_of_kind(detected, text, origin, str(path))
        except (ParseError, InputError, ValueError, RecursionError):
            whole = None
    try:
        pasted = read_paste(text, origin)
    except InputError as error:
        if whole is not None:
            return detected, whole
        raise InputError(error.reason, source=str(path), field=error.field) from error
    if whole is None:
        return detected, pasted
    merged = merge([whole, pasted], origin)
    return detected, dataclasses.replace(merged, errors=pasted.errors, sections=pasted.sections,
                                         conflicts=merged.conflicts + pasted.conflicts)


def _unknown_json(text: str) -> str:
    import json

    try:
        check_nesting(text, "")
        json.loads(text)
    except InputError as error:
        return f"JSON {error.reason}"
    except json.JSONDecodeError as error:
        return f"malformed or truncated JSON ({error.msg} at line {error.lineno} column {error.colno})"
    except ValueError as error:
        return f"JSON that cannot be read ({str(error).split(';')[0][:100]})"
    except RecursionError:
        return "JSON nested too deep to read"
    return "JSON of an unknown shape; expected a gpuready Run or amd-smi/rocm-smi JSON"


def read_fingerprints(paths: Sequence[Path], kind: ReportKind | None = None) -> Fingerprint:
    """Several reports of one machine merged into one Fingerprint (earlier files win; disagreements kept)."""
    read = [read_fingerprint(path, kind)[1] for path in paths]
    if len(read) == 1:
        return read[0]
    origin = "pastes: " + ", ".join(_name(p) for p in paths)
    merged = merge(read, origin)
    return dataclasses.replace(merged, errors=tuple(e for fp in read for e in fp.errors),
                               sections=tuple(dataclasses.replace(s, source=_name(path)) for path, fp in
                                              zip(paths, read, strict=True) for s in fp.sections),
                               conflicts=merged.conflicts + tuple(c for fp in read for c in fp.conflicts))
