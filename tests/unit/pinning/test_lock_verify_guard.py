"""Lock files (round trip, corrupted or hand-edited ones), verify with injected re-runs, the runtime guard, diff."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuready.cli import main
from gpuready.guard import CurrentFacts, decide, select_device
from gpuready.model import CheckResult, CheckStatus, Device, Fact, RunKind, Vendor, make_run
from gpuready.pinning import ChangeKind
from gpuready.pinning.lockfile import Lock, LockedBench, Thresholds, pinned_requirements, read_lock, render_lock
from gpuready.pinning.verify import report_run, verify
from gpuready.probe.paste import read_fingerprint
from gpuready.store import render_run as render_json
from tests.unit.comparison.builders import bench_run, step_times

FIXTURES = Path(__file__).parents[2] / "fixtures" / "collect-env"
RECORDED = read_fingerprint(FIXTURES / "rocm6.4-wsl2-no-gpu-detected-torch2.8.txt", None)[1]
TORCH = next(f.version.value for f in RECORDED.frameworks if f.name == "torch")


def _lock(**changes: object) -> Lock:
    baseline = bench_run("AMD Radeon", step_times(0.1, 40, 0.01, seed=1)).measurements
    lock = Lock(RECORDED, {"torch": str(TORCH), "numpy": "2.1.0", "tqdm": "4.66.0"}, models=("resnet50",),
                check_suite="quick", checks={"torch.ops.matmul": "pass", "torch.ops.fft": "skip"},
                benches=(LockedBench({"workload": "transformer"}, baseline),), thresholds=Thresholds(0.05),
                tool_version="test")
    return dataclasses.replace(lock, **changes)  # type: ignore[arg-type]


def _checks(statuses: dict[str, CheckStatus]):  # type: ignore[no-untyped-def]
    return lambda ids, device: [CheckResult(i, statuses.get(i, CheckStatus.PASS)) for i in ids]


def _bench(median: float, seed: int = 2):  # type: ignore[no-untyped-def]
    return lambda options: bench_run("AMD Radeon", step_times(median, 40, 0.01, seed=seed)).measurements


def test_lock_round_trips_through_its_file(tmp_path: Path) -> None:
    lock = _lock()
    path = tmp_path / "gpuready.lock"
    path.write_text(render_lock(lock))
    assert read_lock(path) == lock
    text = path.read_text()
    assert text.index('"benches"') < text.index('"checks"') < text.index('"distributions"')  # sorted, diffable


def test_unchanged_environment_and_results_verify() -> None:
    lock = _lock()
    report = verify(lock, RECORDED, lock.distributions, _checks({}), _bench(0.1))
    assert report.ok and report.changes == () and len(report.benches) == 1
    assert report.likely_cause is None


def test_a_slower_run_after_a_torch_upgrade_blames_the_framework() -> None:
    lock = _lock()
    distributions = {**lock.distributions, "torch": "2.9.1+rocm6.4", "tqdm": "4.67.0"}
    report = verify(lock, RECORDED, distributions, _checks({}), _bench(0.115))
    assert not report.ok
    assert [b.verdict.regressed for b in report.benches] == [True]
    assert {c.kind for c in report.drift} == {ChangeKind.FRAMEWORK}
    cause = report.likely_cause
    assert cause is not None and cause.field == "package torch" and cause.after == "2.9.1+rocm6.4"


def test_a_check_that_stops_passing_is_a_regression() -> None:
    lock = _lock()
    report = verify(lock, RECORDED, lock.distributions, _checks({"torch.ops.matmul": CheckStatus.FAIL,
                                                                "torch.ops.fft": CheckStatus.FAIL}), None)
    assert report.check_regressions == (("torch.ops.matmul", "pass", "fail"),)  # fft was a skip: not held
    assert not report.ok


def test_other_packages_count_only_when_strict() -> None:
    lock = _lock()
    distributions = {**lock.distributions, "tqdm": "4.67.0"}
    assert verify(lock, RECORDED, distributions, None, None).ok
    strict = _lock(thresholds=Thresholds(0.05, strict_packages=True))
    assert not verify(strict, RECORDED, distributions, None, None).ok


def test_pinned_requirements_name_the_variant_index() -> None:
    text = pinned_requirements(_lock(distributions={"torch": "2.9.1+rocm6.4", "numpy": "2.1.0"}))
    assert "--extra-index-url https://download.pytorch.org/whl/rocm6.4" in text
    assert "torch==2.9.1+rocm6.4" in text and "numpy==2.1.0" in text


@pytest.mark.parametrize("edit, field", [
    (lambda d: d.update(schema_version=7), "$.schema_version"),
    (lambda d: d["thresholds"].update(slowdown="fast"), "$.thresholds.slowdown"),
    (lambda d: d["thresholds"].update(slowdown=-1), "$.thresholds.slowdown"),
    (lambda d: d.update(checks=["torch.ops.matmul"]), "$.checks"),
    (lambda d: d["fingerprint"].update(devices=[{"index": "zero"}]), "$.fingerprint.devices[0]"),
])
def test_hand_edited_lock_gives_exit_2_with_file_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           edit, field: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(render_lock(_lock()))
    edit(data)
    path = tmp_path / "edited.lock"
    path.write_text(json.dumps(data))
    assert main(["verify", str(path), "--no-rerun"]) == 2
    error = capsys.readouterr().err
    assert str(path) in error and field in error


def test_corrupted_or_missing_lock_gives_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "corrupt.lock"
    path.write_text('{"schema_version": 1, "fingerprint": ')
    assert main(["verify", str(path)]) == 2
    error = capsys.readouterr().err
    assert str(path) in error and "not valid JSON" in error and error.count("\n") == 1
    assert main(["verify", str(tmp_path / "absent.lock")]) == 2
    assert "gpuready lock" in capsys.readouterr().err


def _write_lock(tmp_path: Path, lock: Lock) -> Path:
    path = tmp_path / "gpuready.lock"
    path.write_text(render_lock(lock))
    return path


WITH_GPU = dataclasses.replace(RECORDED, devices=(Device(0, Vendor.AMD, Fact.of("AMD Radeon RX 7900 XTX")),))
"""The recorded fingerprint saw no GPU (its thread's problem); the guard's tests need a lock taken on a GPU."""


def test_guard_verified(tmp_path: Path) -> None:
    path = _write_lock(tmp_path, _lock(fingerprint=WITH_GPU))
    facts = CurrentFacts({"torch": str(TORCH)}, environment=dict(RECORDED.environment), device_nodes={"amd": True})
    decision = decide("resnet50", path, facts=facts)
    assert (decision.device, decision.verified) == ("cuda", True)


def test_guard_never_hands_out_a_gpu_the_lock_did_not_see_or_that_is_gone(tmp_path: Path) -> None:
    facts = CurrentFacts({"torch": str(TORCH)}, environment=dict(RECORDED.environment))
    cpu_only = decide("resnet50", _write_lock(tmp_path, _lock()), facts=facts)
    assert cpu_only.device == "cpu" and not cpu_only.verified and "no GPU was seen" in cpu_only.reasons[0]
    gone = CurrentFacts({"torch": str(TORCH)}, environment=dict(RECORDED.environment), device_nodes={"amd": False})
    decision = decide("resnet50", _write_lock(tmp_path, _lock(fingerprint=WITH_GPU)), facts=gone)
    assert decision.device == "cpu" and "/dev/kfd" in decision.reasons[0]


@pytest.mark.parametrize("facts, expected", [
    (CurrentFacts({"torch": "2.10.0+rocm7.0"}, environment=dict(RECORDED.environment)), "torch"),
    (CurrentFacts({}, amdgpu_driver="6.12.12", environment=dict(RECORDED.environment)), "amdgpu driver"),
    (CurrentFacts({}, environment={**RECORDED.environment, "HSA_OVERRIDE_GFX_VERSION": "10.3.0"}),
     "HSA_OVERRIDE_GFX_VERSION"),
])
def test_guard_drifted(tmp_path: Path, facts: CurrentFacts, expected: str) -> None:
    locked = _lock(fingerprint=dataclasses.replace(WITH_GPU, stack=dataclasses.replace(
        RECORDED.stack, amdgpu_driver_version=Fact.of("6.8.5"))))
    decision = decide("resnet50", _write_lock(tmp_path, locked), facts=facts)
    assert decision.device == "cpu" and not decision.verified
    assert "drifted" in decision.reasons[0] and expected in decision.reasons[0]


def test_guard_never_verified_and_lock_missing_or_corrupt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = _write_lock(tmp_path, _lock())
    never = decide("llama-70b", path, facts=CurrentFacts())
    assert never.device == "cpu" and "never verified" in never.reasons[0] and "resnet50" in never.reasons[0]
    missing = decide("resnet50", tmp_path / "nope.lock", fallback="cpu:0")
    assert missing.device == "cpu:0" and "no lock file" in missing.reasons[0]
    path.write_text("{broken")
    assert "unusable" in decide("resnet50", path).reasons[0]
    with caplog.at_level("WARNING", logger="gpuready.guard"):
        assert select_device("resnet50", path) == "cpu"
    assert "unusable" in caplog.text


def test_guard_imports_no_framework(tmp_path: Path) -> None:
    path = _write_lock(tmp_path, _lock())
    code = ("import sys, gpuready.guard as g; d = g.decide('resnet50', sys.argv[1]); "
            "assert not {'torch', 'jax', 'rich', 'click'} & set(sys.modules), sorted(sys.modules); print(d.device)")
    result = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_diff_two_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = make_run(RunKind.ENV, "t", fingerprint=RECORDED)
    upgraded = dataclasses.replace(RECORDED, stack=dataclasses.replace(RECORDED.stack,
                                                                      amdgpu_driver_version=Fact.of("6.12.12")))
    after = make_run(RunKind.ENV, "t", fingerprint=upgraded)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(render_json(before))
    b.write_text(render_json(after))
    assert main(["diff", str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "kernel-driver" in out and "amdgpu driver" in out and "6.12.12" in out
    assert main(["diff", str(a), str(a), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    empty = tmp_path / "empty.json"
    empty.write_text(render_json(make_run(RunKind.SCAN, "t", fingerprint=None)))
    assert main(["diff", str(a), str(empty)]) == 2


def test_lock_then_verify_on_this_machine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "gpuready.lock"
    requirements = tmp_path / "requirements.txt"
    assert main(["lock", "--model", "tiny", "-o", str(path), "--requirements", str(requirements), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    lock = read_lock(path)
    assert printed["models"] == ["tiny"] and printed["created_at"] == lock.created_at
    assert lock.models == ("tiny",) and "pytest" in lock.distributions
    assert "pytest==" in requirements.read_text()
    capsys.readouterr()
    assert main(["verify", str(path), "--no-rerun"]) == 0
    assert "VERIFIED" in capsys.readouterr().out
    assert main(["verify", str(path), "--no-rerun", "--json"]) == 0
    verified = json.loads(capsys.readouterr().out)
    assert verified["kind"] == "verify" and verified["outcome"]["verdict"] == "VERIFIED"


def test_lock_files_validate_against_the_committed_schema() -> None:
    import jsonschema

    from gpuready.pinning.schema import render_lock_schema

    committed = Path(__file__).parents[3] / "docs" / "schema" / "lock.schema.json"
    assert committed.read_text() == render_lock_schema(), (
        "docs/schema/lock.schema.json is stale: python -m gpuready.pinning.schema > docs/schema/lock.schema.json")
    schema = json.loads(committed.read_text())
    jsonschema.validate(json.loads(render_lock(_lock())), schema)
    broken = json.loads(render_lock(_lock()))
    broken["thresholds"]["slowdown"] = "fast"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_a_noisy_rerun_is_shown_and_never_called_a_regression() -> None:
    import random

    generator = random.Random(3)
    lock = _lock()
    noisy = [0.2 * (1 + 3 * generator.random()) for _ in range(40)]  # twice as slow, and all over the place
    report = verify(lock, RECORDED, lock.distributions, None,
                    lambda options: bench_run("AMD Radeon", noisy).measurements)
    assert report.benches and report.benches[0].noisy and not report.regressions
    run = report_run(report, RECORDED)
    assert "verify.bench_noisy" in {f.code for f in run.findings}
    assert run.outcome.verdict.value == "VERIFIED"
