"""Ray: a real local cluster of three raylets on this machine (one CPU each), the node job pinned to every node by
node affinity, one tagged Run set per node in the folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuready.errors import InputError
from gpuready.fleet.config import Destination, NodeJob
from gpuready.fleet.engines.ray_engine import RayConfig, fleet_nodes
from gpuready.fleet.tags import placement_of
from gpuready.store.files import read_run_file

CHEAP = NodeJob(check_suite="quick", only=("torch.device.enumerate",), micro=(), device="cpu")


def test_nodes_are_named_uniquely_and_judged_for_fit() -> None:
    nodes = [{"NodeID": "a" * 56, "Alive": True, "NodeManagerHostname": "gpu01", "Resources": {"CPU": 8, "GPU": 8}},
             {"NodeID": "b" * 56, "Alive": True, "NodeManagerHostname": "box", "Resources": {"CPU": 1}},
             {"NodeID": "c" * 56, "Alive": True, "NodeManagerHostname": "box", "Resources": {"CPU": 4, "GPU": 8}},
             {"NodeID": "d" * 56, "Alive": False, "NodeManagerHostname": "gone", "Resources": {"CPU": 8}}]
    found = fleet_nodes(nodes, RayConfig(gpus_per_task=8))
    assert [(n.name, n.fits) for n in found] == [("gpu01", True), ("box-bbbbbbbb", False), ("box-cccccccc", True)]


@pytest.mark.parametrize(("changes", "field"), [({"address": " "}, "address"), ({"cpus_per_task": -1}, "cpus_per_task"),
                                                ({"node_timeout_s": 0}, "node_timeout_s")])
def test_bad_values_name_their_field(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as raised:
        RayConfig(**changes)
    assert raised.value.field == field


@pytest.fixture
def cluster() -> Iterator[Any]:
    pytest.importorskip("ray")
    import ray
    from ray.cluster_utils import Cluster

    local = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        for _ in range(2):
            local.add_node(num_cpus=1)
        ray.init(address=local.address, log_to_driver=False)
        local.wait_for_nodes()
        yield local
    finally:
        ray.shutdown()
        local.shutdown()


@pytest.mark.torch
def test_local_three_node_cluster_runs_the_node_job_on_every_node(cluster: Any, tmp_path: Path) -> None:
    import ray

    from gpuready.fleet.engines.ray_engine import dispatch

    answers = dispatch(CHEAP, "fray1", RayConfig(node_timeout_s=240), Destination(folder=tmp_path))
    alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert len(alive) == 3 and {a.ran_on for a in answers} == alive  # each task ran on its own node
    assert all(a.returncode in (0, 1) for a in answers), answers  # 1: findings (no GPU on this VM)
    runs: dict[str, set[str]] = {}
    for path in (tmp_path / "fray1").rglob("*.json"):
        run = read_run_file(path)
        placement = placement_of(run.tags)
        assert placement is not None and placement.engine == "ray" and placement.job.startswith("ray-")
        assert path.parent.name == placement.node
        runs.setdefault(placement.node, set()).add(run.kind.value)
    assert set(runs) == {a.node for a in answers} and len(runs) == 3
    assert all(kinds == {"doctor", "check"} for kinds in runs.values())
