"""Fleet baselines: written from a healthy fleet run, they catch a later bad node; hand-edited files that are wrong
are refused naming the field; collecting from a folder lists a damaged file instead of failing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuready.errors import InputError
from gpuready.fleet.analysis import analyse
from gpuready.fleet.baseline import dump_baseline, load_baseline, make_baseline
from gpuready.fleet.collect import Collected, digest, from_folder
from gpuready.fleet.config import ReportConfig
from tests.fleet_synthetic import Plants, fleet_documents


def _collected(nodes: int, plants: Plants) -> Collected:
    found = [digest(d, "synthetic", "fsynthetic") for d in fleet_documents(nodes, plants)]
    return Collected("fsynthetic", tuple(d for d in found if d is not None))


def test_a_baseline_from_a_healthy_run_catches_a_later_slow_node(tmp_path: Path) -> None:
    healthy = analyse(_collected(12, Plants()))
    baseline = make_baseline(healthy, threshold=0.05)
    assert baseline.made_from == "fsynthetic"
    assert any(r.metric.startswith("gemm_tflops_bf16") for r in baseline.metrics)
    assert "torch.ops.matmul" in baseline.checks
    assert dict(baseline.fields)["stack.amdgpu_driver_version"] == "6.12.12"
    path = tmp_path / "baseline.yaml"
    path.write_text(dump_baseline(baseline))
    again = load_baseline(path)
    assert again.metrics == baseline.metrics and again.checks == baseline.checks and again.fields == baseline.fields
    # two nodes, both slow: the fleet median cannot see it (half the fleet), the baseline does
    later = analyse(_collected(4, Plants(slow_gemm=("node0000", "node0001"))), ReportConfig(), again)
    reasons = {node: [r for r in found if r.kind == "baseline"] for node, found in later.defective}
    assert set(reasons) == {"node0000", "node0001"}
    assert all("below the baseline" in r.text for found in reasons.values() for r in found)
    drifted = analyse(_collected(3, Plants(other_driver=("node0000", "node0001", "node0002"))), ReportConfig(), again)
    assert {node for node, _ in drifted.defective} == {"node0000", "node0001", "node0002"}


@pytest.mark.parametrize(("text", "field"), [
    ("fleet_baseline: 2\n", "fleet_baseline"),
    ("[1, 2]\n", "fleet_baseline"),
    ("fleet_baseline: 1\nmetrics: {a: 1}\n", "metrics"),
    ("fleet_baseline: 1\nmetrics:\n  - {metric: x, baseline: fast}\n", "metrics[0].baseline"),
    ("fleet_baseline: 1\nmetrics:\n  - {metric: x, baseline: .nan}\n", "metrics[0].baseline"),
    ("fleet_baseline: 1\nmetrics:\n  - {metric: x, baseline: 1, threshold: 2}\n", "metrics[0].threshold"),
    ("fleet_baseline: 1\nmetrics:\n  - {baseline: 1}\n", "metrics[0].metric"),
    ("fleet_baseline: 1\nmetrics:\n  - {metric: x, baseline: 1, higher_is_better: maybe}\n",
     "metrics[0].higher_is_better"),
    ("fleet_baseline: 1\nchecks: [1]\n", "checks"),
    ("fleet_baseline: 1\nfields: [a]\n", "fields"),
])
def test_a_wrong_baseline_is_refused_naming_the_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "b.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as raised:
        load_baseline(path)
    assert raised.value.field == field and raised.value.source == str(path)


def test_not_yaml_is_refused_with_the_line(tmp_path: Path) -> None:
    path = tmp_path / "b.yaml"
    path.write_text("fleet_baseline: 1\nmetrics: [\n")
    with pytest.raises(InputError, match="not YAML at line"):
        load_baseline(path)


def test_a_damaged_run_file_is_listed_and_the_rest_is_read(tmp_path: Path) -> None:
    documents = fleet_documents(3, Plants(), "fdisk")
    for n, document in enumerate(documents):
        node = document["tags"][-3].split(":", 1)[1]
        folder = tmp_path / "fdisk" / node
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{n}.json").write_text(json.dumps(document))
    (tmp_path / "fdisk" / "node0001" / "broken.json").write_text('{"kind": "bench", "tags": ["fleet:fdisk"')
    (tmp_path / "fdisk" / "node0001" / "wrong.json").write_text('{"schema_version": 2, "tags": ["fleet:fdisk", '
                                                                 '"node:node0001"]}')
    collected = from_folder(tmp_path, "fdisk")
    assert len(collected.digests) == 60
    assert sorted(Path(u.source).name for u in collected.unreadable) == ["broken.json", "wrong.json"]
    with pytest.raises(InputError, match="no folder of fleet run"):
        from_folder(tmp_path / "nowhere", "fdisk")


def test_the_public_function_reads_a_folder_and_judges(tmp_path: Path) -> None:
    import gpuready

    for n, document in enumerate(fleet_documents(4, Plants(failing_check=("node0002",)), "fapi")):
        node = next(t for t in document["tags"] if t.startswith("node:")).split(":", 1)[1]
        (tmp_path / "fapi" / node).mkdir(parents=True, exist_ok=True)
        (tmp_path / "fapi" / node / f"{n}.json").write_text(json.dumps(document))
    report = gpuready.fleet_report("fapi", folder=tmp_path, config=ReportConfig(min_relative=0.2))
    assert [node for node, _ in report.defective] == ["node0002"] and not report.healthy
    assert report.provenance == ("synthetic",)
    with pytest.raises(InputError) as raised:
        gpuready.fleet_report("bad id", folder=tmp_path)
    assert raised.value.field == "fleet"
