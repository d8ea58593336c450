"""Ray: one task per alive node of the cluster (``ray.nodes()``), pinned there with ``NodeAffinitySchedulingStrategy``
(hard affinity: a task never runs on another node), each running ``gpuready fleet node`` as a child process with a
deadline, named after its Ray node. Nodes that cannot hold the task (too few CPUs or GPUs) are named and skipped,
never waited for."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpuready.errors import InputError
from gpuready.fleet.config import Destination, NodeJob
from gpuready.fleet.engines.command import NodeAnswer, node_command, run_node_process
from gpuready.fleet.tags import check_value


@dataclass(frozen=True)
class RayConfig:
    """How to reach the cluster and what each node's task reserves."""

    address: str = "auto"
    """``ray.init`` address (``auto``: the cluster this machine belongs to; ``ray://HOST:10001`` for Ray Client)."""
    cpus_per_task: float = 1
    gpus_per_task: float = 0
    """GPUs the task reserves on its node (the node job itself sees every GPU of the node)."""
    node_timeout_s: float = 3600

    def __post_init__(self) -> None:
        if not self.address.strip():
            raise InputError("expected a Ray address, or auto", field="address")
        for name in ("cpus_per_task", "gpus_per_task"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise InputError(f"expected a number 0 or more; got {value!r}", field=name)
        if not self.node_timeout_s > 0:
            raise InputError(f"expected seconds; got {self.node_timeout_s!r}", field="node_timeout_s")


@dataclass(frozen=True)
class RayNode:
    """An alive Ray node as the fleet names it."""

    node_id: str
    name: str
    fits: bool


def fleet_nodes(nodes: Sequence[dict[str, Any]], config: RayConfig) -> list[RayNode]:
    """The alive nodes of ``ray.nodes()``, named by their host name (with the node id's start when two share one, as
    several raylets on one machine do), and whether the task's reservation fits each."""
    alive = [n for n in nodes if n.get("Alive")]
    names = [str(n.get("NodeManagerHostname") or n.get("NodeName") or n["NodeID"][:12]) for n in alive]
    found = []
    for node, name in zip(alive, names, strict=True):
        if names.count(name) > 1:
            name = f"{name}-{node['NodeID'][:8]}"
        resources = node.get("Resources", {})
        fits = resources.get("CPU", 0) >= config.cpus_per_task and resources.get("GPU", 0) >= config.gpus_per_task
        found.append(RayNode(node["NodeID"], check_value("node", name), fits))
    return found


def _node_task(command: list[str], node: str, job_id: str, timeout_s: float) -> NodeAnswer:
    import ray

    answer = run_node_process([sys.executable, *command], node, job_id, timeout_s)
    return dataclasses.replace(answer, ran_on=ray.get_runtime_context().get_node_id())


def dispatch(job: NodeJob, fleet_id: str, config: RayConfig, destination: Destination, *,
             say: Callable[[str], None] | None = None) -> list[NodeAnswer]:
    """Run ``job`` once on every alive node and wait for all; returns each node's answer."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    say = say or (lambda _: None)
    check_value("fleet_run", fleet_id)
    if not ray.is_initialized():
        ray.init(address=config.address, log_to_driver=False)
    ray_job = ray.get_runtime_context().get_job_id()
    task = ray.remote(num_cpus=config.cpus_per_task, num_gpus=config.gpus_per_task, max_retries=0)(_node_task)
    pending = []
    for node in fleet_nodes(ray.nodes(), config):
        if not node.fits:
            say(f"{node.name}: skipped (fewer than {config.cpus_per_task:g} CPUs or {config.gpus_per_task:g} GPUs)")
            continue
        job_id = f"ray-{ray_job}-{node.node_id[:12]}"
        command = node_command(job, fleet_id, destination, "ray", python=(), node=node.name, job_id=job_id)
        strategy = NodeAffinitySchedulingStrategy(node_id=node.node_id, soft=False)
        pending.append(task.options(scheduling_strategy=strategy).remote(command, node.name, job_id,
                                                                          config.node_timeout_s))
    return list(ray.get(pending))
