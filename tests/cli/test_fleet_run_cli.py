"""``gpuready fleet run``: the files each engine writes, the fleet run id and the report line, and bad options as
exit 2 with one line naming the option."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gpuready.cli import main


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(["fleet", "run", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_slurm_sbatch_only_writes_the_script_and_names_the_report(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path) -> None:
    script = tmp_path / "fleet.sbatch"
    code, out, err = _run(capsys, ["--engine", "slurm", "--sbatch-only", "--nodes", "8", "--partition", "mi300x",
                                   "--time", "30", "--gpus-per-node", "8", "--write", str(script), "--out",
                                   "/shared/runs", "--fleet-run", "nightly-1", "--micro", "gemm,allreduce"])
    assert code == 0, err
    assert out.splitlines() == ["fleet run nightly-1", "report: gpuready fleet report nightly-1 --out /shared/runs"]
    text = script.read_text(encoding="utf-8")
    assert "#SBATCH --nodes=8" in text and "#SBATCH --partition=mi300x" in text and "#SBATCH --time=30" in text
    assert "--micro gemm,allreduce" in text and "--fleet-run nightly-1 --engine slurm" in text


def test_kubernetes_writes_a_manifest_with_a_new_fleet_id(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("kubernetes")
    manifest = tmp_path / "job.yaml"
    code, out, err = _run(capsys, ["--engine", "kubernetes", "--image", "rocm/pytorch:latest", "--nodes", "3",
                                   "--vendor", "nvidia", "--gpus-per-node", "4", "--store-secret", "db/url",
                                   "--toleration", "nvidia.com/gpu:NoSchedule", "--write", str(manifest)])
    assert code == 0, err
    fleet_id = out.splitlines()[0].removeprefix("fleet run ")
    assert out.splitlines()[1] == f"report: gpuready fleet report {fleet_id} --store URL"
    data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    assert (data["kind"], data["spec"]["completions"]) == ("Job", 3)
    container = data["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "4"}
    assert container["args"][container["args"].index("--fleet-run") + 1] == fleet_id


def test_torchrun_writes_the_per_node_script(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = tmp_path / "collectives.sh"
    code, _, err = _run(capsys, ["--engine", "torchrun", "--nodes", "2", "--endpoint", "node0:29400", "--node-name",
                                 "node0", "--node-name", "node1", "--write", str(script), "--out", "/shared"])
    assert code == 0, err
    text = script.read_text(encoding="utf-8")
    assert "--rdzv-backend c10d --rdzv-endpoint node0:29400" in text and "GPUREADY_NODE=node1" in text


@pytest.mark.parametrize(("argv", "expected"), [
    (["--engine", "slurm", "--sbatch-only", "--write", "x.sbatch", "--out", "o"], "--nodes: the slurm engine needs"),
    (["--engine", "slurm", "--sbatch-only", "--nodes", "2", "--out", "o"], "--write:"),
    (["--engine", "slurm", "--sbatch-only", "--nodes", "2", "--write", "x"], "--out/--store:"),
    (["--engine", "slurm", "--sbatch-only", "--nodes", "2", "--write", "x", "--out", "o", "--partition", "a b"],
     "--partition:"),
    (["--engine", "slurm", "--nodes", "2", "--out", "o", "--fleet-run", "bad id"], "--fleet-run:"),
    (["--engine", "kubernetes", "--write", "x.yaml", "--out", "o"], "--image: the kubernetes engine needs"),
    (["--engine", "kubernetes", "--image", "i", "--write", "x.yaml", "--out", "o", "--node-selector", "novalue"],
     "--node-selector:"),
    (["--engine", "torchrun", "--nodes", "2", "--endpoint", "nohost", "--write", "x", "--out", "o"], "--endpoint:"),
    (["--engine", "torchrun", "--nodes", "2", "--endpoint", "h:1", "--node-name", "a", "--write", "x", "--out", "o"],
     "--node-name:"),
    (["--engine", "ray", "--out", "o", "--node-timeout", "0"], "--node-timeout:"),
    (["--engine", "slurm", "--nodes", "2", "--out", "o", "--micro", "nonsense"], "--micro:"),
    pytest.param(["--engine", "slurm", "--nodes", "2", "--out", "o"], "--engine: sbatch is not on PATH",
                 marks=pytest.mark.skipif(shutil.which("sbatch") is not None, reason="Slurm is here"))])
def test_bad_options_are_one_line_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch, argv: list[str], expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and expected in err, err
    assert list(tmp_path.iterdir()) == []  # nothing written, nothing submitted


def test_help_imports_no_engine() -> None:
    """The engines' libraries are imported only when an engine runs: start-up stays light."""
    code = ("import sys; from gpuready.cli import main; main(['fleet', 'run', '--help']); main(['--help']); "
            "print([m for m in ('ray', 'submitit', 'kubernetes', 'torch', 'gpuready.fleet.engines') "
            "if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
