"""How a Run says where in a fleet it was made: tags ``fleet:<run id>``, ``node:<name>``, ``job:<engine job id>``
and ``engine:<name>``, kept in ``Run.tags`` so every store and file format carries them unchanged."""

from __future__ import annotations

import os
import re
import socket
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gpuready.errors import InputError

_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,199}$")
PREFIXES = ("fleet", "node", "job", "engine")


def check_value(field: str, value: str) -> str:
    """``value`` if it can travel in a tag (no commas, spaces or control characters), else InputError."""
    if not _VALUE.match(value):
        raise InputError(f"expected 1 to 200 letters, digits or . _ : @ / + = - (starting with a letter or digit); "
                         f"got {value[:80]!r}", field=field)
    return value


def new_fleet_id() -> str:
    """A fresh fleet-run id: short enough to type, unique enough for a site's history."""
    return "f" + uuid.uuid4().hex[:11]


@dataclass(frozen=True, slots=True)
class Placement:
    """Which fleet run, node and engine job a Run belongs to."""

    fleet: str
    node: str
    job: str = ""
    engine: str = ""

    def __post_init__(self) -> None:
        check_value("fleet_run", self.fleet)
        check_value("node", self.node)
        if self.job:
            check_value("job_id", self.job)
        if self.engine:
            check_value("engine", self.engine)

    def tags(self) -> tuple[str, ...]:
        pairs = (("fleet", self.fleet), ("node", self.node), ("job", self.job), ("engine", self.engine))
        return tuple(f"{prefix}:{value}" for prefix, value in pairs if value)


def placement_of(tags: Sequence[str]) -> Placement | None:
    """The placement a Run's tags record, or None for a Run made outside a fleet."""
    found: dict[str, str] = {}
    for tag in tags:
        prefix, sep, value = tag.partition(":")
        if sep and prefix in PREFIXES and prefix not in found:
            found[prefix] = value
    if "fleet" not in found or "node" not in found:
        return None
    try:
        return Placement(found["fleet"], found["node"], found.get("job", ""), found.get("engine", ""))
    except InputError:
        return None


def with_placement(tags: Sequence[str], placement: Placement) -> tuple[str, ...]:
    """``tags`` with any earlier fleet tags replaced by ``placement``'s."""
    kept = tuple(t for t in tags if t.partition(":")[0] not in PREFIXES)
    return kept + placement.tags()


def node_name(environ: Mapping[str, str] | None = None) -> str:
    """This node's name as the engine knows it: Slurm's node name, the Kubernetes node (downward API ``NODE_NAME``),
    else the host name."""
    environ = os.environ if environ is None else environ
    for key in ("GPUREADY_NODE", "SLURMD_NODENAME", "NODE_NAME"):
        if environ.get(key):
            return environ[key]
    return socket.gethostname() or "localhost"


def job_id(environ: Mapping[str, str] | None = None) -> str:
    """The engine's id of this node's job: Slurm job (and array task or step), a Kubernetes Job's completion index
    with its pod name, else empty."""
    environ = os.environ if environ is None else environ
    if environ.get("SLURM_ARRAY_JOB_ID"):
        return f"{environ['SLURM_ARRAY_JOB_ID']}_{environ.get('SLURM_ARRAY_TASK_ID', '0')}"
    if environ.get("SLURM_JOB_ID"):
        step = environ.get("SLURM_PROCID")
        return environ["SLURM_JOB_ID"] + (f".{step}" if step else "")
    if environ.get("JOB_COMPLETION_INDEX") is not None and environ.get("HOSTNAME"):
        return f"{environ['HOSTNAME']}"
    return environ.get("GPUREADY_JOB_ID", "")
