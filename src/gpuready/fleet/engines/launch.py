"""``gpuready fleet run``: the engine's configuration from the command's options, then dispatch (Slurm through
submitit, Ray) or files to submit (an sbatch script, a Kubernetes manifest, torchrun's per-node script). Returns
what to tell the user; nothing here exits."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuready.errors import InputError
from gpuready.fleet.config import Destination, NodeJob
from gpuready.fleet.engines.command import ENGINES, NodeAnswer

Say = Callable[[str], None]


@dataclass(frozen=True)
class Launch:
    """What ``fleet run`` did: the fleet run id, files written, and each node's answer where the engine waited."""

    fleet_id: str
    written: tuple[Path, ...] = ()
    answers: tuple[NodeAnswer, ...] = ()
    submitted: tuple[str, ...] = ()
    """Engine job ids of work still running (Slurm)."""


def _need(options: Mapping[str, Any], name: str, field: str, engine: str) -> Any:
    value = options.get(name)
    if value in (None, "", ()):
        raise InputError(f"the {engine} engine needs this", field=field)
    return value


def _pairs(values: tuple[str, ...], field: str) -> tuple[tuple[str, str], ...]:
    found = []
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise InputError(f"expected KEY=VALUE; got {value!r}", field=field)
        found.append((key, rest))
    return tuple(found)


def engine_config(engine: str, options: Mapping[str, Any]) -> Any:
    """The engine's typed configuration from ``fleet run``'s options (None values are the defaults)."""
    from gpuready.fleet.engines.kubernetes import KubernetesConfig
    from gpuready.fleet.engines.ray_engine import RayConfig
    from gpuready.fleet.engines.slurm import SlurmConfig
    from gpuready.fleet.engines.torchrun import TorchrunConfig

    given = {k: v for k, v in options.items() if v not in (None, ())}
    keys: tuple[str, ...]
    if engine == "slurm":
        keys = ("partition", "account", "time_min", "gpus_per_node", "cpus_per_task", "container_image",
                "container_mounts", "array", "log_folder", "python", "node_timeout_s")
        return SlurmConfig(nodes=_need(options, "nodes", "nodes", engine), **{k: given[k] for k in keys if k in given})
    if engine == "ray":
        keys = ("address", "gpus_per_task", "cpus_per_task", "node_timeout_s")
        return RayConfig(**{k: given[k] for k in keys if k in given})
    if engine == "kubernetes":
        keys = ("nodes", "vendor", "gpus_per_node", "namespace", "name", "tolerations", "store_secret", "volume",
                "claim", "python")
        extra: dict[str, Any] = {"kind": "daemonset" if options.get("daemonset") else "job",
                 "node_selector": _pairs(tuple(options.get("node_selector") or ()), "node_selector")}
        return KubernetesConfig(image=_need(options, "image", "image", engine), **extra,
                                **{k: given[k] for k in keys if k in given})
    if engine == "torchrun":
        keys = ("nproc_per_node", "node_names")
        return TorchrunConfig(nnodes=_need(options, "nodes", "nodes", engine),
                              endpoint=_need(options, "endpoint", "endpoint", engine),
                              **{k: given[k] for k in keys if k in given})
    raise InputError(f"expected one of {', '.join(ENGINES)}; got {engine!r}", field="engine")


EXTRA = ("submitit", "ray", "kubernetes")
"""The engines' libraries: the optional extra ``gpuready[fleet]``."""


def start(engine: str, job: NodeJob, fleet_id: str, config: Any, destination: Destination, *,
          write: Path | None = None, apply: bool = False, sbatch_only: bool = False, say: Say) -> Launch:
    """Dispatch through the engine, or write what a person submits."""
    try:
        return _start(engine, job, fleet_id, config, destination, write, apply, sbatch_only, say)
    except ModuleNotFoundError as error:
        if error.name not in EXTRA:
            raise
        raise InputError(f"this needs {error.name}: pip install 'gpuready[fleet]'", field="engine") from None


def _start(engine: str, job: NodeJob, fleet_id: str, config: Any, destination: Destination, write: Path | None,
           apply: bool, sbatch_only: bool, say: Say) -> Launch:
    if engine == "kubernetes":
        from gpuready.fleet.engines import kubernetes

        if apply:
            say(f"created {config.kind} {kubernetes.apply(job, fleet_id, config, destination)}")
            return Launch(fleet_id)
        path = _need({"write": write}, "write", "write", "kubernetes (or --apply)")
        return Launch(fleet_id, (kubernetes.write_manifest(job, fleet_id, config, destination, path),))
    if engine == "torchrun":
        from gpuready.files import write_text
        from gpuready.fleet.engines import torchrun

        path = _need({"write": write}, "write", "write", "torchrun")
        write_text(path, torchrun.script(job, fleet_id, config, destination))
        return Launch(fleet_id, (path,))
    if engine == "slurm":
        from gpuready.fleet.engines import slurm

        if sbatch_only:
            path = _need({"write": write}, "write", "write", "slurm --sbatch-only")
            return Launch(fleet_id, (slurm.write_sbatch(job, fleet_id, config, destination, path),))
        jobs = slurm.submit(job, fleet_id, config, destination)
        return Launch(fleet_id, submitted=tuple(str(j.job_id) for j in jobs))
    from gpuready.fleet.engines import ray_engine

    return Launch(fleet_id, answers=tuple(ray_engine.dispatch(job, fleet_id, config, destination, say=say)))


def report_hint(destination: Destination, fleet_id: str) -> str:
    """How to get the fleet report once the nodes are done."""
    where = f"--store {destination.store_url}" if destination.store_url else f"--out {destination.folder}"
    return f"gpuready fleet report {fleet_id} {where}"
