"""Merge what several tools said about the same GPUs into one ``Device`` per accelerator."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gpuready.model import Device, Fact, Vendor
from gpuready.probe.parse.records import GpuRecord

_FIELDS = ("name", "arch", "memory_bytes", "pci_bus", "pci_device_id", "compute_units", "uuid")


def pci_key(address: str | None) -> str | None:
    """``0000:63:00.0`` and ``63:00.0`` name the same function: compare the last 7 characters."""
    if not address:
        return None
    address = address.strip().lower()
    return address[-7:] if len(address) >= 7 else address


def merge_devices(reports: Sequence[tuple[str, Sequence[GpuRecord]]]) -> tuple[Device, ...]:
    """Merge per-tool GPU lists, in priority order (first source wins a field).

    The first source with any GPUs decides how many there are. A record from another source joins the device
    with the same PCI address; when a source gives no PCI addresses, its records join by position, and only
    when it lists exactly as many GPUs (otherwise pairing them would be a guess).
    """
    populated = [(source, list(records)) for source, records in reports if records]
    if not populated:
        return ()
    base_source, base = populated[0]
    merged: list[dict[str, tuple[object, str]]] = []
    sources: list[list[str]] = []
    for record in base:
        merged.append({f: (getattr(record, f), base_source) for f in _FIELDS if getattr(record, f) is not None})
        sources.append([base_source])
    base_keys = [pci_key(r.pci_bus) for r in base]
    for source, records in populated[1:]:
        have_pci = all(pci_key(r.pci_bus) for r in records) and all(base_keys)
        for position, record in enumerate(records):
            if have_pci:
                key = pci_key(record.pci_bus)
                target = base_keys.index(key) if key in base_keys else None
            else:
                target = position if len(records) == len(base) else None
            if target is None:
                continue
            for f in _FIELDS:
                value = getattr(record, f)
                if value is not None and f not in merged[target]:
                    merged[target][f] = (value, source)
            sources[target].append(source)
    devices = []
    for index, (fields, seen) in enumerate(zip(merged, sources, strict=False)):
        facts = {
            f: Fact.of(fields[f][0], fields[f][1]) if f in fields else Fact.absent(", ".join(seen), "not reported")
            for f in _FIELDS
        }
        vendor = Vendor(base[index].vendor) if base[index].vendor in {v.value for v in Vendor} else Vendor.OTHER
        devices.append(Device(index=index, vendor=vendor, sources=tuple(dict.fromkeys(seen)), **facts))  # type: ignore[arg-type]
    return tuple(devices)


def with_index(records: Sequence[GpuRecord]) -> list[GpuRecord]:
    """Records numbered by position where the tool did not number them."""
    return [r if r.index is not None else dataclasses.replace(r, index=i) for i, r in enumerate(records)]
