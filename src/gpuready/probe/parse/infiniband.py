"""Parsers for the RDMA ports under ``/sys/class/infiniband/<device>/ports/<n>/``: ``rate`` ("400 Gb/sec (4X NDR)"),
``state`` ("4: ACTIVE") and ``link_layer`` ("InfiniBand", or "Ethernet" for RoCE); and the node's network as one
summary (kind, per-port rate, active ports)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from gpuready.errors import ParseError

_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*Gb/sec(?:\s*\(([^)]*)\))?\s*$")
_STATE = re.compile(r"^\s*(?:(\d+)\s*:\s*)?([A-Za-z_]+)\s*$")


@dataclass(frozen=True, slots=True)
class PortRate:
    """A port's data rate: ``gbits`` per second and the kernel's label (``4X NDR``; empty when absent)."""

    gbits: float
    label: str = ""


@dataclass(frozen=True, slots=True)
class Port:
    """One RDMA port as sysfs shows it."""

    device: str
    number: int
    kind: str
    """``infiniband`` or ``ethernet`` (RoCE), from ``link_layer``."""
    state: str
    """``ACTIVE``, ``DOWN``, ``INIT``, ``ARMED``, ``ACTIVE_DEFER``."""
    rate: PortRate | None


@dataclass(frozen=True, slots=True)
class Network:
    """The node's network between nodes: the kind and rate of its fastest group of active ports, and how many."""

    kind: str
    rate_gbits: float | None
    active_ports: int
    label: str = ""


def parse_port_rate(text: str) -> PortRate:
    """``/sys/class/infiniband/<dev>/ports/<n>/rate``: ``400 Gb/sec (4X NDR)``, ``2.5 Gb/sec (1X SDR)``."""
    match = _RATE.match(text.strip())
    if match is None:
        raise ParseError(f"expected a rate like '400 Gb/sec (4X NDR)', got {text.strip()[:60]!r}")
    gbits = float(match.group(1))
    if gbits <= 0:
        raise ParseError(f"expected a positive rate, got {text.strip()[:60]!r}")
    return PortRate(gbits, (match.group(2) or "").strip())


def parse_port_state(text: str) -> str:
    """``/sys/class/infiniband/<dev>/ports/<n>/state``: ``4: ACTIVE`` -> ``ACTIVE``."""
    match = _STATE.match(text.strip())
    if match is None:
        raise ParseError(f"expected a port state like '4: ACTIVE', got {text.strip()[:60]!r}")
    return match.group(2).upper()


def parse_link_layer(text: str) -> str:
    """``/sys/class/infiniband/<dev>/ports/<n>/link_layer``: ``InfiniBand`` -> ``infiniband``, ``Ethernet`` (RoCE)
    -> ``ethernet``."""
    value = text.strip().lower()
    if value not in ("infiniband", "ethernet"):
        raise ParseError(f"expected 'InfiniBand' or 'Ethernet', got {text.strip()[:60]!r}")
    return value


def summarise_ports(ports: Iterable[Port]) -> Network | None:
    """The active ports grouped by kind and rate; the group with the most bandwidth in all is the network between
    nodes (a slower management or storage port beside eight compute ports does not count). None without an active
    port whose rate is known."""
    groups: dict[tuple[str, float], list[Port]] = {}
    for port in ports:
        if port.state == "ACTIVE" and port.rate is not None:
            groups.setdefault((port.kind, port.rate.gbits), []).append(port)
    if not groups:
        return None
    (kind, gbits), members = max(groups.items(), key=lambda item: (item[0][1] * len(item[1]), item[0][1]))
    labels = sorted({p.rate.label for p in members if p.rate is not None and p.rate.label})
    return Network(kind, gbits, len(members), labels[0] if len(labels) == 1 else "")
