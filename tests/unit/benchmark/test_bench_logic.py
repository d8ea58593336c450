"""Benchmark statistics, throughput, the max-batch search on a fake allocator, and targets (no torch needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuready.benchmark.search import find_max_batch
from gpuready.benchmark.targets import judge_targets, parse_target
from gpuready.errors import InputError
from gpuready.model import Measurement
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


def _across_nodes(busbw: float, annotations: dict[str, object], world: int = 16, nodes: int = 2) -> list[Measurement]:
    """Synthetic measurements of an all_reduce across nodes: a small message and the largest one at ``busbw``."""
    return [measurement(f"allreduce_busbw_gbps_{size}", "GB/s", [value], "micro.allreduce",
                        {"bytes": size, "world_size": world, "nodes": nodes, "backend": "nccl"}, annotations)
            for size, value in ((1 << 20, 1.0), (1 << 30, busbw))]


NDR_NODE = {"interconnect": "infiniband", "port_rate_gbps": 400.0, "active_ports": 8, "local_world_size": 8}


def test_internode_allreduce_on_eight_ndr_ports_for_eight_gpus_is_judged_against_50_gbps_per_gpu() -> None:
    from gpuready.benchmark.links import judge_allreduce
    from gpuready.compat.load import load_dataset

    links = load_dataset().links.links
    [good] = judge_allreduce(None, _across_nodes(45.0, NDR_NODE), links)
    assert (good.code, good.severity.value) == ("bench.allreduce_internode_vs_link", "info")
    assert "90% of the InfiniBand NDR (400 Gb/s) peak of 50 GB/s per GPU" in good.message
    assert "8 active InfiniBand NDR (400 Gb/s) ports" in good.message and "8 GPUs" in good.message
    assert good.evidence["peak_gbps_per_gpu"] == "50" and good.source_url.startswith("https://docs.nvidia.com/")
    [half] = judge_allreduce(None, _across_nodes(24.0, NDR_NODE), links)  # below half of the peak
    assert (half.code, half.severity.value) == ("bench.allreduce_internode_vs_link", "warn")
    assert "48% of the InfiniBand NDR (400 Gb/s) peak" in half.message and "NCCL_IB_HCA" in half.remedy


def test_internode_peak_shares_the_ports_among_the_gpus_and_caps_at_one_port_per_gpu() -> None:
    from gpuready.benchmark.links import judge_internode
    from gpuready.compat.load import load_dataset

    links = load_dataset().links.links
    four_ports = {**NDR_NODE, "active_ports": 4}  # 4 x 50 GB/s for 8 GPUs: 25 per GPU
    [shared] = judge_internode(None, _across_nodes(20.0, four_ports), links)
    assert "80% of the InfiniBand NDR (400 Gb/s) peak of 25 GB/s per GPU" in shared.message
    many_ports = {**NDR_NODE, "active_ports": 16}  # more ports than GPUs: still one port's 50 GB/s per GPU
    [capped] = judge_internode(None, _across_nodes(40.0, many_ports), links)
    assert "80% of the InfiniBand NDR (400 Gb/s) peak of 50 GB/s per GPU" in capped.message
    # no LOCAL_WORLD_SIZE recorded: world size over nodes (16 / 2 = 8 GPUs per node)
    [derived] = judge_internode(None, _across_nodes(45.0, {k: v for k, v in NDR_NODE.items()
                                                           if k != "local_world_size"}), links)
    assert derived.evidence["gpus_per_node"] == "8" and "peak of 50 GB/s" in derived.message
    roce = {"interconnect": "ethernet", "port_rate_gbps": 200.0, "active_ports": 8, "local_world_size": 8}
    [ethernet] = judge_internode(None, _across_nodes(20.0, roce), links)
    assert "200GbE (RoCE) peak of 25 GB/s per GPU" in ethernet.message


def test_internode_allreduce_with_an_unknown_rate_is_an_info_finding() -> None:
    from gpuready.benchmark.links import judge_internode
    from gpuready.compat.load import load_dataset

    links = load_dataset().links.links
    for notes, said in (({**NDR_NODE, "port_rate_gbps": 56.0}, "infiniband at 56 Gb/s per port"),
                              ({"interconnect": "ethernet", "active_ports": 0}, "ethernet (port rate unknown)"),
                              ({"interconnect": "infiniband"}, "infiniband (port rate unknown)")):  # Runs before rates
        [finding] = judge_internode(None, _across_nodes(10.0, notes), links)
        assert (finding.code, finding.severity.value) == ("bench.allreduce_internode_link_unknown", "info")
        assert said in finding.message, finding.message


def test_node_network_read_from_a_sysfs_tree_synthetic(tmp_path: Path) -> None:
    from gpuready.benchmark.micro import interconnect, network, network_notes

    def port(device: str, layer: str, state: str, rate: str) -> None:
        folder = tmp_path / "infiniband" / device / "ports" / "1"
        folder.mkdir(parents=True)
        for name, text in (("link_layer", layer), ("state", state), ("rate", rate)):
            (folder / name).write_text(text + "\n")

    assert network(tmp_path).kind == "ethernet" and network_notes(tmp_path) == {"interconnect": "ethernet",
                                                                                 "active_ports": 0}
    for i in range(4):
        port(f"mlx5_{i}", "InfiniBand", "4: ACTIVE", "400 Gb/sec (4X NDR)")
    port("mlx5_4", "InfiniBand", "1: DOWN", "10 Gb/sec (4X SDR)")
    port("mlx5_5", "Ethernet", "4: ACTIVE", "100 Gb/sec (2X NDR)")
    (tmp_path / "infiniband" / "mlx5_6" / "ports").mkdir(parents=True)  # a device without ports
    assert interconnect(tmp_path) == "infiniband"
    assert network_notes(tmp_path) == {"interconnect": "infiniband", "active_ports": 4, "port_rate_gbps": 400.0,
                                       "port_rate_label": "4X NDR"}


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
