"""The fleet report's judgement on synthetic fleets (made up, never measurements): exactly the planted bad nodes are
named, with the right reason, at 2,000 nodes x 20 Runs; a healthy fleet names none."""

from __future__ import annotations

import dataclasses
import random

import pytest

from gpuready.fleet.analysis import analyse, consistency, outliers, summarize_nodes
from gpuready.fleet.collect import Collected, MetricValue, RunDigest, digest
from gpuready.fleet.config import ReportConfig
from tests.fleet_synthetic import Plants, fleet_documents

PLANTS = Plants(slow_gemm=("node0007", "node1234"), other_driver=("node0100",), failing_check=("node0042",),
                half_bandwidth=("node1999",), missing_bench=("node0500",))


def _collected(nodes: int, plants: Plants, fleet: str = "fsynthetic") -> Collected:
    digests = [digest(document, "synthetic", fleet) for document in fleet_documents(nodes, plants, fleet)]
    return Collected(fleet, tuple(d for d in digests if d is not None))


@pytest.fixture(scope="module")
def big_fleet() -> Collected:
    return _collected(2000, PLANTS)


def test_exactly_the_planted_nodes_are_named_at_2000_nodes(big_fleet: Collected) -> None:
    assert len(big_fleet.digests) == 2000 * 20 - 18
    report = analyse(big_fleet)
    named = {node for node, _ in report.defective}
    assert named == PLANTS.all()
    reasons = {node: {r.kind for r in found} for node, found in report.defective}
    assert reasons["node0007"] == reasons["node1234"] == {"outlier"}
    assert reasons["node0100"] == {"consistency"}
    assert reasons["node0042"] == {"check", "verdict"}
    assert reasons["node1999"] == {"outlier"}
    assert reasons["node0500"] == {"missing"}
    text = {node: " ".join(r.text for r in found) for node, found in report.defective}
    assert "gemm_tflops_bf16" in text["node0007"] and "below the fleet median" in text["node0007"]
    assert "allreduce_busbw" in text["node1999"]
    assert "stack.amdgpu_driver_version is '6.10.5'" in text["node0100"]
    assert "torch.ops.matmul" in text["node0042"]
    assert [f.check_id for f in report.failures] == ["torch.ops.matmul"]
    assert report.failures[0].ran_on == 2000
    assert [s.field for s in report.consistency] == ["stack.amdgpu_driver_version"]
    assert report.consistency[0].odd_nodes == ("node0100",)


def test_a_healthy_fleet_names_no_node() -> None:
    report = analyse(_collected(60, Plants()))
    assert report.defective == () and report.healthy
    assert report.metrics and all(not m.outliers for m in report.metrics)


def _node_digest(node: str, metric: str, value: float, higher: bool = True) -> RunDigest:
    return RunDigest(f"id-{node}", "bench", "2026-12-01T00:00:00+00:00", node, "", "", "PASS", False, "",
                     metrics=(MetricValue(metric, metric, metric, "u", value, higher),))


def test_outliers_only_on_the_bad_side_and_beyond_both_thresholds() -> None:
    rng = random.Random(3)
    fast = [_node_digest(f"n{i:02d}", "step_time", 1.0 + rng.gauss(0, 0.01), higher=False) for i in range(30)]
    fast.append(_node_digest("slow", "step_time", 1.3, higher=False))
    fast.append(_node_digest("quick", "step_time", 0.7, higher=False))  # faster is never a defect
    fast.append(_node_digest("bit-slow", "step_time", 1.048, higher=False))  # many deviations, under 5%
    nodes = summarize_nodes(fast)
    found = outliers(nodes, fast, ReportConfig())
    assert [o.node for o in found[0].outliers] == ["slow"]
    loose = outliers(nodes, fast, ReportConfig(min_relative=0.03))
    assert {o.node for o in loose[0].outliers} == {"slow", "bit-slow"}


def test_no_outliers_with_fewer_than_three_nodes() -> None:
    pair = [_node_digest("a", "gemm_tflops_bf16", 100.0), _node_digest("b", "gemm_tflops_bf16", 50.0)]
    assert outliers(summarize_nodes(pair), pair, ReportConfig())[0].outliers == ()


def test_consistency_names_the_minority_and_not_a_split_fleet() -> None:
    def node(name: str, driver: str) -> RunDigest:
        return RunDigest(name, "doctor", "2026-12-01T00:00:00+00:00", name, "", "", "READY", False, "",
                         fields=(("stack.rocm_version", driver),))

    minority = summarize_nodes([node("a", "6.4.1"), node("b", "6.4.1"), node("c", "6.3.0")])
    [spread] = consistency(minority)
    assert spread.majority == "6.4.1" and spread.odd_nodes == ("c",)
    split = summarize_nodes([node("a", "6.4.1"), node("b", "6.3.0")])
    [spread] = consistency(split)
    assert spread.majority is None and spread.odd_nodes == ()
    ignored = consistency(minority, ignore=("stack",))
    assert ignored[0].ignored


def test_a_node_missing_a_field_the_others_have_is_odd() -> None:
    def node(name: str, fields: tuple[tuple[str, str], ...]) -> RunDigest:
        return RunDigest(name, "doctor", "2026-12-01T00:00:00+00:00", name, "", "", "READY", False, "", fields=fields)

    nodes = summarize_nodes([node("a", (("environment.HSA_OVERRIDE_GFX_VERSION", "9.4.2"),)),
                             node("b", (("environment.HSA_OVERRIDE_GFX_VERSION", "9.4.2"),)),
                             node("c", (("devices.count", "8"),))])
    spreads = {s.field: s for s in consistency(nodes)}
    assert spreads["environment.HSA_OVERRIDE_GFX_VERSION"].odd_nodes == ("c",)


def test_runs_of_another_fleet_or_outside_any_fleet_are_left_out() -> None:
    [document] = fleet_documents(1, Plants(), "fother")[:1]
    assert digest(document, "x", "fsynthetic") is None
    untagged = dict(document, tags=["nightly"])
    assert digest(untagged, "x") is None
    assert digest(document, "x", "fother") is not None


def test_the_newest_check_run_of_a_node_decides_its_failures() -> None:
    old = RunDigest("1", "check", "2026-12-01T00:00:00+00:00", "a", "", "", "FAIL", True, "",
                    checks=(("torch.ops.matmul", "fail"),))
    new = dataclasses.replace(old, id="2", created_at="2026-12-01T01:00:00+00:00", verdict="PASS", failed=False,
                              checks=(("torch.ops.matmul", "pass"),))
    [node] = summarize_nodes([old, new])
    assert node.failed_checks == () and dict(node.verdicts) == {"check": "PASS"}


def test_a_fault_on_every_node_is_named_fleet_wide(big_fleet: Collected) -> None:
    assert analyse(big_fleet).fleet_wide == ()
    everywhere = Plants(failing_check=tuple(f"node{i:04d}" for i in range(5)))
    report = analyse(_collected(5, everywhere))
    assert {r.text for r in report.fleet_wide} == {"check: FAIL", "check torch.ops.matmul: fail"}
    from gpuready.fleet.render import render_markdown

    assert "On every node" in render_markdown(report)
