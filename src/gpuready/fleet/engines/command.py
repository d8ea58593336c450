"""The command every engine starts on a node: ``gpuready fleet node`` with the job's options, the fleet run, the
engine's name and the destination."""

from __future__ import annotations

from collections.abc import Sequence

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
