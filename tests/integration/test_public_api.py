"""Each public function of ``gpuready`` driven as a library user would, without the CLI: typed configs in, Runs with
an outcome out, bad configuration refused before anything runs (InputError naming the field)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import gpuready
from gpuready import (
    AuditConfig,
    BenchConfig,
    CheckConfig,
    CompareConfig,
    DoctorConfig,
    FingerprintConfig,
    InputError,
    LockConfig,
    PlanConfig,
    RunKind,
    ScanConfig,
    Verdict,
    VerifyConfig,
)
from tests.fixture_kinds import FIXTURES

NOT_READY_PASTE = FIXTURES / "collect-env" / "cuda12.6-rtx5090d-sm120-unsupported-torch2.6.txt"


def test_fingerprint_and_doctor_from_a_pasted_report() -> None:
    source = FingerprintConfig(reports=(NOT_READY_PASTE,))
    env = gpuready.fingerprint(source)
    assert env.kind is RunKind.ENV and env.fingerprint is not None and env.fingerprint.devices
    run = gpuready.doctor(DoctorConfig(source=source))
    assert run.kind is RunKind.DOCTOR and run.outcome.verdict is Verdict.NOT_READY
    assert run.outcome.counts["blocker"] >= 1 and run.outcome.summary.startswith("NOT READY: ")
    assert run.provenance.value == "pasted"
    assert env.outcome.verdict is run.outcome.verdict, "env carries the same verdict"


def test_plan_answers_before_installing() -> None:
    result = gpuready.plan(PlanConfig(gpu="mi300x", os="Ubuntu 24.04"))
    assert result.releases and result.arch == "gfx942" and "pip install" in result.recommendation
    with pytest.raises(InputError) as error:
        gpuready.plan(PlanConfig(gpu="mi3000x"))
    assert error.value.field == "gpu"


def test_scan_of_a_project(tmp_path: Path) -> None:
    run = gpuready.scan(ScanConfig(FIXTURES / "scan-projects" / "gates"))
    assert run.kind is RunKind.SCAN and run.outcome.verdict is Verdict.NEEDS_ALTERNATIVES


def test_configurations_refuse_bad_values_by_field() -> None:
    cases = [(lambda: CheckConfig(device="tpu"), "device"), (lambda: CheckConfig(timeout_s=-5), "timeout_s"),
             (lambda: BenchConfig(batch_sizes=(0,)), "batch_sizes"), (lambda: BenchConfig(micro=("warp",)), "micro"),
             (lambda: CompareConfig(utilisation=0), "utilisation"), (lambda: LockConfig(check_suite="all"),
                                                                    "check_suite"),
             (lambda: AuditConfig(steps=0), "steps"), (lambda: FingerprintConfig(report_kind="rocminfo"),
                                                       "report_kind")]
    for make, field in cases:
        with pytest.raises(InputError) as error:
            make()
        assert error.value.field == field


def test_a_misspelt_workload_is_refused_before_anything_runs() -> None:
    with pytest.raises(InputError, match="did you mean 'transformer'") as error:
        gpuready.bench(BenchConfig(workload="transfomer"), fingerprint_machine=False)
    assert error.value.field == "workload"
    with pytest.raises(InputError, match="transfomer"):
        gpuready.lock(LockConfig(benches=("transfomer",)))


@pytest.mark.torch
def test_check_audit_bench_compare_lock_verify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    check = gpuready.check(CheckConfig(only=("torch.ops.matmul",), inline=True), fingerprint_machine=False)
    assert check.kind is RunKind.CHECK and check.outcome.verdict is Verdict.PASS
    assert check.outcome.counts["pass"] == 1
    audit = gpuready.audit(AuditConfig(model="mlp", device="standin", inline=True, coverage=False))
    assert audit.kind is RunKind.AUDIT and audit.outcome.verdict is Verdict.CLEAN
    tiny = gpuready.bench(BenchConfig(workload="mlp", steps=3, warmup=1, inline=True), fingerprint_machine=False)
    again = gpuready.bench(BenchConfig(workload="mlp", steps=3, warmup=1, inline=True), fingerprint_machine=False)
    assert tiny.outcome.verdict in (Verdict.PASS, Verdict.FAIL) and tiny.measurements
    comparison = gpuready.compare([[tiny], [again]], CompareConfig())
    assert comparison.pairings[0].metrics, "the same workload aligns"
    monkeypatch.chdir(tmp_path)
    locked = gpuready.lock(LockConfig(models=("mlp",)))
    assert locked.models == ("mlp",)
    from gpuready.pinning.lockfile import render_lock

    (tmp_path / "gpuready.lock").write_text(render_lock(locked))
    verified = gpuready.verify(VerifyConfig(tmp_path / "gpuready.lock", rerun=False))
    assert verified.kind is RunKind.VERIFY and verified.outcome.verdict is Verdict.VERIFIED
    with pytest.raises(InputError):
        gpuready.verify(VerifyConfig(tmp_path / "absent.lock"))
    saved = gpuready.save(dataclasses.replace(check, label="api"), f"sqlite:///{tmp_path / 'runs.sqlite'}")
    [loaded] = gpuready.load_runs(saved, f"sqlite:///{tmp_path / 'runs.sqlite'}")
    assert loaded.label == "api" and loaded.outcome == check.outcome
