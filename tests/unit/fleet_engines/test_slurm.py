"""Slurm: the sbatch script and submitit's parameters a site gets (golden files), validation by field, and the
launch path for real through submitit's local executor (and through Slurm where ``sbatch`` exists)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gpuready.errors import InputError
from gpuready.fleet.config import Destination, NodeJob
from gpuready.fleet.engines.slurm import SlurmConfig, sbatch_script, submitit_parameters, write_sbatch
from gpuready.fleet.tags import placement_of
from gpuready.store.files import read_run_file
from tests.unit.fleet_engines.golden import assert_golden

JOB = NodeJob(check_suite="quick", workloads=("transformer",), micro=("gemm", "allreduce"), bench_steps=30)
SITE = SlurmConfig(nodes=64, partition="mi300x", account="ml-infra", time_min=90, gpus_per_node=8, cpus_per_task=32,
                   container_image="rocm/pytorch:latest", container_mounts=("/scratch:/scratch",),
                   log_folder=Path("/scratch/gpuready/logs"))
CHEAP = NodeJob(check_suite="quick", only=("torch.device.enumerate",), micro=(), device="cpu")


def test_sbatch_script_golden(tmp_path: Path) -> None:
    path = write_sbatch(JOB, "f0123456789a", SITE, Destination(folder=Path("/scratch/gpuready/runs")),
                        tmp_path / "fleet.sbatch")
    text = path.read_text(encoding="utf-8")
    assert_golden("fleet.sbatch", text)
    assert "#SBATCH --nodes=64\n#SBATCH --ntasks-per-node=1\n" in text
    assert "srun --ntasks-per-node=1 --kill-on-bad-exit=0 --container-image=rocm/pytorch:latest" in text
    assert "gpuready fleet node --suite quick --workload transformer --micro gemm,allreduce" in text
    assert "--engine slurm --out /scratch/gpuready/runs" in text


def test_sbatch_array_golden() -> None:
    config = SlurmConfig(nodes=8, partition="gpu", array=True)
    text = sbatch_script(JOB, "nightly-3", config, Destination(store_url="postgresql://db.site/gpuready"))
    assert_golden("fleet-array.sbatch", text)
    assert "#SBATCH --array=0-7\n#SBATCH --nodes=1\n#SBATCH --exclusive\n" in text


def test_submitit_parameters_golden() -> None:
    found = {"slurm": submitit_parameters(SITE), "slurm_array": submitit_parameters(
        SlurmConfig(nodes=8, partition="gpu", array=True)), "local": submitit_parameters(SITE, "local")}
    assert_golden("submitit-parameters.json", json.dumps(found, indent=1, sort_keys=True) + "\n")
    assert (found["slurm"]["nodes"], found["slurm"]["tasks_per_node"]) == (64, 1)


def test_submitit_accepts_the_parameters_and_submits_this_script(tmp_path: Path) -> None:
    """Every name is one submitit knows, and the script submitit's Slurm executor would submit is golden too."""
    submitit = pytest.importorskip("submitit")
    from submitit.slurm import slurm

    executor = submitit.AutoExecutor(folder=str(tmp_path), cluster="local")
    executor.update_parameters(**submitit_parameters(SITE, "local"))
    generic = submitit.AutoExecutor._valid_parameters()
    parameters = submitit_parameters(SITE)
    assert {k.removeprefix("slurm_") for k in parameters if k not in generic} <= slurm.SlurmExecutor._valid_parameters()
    names = slurm.SlurmExecutor._equivalence_dict()
    converted = {names.get(k, k.removeprefix("slurm_")): v for k, v in parameters.items()}
    script = slurm._make_sbatch_string(command="python -u -m submitit.core._submit /scratch/gpuready/logs",
                                       folder="/scratch/gpuready/logs", **converted)
    assert_golden("submitit-slurm.sbatch", script)
    assert "#SBATCH --nodes=64\n#SBATCH --ntasks-per-node=1\n" in script


@pytest.mark.parametrize(("changes", "field"), [
    ({"nodes": 0}, "nodes"), ({"time_min": 0}, "time_min"), ({"partition": "a b"}, "partition"),
    ({"account": "x;rm"}, "account"), ({"container_mounts": ("nocolon",)}, "container_mounts"),
    ({"gpus_per_node": -2}, "gpus_per_node"), ({"node_timeout_s": -1}, "node_timeout_s")])
def test_bad_values_name_their_field(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as raised:
        SlurmConfig(**{"nodes": 2, **changes})
    assert raised.value.field == field


def _placements(folder: Path, fleet: str) -> dict[str, set[str]]:
    kinds: dict[str, set[str]] = {}
    for path in sorted((folder / fleet).rglob("*.json")):
        run = read_run_file(path)
        placement = placement_of(run.tags)
        assert placement is not None and placement.engine == "slurm" and placement.fleet == fleet
        assert placement.job
        kinds.setdefault(placement.node, set()).add(run.kind.value)
    return kinds


@pytest.mark.torch
def test_submitit_local_executor_runs_the_node_job_per_task(tmp_path: Path) -> None:
    pytest.importorskip("submitit")
    from gpuready.fleet.engines.slurm import submit

    config = SlurmConfig(nodes=2, log_folder=tmp_path / "logs", node_timeout_s=240)
    jobs = submit(CHEAP, "fslurm1", config, Destination(folder=tmp_path / "runs"), cluster="local")
    answers = [answer for job in jobs for answer in job.results()]
    assert all(a.returncode in (0, 1) for a in answers), answers  # 1: findings (this VM has no GPU)
    nodes = _placements(tmp_path / "runs", "fslurm1")
    assert len(nodes) == 2 and {a.node for a in answers} == set(nodes)
    assert all(kinds == {"doctor", "check"} for kinds in nodes.values())


@pytest.mark.torch
@pytest.mark.skipif(shutil.which("sbatch") is None, reason="no Slurm here (sbatch not found)")
def test_real_slurm_one_node(tmp_path: Path) -> None:  # pragma: no cover - only where Slurm is
    pytest.importorskip("submitit")
    from gpuready.fleet.engines.slurm import submit

    config = SlurmConfig(nodes=1, time_min=20, log_folder=tmp_path / "logs", node_timeout_s=900)
    jobs = submit(CHEAP, "fslurm2", config, Destination(folder=tmp_path / "runs"), cluster="slurm")
    answers = [answer for job in jobs for answer in job.results()]
    assert answers and all(a.returncode in (0, 1) for a in answers)
    assert len(_placements(tmp_path / "runs", "fslurm2")) == 1
