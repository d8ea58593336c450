"""Plain records the parsers return; the collectors turn them into Facts with their sources."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GpuRecord:
    """One accelerator as one tool reported it; None means the tool did not say."""

    vendor: str
    """``amd`` or ``nvidia``."""
    index: int | None = None
    name: str | None = None
    arch: str | None = None
    """``gfx942``, ``sm_90`` (features such as ``:sramecc+`` stripped)."""
    memory_bytes: int | None = None
    pci_bus: str | None = None
    pci_device_id: str | None = None
    """Lower-case hex with 0x, e.g. ``0x74a1``."""
    compute_units: int | None = None
    uuid: str | None = None
    driver_version: str | None = None


def cut_inside_a_word(name: str, names: list[str]) -> bool:
    """Whether ``name`` stops inside a word of a longer one of ``names`` (``NVIDIA GeForce GTX 10`` beside
    ``NVIDIA GeForce GTX 1080 Ti``): a report pasted up to the middle of a line, not a GPU of its own."""
    return bool(name) and name[-1].isalnum() and any(
        len(other) > len(name) and other.startswith(name) and other[len(name)].isalnum() for other in names)
