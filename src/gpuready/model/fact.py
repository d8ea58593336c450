"""``Fact``: one probed value, with how it was obtained and whether it could be."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


class FactStatus(str, enum.Enum):
    """Whether a probe produced a value."""

    OK = "ok"
    """The value was read."""
    ABSENT = "absent"
    """We looked and it is not there (no ROCm install, no GPU, tool not on PATH)."""
    ERROR = "error"
    """We could not find out: the tool failed, timed out, or printed something we could not read."""
    UNSUPPORTED = "unsupported"
    """The question does not apply here (a CUDA version on a ROCm build, sysfs on macOS)."""
    SKIPPED = "skipped"
    """Not probed, on request (``--no-frameworks``): nothing is known, and nothing went wrong."""


@dataclass(frozen=True, slots=True)
class Fact(Generic[T]):
    """A probed value. ``value`` is set only when ``status`` is ok; ``detail`` says why otherwise."""

    status: FactStatus
    value: T | None = None
    source: str = ""
    """The command or file it came from (``rocminfo``, ``/etc/os-release``, ``torch (child)``)."""
    detail: str = ""
    """The reason for a non-ok status, or the raw text when ``value`` is a normalised form of it."""
    section: str = ""
    """For pasted input: the lines it was read from and what they were recognised as (``lines 12-40 rocminfo``)."""

    def __post_init__(self) -> None:
        if self.status is not FactStatus.OK and self.value is not None:
            raise ValueError(f"a Fact with status {self.status.value} carries no value")
        if self.status is FactStatus.OK and self.value is None:
            raise ValueError("a Fact with status ok needs a value")

    @property
    def ok(self) -> bool:
        """True when the value was read."""
        return self.status is FactStatus.OK

    def get(self, default: T) -> T:
        """The value, or ``default`` when there is none."""
        return self.value if self.value is not None else default

    @classmethod
    def of(cls, value: T, source: str = "", detail: str = "", section: str = "") -> Fact[T]:
        """An ok fact."""
        return cls(FactStatus.OK, value, source, detail, section)

    @classmethod
    def maybe(cls, value: T | None, source: str = "", detail: str = "") -> Fact[T]:
        """Ok when ``value`` is not None, absent otherwise."""
        if value is None:
            return cls(FactStatus.ABSENT, None, source, detail or "not reported")
        return cls(FactStatus.OK, value, source, detail)

    @classmethod
    def absent(cls, source: str = "", detail: str = "") -> Fact[T]:
        """We looked and it is not there."""
        return cls(FactStatus.ABSENT, None, source, detail)

    @classmethod
    def error(cls, source: str, detail: str) -> Fact[T]:
        """We could not find out, and ``detail`` says why."""
        return cls(FactStatus.ERROR, None, source, detail)

    @classmethod
    def skipped(cls, source: str = "", detail: str = "not probed, on request") -> Fact[T]:
        """Not probed because the user asked not to: unknown, and not an error."""
        return cls(FactStatus.SKIPPED, None, source, detail)

    @classmethod
    def unsupported(cls, source: str = "", detail: str = "") -> Fact[T]:
        """The question does not apply here."""
        return cls(FactStatus.UNSUPPORTED, None, source, detail)


def unknown() -> Fact[T]:
    """Default for a fact nobody has probed: absent with 'not probed'."""
    return Fact(FactStatus.ABSENT, None, "", "not probed")
