"""The record every importer returns: one fact about one entry, with the URL it was read from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fact:
    """``rocm 7.2.1 os.ubuntu = (24.04.4, 22.04.5)`` as read at ``url``."""

    kind: str
    """``rocm``, ``torch``, ``torch-arch``, ``pypi``."""
    key: str
    """The entry: a ROCm or torch version, a variant name, a package."""
    field: str
    value: tuple[str, ...]
    url: str

    @property
    def label(self) -> str:
        """``rocm 7.2.1 os.ubuntu``."""
        return f"{self.kind} {self.key} {self.field}"
