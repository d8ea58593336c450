"""`gpuready bench` on the CPU backend: every workload and micro-benchmark runs; FLOPs match a known model."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from gpuready.cli import main
from tests.cli.test_env_cli import SCHEMA

pytestmark = pytest.mark.torch


def test_flops_of_a_model_whose_flops_are_known() -> None:
    import torch

    from gpuready.benchmark.harness import count_flops

    layer = torch.nn.Linear(64, 32, bias=False)
    x = torch.randn(16, 64)
    assert count_flops(torch, lambda: layer(x)) == 2 * 16 * 64 * 32
    trained = torch.randn(16, 64, requires_grad=True)
    # forward (2BIO) + grad of the input (2BIO) + grad of the weight (2BIO)
    assert count_flops(torch, lambda: layer(trained).sum().backward()) == 6 * 16 * 64 * 32


@pytest.mark.parametrize("workload", ["mlp", "cnn", "transformer"])
def test_every_workload_runs_and_reports(workload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.json"
    code = main(["bench", workload, "--steps", "3", "--warmup", "1", "--batch-size", "2,4", "-o", str(out),
                 "--target", "samples_per_s>=1"])
    capsys.readouterr()
    assert code == 0
    data = json.loads(out.read_text())
    jsonschema.validate(data, SCHEMA)
    metrics = {(m["metric"], m["settings"].get("batch_size")) for m in data["measurements"]}
    assert {("step_time", 2), ("step_time", 4), ("samples_per_s", 4), ("achieved_tflops", 4)} <= metrics
    step = next(m for m in data["measurements"] if m["metric"] == "step_time")
    assert len(step["samples"]) == 3 and step["summary"]["median"] > 0


def test_micro_benchmarks_and_modes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.json"
    code = main(["bench", "mlp", "--mode", "infer", "--precision", "bf16", "--steps", "3", "--warmup", "1",
                 "--dataloader-workers", "1", "--micro", "gemm,copy,allreduce", "--find-max-batch", "-o", str(out)])
    capsys.readouterr()
    assert code == 0
    metrics = {m["metric"] for m in json.loads(out.read_text())["measurements"]}
    assert {"gemm_tflops_fp32", "gemm_tflops_bf16", "copy_gbps", "max_batch", "data_time_share"} <= metrics
    assert any(m.startswith("allreduce_busbw_gbps_") for m in metrics)


def test_a_missed_target_fails_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "mlp", "--steps", "2", "--warmup", "1", "--target", "samples_per_s>=1e12"])
    assert code == 1
    assert "MISSED" in capsys.readouterr().out
    assert main(["bench", "mlp", "--micro", "warp"]) == 2


@pytest.mark.parametrize("family", ["llama", "gpt2"])
def test_hugging_face_architectures_from_config(family: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("transformers")
    out = tmp_path / "run.json"
    assert main(["bench", "--hf", family, "--steps", "2", "--warmup", "1", "--batch-size", "2", "-o", str(out)]) == 0
    capsys.readouterr()
    measurements = json.loads(out.read_text())["measurements"]
    tokens = next(m for m in measurements if m["metric"] == "tokens_per_s")
    assert tokens["workload"] == tokens["settings"]["workload"] == f"hf:{family}"
    assert tokens["settings"]["size"] == "tiny" and tokens["settings"]["model_config"]
    assert main(["bench", "--hf", "bert"]) == 2
