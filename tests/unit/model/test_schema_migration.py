"""Runs stored by gpuready 0.1 (schema 1, tests/fixtures/runs-schema1) load, carry an outcome, render everywhere, and
never align a different workload in a comparison; schema-2 identities keep model sizes and sources apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuready.comparison import Side, compare_sides
from gpuready.compat.load import load_dataset
from gpuready.model import Measurement, Provenance, Run, RunKind, Verdict, make_run
from gpuready.model.run import migrate_v1
from gpuready.report import plain_text
from gpuready.report.html import render_run_html
from gpuready.report.junit import render_junit
from gpuready.report.markdown import render_run_markdown
from gpuready.report.prometheus import render_prometheus
from gpuready.stats import measurement
from gpuready.store import read_run_file

STORED = Path(__file__).parents[2] / "fixtures" / "runs-schema1"
GPUS = load_dataset().gpus.gpus
EXPECTED = {"env-collect-env": Verdict.NOT_JUDGED, "doctor-not-ready": Verdict.NOT_READY,
            "scan-cuda-extension": Verdict.BLOCKED, "check-cpu": Verdict.PASS, "bench-mlp-a": Verdict.PASS,
            "bench-transformer-tiny": Verdict.PASS, "bench-transformer-small": Verdict.PASS,
            "audit-mlp": Verdict.CLEAN}


def _text_renderer(run: Run) -> object:
    from gpuready.report.audit_text import render_audit
    from gpuready.report.bench_text import render_bench
    from gpuready.report.check_text import render_checks
    from gpuready.report.doctor_text import render_doctor
    from gpuready.report.env_text import render_env
    from gpuready.report.scan_text import render_scan

    if run.kind is RunKind.ENV:
        assert run.fingerprint is not None
        return render_env(run.fingerprint)
    return {RunKind.DOCTOR: render_doctor, RunKind.SCAN: render_scan, RunKind.CHECK: render_checks,
            RunKind.BENCH: render_bench, RunKind.AUDIT: render_audit}[run.kind](run)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_stored_schema_1_run_loads_with_an_outcome_and_renders(name: str) -> None:
    document = json.loads((STORED / f"{name}.json").read_text())
    assert document["schema_version"] == 1 and "outcome" not in document
    run = read_run_file(STORED / f"{name}.json")
    assert run.schema_version == 2 and run.outcome.verdict is EXPECTED[name]
    assert run.outcome.summary.startswith(EXPECTED[name].value)
    assert run.provenance is (Provenance.PASTED if name.startswith(("env", "doctor")) else Provenance.MEASURED)
    for m in run.measurements:
        assert "device" not in m.settings and "flops_per_step" not in m.settings, "machine notes left the settings"
        if m.metric == "step_time":
            assert m.annotations["device"] == "cpu" and m.annotations["flops_per_step"] > 0
    assert migrate_v1(document) == migrate_v1(migrate_v1(document)), "migrating twice changes nothing"
    assert Run.from_dict(json.loads(json.dumps(run.to_dict()))) == run, "a migrated Run round-trips as schema 2"
    for rendered in (plain_text(_text_renderer(run)), render_run_markdown(run), render_run_html(run),
                     render_prometheus(run), render_junit(run)):
        assert rendered.strip()
    assert EXPECTED[name].value in render_run_markdown(run)


def test_stored_tiny_and_small_transformers_are_not_aligned() -> None:
    """Schema 1 recorded no model size: the two looked like one workload, and compare said "8.95x faster"."""
    tiny, small = (read_run_file(STORED / f"bench-transformer-{size}.json") for size in ("tiny", "small"))
    comparison = compare_sides([Side("small", (small,)), Side("tiny", (tiny,))], GPUS)
    pairing = comparison.pairings[0]
    assert pairing.metrics == ()
    assert any("the work differs" in line for line in pairing.unmatched)
    assert "cannot be compared" in pairing.conclusion and "faster" not in pairing.conclusion
    same = read_run_file(STORED / "bench-transformer-tiny.json")
    again = compare_sides([Side("a", (tiny,)), Side("b", (same,))], GPUS)
    assert again.pairings[0].metrics, "the same stored workload still aligns with itself"


def _bench(settings: dict[str, object], median: float, flops: float = 1e9) -> Run:
    steps = [median * (1 + 0.01 * k) for k in range(-5, 6)]
    made: list[Measurement] = [measurement("step_time", "s", steps, str(settings["workload"]), settings,
                                           {"device": "cpu", "flops_per_step": flops})]
    return make_run(RunKind.BENCH, "t", measurements=made, provenance=Provenance.SYNTHETIC)


BASE = {"workload": "transformer", "framework": "torch", "mode": "train", "precision": "fp32", "batch_size": 8,
        "compile": False, "dataloader_workers": 0}


@pytest.mark.parametrize(("left", "right"), [
    ({"size": "tiny", "sequence": 32, "model_config": "aa"},
     {"size": "small", "sequence": 256, "model_config": "bb"}),
    ({"size": "small", "sequence": 256, "model_config": "aa"},
     {"size": "small", "sequence": 512, "model_config": "cc"}),
    ({"workload": "train.py:make", "source_hash": "1111"}, {"workload": "train.py:make", "source_hash": "2222"}),
])
def test_different_sizes_sequences_or_sources_are_never_aligned(left: dict[str, object],
                                                                right: dict[str, object]) -> None:
    a, b = _bench({**BASE, **left}, 0.1), _bench({**BASE, **right}, 0.01)
    comparison = compare_sides([Side("a", (a,)), Side("b", (b,))], GPUS)
    assert comparison.pairings[0].metrics == () or all(
        row.alignment != "same settings" for row in comparison.pairings[0].metrics)
    assert "10.00x" not in comparison.pairings[0].conclusion and "faster" not in comparison.pairings[0].conclusion
    twin = compare_sides([Side("a", (a,)), Side("a2", (_bench({**BASE, **left}, 0.1),))], GPUS)
    assert twin.pairings[0].metrics and twin.pairings[0].metrics[0].alignment == "same settings"
