"""``gpuready lock`` then ``gpuready verify`` on this machine's CPU: checks and a benchmark recorded, re-run, held."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuready.cli import main
from gpuready.pinning.lockfile import read_lock

pytest.importorskip("torch")


def test_lock_records_baselines_and_verify_re_runs_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The flow, not the speed: the threshold (a 10x slowdown, near the largest allowed) is far past what a loaded CI
    machine does to the re-run; that a real slowdown is caught is tested with recorded numbers (tests/unit/pinning)."""
    path = tmp_path / "gpuready.lock"
    code = main(["lock", "--checks", "quick", "--bench", "mlp", "--bench-steps", "15", "--device", "cpu",
                 "--threshold", "9", "--model", "mlp", "-o", str(path)])
    assert code == 0, capsys.readouterr().err
    lock = read_lock(path)
    assert lock.checks and all(status in ("pass", "skip") for status in lock.checks.values())
    assert lock.benches and any(m.metric == "step_time" and len(m.samples) >= 15 for m in lock.benches[0].baseline)
    capsys.readouterr()
    code = main(["verify", str(path), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert report["outcome"]["verdict"] == "VERIFIED"
    codes = [f["code"] for f in report["findings"]]
    assert {"verify.bench", "verify.bench_noisy"} & set(codes), "the benchmark was re-run and judged (or found noisy)"
    assert not any(code.startswith("verify.regressed") for code in codes)
