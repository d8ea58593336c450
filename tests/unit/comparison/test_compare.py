"""Comparison of recorded-shape Runs with known step times: ratios, intervals, noise, cost and the rest."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuready.comparison import Comparison, CostInputs, Side, median_ratio, parse_prices
from gpuready.comparison import compare_sides as compare_with_catalogue
from gpuready.comparison.cost import cost_line, price_for
from gpuready.compat.load import load_dataset
from gpuready.errors import InputError
from gpuready.model import CheckStatus, Vendor
from tests.unit.comparison.builders import bench_run, check_run, scan_run, step_times

GPUS = load_dataset().gpus.gpus
H100 = "NVIDIA H100 80GB HBM3"


def compare_sides(sides: list[Side], cost: CostInputs | None = None) -> Comparison:
    return compare_with_catalogue(sides, GPUS, cost)
MI300X = "AMD Instinct MI300X"


def _sides(a_median: float, b_median: float, *, seed_b: int = 2, count: int = 60) -> list[Side]:
    a = bench_run(H100, step_times(a_median, count, seed=1), label="H100")
    b = bench_run(MI300X, step_times(b_median, count, seed=seed_b), label="MI300X", vendor=Vendor.AMD,
                  memory_gib=192, rocm="6.4.1")
    return [Side("H100", (a,)), Side("MI300X", (b,))]


def _row(comparison, metric):  # type: ignore[no-untyped-def]
    return next(row for row in comparison.pairings[0].metrics if row.metric == metric)


def _symmetric(median: float, count: int = 41, step: float = 0.002) -> list[float]:
    """Step times spread evenly around ``median`` (so the median is known exactly), in a shuffled order."""
    values = [median * (1 + step * (k - count // 2)) for k in range(count)]
    return values[::2] + values[1::2]


def test_known_step_times_give_the_expected_ratio_inside_the_interval() -> None:
    a = bench_run(H100, _symmetric(0.131), label="H100")
    b = bench_run(MI300X, _symmetric(0.100), label="MI300X", vendor=Vendor.AMD, memory_gib=192)
    comparison = compare_sides([Side("H100", (a,)), Side("MI300X", (b,))])
    step = _row(comparison, "step_time")
    expected = 0.131 / 0.100
    assert step.advantage.ratio == pytest.approx(expected, rel=1e-9)
    assert step.ratio.ratio == pytest.approx(1 / expected, rel=1e-9)  # raw ratio: other / baseline
    assert step.advantage.low is not None and step.advantage.high is not None
    assert step.advantage.low < expected < step.advantage.high
    assert step.advantage.high - step.advantage.low < 0.1  # 41 steps with 4% spread: a narrow interval
    assert step.advantage.within_noise is False
    assert _row(comparison, "tokens_per_s").advantage.ratio == pytest.approx(expected, rel=1e-9)
    conclusion = comparison.pairings[0].conclusion
    assert conclusion.startswith("MI300X is 1.31x faster than H100 (CI 1.")


def test_interval_covers_the_true_ratio_about_95_percent_of_the_time() -> None:
    """Noisy runs drawn with known medians: the interval must contain the truth in most of 60 trials."""
    true_ratio = 0.131 / 0.100
    covered = 0
    for trial in range(60):
        interval = median_ratio(step_times(0.131, 40, 0.03, seed=2 * trial),
                                step_times(0.100, 40, 0.03, seed=2 * trial + 1), resamples=400).inverted()
        assert interval.low is not None and interval.high is not None
        covered += interval.low <= true_ratio <= interval.high
    assert covered >= 51  # 95% nominal; a percentile bootstrap of medians at n=40 runs a little under


def test_slower_side_is_called_slower() -> None:
    a = bench_run(H100, _symmetric(0.100), label="H100")
    b = bench_run(MI300X, _symmetric(0.125), label="MI300X")
    conclusion = compare_sides([Side("H100", (a,)), Side("MI300X", (b,))]).pairings[0].conclusion
    assert conclusion.startswith("MI300X is 1.25x slower than H100 (CI 1.2")


def test_a_a_comparison_is_within_noise() -> None:
    comparison = compare_sides(_sides(0.1, 0.1, seed_b=7))
    for metric in ("step_time", "samples_per_s", "tokens_per_s"):
        assert _row(comparison, metric).advantage.within_noise is True
    assert "within noise" in comparison.pairings[0].conclusion


def test_a_five_percent_difference_with_low_noise_is_not_noise() -> None:
    assert _row(compare_sides(_sides(0.105, 0.100)), "step_time").advantage.within_noise is False


def test_single_samples_give_a_ratio_without_an_interval() -> None:
    interval = median_ratio([2.0], [3.0])
    assert interval.ratio == 1.5 and interval.low is None and interval.within_noise is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.01, 10.0), min_size=3, max_size=30), st.lists(st.floats(0.01, 10.0), min_size=3,
                                                                               max_size=30),
       st.floats(0.1, 10.0))
def test_interval_is_ordered_and_scales_with_the_data(a: list[float], b: list[float], factor: float) -> None:
    base = median_ratio(a, b, resamples=200)
    scaled = median_ratio(a, [x * factor for x in b], resamples=200)
    assert base.low is not None and base.high is not None and base.low <= base.high
    assert base.ratio == pytest.approx(statistics.median(b) / statistics.median(a))
    assert scaled.ratio == pytest.approx(base.ratio * factor, rel=1e-9)
    assert scaled.low == pytest.approx(base.low * factor, rel=1e-9)
    assert scaled.high == pytest.approx(base.high * factor, rel=1e-9)


def test_only_workloads_with_the_same_settings_are_aligned() -> None:
    a = bench_run(H100, step_times(0.1), label="H100")
    b = bench_run(MI300X, step_times(0.1), label="MI300X", workload="mlp")
    pairing = compare_sides([Side("H100", (a,)), Side("MI300X", (b,))]).pairings[0]
    assert pairing.metrics == ()
    assert any(text.startswith("mlp (batch_size=16") and "on MI300X only: peak_memory, samples_per_s, step_time"
               in text for text in pairing.unmatched), pairing.unmatched
    assert "share no workload" in pairing.conclusion


def test_cost_per_million_tokens_and_per_training_run() -> None:
    inputs = CostInputs({"H100": 3.6}, gpus_per_node=8, utilisation=0.5, train_tokens=1e9)
    line = cost_line("H100", "w", 3.6, "tokens", 1000.0, inputs)
    assert line.usd_per_million == pytest.approx(3.6 / 3600 / 500 * 1e6)  # $2 per million tokens
    assert line.train_hours == pytest.approx(1e9 / (500 * 8) / 3600)
    assert line.train_usd == pytest.approx(1e9 / 1e6 * 2.0)  # GPU-hours x price = tokens x $/token


def test_cheaper_side_is_reported_with_the_percentage() -> None:
    comparison = compare_sides(_sides(0.131, 0.100), CostInputs({"h100": 2.5, "mi300x": 2.0}, 8, 0.9, 2e9))
    pairing = comparison.pairings[0]
    costs = {line.side: line for line in pairing.cost}
    assert set(costs) == {"H100", "MI300X"}
    saving = 1 - costs["MI300X"].usd_per_million / costs["H100"].usd_per_million
    assert saving == pytest.approx(1 - (2.0 / 2.5) / 1.31, abs=0.01)
    assert f"{saving:.0%} cheaper per token" in pairing.conclusion
    assert comparison.assumptions and "8 GPU(s) per node" in comparison.assumptions[0]


def test_prices_match_label_device_or_run_id() -> None:
    inputs = CostInputs(parse_prices(["Instinct MI300X=2.10", "abc=1"]))
    assert price_for(inputs, ("x", "AMD Instinct MI300X")) == 2.10
    assert price_for(inputs, ("abcdef0123",)) == 1.0
    assert price_for(inputs, ("H100",)) is None


@pytest.mark.parametrize("value", ["MI300X", "=2", "MI300X=cheap", "MI300X=-1"])
def test_bad_price_is_a_usage_error(value: str) -> None:
    with pytest.raises(InputError, match="NAME=USD_PER_GPU_HOUR"):
        parse_prices([value])


def test_parity_headroom_porting_and_environment() -> None:
    a = bench_run(H100, step_times(0.1), label="H100", max_batch=96, peak_memory_gib=40)
    b = bench_run(MI300X, step_times(0.09, seed=3), label="MI300X", vendor=Vendor.AMD, memory_gib=192,
                  peak_memory_gib=48, max_batch=256, rocm="6.4.1")
    checks_a = check_run(H100, {"torch.ops.matmul": CheckStatus.PASS, "torch.ops.sdpa": CheckStatus.PASS})
    checks_b = check_run(MI300X, {"torch.ops.matmul": CheckStatus.PASS, "torch.ops.sdpa": CheckStatus.FAIL})
    comparison = compare_sides([Side("H100", (a, checks_a)), Side("MI300X", (b, checks_b, scan_run(2, 3)))])
    base, other = comparison.sides
    assert (base.max_batch, other.max_batch) == (96, 256)
    assert base.memory_headroom == pytest.approx(0.5) and other.memory_headroom == pytest.approx(0.75)
    assert (base.checks_passed, other.checks_passed) == (2, 1)
    assert comparison.pairings[0].parity == (("torch.ops.sdpa", "pass", "fail"),)
    assert (len(other.blockers), len(other.warnings), base.scanned) == (2, 3, False)
    assert "model.py:1" in other.blockers[0]
    conclusion = comparison.pairings[0].conclusion
    assert "1 check(s) differ" in conclusion and "2 blocker(s) and 3 warning(s)" in conclusion
    environment = dict(comparison.environment)
    assert environment["gpu names"] == (H100, MI300X) and comparison.differs(environment["gpu names"])
    assert environment["os"] == ("Ubuntu 24.04.1 LTS",) * 2 and not comparison.differs(environment["os"])
    assert environment["rocm"] == ("", "6.4.1")


def test_three_sides_compare_each_with_the_baseline() -> None:
    sides = _sides(0.1, 0.08) + [Side("CPU", (bench_run("cpu", step_times(1.0)),))]
    comparison = compare_sides(sides)
    assert [(p.baseline, p.other) for p in comparison.pairings] == [("H100", "MI300X"), ("H100", "CPU")]
    assert "CPU is 10.0" in comparison.pairings[1].conclusion
    with pytest.raises(ValueError):
        compare_sides(sides[:1])


def test_cost_of_runs_within_noise_is_flagged_as_a_point_estimate() -> None:
    comparison = compare_sides(_sides(0.1, 0.1, seed_b=7), CostInputs({"H100": 2.5, "MI300X": 2.0}))
    assert "point estimate from throughputs that are within noise" in comparison.pairings[0].conclusion


def test_parity_needs_checks_on_both_sides() -> None:
    checks = check_run(MI300X, {"torch.ops.sdpa": CheckStatus.FAIL})
    sides = _sides(0.1, 0.1)
    comparison = compare_sides([sides[0], Side("MI300X", (*sides[1].runs, checks))])
    assert comparison.pairings[0].parity == ()
    assert "0 check(s) pass on MI300X, 1 fail" in comparison.pairings[0].conclusion


def test_the_measured_ratio_is_set_against_the_paper_one() -> None:
    a = bench_run(H100, _symmetric(0.131), label="H100")
    b = bench_run(MI300X, _symmetric(0.100), label="MI300X", vendor=Vendor.AMD, memory_gib=192)
    comparison = compare_sides([Side("H100", (a,)), Side("MI300X", (b,))])  # exactly 1.31x, both in bf16
    paper = comparison.pairings[0].paper
    assert paper is not None and paper.dtype == "bf16"
    assert paper.baseline_tflops == 989.5 and paper.other_tflops == 1307.4
    assert paper.confirmed is False, "the H100 peak is a third-party copy of NVIDIA's figures"
    conclusion = comparison.pairings[0].conclusion
    assert "on paper the dense bf16 peaks give 1.32x" in conclusion
    assert "99% of the paper one" in conclusion  # 1.31 / 1.32
    unknown = [Side("A", (bench_run("Some Future GPU", step_times(0.1)),)), _sides(0.1, 0.1)[1]]
    assert compare_sides(unknown).pairings[0].paper is None


def test_each_side_at_its_best_batch_when_no_batch_size_matches() -> None:
    a16 = bench_run(H100, _symmetric(0.100), batch_size=16)   # 160 samples/s
    a32 = bench_run(H100, _symmetric(0.160), batch_size=32)   # 200 samples/s: H100's best
    b64 = bench_run(MI300X, _symmetric(0.200), batch_size=64, vendor=Vendor.AMD, memory_gib=192)  # 320 samples/s
    pairing = compare_sides([Side("H100", (a16, a32)), Side("MI300X", (b64,))]).pairings[0]
    best = [row for row in pairing.metrics if row.metric == "samples_per_s"]
    assert len(best) == 1 and best[0].alignment == "each side's best batch size"
    assert best[0].settings["batch_size"] == "32 vs 64"
    assert best[0].ratio.ratio == pytest.approx(320 / 200, rel=1e-3)
    assert "tokens_per_s at each side's best batch size (32 vs 64)" in pairing.conclusion
    assert not [row for row in pairing.metrics if row.metric == "step_time"], "step times at different batches"
    same = compare_sides(_sides(0.1, 0.1)).pairings[0]
    assert {row.alignment for row in same.metrics} == {"same settings"}


def test_a_ratio_between_noisy_runs_is_never_stated() -> None:
    """Two runs of identical settings on a busy machine once read "3.85x faster (CI 1.07-5.57)" (#19 item 7)."""
    import random

    generator = random.Random(7)
    busy = [0.1 * (1 + 3 * generator.random()) for _ in range(30)]  # spread well over 100%
    a = bench_run(H100, busy, label="run-1")
    b = bench_run(H100, [s * 0.3 for s in busy[::-1]], label="run-2")
    comparison = compare_sides([Side("run-1", (a,)), Side("run-2", (b,))])
    step = _row(comparison, "step_time")
    assert step.noisy
    conclusion = comparison.pairings[0].conclusion
    assert "too noisy" in conclusion and "faster" not in conclusion and "slower" not in conclusion


def test_bench_flags_noisy_step_times() -> None:
    from gpuready.benchmark.driver import noise_findings
    from gpuready.stats import measurement

    steady = measurement("step_time", "s", [0.1, 0.101, 0.099, 0.1, 0.102], "mlp", {"batch_size": 8})
    busy = measurement("step_time", "s", [0.1, 0.3, 0.05, 0.5, 0.1, 0.12], "mlp", {"batch_size": 16})
    [finding] = noise_findings([steady, busy])
    assert finding.code == "bench.noisy" and "batch 16" in finding.message and finding.severity.value == "warn"
