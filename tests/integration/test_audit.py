"""`gpuready audit` on models with planted problems, the CPU standing in for the accelerator (needs torch)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuready.cli import main
from gpuready.errors import InputError
from gpuready.model import Run, Verdict
from gpuready.model.config import AuditConfig
from gpuready.placement.driver import AuditView, run_torch_audit
from tests.fixture_kinds import FIXTURES

pytestmark = pytest.mark.torch
PLANTED = FIXTURES / "audit-models" / "planted.py"


def audit(model: str, *, perturb: str = "", **options: object) -> Run:
    return run_torch_audit(AuditConfig(model=model, **options), perturb=perturb)  # type: ignore[arg-type]


def _codes(model: str, mode: str = "train") -> set[tuple[str, str]]:
    outcome = audit(model, device="standin", mode=mode, inline=True)
    return {(f.code, f.location.rsplit("/", 1)[-1]) for f in outcome.findings}


def test_every_planted_problem_is_named_at_its_line() -> None:
    found = _codes(f"{PLANTED}:planted")
    assert {
        ("audit.mixed_device", "planted.py:15"),  # torch.ones(...) created on the CPU inside forward
        ("audit.host_sync", "planted.py:16"),  # .item()
        ("audit.host_copy", "planted.py:17"),  # .cpu().numpy()
        ("audit.mixed_device", "planted.py:19"),  # a module left on the CPU
        ("audit.float64", "planted.py:20"),  # .double()
    } <= found
    assert not any(location == "planted.py:18" for _, location in found), "moving back with .to(x.device) is fine"


def test_what_the_stand_in_once_missed_or_misjudged() -> None:
    """new_tensor follows its source's device; a CPU parameter moved each step is a parameter left on the host;
    a constant copied to the device every step is named at its line (#19 item 9)."""
    run = audit(f"{PLANTED}:subtly_planted", device="standin", inline=True, coverage=False)
    found = {(f.code, f.location.rsplit("/", 1)[-1]) for f in run.findings}
    assert not any(code == "audit.mixed_device" for code, _ in found), found
    assert ("audit.h2d_every_step", "planted.py:72") in found, found
    assert ("audit.h2d_every_step", "planted.py:73") in found, found
    host = next(f for f in run.findings if f.code == "audit.parameters_on_host")
    assert "host_weight" in host.message


def test_one_item_call_is_counted_once() -> None:
    run = audit(f"{PLANTED}:planted", device="standin", inline=True, coverage=False)
    [sync] = [f for f in run.findings if f.code == "audit.host_sync"]
    assert sync.evidence["count"] == "1" and "— 1x" in sync.message


def test_clean_models_get_a_clean_verdict() -> None:
    assert _codes(f"{PLANTED}:clean") == set()
    assert _codes(f"{PLANTED}:clean", mode="infer") == set()
    for builtin in ("mlp", "cnn", "transformer"):
        assert _codes(builtin) == set(), builtin


def test_a_model_that_is_never_placed_is_blocked() -> None:
    assert {"audit.model_not_on_device", "audit.no_device_work"} <= {c for c, _ in _codes(f"{PLANTED}:unplaced")}


def test_the_cli_runs_it_isolated_and_sets_the_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--model", f"{PLANTED}:planted", "--json", "-o", str(tmp_path / "a.json")]) == 1
    run = json.loads((tmp_path / "a.json").read_text())
    assert run["kind"] == "audit" and any(f["code"] == "audit.host_sync" for f in run["findings"])
    assert main(["audit", "--model", f"{PLANTED}:clean"]) == 0
    assert "CLEAN" in capsys.readouterr().out


def test_a_model_that_fails_to_build_is_a_finding_and_a_missing_one_is_bad_input(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\n\ndef factory():\n    raise RuntimeError('cannot build the model')\n")
    outcome = audit(f"{broken}:factory", device="standin")
    assert [f.code for f in outcome.findings] == ["audit.model_failed"]
    assert "cannot build the model" in outcome.findings[0].message
    assert outcome.outcome.verdict is Verdict.BLOCKED
    with pytest.raises(InputError, match="no such file"):
        audit(f"{tmp_path}/nope.py:factory", device="standin")


def test_op_coverage_replays_every_distinct_op_and_catches_a_perturbed_one() -> None:
    coverage = AuditView.of(audit("transformer", device="standin", inline=True)).coverage
    assert len(coverage) >= 20
    assert all(entry["status"] == "ok" for entry in coverage), coverage
    perturbed = audit("transformer", device="standin", inline=True, perturb="aten.gelu")
    mismatches = [f for f in perturbed.findings if f.code == "audit.op_mismatch"]
    assert [f.evidence["op"] for f in mismatches] == ["aten.gelu.default"]
    assert perturbed.outcome.verdict is Verdict.BLOCKED


def test_op_coverage_runs_isolated() -> None:
    outcome = audit("mlp", device="standin")
    assert [r.check_id for r in outcome.results] == ["audit.step", "audit.coverage"]
    assert outcome.results[1].status.value == "pass"
    assert {entry["status"] for entry in AuditView.of(outcome).coverage} == {"ok"}


def test_jax_cpu_fallback_on_a_gpu_machine_is_a_blocker() -> None:
    pytest.importorskip("jax")
    from gpuready.model import Device, Fingerprint, Vendor
    from gpuready.placement.jax_audit import audit_jax

    amd_host = Fingerprint(devices=(Device(index=0, vendor=Vendor.AMD),))
    findings, result = audit_jax(amd_host)
    assert result.details["platforms"] == ["cpu"]
    [finding] = findings
    assert finding.code == "audit.jax_cpu_fallback" and "JAX_PLATFORMS=rocm" in finding.remedy
    findings, _ = audit_jax(Fingerprint())
    assert [f.code for f in findings] == ["audit.jax_no_gpu"]


def test_a_replay_that_dies_names_the_op_it_died_in() -> None:
    from gpuready.placement.driver import replay_ops
    from gpuready.placement.replay import ReplayOp
    from gpuready.placement.trace import Trace

    ops = (ReplayOp("aten.relu.default", [[{"tensor": [4], "dtype": "float32"}], {}]),
           ReplayOp("aten.no_such_op.default", [[{"tensor": [4], "dtype": "float32"}], {}]),
           ReplayOp("aten.gelu.default", [[{"tensor": [4], "dtype": "float32"}], {}]))
    _, result, findings = replay_ops(Trace(target="standin", records=(), replay=ops), "standin", 60, inline=False)
    assert result.status.value == "error"
    [finding] = findings
    assert finding.code == "audit.op_crash" and finding.evidence["op"] == "aten.no_such_op.default"
