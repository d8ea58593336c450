"""Remove identifiers that name a person's machine (GPU UUIDs and serials, hostnames) from a Fingerprint."""

from __future__ import annotations

import dataclasses

from gpuready.model import Fact, Fingerprint

REDACTED = "<redacted>"


def _hide(fact: Fact[str]) -> Fact[str]:
    if not fact.ok:
        return fact
    return Fact.of(REDACTED, fact.source, "redacted; use --no-redact to show")


def redact(fingerprint: Fingerprint) -> Fingerprint:
    """The same fingerprint with hostnames and device UUIDs/serials replaced by ``<redacted>``."""
    host = dataclasses.replace(fingerprint.host, hostname=_hide(fingerprint.host.hostname))
    devices = tuple(dataclasses.replace(d, uuid=_hide(d.uuid)) for d in fingerprint.devices)
    return dataclasses.replace(fingerprint, host=host, devices=devices)
