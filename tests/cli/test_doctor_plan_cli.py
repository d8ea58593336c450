"""``gpuready doctor``, ``plan`` and ``data validate`` end to end."""

from __future__ import annotations

import json

import jsonschema
import pytest

from gpuready.cli import main
from gpuready.model import Run
from tests.cli.test_env_cli import SCHEMA, run_cli
from tests.fixture_kinds import FIXTURES


def test_doctor_on_this_cpu_machine_is_not_ready(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "doctor", "--no-frameworks")
    assert code == 1
    assert out.startswith("NOT READY")
    assert "gpu.none" in out


def test_doctor_json_is_a_run_with_findings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "doctor", "--no-frameworks", "--json")
    assert code == 1
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    run = Run.from_dict(data)
    assert run.kind.value == "doctor" and run.outcome.verdict.value == "NOT READY"
    assert any(f.code == "gpu.none" and f.remedy for f in run.findings)


def test_doctor_from_a_report_with_an_unsupported_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    report = FIXTURES / "collect-env/cuda12.6-rtx5090d-sm120-unsupported-torch2.6.txt"
    code, out, _ = run_cli(capsys, "doctor", "--from", str(report))
    assert code == 1
    assert "torch.arch_not_in_wheel" in out
    assert "pip install torch==" in out and "cu12" in out


def test_doctor_from_a_working_report_is_not_ready_only_for_real_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    report = FIXTURES / "collect-env/rocm7.13-mi300x-gfx942-torch2.9.1.txt"
    code, out, _ = run_cli(capsys, "doctor", "--from", str(report), "--strict")
    assert "BLOCKER" not in out
    assert out.startswith(("READY", "READY WITH WARNINGS"))


def test_plan_for_amd_and_nvidia(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "plan", "--gpu", "mi300x", "--os", "Ubuntu 24.04", "--json")
    assert code == 0
    plan = json.loads(out)
    assert plan["arch"] == "gfx942" and plan["releases"]
    assert all(r["name"] == "ROCm" for r in plan["releases"])
    assert plan["wheels"] and "--index-url https://download.pytorch.org/whl/rocm" in plan["wheels"][0]["install"]
    assert plan["hardware"]["peak_tflops"]["bf16"] == 1307.4 and plan["hardware"]["confirmed"] is True
    assert plan["hardware"]["memory_bandwidth_gbps"] == 5300 and "rocm" in plan["hardware"]["source"].lower()
    code, out, _ = run_cli(capsys, "plan", "--gpu", "rtx 4090")
    assert code == 0 and "sm_89" in out and "cu1" in out
    code, out, _ = run_cli(capsys, "plan", "--gpu", "mi300x")
    assert "192 GiB, 5300 GB/s; dense peak TFLOP/s (int8 TOPS): fp64 163.4" in " ".join(out.split())
    assert "which the OS sees as" not in out
    code, out, _ = run_cli(capsys, "plan", "--gpu", "mi250x")
    assert "per board, which the OS sees as 2 devices" in " ".join(out.split())


def test_plan_unknown_gpu_says_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "plan", "--gpu", "mi300")
    assert code == 2
    assert "did you mean" in err and "MI300" in err
    code, _, err = run_cli(capsys, "plan", "--gpu", "mi300x", "--os", "Plan 9")
    assert code == 2 and "--os" in err


def test_data_validate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "data", "validate", "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["gpus"] >= 60 and summary["rocm_releases"] >= 20


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("env", "doctor", "plan", "data"):
        assert command in out


def test_plan_for_jax_and_a_pinned_rocm(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "plan", "--gpu", "Instinct MI300X", "--framework", "jax", "--json")
    assert code == 0
    plan = json.loads(out)
    assert "with JAX" in plan["recommendation"] and "jax-rocm" in plan["recommendation"]
    code, out, _ = run_cli(capsys, "plan", "--gpu", "mi300x", "--rocm", "6.2", "--json")
    assert code == 0
    assert {r["version"][:3] for r in json.loads(out)["releases"]} == {"6.2"}
    code, _, err = run_cli(capsys, "plan", "--gpu", "rtx 4090", "--rocm", "6.2")
    assert code == 2 and "AMD GPUs" in err


def test_check_list_and_unknown_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "check", "--list", "--suite", "full")
    assert code == 0 and "torch.ops.matmul" in out and "torch.compile.equivalence" in out
    code, _, err = run_cli(capsys, "check", "--only", "torch.opps.*")
    assert code == 2 and "matches no check" in err
