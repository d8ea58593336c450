"""torchrun across "nodes": two node ranks started as two processes on this machine, c10d rendezvous, gloo; the
distributed checks and the all_reduce ceiling join torchrun's group, and the Runs record world size 2, 2 nodes and
the inter-node bus bandwidth judged against the link catalogue."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuready.errors import InputError
from gpuready.fleet.config import Destination, NodeJob
from gpuready.fleet.engines.torchrun import TorchrunConfig, collective_job, commands, script
from gpuready.fleet.tags import placement_of
from gpuready.isolation.launcher_group import launched
from gpuready.store.files import read_run_file
from tests.unit.fleet_engines.golden import assert_golden

SITE = TorchrunConfig(nnodes=4, endpoint="gpu001:29400", node_names=("gpu001", "gpu002", "gpu003", "gpu004"))


def test_command_lines_per_node_rank_golden() -> None:
    job = NodeJob(bench_steps=10, lock_file=Path("/etc/gpuready.lock"))
    lines = commands(job, "f0123456789a", SITE, Destination(store_url="postgresql://db.site/gpuready"))
    assert len(lines) == 4
    for rank, line in enumerate(lines):
        at = line.index("torchrun")
        assert line[:at] == ["env", f"GPUREADY_NODE=gpu00{rank + 1}", f"GPUREADY_JOB_ID=torchrun-f0123456789a-{rank}"]
        assert line[at:at + 15] == ["torchrun", "--nnodes", "4", "--node-rank", str(rank), "--nproc-per-node", "1",
                                    "--rdzv-backend", "c10d", "--rdzv-endpoint", "gpu001:29400", "--rdzv-id",
                                    "f0123456789a", "--max-restarts", "0"]
        assert "--lock" not in line and line[line.index("--suite") + 1] == "distributed"
    assert_golden("torchrun.sh", script(job, "f0123456789a", SITE, Destination(folder=Path("/shared/runs"))))


def test_collective_job_keeps_device_and_steps() -> None:
    job = collective_job(NodeJob(device="cuda", bench_steps=7, micro=("gemm",)))
    assert (job.check_suite, job.only, job.micro, job.device, job.bench_steps) == (
        "distributed", ("torch.distributed.*",), ("allreduce",), "cuda", 7)


@pytest.mark.parametrize(("changes", "field"), [({"nnodes": 0}, "nnodes"), ({"endpoint": "host"}, "endpoint"),
                                                ({"endpoint": "h:99999"}, "endpoint"),
                                                ({"node_names": ("a",)}, "node_names"),
                                                ({"nproc_per_node": 0}, "nproc_per_node")])
def test_bad_values_name_their_field(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as raised:
        TorchrunConfig(**{"nnodes": 2, "endpoint": "h:1", **changes})
    assert raised.value.field == field


def test_launcher_environment_is_read() -> None:
    env = {"RANK": "3", "WORLD_SIZE": "16", "LOCAL_WORLD_SIZE": "8", "GROUP_WORLD_SIZE": "2", "MASTER_ADDR": "a",
           "MASTER_PORT": "29500", "TORCHELASTIC_USE_AGENT_STORE": "True"}
    group = launched(env)
    assert group is not None and (group.rank, group.world, group.nodes, group.agent_store) == (3, 16, 2, True)
    assert launched({"RANK": "0"}) is None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.torch
def test_two_nodes_on_localhost_run_the_collectives_across_them(tmp_path: Path) -> None:
    from gpuready.fleet.engines.torchrun import launch_local

    config = TorchrunConfig(nnodes=2, endpoint=f"127.0.0.1:{_free_port()}", node_names=("n0", "n1"),
                            launcher=(sys.executable, "-m", "torch.distributed.run"))
    answers = launch_local(NodeJob(device="cpu", bench_steps=3), "ftorchrun1", config, Destination(folder=tmp_path),
                           timeout_s=600)
    assert all(a.returncode in (0, 1) for a in answers), answers  # 1: findings (no GPU on this VM)
    seen: dict[str, set[str]] = {}
    for path in (tmp_path / "ftorchrun1").rglob("*.json"):
        run = read_run_file(path)
        placement = placement_of(run.tags)
        assert placement is not None and placement.engine == "torchrun"
        seen.setdefault(placement.node, set()).add(run.kind.value)
        if run.kind.value == "check":
            ids = {r.check_id: r for r in run.results}
            assert set(ids) == {"torch.distributed.collectives", "torch.distributed.ddp"}
            for result in ids.values():
                assert result.status.value == "pass", result.details
                assert (result.details["launcher"], result.details["world_size"], result.details["nodes"]) == (
                    "torchrun", 2, 2)
        if run.kind.value == "bench":
            busbw = [m for m in run.measurements if m.metric.startswith("allreduce_busbw_gbps_")]
            assert busbw and all((m.settings["world_size"], m.settings["nodes"]) == (2, 2) for m in busbw)
            assert all(m.summary.median > 0 for m in busbw)
            judged = [f for f in run.findings if f.code.startswith("bench.allreduce_internode")]
            assert len(judged) == 1 and judged[0].evidence["nodes"] == "2"
    assert seen == {"n0": {"doctor", "check", "bench"}, "n1": {"doctor", "check", "bench"}}
