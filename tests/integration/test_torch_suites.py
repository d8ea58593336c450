"""The real suites on the CPU backend, isolated, end to end through the CLI (needs torch; the quick suite runs
JAX's quick checks too when JAX is installed, tests/integration/test_jax_checks.py runs all of them)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from gpuready.cli import main
from gpuready.model import CheckStatus, Run
from tests.cli.test_env_cli import SCHEMA

pytestmark = pytest.mark.torch


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Run, str]:
    out = tmp_path / "run.json"
    code = main(["check", *argv, "-o", str(out), "--junit", str(tmp_path / "junit.xml")])
    _, err = capsys.readouterr()
    data = json.loads(out.read_text())
    jsonschema.validate(data, SCHEMA)
    return code, Run.from_dict(data), err


def _problems(run: Run) -> list[str]:
    return [f"{r.check_id}: {r.status.value} {r.details.get('reason', '')}" for r in run.results
            if r.status not in (CheckStatus.PASS, CheckStatus.SKIP)]


def test_quick_suite_passes_on_the_cpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, run, err = _run(tmp_path, capsys, "--suite", "quick", "--device", "cpu")
    assert code == 0, _problems(run)
    assert len(run.results) >= 12 and all(r.device == "cpu" or r.check_id.startswith("jax") for r in run.results)
    assert "PASS    torch.ops.matmul" in err
    if any(r.check_id.startswith("jax.") for r in run.results):  # JAX joins the default suite when installed
        assert "PASS    jax.checkpoint.roundtrip" in err
    assert run.fingerprint is not None and run.fingerprint.framework("torch") is not None
    assert (tmp_path / "junit.xml").read_text().count("<testcase") == len(run.results)
    matmul = next(r for r in run.results if r.check_id == "torch.ops.matmul")
    assert matmul.metrics["matmul.float64.rel_err"] < 1e-12 and matmul.metrics["matmul.bfloat16.rel_err"] > 0


def test_full_suite_passes_on_the_cpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, run, _ = _run(tmp_path, capsys, "--suite", "full", "--device", "cpu", "--framework", "torch")
    assert code == 0, _problems(run)
    ids = {r.check_id for r in run.results}
    assert {"torch.ops.fft", "torch.compile.equivalence", "torch.ops.fp8_matmul"} <= ids
    fp8 = next(r for r in run.results if r.check_id == "torch.ops.fp8_matmul")
    assert fp8.status is CheckStatus.SKIP and "needs a GPU" in fp8.details["reason"]


def test_distributed_suite_passes_with_gloo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, run, _ = _run(tmp_path, capsys, "--suite", "distributed", "--device", "cpu", "--framework", "torch")
    assert code == 0, _problems(run)
    collectives = next(r for r in run.results if r.check_id == "torch.distributed.collectives")
    assert collectives.metrics["ops_ok"] >= 50
    assert collectives.details["backend"] == "gloo"


def test_a_failing_check_sets_the_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, run, _ = _run(tmp_path, capsys, "--only", "torch.ops.matmul", "--device", "cuda:3")
    assert code == 1
    assert run.results[0].status is CheckStatus.FAIL
    assert "torch.cuda.is_available() is False" in run.results[0].details["reason"]


def test_collectives_under_torchrun(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    outputs = [tmp_path / f"rank{r}.json" for r in range(2)]
    script = ("import os, sys; from gpuready.cli import main; "
              "sys.exit(main(['check', '--suite', 'distributed', '--only', 'torch.distributed.collectives', "
              f"'--device', 'cpu', '-o', '{tmp_path}/rank' + os.environ['RANK'] + '.json']))")
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
                           "--master_port", str(port), "--no-python", sys.executable, "-c", script],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    for output in outputs:
        result = Run.from_dict(json.loads(output.read_text())).results[0]
        assert result.status is CheckStatus.PASS and result.details["launcher"] == "torchrun"
