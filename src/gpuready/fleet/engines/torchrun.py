"""torchrun: the multi-node collectives. One command line per node rank starts ``torchrun --nnodes N --node-rank R
--rdzv-backend c10d --rdzv-endpoint HOST:PORT`` around ``gpuready fleet node`` with the distributed check suite and
the all_reduce ceiling; every rank joins the launcher's group (``isolation/launcher_group.py``), so the collectives
and the bus bandwidth span the nodes, and the Runs record world size and nodes, the bandwidth judged against the
link catalogue's peak for the network between them. Slurm, Ray or a person starts the per-node lines."""

from __future__ import annotations

import dataclasses
import re
import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from gpuready.errors import InputError
from gpuready.fleet.config import Destination, NodeJob
from gpuready.fleet.engines.command import NodeAnswer, node_command, run_node_process
from gpuready.fleet.tags import check_value

_ENDPOINT = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$")


@dataclass(frozen=True)
class TorchrunConfig:
    """The rendezvous and the shape of the world."""

    nnodes: int
    endpoint: str
    """``HOST:PORT`` of the c10d rendezvous (a port on the first node that every node reaches)."""
    nproc_per_node: int = 1
    """Ranks per node. One is the default: each rank runs the whole node job and writes its Runs."""
    node_names: tuple[str, ...] = ()
    """The nodes' names in node-rank order (default: each node's host name)."""
    launcher: tuple[str, ...] = ("torchrun",)
    """How to start torchrun on the nodes (``python -m torch.distributed.run`` works too)."""

    def __post_init__(self) -> None:
        for name in ("nnodes", "nproc_per_node"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"expected an integer 1 or more; got {value!r}", field=name)
        match = _ENDPOINT.match(self.endpoint)
        if not match or not 0 < int(match.group(2)) < 65536:
            raise InputError(f"expected HOST:PORT; got {self.endpoint!r}", field="endpoint")
        if self.node_names and len(self.node_names) != self.nnodes:
            raise InputError(f"expected {self.nnodes} names (one per node); got {len(self.node_names)}",
                             field="node_names")
        for name in self.node_names:
            check_value("node_names", name)
        if not self.launcher:
            raise InputError("expected the torchrun command", field="launcher")


def collective_job(job: NodeJob) -> NodeJob:
    """``job`` as the collectives across nodes: torch's distributed checks and the all_reduce ceiling."""
    return dataclasses.replace(job, check_suite="distributed", only=("torch.distributed.*",), micro=("allreduce",),
                               workloads=job.workloads or ("mlp",), lock_file=None)


def commands(job: NodeJob, fleet_id: str, config: TorchrunConfig, destination: Destination) -> list[list[str]]:
    """One command line per node rank (index = node rank)."""
    found = []
    for rank in range(config.nnodes):
        launcher = [*config.launcher, "--nnodes", str(config.nnodes), "--node-rank", str(rank),
                    "--nproc-per-node", str(config.nproc_per_node), "--rdzv-backend", "c10d",
                    "--rdzv-endpoint", config.endpoint, "--rdzv-id", fleet_id, "--max-restarts", "0"]
        # the node's name and job id travel in the environment: torchrun's parser would take --node for --node-rank
        named = [f"GPUREADY_NODE={config.node_names[rank]}"] if config.node_names else []
        command = node_command(collective_job(job), fleet_id, destination, "torchrun", python=())
        found.append(["env", *named, f"GPUREADY_JOB_ID=torchrun-{fleet_id}-{rank}", *launcher, *command])
    return found


def script(job: NodeJob, fleet_id: str, config: TorchrunConfig, destination: Destination) -> str:
    """A shell script that runs node rank ``$NODE_RANK``'s line (set it on each node, or use ``$SLURM_NODEID``)."""
    lines = ["#!/bin/sh", f"# gpuready fleet run {fleet_id}: the collectives across {config.nnodes} nodes through "
             f"torchrun (c10d rendezvous at {config.endpoint}).",
             "# Run this on every node with NODE_RANK set (0 on the node that hosts the rendezvous).",
             'case "${NODE_RANK:-${SLURM_NODEID:-}}" in']
    for rank, command in enumerate(commands(job, fleet_id, config, destination)):
        lines.append(f"  {rank}) exec {shlex.join(command)} ;;")
    lines += ['  *) echo "set NODE_RANK to 0..' + str(config.nnodes - 1) + '" >&2; exit 2 ;;', "esac"]
    return "\n".join(lines) + "\n"


def launch(command: Sequence[str], timeout_s: float | None) -> NodeAnswer:
    """Run one node rank's line here and wait for it."""
    rank = command[list(command).index("--node-rank") + 1]
    return run_node_process(command, f"node-rank-{rank}", f"torchrun-rank-{rank}", timeout_s)


def launch_local(job: NodeJob, fleet_id: str, config: TorchrunConfig, destination: Destination,
                 timeout_s: float = 900) -> list[NodeAnswer]:
    """Every node rank as a process on this machine (the endpoint must be local): how the multi-node path is tested
    on one machine."""
    processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for command in commands(job, fleet_id, config, destination)]
    answers = []
    for rank, process in enumerate(processes):
        try:
            output, _ = process.communicate(timeout=timeout_s)
            answers.append(NodeAnswer(f"node-rank-{rank}", f"torchrun-{fleet_id}-{rank}", process.returncode,
                                      output[-4000:]))
        except subprocess.TimeoutExpired:
            for other in processes:
                other.kill()
            answers.append(NodeAnswer(f"node-rank-{rank}", f"torchrun-{fleet_id}-{rank}", None, "timed out"))
    return answers
