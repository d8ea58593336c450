"""Facts in the bundled data: GPU peak rates (consistent, dense, sourced, per board), link peaks, wheel arch lists."""

from __future__ import annotations

import pytest

from gpuready.compat.load import load_dataset
from gpuready.compat.schema import GpuEntry, Segment

GPUS = load_dataset().gpus.gpus
RATED = [g for g in GPUS if g.peak_tflops]


def _ids(entries: list[GpuEntry]) -> list[str]:
    return [g.name for g in entries]


@pytest.mark.parametrize("gpu", RATED, ids=_ids(RATED))
def test_rates_are_ordered_like_the_hardware(gpu: GpuEntry) -> None:
    rates = gpu.peak_tflops
    if "fp64" in rates and "fp32" in rates:
        assert rates["fp64"] <= rates["fp32"], "fp64 above fp32"
    if "fp16" in rates and "fp32" in rates:
        assert rates["fp16"] >= rates["fp32"], "fp16 below fp32"
    if "fp8" in rates and "fp16" in rates:
        assert rates["fp8"] == pytest.approx(2 * rates["fp16"], rel=0.02), "fp8 is twice fp16 on every part listed"
    if "tf32" in rates and "fp16" in rates:
        # A tf32 equal to fp16 is the classic sign of a with-sparsity tf32 next to a dense fp16.
        assert rates["tf32"] < rates["fp16"], "tf32 at or above fp16"


@pytest.mark.parametrize("gpu", RATED, ids=_ids(RATED))
def test_rates_are_plausible_for_the_segment(gpu: GpuEntry) -> None:
    ceiling = {Segment.DATACENTER: 3000.0, Segment.WORKSTATION: 1000.0, Segment.CONSUMER: 1000.0,
               Segment.APU: 1000.0, Segment.EMBEDDED: 300.0}[gpu.segment]  # APU: MI300A (980.6)
    dense16 = max(gpu.peak_tflops.get("fp16", 0.0), gpu.peak_tflops.get("bf16", 0.0))
    assert dense16 <= ceiling, "a 16-bit rate this high is a sparsity figure or a unit slip"
    if gpu.memory_bandwidth_gbps is not None:
        assert 50 <= gpu.memory_bandwidth_gbps <= 10_000


def test_rates_carry_their_provenance() -> None:
    for gpu in GPUS:
        if gpu.peak_tflops or gpu.memory_bandwidth_gbps:
            assert gpu.peak_source.startswith("https://")
            assert gpu.rates_source is None or gpu.rates_read is not None
    mi300x = next(g for g in GPUS if g.name == "AMD Instinct MI300X")
    assert mi300x.peak_confirmed and "rocm" in mi300x.peak_source.lower()



def test_rates_cover_the_parts_people_benchmark() -> None:
    """MFU and '% of peak' need a peak: the flagship parts of each vendor generation have one."""
    flagships = ["AMD Instinct MI300X", "AMD Instinct MI250X", "AMD Instinct MI210", "AMD Radeon RX 7900 XTX",
                 "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA B200",
                 "NVIDIA GeForce RTX 4090", "NVIDIA L40S"]
    by_name = {g.name: g for g in GPUS}
    missing = [name for name in flagships if "bf16" not in by_name[name].peak_tflops and
               "fp16" not in by_name[name].peak_tflops]
    assert not missing, f"no 16-bit peak for {missing}"


def test_data_files_stay_hand_editable() -> None:
    """No YAML anchors or aliases: an edited date must not silently change another entry."""
    from gpuready.compat.load import DEFAULT_DATA, FILES

    for name in FILES:
        text = (DEFAULT_DATA / name).read_text()
        assert "&id0" not in text and "*id0" not in text, name


def test_a_gpu_without_rates_says_why() -> None:
    """A missing peak is a researched gap (vendor publishes none, boards differ ...), never a silent one."""
    import re

    for gpu in GPUS:
        if not gpu.peak_tflops:
            assert re.search(r"(none|nothing|not|no peak rates)( is)? recorded", gpu.notes, re.IGNORECASE), (
                f"{gpu.name}: no peak rates and no note saying why")


@pytest.mark.parametrize(("reported", "compute_units", "board"), [
    ("AMD Instinct MI250X / MI250", 110, "AMD Instinct MI250X"),  # both boards' GCDs report this name
    ("AMD Instinct MI250X / MI250", 104, "AMD Instinct MI250"),
    ("AMD Instinct MI250X / MI250", None, None),  # no CU count: the peak is not guessed
    ("Tesla V100-SXM2-32GB", 80, "Tesla V100"),
    ("Tesla V100-PCIE-32GB", 80, "Tesla V100-PCIE"),  # lower clocks than SXM2: its own figures
    ("Tesla P100-PCIE-16GB", 56, "Tesla P100-PCIE"),
    ("NVIDIA H100 80GB HBM3", 132, "NVIDIA H100 80GB HBM3"),
])
def test_per_board_figures_come_from_the_right_board(reported: str, compute_units: int | None,
                                                     board: str | None) -> None:
    from gpuready.compat.catalogue import find_board, find_gpu

    found = find_board(GPUS, reported, compute_units)
    assert (found.name if found else None) == board
    assert find_gpu(GPUS, reported, compute_units) is not None, "the architecture is still known"


def test_mfu_on_an_mi250_gcd_uses_the_mi250_peak() -> None:
    from gpuready.benchmark.peaks import peak_tflops

    assert peak_tflops(GPUS, "AMD Instinct MI250X / MI250", "bf16", 104) == pytest.approx(362.1 / 2)
    assert peak_tflops(GPUS, "AMD Instinct MI250X / MI250", "bf16", 110) == pytest.approx(383.0 / 2)
    assert peak_tflops(GPUS, "AMD Instinct MI250X / MI250", "bf16") is None
    assert peak_tflops(GPUS, "Tesla V100-PCIE-16GB", "fp16") == 112.0


def test_link_peaks_name_catalogue_gpus_and_are_read_in_vendor_text() -> None:
    links = load_dataset().links.links
    names = {g.name for g in GPUS}
    for link in links:
        assert set(link.gpus) <= names, link.generation
        assert link.confirmed, f"{link.generation}: not read in AMD's or NVIDIA's own text"
    per_gpu = {gpu: link.per_gpu_gbps for link in links for gpu in link.gpus}
    assert per_gpu["AMD Instinct MI300X"] == 7 * 64, "seven x16 links at 64 GB/s each way"
    assert per_gpu["NVIDIA H100 80GB HBM3"] == 18 * 25, "18 NVLink 4 links at 25 GB/s each way"
    per_port = {(link.kind, link.per_gpu_gbps * 8) for link in links if link.kind in ("infiniband", "ethernet")}
    assert {("infiniband", 200), ("infiniband", 400), ("infiniband", 800)} <= per_port, "HDR, NDR, XDR per port"
    assert {("ethernet", 100), ("ethernet", 200), ("ethernet", 400)} <= per_port, "100/200/400GbE per port"
    assert all(not link.gpus for link in links if link.kind in ("infiniband", "ethernet")), "a port serves any GPU"


def test_confirmed_wheel_arch_lists_carry_their_evidence() -> None:
    """Arch lists checked against build scripts or printed get_arch_list() output, with the known traps."""
    releases = {str(r.version): {v.name: v for v in r.variants} for r in load_dataset().torch.releases}
    confirmed = [v for variants in releases.values() for v in variants.values() if v.source]
    assert len(confirmed) >= 15 and all(v.confirmed and v.read for v in confirmed)
    # sm_70 (V100) was dropped from cu128 in 2.7 and 2.11, but restored for 2.8 despite its release notes.
    assert "sm_70" not in releases["2.7.0"]["cu128"].arch_list
    assert "sm_70" in releases["2.8.0"]["cu128"].arch_list
    assert "sm_70" not in releases["2.11.0"]["cu128"].arch_list
    assert "gfx1100" in releases["2.4.1"]["rocm6.0"].arch_list


def test_a_partition_gets_its_share_of_the_compute_peak_and_no_bandwidth_guess() -> None:
    from gpuready.compat.catalogue import peak_of

    full = peak_of(GPUS, "AMD Instinct MI300X", "bf16", 304)
    cpx = peak_of(GPUS, "AMD Instinct MI300X", "bf16", 38)  # CPX mode: eight 38-CU devices
    assert full is not None and cpx is not None
    assert full.value == 1307.4 and cpx.value == pytest.approx(1307.4 / 8)
    assert cpx.settings()["peak_partition_share"] == pytest.approx(0.125)
    assert peak_of(GPUS, "AMD Instinct MI300X", "bandwidth", 38) is None
    assert peak_of(GPUS, "AMD Instinct MI300X", "bandwidth", 304).value == 5300  # type: ignore[union-attr]
    mig = peak_of(GPUS, "NVIDIA A100-SXM4-40GB", "bf16", 14)  # a 1g MIG slice
    assert mig is not None and mig.value == pytest.approx(312 * 14 / 108)
    gcd = peak_of(GPUS, "AMD Instinct MI250X / MI250", "bf16", 110)
    assert gcd is not None and gcd.value == pytest.approx(383.0 / 2) and "peak_partition_share" not in gcd.settings()
