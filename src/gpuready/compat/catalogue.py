"""Find GPUs in the catalogue by the names tools print, by what people type, or by PCI id."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpuready.compat.schema import GpuEntry

_NOISE = re.compile(r"\(tm\)|\(r\)|®|™|\b(amd|nvidia|radeon|instinct|geforce|graphics|series|oam|mba|accelerator)\b")


_MOBILE = re.compile(r"\s*(?:\bLaptop GPU\b|\bLaptop\b|\bMobile\b|\bMax-Q\b(?: Design)?)", re.IGNORECASE)
"""What names NVIDIA's laptop parts (``GeForce RTX 4060 Laptop GPU``), whose architecture is the desktop chip's."""


def normalise_name(name: str) -> str:
    """``AMD Radeon RX 7900 XTX`` and ``7900xtx`` both become ``rx7900xtx``-like keys: lower-case, vendor words
    and punctuation removed, spaces squeezed out."""
    text = _NOISE.sub(" ", name.lower())
    return re.sub(r"[^a-z0-9]+", "", text)


def _keys(entry: GpuEntry) -> set[str]:
    keys = {normalise_name(entry.name)} | {normalise_name(a) for a in entry.aliases}
    return {k for k in keys if k}


def matching_gpus(gpus: Sequence[GpuEntry], name: str) -> list[GpuEntry]:
    """Every entry whose name or alias matches ``name`` (normalised), also with a leading ``rx``/``rtx`` dropped; where
    none does, the entries whose name begins with it (a name a tool or a page cut short), when it is long enough to
    be more than a family's (8 characters normalised)."""
    wanted = normalise_name(name)
    if not wanted:
        return []
    candidates = {wanted, wanted.removeprefix("rx"), wanted.removeprefix("rtx")}
    found, cut = [], []
    for entry in gpus:
        keys = _keys(entry)
        keys |= {k.removeprefix("rx").removeprefix("rtx") for k in keys}
        if keys & candidates:
            found.append(entry)
        elif len(wanted) >= 8 and any(k.startswith(wanted) for k in keys):
            cut.append(entry)
    return found or cut  # a name cut short ("NVIDIA A100-SXM4-80G"): the boards whose names it begins



def _narrowed(found: list[GpuEntry], compute_units: int | None) -> list[GpuEntry]:
    if compute_units is None or len(found) < 2:
        return found
    exact = [entry for entry in found if entry.compute_units == compute_units]
    return exact or found


def find_gpu(gpus: Sequence[GpuEntry], name: str, compute_units: int | None = None) -> GpuEntry | None:
    """The entry for ``name``; where several boards share the name, the one with these compute units, else the first.

    Good for what the boards share (architecture, family); for per-board figures use ``find_board``.
    """
    found = _narrowed(matching_gpus(gpus, name), compute_units)
    if not found and (desktop := _MOBILE.sub("", name).strip()) != name.strip():
        found = matching_gpus(gpus, desktop)  # a laptop part: the desktop chip's architecture and family
    return found[0] if found else None


def find_board(gpus: Sequence[GpuEntry], name: str, compute_units: int | None = None) -> GpuEntry | None:
    """The entry only when the name (and compute units) single out one board: peak rates are never guessed."""
    found = _narrowed(matching_gpus(gpus, name), compute_units)
    return found[0] if len(found) == 1 else None


def find_by_pci_id(gpus: Sequence[GpuEntry], device_id: str) -> GpuEntry | None:
    """The entry listing this PCI device id (``0x74a1``)."""
    wanted = device_id.lower()
    return next((g for g in gpus if wanted in (i.lower() for i in g.pci_device_ids)), None)


def suggest(gpus: Sequence[GpuEntry], name: str, limit: int = 3) -> list[str]:
    """Product names close to ``name``, for "did you mean"."""
    by_key: dict[str, str] = {}
    for entry in gpus:
        for key in _keys(entry):
            by_key.setdefault(key, entry.name)
    close = difflib.get_close_matches(normalise_name(name), list(by_key), n=limit * 3, cutoff=0.5)
    names: list[str] = []
    for key in close:
        if by_key[key] not in names:
            names.append(by_key[key])
    return names[:limit]


PEAK_KEY_OF_PRECISION = {"fp32": "fp32", "tf32": "tf32", "bf16": "bf16", "fp16": "fp16", "amp": "fp16"}
"""The catalogue's peak key for a benchmark precision (``amp`` runs its matmuls in fp16)."""


@dataclass(frozen=True, slots=True)
class Peak:
    """A catalogue peak as one visible device sees it, and where it was read."""

    value: float
    """Dense TFLOP/s (int8: TOPS) or GB/s, per visible device."""
    source: str
    confirmed: bool
    """False when read in a third-party copy of the vendor's figures."""
    devices_per_board: int = 1
    share: float = 1.0
    """The device's share of a full device's compute units: below 1 on a partition (MI300X CPX, a MIG slice)."""

    def settings(self) -> dict[str, object]:
        """What a measurement records about the peak it was judged against."""
        recorded: dict[str, object] = {"peak_source": self.source, "peak_confirmed": self.confirmed}
        if self.devices_per_board > 1:
            recorded |= {"peak_per_board": self.value / self.share * self.devices_per_board,
                         "devices_per_board": self.devices_per_board}
        if self.share < 1:
            recorded["peak_partition_share"] = self.share
        return recorded


def peak_of(gpus: Sequence[GpuEntry], name: str, key: str, compute_units: int | None = None) -> Peak | None:
    """A board's peak for ``key`` (a dtype, or ``bandwidth``) per visible device; ``None`` when the name is ambiguous
    or the catalogue has no such figure.

    A device with fewer compute units than the catalogue's full device is a partition (MI300X in CPX mode, a MIG
    slice): its compute peak scales with its share of the units. Its memory bandwidth depends on the memory
    partition mode, which the name does not tell, so no bandwidth peak is given for it.
    """
    entry = find_board(gpus, name, compute_units)
    if entry is None:
        return None
    value = entry.memory_bandwidth_gbps if key == "bandwidth" else entry.peak_tflops.get(key)
    if not value:
        return None
    share = 1.0
    if compute_units and entry.compute_units and 0 < compute_units < entry.compute_units:
        if key == "bandwidth":
            return None
        share = compute_units / entry.compute_units
    return Peak(entry.per_device(value) * share, entry.peak_source, entry.peak_confirmed, entry.devices_per_board,
                share)
