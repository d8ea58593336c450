"""Slurm: one task per node through ``submitit`` (one job of ``--nodes N --ntasks-per-node 1``, or a job array of
exclusive one-node jobs), each task running ``gpuready fleet node`` as a child process with a deadline; or an sbatch
script for sites that submit by hand (``srun`` one task per node). Partition, account, time limit, GPUs per node and a
container image (pyxis/enroot ``srun --container-image``) are the site's knobs."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuready.errors import InputError
from gpuready.fleet.config import Destination, NodeJob
from gpuready.fleet.engines.command import NodeAnswer, node_command, run_node_process
from gpuready.fleet.tags import check_value


def _at_least(field: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"expected an integer {minimum} or more; got {value!r}", field=field)


def _word(field: str, value: str) -> None:
    if value and (any(c.isspace() for c in value) or any(c in value for c in "'\"\\$`;&|<>")):
        raise InputError(f"expected one word without quotes or shell characters; got {value!r}", field=field)


@dataclass(frozen=True)
class SlurmConfig:
    """The allocation: how many nodes, where, for how long, with what."""

    nodes: int
    partition: str = ""
    account: str = ""
    time_min: int = 60
    """The job's time limit in minutes (``--time``)."""
    gpus_per_node: int = 0
    cpus_per_task: int = 0
    container_image: str = ""
    """Run each task in this image through pyxis/enroot (``srun --container-image``)."""
    container_mounts: tuple[str, ...] = ()
    """``SRC:DST`` mounts for the container (``srun --container-mounts``)."""
    array: bool = False
    """A job array of one-node jobs (each ``--exclusive``, so two never share a node) instead of one N-node job."""
    job_name: str = "gpuready-fleet"
    log_folder: Path = Path("gpuready-fleet-logs")
    python: str = "python3"
    """The interpreter on the nodes (with gpuready installed) that the sbatch script starts."""
    node_timeout_s: float = 0
    """Seconds the node job may run before its task kills it (0: until the time limit)."""

    def __post_init__(self) -> None:
        _at_least("nodes", self.nodes, 1)
        _at_least("time_min", self.time_min, 1)
        _at_least("gpus_per_node", self.gpus_per_node, 0)
        _at_least("cpus_per_task", self.cpus_per_task, 0)
        for name in ("partition", "account", "container_image", "job_name", "python"):
            _word(name, getattr(self, name))
        for mount in self.container_mounts:
            _word("container_mounts", mount)
            if ":" not in mount:
                raise InputError(f"expected SRC:DST; got {mount!r}", field="container_mounts")
        if not self.job_name:
            raise InputError("expected a job name", field="job_name")
        if isinstance(self.node_timeout_s, bool) or not self.node_timeout_s >= 0:
            raise InputError(f"expected seconds, 0 or more; got {self.node_timeout_s!r}", field="node_timeout_s")

    def srun_args(self) -> list[str]:
        args = ["--kill-on-bad-exit=0"]  # a node with findings (exit 1) must not stop the others
        if self.container_image:
            args.append(f"--container-image={self.container_image}")
        if self.container_mounts:
            args.append(f"--container-mounts={','.join(self.container_mounts)}")
        return args


def submitit_parameters(config: SlurmConfig, cluster: str = "slurm") -> dict[str, Any]:
    """What ``AutoExecutor.update_parameters`` gets. On submitit's ``local`` and ``debug`` executors (one machine)
    the nodes become tasks of one job, which is how the launch path is tested without a cluster."""
    timeout = config.time_min
    if cluster != "slurm":
        return {"name": config.job_name, "timeout_min": timeout, "nodes": 1, "tasks_per_node": config.nodes}
    parameters: dict[str, Any] = {"name": config.job_name, "timeout_min": timeout,
                                  "nodes": 1 if config.array else config.nodes, "tasks_per_node": 1,
                                  "slurm_srun_args": config.srun_args()}
    if config.gpus_per_node:
        parameters["gpus_per_node"] = config.gpus_per_node
    if config.cpus_per_task:
        parameters["cpus_per_task"] = config.cpus_per_task
    if config.partition:
        parameters["slurm_partition"] = config.partition
    if config.account:
        parameters["slurm_account"] = config.account
    if config.array:
        parameters["slurm_exclusive"] = True
        parameters["slurm_array_parallelism"] = config.nodes
    return parameters


@dataclass(frozen=True)
class NodeTask:
    """What each Slurm task runs (pickled by submitit): the node job in a child process, named after the node."""

    args: tuple[str, ...]
    """``gpuready fleet node`` options without ``--node`` and ``--job-id``."""
    timeout_s: float = 0

    def __call__(self, index: int = 0) -> NodeAnswer:
        import submitit

        environment = submitit.JobEnvironment()
        node = os.environ.get("SLURMD_NODENAME") or environment.hostname
        if environment.num_tasks > environment.num_nodes:  # several tasks share a node (submitit's local executor)
            node = f"{node}-{environment.local_rank}"
        job_id = f"{environment.job_id}.{environment.global_rank}"
        command = [sys.executable, "-m", "gpuready", "fleet", "node", *self.args, "--node", node, "--job-id", job_id]
        return run_node_process(command, node, job_id, self.timeout_s)


def node_task(job: NodeJob, fleet_id: str, config: SlurmConfig, destination: Destination) -> NodeTask:
    command = node_command(job, fleet_id, destination, "slurm", python=("python",))
    return NodeTask(tuple(command[5:]), config.node_timeout_s)


def submit(job: NodeJob, fleet_id: str, config: SlurmConfig, destination: Destination, *,
           cluster: str | None = None) -> list[Any]:
    """Submit the fleet run through submitit and return its jobs (``job.job_id``; ``job.results()`` waits and gives
    each task's ``NodeTask`` answer). ``cluster`` is submitit's executor (default: Slurm, which needs ``sbatch``)."""
    check_value("fleet_run", fleet_id)
    if cluster is None and shutil.which("sbatch") is None:
        raise InputError("sbatch is not on PATH: submit from a Slurm login node, or write the script with "
                         "--sbatch-only --write FILE", field="engine")
    import submitit

    cluster = cluster or "slurm"
    # in a container the submitting interpreter's path means nothing: the image's python runs submitit's task
    options = {"slurm_python": config.python} if config.container_image else {}
    executor = submitit.AutoExecutor(folder=str(config.log_folder), cluster=cluster, **options)
    executor.update_parameters(**submitit_parameters(config, executor.cluster))
    task = node_task(job, fleet_id, config, destination)
    if config.array and executor.cluster == "slurm":
        return list(executor.map_array(task, list(range(config.nodes))))
    return [executor.submit(task)]


def sbatch_script(job: NodeJob, fleet_id: str, config: SlurmConfig, destination: Destination) -> str:
    """An sbatch script: one task per node (``srun --ntasks-per-node=1``) running ``gpuready fleet node``; each
    task finds its node (``SLURMD_NODENAME``) and job step (``SLURM_JOB_ID.SLURM_PROCID``) in Slurm's environment."""
    command = node_command(job, fleet_id, destination, "slurm", python=(config.python,))
    lines = ["#!/bin/bash", f"#SBATCH --job-name={config.job_name}"]
    if config.array:
        lines += [f"#SBATCH --array=0-{config.nodes - 1}", "#SBATCH --nodes=1", "#SBATCH --exclusive"]
    else:
        lines.append(f"#SBATCH --nodes={config.nodes}")
    lines.append("#SBATCH --ntasks-per-node=1")
    if config.partition:
        lines.append(f"#SBATCH --partition={config.partition}")
    if config.account:
        lines.append(f"#SBATCH --account={config.account}")
    lines.append(f"#SBATCH --time={config.time_min}")
    if config.gpus_per_node:
        lines.append(f"#SBATCH --gpus-per-node={config.gpus_per_node}")
    if config.cpus_per_task:
        lines.append(f"#SBATCH --cpus-per-task={config.cpus_per_task}")
    log = config.log_folder / ("%x-%A_%a.out" if config.array else "%x-%j.out")
    lines.append(f"#SBATCH --output={log}")
    lines += [f"# gpuready fleet run {fleet_id}: one task per node runs the node job and writes its Runs, tagged",
              "# fleet:/node:/job:/engine:slurm. Then: gpuready fleet report " + fleet_id + " with --out or --store.",
              f"# Slurm does not make the log folder: mkdir -p {shlex.quote(str(config.log_folder))} before sbatch.",
              "set -uo pipefail"]
    srun = ["srun", "--ntasks-per-node=1", *config.srun_args()]
    lines.append(shlex.join(srun) + " \\\n  " + shlex.join(command))
    return "\n".join(lines) + "\n"


def write_sbatch(job: NodeJob, fleet_id: str, config: SlurmConfig, destination: Destination, path: Path) -> Path:
    """Write the sbatch script (``sbatch PATH``)."""
    from gpuready.files import write_text

    write_text(path, sbatch_script(job, fleet_id, config, destination))
    return path
