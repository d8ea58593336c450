"""The exception tree and the process exit codes.

    GpureadyError               base: the CLI catches this and prints one line
    ├── UsageError              a bad option or argument combination (exit 2)
    ├── InputError              a file or value the user gave is not what was expected (exit 2)
    │   ├── SchemaError         a document does not match gpuready's data model (which field, what was expected)
    │   └── ParseError          a tool output or file is not in the format its parser reads
    └── ProbeError              the probe layer could not proceed at all (exit 3)

"Could not probe" and "check failed" are results (a ``Fact`` with status error, a failed ``CheckResult``),
never exceptions: an exception means gpuready itself cannot go on.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Exit status of every ``gpuready`` command."""

    OK = 0
    """Nothing to report, or only information."""
    FINDINGS = 1
    """A blocker finding or a failed check."""
    USAGE = 2
    """Bad input or usage: a missing or malformed file, an unknown option."""
    INTERNAL = 3
    """A bug in gpuready."""


class GpureadyError(Exception):
    """Base class of every error gpuready raises on purpose."""

    exit_code: ExitCode = ExitCode.INTERNAL


class UsageError(GpureadyError):
    """The command line asks for something that cannot be done."""

    exit_code = ExitCode.USAGE


class InputError(GpureadyError):
    """A file or value the user supplied is not what was expected.

    The message names the file (``source``), the field and what was expected.
    """

    exit_code = ExitCode.USAGE

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None) -> None:
        self.source = source
        self.field = field
        self.reason = message
        parts = [p for p in (source, field) if p]
        super().__init__(f"{': '.join(parts)}: {message}" if parts else message)


class SchemaError(InputError):
    """A document does not match gpuready's data model."""


class ProbeError(GpureadyError):
    """The probe layer cannot proceed (not: one probe failed, which is a Fact with status error)."""

    exit_code = ExitCode.INTERNAL


class ParseError(InputError):
    """A tool's output or a file is not in the format its parser reads."""
