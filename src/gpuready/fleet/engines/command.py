"""The command every engine starts on a node: ``gpuready fleet node`` with the job's options, the fleet run, the
engine's name and the destination."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from gpuready.fleet.config import Destination, NodeJob
from gpuready.fleet.tags import check_value

ENGINES = ("slurm", "ray", "kubernetes", "torchrun")


def destination_args(destination: Destination) -> tuple[str, ...]:
    """``--out FOLDER`` and/or ``--store URL``."""
    args: list[str] = []
    if destination.folder is not None:
        args += ["--out", str(destination.folder)]
    if destination.store_url:
        args += ["--store", destination.store_url]
    return tuple(args)


def node_command(job: NodeJob, fleet_id: str, destination: Destination, engine: str, *,
                 python: Sequence[str] = ("python3",), node: str | None = None,
                 job_id: str | None = None) -> list[str]:
    """``python -m gpuready fleet node ...`` for one node. ``node`` and ``job_id`` are left out when the node finds
    them itself (Slurm's and Kubernetes' environment)."""
    check_value("fleet_run", fleet_id)
    command = [*python, "-m", "gpuready", "fleet", "node", *job.to_args(), "--fleet-run", fleet_id,
               "--engine", engine]
    if node is not None:
        command += ["--node", check_value("node", node)]
    if job_id is not None:
        command += ["--job-id", check_value("job_id", job_id)]
    return command + list(destination_args(destination))


OUTPUT_TAIL = 4000
"""Characters of a node job's output kept in its answer (the engine's own logs keep the rest)."""


@dataclass(frozen=True)
class NodeAnswer:
    """How one node's job ended, as the engine's task saw it. ``returncode`` 1 means findings (a NOT READY doctor, a
    failing check); None means the job was killed at its deadline."""

    node: str
    job_id: str
    returncode: int | None
    output: str
    ran_on: str = ""
    """The engine's id of the machine the task ran on, where it tells (Ray's node id)."""

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def run_node_process(command: Sequence[str], node: str, job_id: str, timeout_s: float | None) -> NodeAnswer:
    """Run the node job as a child process (a device-touching job never runs in the engine's own worker) with a
    deadline; its own children (the isolated checks) die with it."""
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=timeout_s or None, check=False)
    except subprocess.TimeoutExpired as expired:
        output = expired.stderr.decode(errors="replace") if isinstance(expired.stderr, bytes) else expired.stderr or ""
        return NodeAnswer(node, job_id, None, f"{output[-OUTPUT_TAIL:]}\nkilled after {timeout_s:g} s")
    sys.stderr.write(done.stderr)
    return NodeAnswer(node, job_id, done.returncode, (done.stdout + done.stderr)[-OUTPUT_TAIL:])
