"""``gpuready bench --framework jax`` on the CPU (built-ins and a factory), ``compare`` of a JAX and a torch run of
the same transformer size, and the JAX audit of planted step problems (#17)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import gpuready
from gpuready.cli import main
from gpuready.model import Fingerprint
from gpuready.model.config import AuditConfig, BenchConfig
from gpuready.placement.jax_audit import audit_jax
from tests.cli.test_env_cli import SCHEMA

pytestmark = pytest.mark.jax
STEPS = Path(__file__).parents[1] / "fixtures" / "jax-models" / "steps.py"


def _bench(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, *argv: str) -> dict[str, Any]:
    out = tmp_path / f"{name}.json"
    code = main(["bench", *argv, "--device", "cpu", "--no-save", "-o", str(out)])
    _, err = capsys.readouterr()
    assert code == 0, err
    data: dict[str, Any] = json.loads(out.read_text())
    jsonschema.validate(data, SCHEMA)
    return data


def _metric(data: dict[str, Any], metric: str, batch: int | None = None) -> dict[str, Any]:
    return next(m for m in data["measurements"] if m["metric"] == metric and (
        batch is None or m["settings"].get("batch_size") == batch))


@pytest.mark.torch
def test_a_jax_and_a_torch_run_of_one_transformer_size_are_compared(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    jax_run = _bench(tmp_path, capsys, "jax", "transformer", "--framework", "jax", "--steps", "3", "--warmup", "1",
                     "--batch-size", "4,8", "--micro", "gemm")
    torch_run = _bench(tmp_path, capsys, "torch", "transformer", "--steps", "3", "--warmup", "1", "--batch-size", "8")
    tokens = _metric(jax_run, "tokens_per_s", 8)
    assert tokens["settings"]["framework"] == "jax" and tokens["settings"]["compile"] is True
    same = ("workload", "size", "sequence", "model_config", "mode", "precision", "batch_size")
    assert {k: tokens["settings"][k] for k in same} == {k: _metric(torch_run, "tokens_per_s")["settings"][k]
                                                         for k in same}
    assert tokens["annotations"]["flops_source"] == "XLA cost analysis of the compiled step"
    assert _metric(jax_run, "achieved_tflops", 8)["summary"]["median"] > 0
    assert _metric(jax_run, "compile_time", 8)["samples"][0] > 0
    assert _metric(jax_run, "gemm_tflops_bf16")["settings"]["framework"] == "jax"
    assert "framework:jax" in jax_run["tags"]

    code = main(["compare", str(tmp_path / "torch.json"), str(tmp_path / "jax.json"), "--json"])
    comparison = json.loads(capsys.readouterr().out)
    assert code == 0
    [pairing] = comparison["pairings"]
    rows = {(row["metric"], row["alignment"]): row for row in pairing["metrics"]}
    aligned = rows[("tokens_per_s", "torch vs jax")]
    assert aligned["settings"]["framework"] == "torch vs jax" and aligned["settings"]["batch_size"] == 8
    assert {("step_time", "torch vs jax"), ("peak_memory", "torch vs jax")} <= rows.keys()
    assert "(torch vs jax)" in pairing["conclusion"]
    assert any("batch_size=4" in line and "on " in line for line in pairing["unmatched"])


def test_a_jax_factory_with_a_sweep_and_the_largest_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"{STEPS}:linear"
    data = _bench(tmp_path, capsys, "factory", spec, "--framework", "jax", "--steps", "3", "--warmup", "1",
                  "--batch-size", "8,16")
    step = _metric(data, "samples_per_s", 16)
    assert step["workload"] == spec and len(step["settings"]["source_hash"]) == 16
    assert _metric(data, "samples_per_s", 8)["summary"]["median"] > 0
    run = gpuready.bench(BenchConfig(spec, framework="jax", steps=2, warmup=1, find_max_batch=True, max_batch_limit=4,
                                     device="cpu"), fingerprint_machine=False)
    [best] = [m for m in run.measurements if m.metric == "max_batch"]
    assert best.summary.median == 4 and best.annotations["reached_limit"] is True
    assert main(["bench", f"{STEPS}:callback", "--framework", "jax", "--batch-size", "8", "--no-save"]) == 2
    assert "takes no batch_size argument" in capsys.readouterr().err
    assert main(["bench", "cnn", "--framework", "jax", "--no-save"]) == 2
    assert "there is no JAX cnn built in" in capsys.readouterr().err


@pytest.mark.parametrize(("model", "codes", "line"), [
    ("host_transfer", ["audit.jax_host_transfer", "audit.jax_host_transfer"], 43),
    ("callback", ["audit.jax_host_callback"], 55),
    ("traced_numpy", ["audit.jax_traced_to_numpy"], 65),
    ("recompiles", ["audit.jax_recompile"], None),
])
def test_planted_step_problems_are_found_at_their_line(model: str, codes: list[str], line: int | None) -> None:
    findings, result = audit_jax(Fingerprint(), AuditConfig(model=f"{STEPS}:{model}", framework="jax"))
    found = [f for f in findings if f.code != "audit.jax_no_gpu"]
    assert sorted(f.code for f in found) == codes, result.details
    if line is not None:
        assert found[0].location == f"{STEPS}:{line}"
    if model == "host_transfer":
        assert {f.evidence["kind"] for f in found} == {"float()", "jax.device_get"}
        assert all("every step" in f.message for f in found)
    if model == "recompiles":
        assert found[0].evidence["steps"] == "1, 2" and "float32[17,8]" in found[0].evidence["programs"]


def test_a_clean_factory_audits_clean_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "--framework", "jax", "--model", f"{STEPS}:linear", "--json", "--no-save"])
    run = json.loads(capsys.readouterr().out)
    assert code == 0 and run["outcome"]["verdict"] == "CLEAN"
    assert [f["code"] for f in run["findings"]] == ["audit.jax_no_gpu"]
    assert run["results"][0]["details"]["jitted"] is True
