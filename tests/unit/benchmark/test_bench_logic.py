"""Benchmark statistics, throughput, the max-batch search on a fake allocator, and targets (no torch needed)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuready.benchmark.search import find_max_batch
from gpuready.benchmark.targets import judge_targets, parse_target
from gpuready.errors import InputError
from gpuready.stats import measurement, percentile, rate, summarize


def test_summary_of_known_samples() -> None:
    summary = summarize([0.10, 0.12, 0.11, 0.50, 0.09])
    assert summary.median == 0.11
    assert summary.count == 5
    assert summary.p10 == pytest.approx(0.094)  # 0.09 + 0.4 * (0.10 - 0.09)
    assert summary.p90 == pytest.approx(0.348)  # 0.12 + 0.6 * (0.50 - 0.12)
    assert summary.spread == pytest.approx((0.348 - 0.094) / 0.11)


def test_throughput_from_known_step_times() -> None:
    samples_per_s = measurement("samples_per_s", "samples/s", rate(8, [0.1, 0.2, 0.1]))
    assert samples_per_s.summary.median == pytest.approx(80.0)
    assert sorted(samples_per_s.samples) == pytest.approx([40.0, 80.0, 80.0])


@given(st.lists(st.floats(min_value=1e-6, max_value=1e3), min_size=1, max_size=50))
def test_percentiles_are_ordered(samples: list[float]) -> None:
    summary = summarize(samples)
    assert min(samples) <= summary.p10 <= summary.median <= summary.p90 <= max(samples)
    assert percentile(sorted(samples), 0.0) == min(samples)


@pytest.mark.parametrize(("capacity", "per_sample", "expected"), [
    (1000, 7, 142), (1000, 1, 1000), (5, 10, 0), (1 << 20, 3, 349525), (64, 1, 64)])
def test_max_batch_on_a_fake_allocator(capacity: int, per_sample: int, expected: int) -> None:
    tried: list[int] = []

    def fits(batch: int) -> bool:  # a fake device: a step needs batch * per_sample units of memory
        tried.append(batch)
        return batch * per_sample <= capacity

    limit = 1 << 20
    assert find_max_batch(fits, limit=limit) == min(expected, limit)
    assert len(tried) <= 2 * 21 + 2, "doubling then bisection: logarithmic in the answer"


def test_max_batch_stops_at_the_limit() -> None:
    assert find_max_batch(lambda batch: True, limit=100) == 100
    assert find_max_batch(lambda batch: batch <= 70, limit=100) == 70


def test_targets() -> None:
    step = measurement("step_time", "s", [0.100, 0.110, 0.120, 0.130, 0.200])
    tokens = measurement("tokens_per_s", "tokens/s", [5000, 5100, 4900])
    judged = judge_targets([parse_target("p90_step_ms<=150"), parse_target("tokens_per_s>=5000"),
                            parse_target("peak_mem_gb<=60")], [step, tokens])
    assert [t.met for t in judged] == [False, True, False]
    assert judged[0].measured == pytest.approx(172.0)  # p90 of the step times, in ms
    assert "no peak_memory was measured" in judged[2].detail
    with pytest.raises(InputError, match="METRIC") as error:
        parse_target("speed>=fast")
    assert error.value.field == "targets"
    with pytest.raises(InputError, match="tokens_per_s"):
        parse_target("warp_factor>=9")


def test_warmup_stops_once_step_times_settle() -> None:
    from gpuready.benchmark.harness import warmup_until_settled

    durations = [0.05, 0.02, 0.011, 0.010, 0.0102, 0.010, 0.010, 0.010]  # compile / cache effects, then steady
    now = [0.0]

    def run(index: int) -> None:  # a fake clock: each step "takes" its duration
        now[0] += durations[index]

    ran = warmup_until_settled(run, limit=len(durations), synchronize=lambda: None, clock=lambda: now[0])
    assert ran == 6, "steps 4-6 (0.010, 0.0102, 0.010) are the first three to agree within 5 %"
    assert warmup_until_settled(run, limit=1, synchronize=lambda: None, clock=lambda: now[0]) == 1
    assert warmup_until_settled(lambda i: None, limit=1, synchronize=lambda: None) == 1


def test_energy_meter_reads_nvml_and_is_absent_without_a_library(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    from gpuready.benchmark.energy import EnergyMeter

    monkeypatch.setitem(sys.modules, "pynvml", None)  # no NVML
    monkeypatch.setitem(sys.modules, "amdsmi", None)  # no amdsmi
    assert not EnergyMeter("00000000:18:00.0").available
    counter = iter([1_000_000, 1_250_000])  # synthetic stand-in for NVML: millijoules since driver load
    fake = types.SimpleNamespace(
        nvmlInit=lambda: None,
        nvmlDeviceGetHandleByPciBusId=lambda bus: ("handle", bus),
        nvmlDeviceGetTotalEnergyConsumption=lambda handle: next(counter, 1_250_000))
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    meter = EnergyMeter("00000000:18:00.0")
    assert meter.available
    assert meter.joules() == pytest.approx(1250.0)  # the first read happened while probing the counter


def test_allreduce_is_judged_against_the_link_peak() -> None:
    from gpuready.benchmark.links import judge_allreduce
    from gpuready.compat.load import load_dataset
    from gpuready.model import Device, Fact, Fingerprint, Vendor
    from gpuready.probe.parse.topology import parse_topology
    from tests.fixture_kinds import FIXTURES

    topology = parse_topology((FIXTURES / "topology/nvidia-topo-8xh100-nvswitch-collect-env-indented.txt").read_text())
    node = Fingerprint(devices=(Device(index=0, vendor=Vendor.NVIDIA, name=Fact.of("NVIDIA H100 80GB HBM3")),),
                       topology=topology)
    busbw = [measurement(f"allreduce_busbw_gbps_{size}", "GB/s", [value], settings={"bytes": size})
             for size, value in ((1 << 20, 40.0), (1 << 30, 180.0))]  # synthetic measurements
    [finding] = judge_allreduce(node, busbw, load_dataset().links.links)
    assert finding.code == "bench.allreduce_vs_link"
    assert "40% of the NVLink 4 peak (450 GB/s" in finding.message and finding.severity.value == "warn"
    assert judge_allreduce(Fingerprint(), busbw, load_dataset().links.links) == []


def test_mfu_against_the_catalogue_peak() -> None:
    from gpuready.benchmark.harness import StepReport
    from gpuready.benchmark.peaks import peak_tflops, with_peaks
    from gpuready.benchmark.phases import measurements_of
    from gpuready.compat.load import load_dataset
    from gpuready.model.config import BenchConfig

    gpus = load_dataset().gpus.gpus
    assert peak_tflops(gpus, "AMD Instinct MI300X", "bf16") == 1307.4
    assert peak_tflops(gpus, "cpu", "bf16") is None
    assert peak_tflops(gpus, "AMD Instinct MI250X", "bf16") == pytest.approx(383.0 / 2), "one GCD is half the board"
    report = StepReport(step_seconds=[0.010, 0.010, 0.012], data_seconds=[0.001] * 3, items_per_step=8,
                        tokens_per_step=8 * 512, flops_per_step=6.5e12, peak_memory_bytes=2**30,
                        memory_kind="device max_memory_allocated", device="AMD Instinct MI300X",
                        identity={"workload": "transformer", "size": "small", "model_config": "abc"})
    config = BenchConfig(precision="bf16")
    raw = measurements_of(report, config)
    assert "mfu" not in {m.metric for m in raw}, "the isolated phase reads no catalogue"
    found = {m.metric: m for m in with_peaks(raw, gpus)}
    assert found["achieved_tflops"].summary.median == pytest.approx(650.0)
    assert found["mfu"].summary.median == pytest.approx(650.0 / 1307.4)
    assert found["mfu"].annotations["peak_confirmed"] is True, "MI300X rates are read in ROCm's own docs"
    assert "mi300" in str(found["mfu"].annotations["peak_source"])
    assert found["step_time"].settings == {"workload": "transformer", "size": "small", "model_config": "abc",
                                           "framework": "torch", "mode": "train", "precision": "bf16",
                                           "batch_size": 8, "compile": False, "dataloader_workers": 0}
    assert found["step_time"].annotations["device"] == "AMD Instinct MI300X"
    assert found["tokens_per_s"].summary.median == pytest.approx(4096 / 0.010)
    assert found["data_time_share"].samples[0] == pytest.approx(0.003 / 0.035)
    assert "energy_per_step" not in found, "no energy counter: no energy figure"
    report.extra["energy_per_step_j"] = 5.0
    found = {m.metric: m for m in measurements_of(report, config)}
    assert found["energy_per_step"].samples == (5.0,)
    assert found["average_power"].samples[0] == pytest.approx(5.0 / (0.032 / 3))
    assert found["joules_per_token"].samples[0] == pytest.approx(5.0 / 4096)


def test_a_peak_from_third_party_material_is_marked_in_the_table() -> None:
    from rich.console import Console

    from gpuready.model import RunKind, make_run
    from gpuready.report.bench_text import UNCONFIRMED_NOTE, render_bench

    def rendered(confirmed: bool) -> str:
        gemm = measurement("gemm_tflops_bf16", "TFLOP/s", [400.0, 410.0], "micro.gemm", {"dtype": "bf16"},
                           {"peak": 989.4, "fraction_of_peak": 0.41, "peak_confirmed": confirmed,
                            "peak_source": "https://example.com/datasheet"})  # synthetic measurement
        console = Console(width=200, record=True)
        console.print(render_bench(make_run(RunKind.BENCH, "t", measurements=(gemm,))))
        return console.export_text()

    assert "41% of 989.4*" in rendered(False) and UNCONFIRMED_NOTE in rendered(False)
    assert "41% of 989.4 " in rendered(True) and UNCONFIRMED_NOTE not in rendered(True)


def test_micro_ceilings_get_the_device_peaks_from_their_compute_units() -> None:
    from gpuready.benchmark.peaks import with_peaks
    from gpuready.compat.load import load_dataset

    gpus = load_dataset().gpus.gpus
    notes = {"device": "AMD Instinct MI300X", "compute_units": 38}  # an MI300X in CPX mode (synthetic samples)
    gemm = measurement("gemm_tflops_bf16", "TFLOP/s", [100.0, 101.0], "micro.gemm", {"dtype": "bf16"}, notes)
    copy = measurement("copy_gbps", "GB/s", [900.0, 910.0], "micro.copy", {"megabytes": 256}, notes)
    on_cpu = measurement("gemm_tflops_bf16", "TFLOP/s", [0.1], "micro.gemm", {"dtype": "bf16"}, {"device": "cpu"})
    judged_gemm, judged_copy, judged_cpu = with_peaks([gemm, copy, on_cpu], gpus)
    assert judged_gemm.annotations["peak"] == pytest.approx(1307.4 / 8)
    assert "peak" not in judged_copy.annotations, "a partition's bandwidth share is not guessed"
    assert "peak" not in judged_cpu.annotations
