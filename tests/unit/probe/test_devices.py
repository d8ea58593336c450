"""Merging what several tools said about the same GPUs."""

from __future__ import annotations

from gpuready.probe.devices import merge_devices
from gpuready.probe.parse.records import GpuRecord
from gpuready.probe.parse.rocminfo import parse_rocminfo
from tests.fixture_kinds import FIXTURES


def test_records_join_by_pci_address_not_position() -> None:
    rocminfo = parse_rocminfo((FIXTURES / "rocminfo/rx9070xt-gfx1201-igpu-gfx1036-rocm7.0.txt").read_text())
    # Synthetic: a smi tool listing the same two GPUs in the other order, with domain-qualified addresses.
    smi = [GpuRecord(vendor="amd", pci_bus="0000:76:00.0", name="iGPU", memory_bytes=1),
           GpuRecord(vendor="amd", pci_bus="0000:03:00.0", name="dGPU", memory_bytes=2)]
    devices = merge_devices([("amd-smi", smi), ("rocminfo", list(rocminfo.gpus))])
    assert [(d.name.value, d.arch.value) for d in devices] == [("iGPU", "gfx1036"), ("dGPU", "gfx1201")]
    assert devices[1].memory_bytes.value == 2 and devices[1].memory_bytes.source == "amd-smi"


def test_position_is_used_only_when_the_counts_agree() -> None:
    two = [GpuRecord(vendor="amd", name="a"), GpuRecord(vendor="amd", name="b")]
    one_arch = [GpuRecord(vendor="amd", arch="gfx942")]
    devices = merge_devices([("x", two), ("y", one_arch)])
    assert all(d.arch.value is None for d in devices), "pairing 2 with 1 would be a guess"
    both = merge_devices([("x", two), ("y", one_arch * 2)])
    assert [d.arch.value for d in both] == ["gfx942", "gfx942"]


def test_nothing_found() -> None:
    assert merge_devices([("amd-smi", []), ("nvidia-smi", [])]) == ()


def test_amd_smi_static_reads_both_shapes() -> None:
    import json

    from gpuready.probe.parse.amd_smi import parse_amd_smi_static

    real = json.loads((FIXTURES / "amd-smi/static-mi210-gpu-data.json").read_text())
    # Synthetic: the same real entries in the older bare-list shape (no real capture of that shape was found).
    bare_list = json.dumps(real["gpu_data"])
    assert parse_amd_smi_static(bare_list) == parse_amd_smi_static(json.dumps(real))
    assert parse_amd_smi_static(bare_list)[0].arch == "gfx90a"


def test_gfx_names_keep_real_gfx10_targets_and_fix_rocm_smi_decimal_steppings() -> None:
    from gpuready.probe.parse.kfd import normalise_gfx_name

    assert normalise_gfx_name("gfx9010") == "gfx90a"  # rocm-smi's decimal spelling of gfx90a
    assert normalise_gfx_name("gfx9012") == "gfx90c"
    for real in ("gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1151", "gfx942", "gfx1100"):
        assert normalise_gfx_name(real) == real
    assert normalise_gfx_name("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-") == "gfx942"
