"""The cases of issue 16: limits in both directions, three-way support, OS point releases, torch releases, GTX 1080,
staleness, and ``data update`` run offline on recorded copies of the real sources."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from gpuready.compat.importers import amd
from gpuready.compat.importers.sources import recorded
from gpuready.compat.importers.update import merged, run, write
from gpuready.compat.load import Dataset, load_dataset
from gpuready.compat.plan import make_plan, resolve_gpu
from gpuready.compat.rules import Context
from gpuready.compat.rules.dataset import stale_data
from gpuready.errors import InputError
from gpuready.model import Fingerprint

SOURCES = Path(__file__).parents[2] / "fixtures" / "compat-sources"
TODAY = datetime.date(2026, 12, 1)


@pytest.fixture(scope="module")
def data() -> Dataset:
    return load_dataset()


def _by_version(plan_releases: object) -> dict[str, object]:
    return {o.version: o for o in plan_releases}  # type: ignore[attr-defined]


@pytest.mark.parametrize("version", ["6.3.0", "6.3.1", "6.3.2", "6.3.3", "6.4.0", "6.4.1", "6.4.2", "6.4.3"])
def test_mi300x_on_ubuntu_22_04_is_supported_on_6_3_and_6_4(data: Dataset, version: str) -> None:
    option = _by_version(make_plan(data, "mi300x", "Ubuntu 22.04").releases)[version]
    assert option.status == "supported", option.note  # type: ignore[attr-defined]


def test_oracle_linux_stays_mi300x_only_before_7_0(data: Dataset) -> None:
    option = _by_version(make_plan(data, "mi250x", "Oracle Linux 8.10").releases)["6.3.1"]
    assert option.status.startswith("supported, but not on ol 8.10")  # type: ignore[attr-defined]


def test_rx_6800_is_same_isa_as_a_listed_product(data: Dataset) -> None:
    options = _by_version(make_plan(data, "rx 6800").releases)
    for version in ("10.0.0", "7.14.0", "6.2.4"):
        option = options[version]
        assert option.support == "same ISA as a listed product", version  # type: ignore[attr-defined]
        assert "AMD Radeon PRO W6800" in option.note  # type: ignore[attr-defined]
    assert options["10.0.0"].status == "supported"  # type: ignore[attr-defined]
    w6800 = _by_version(make_plan(data, "Radeon PRO W6800").releases)["10.0.0"]
    assert w6800.support == "listed by AMD"  # type: ignore[attr-defined]
    assert "6.2.4" not in _by_version(make_plan(data, "rx 6700 xt").releases)  # gfx1031: not supported


def test_product_lists_read_for_6_3_and_7_0(data: Dataset) -> None:
    options = _by_version(make_plan(data, "rx 6800").releases)
    for version in ("6.3.0", "6.3.1", "6.4.1", "7.0.0", "7.0.1"):
        assert options[version].support == "same ISA as a listed product", version  # type: ignore[attr-defined]
    assert "undated revision" in options["7.0.0"].note  # type: ignore[attr-defined]
    assert "undated revision" not in options["6.3.1"].note  # type: ignore[attr-defined]
    xt = _by_version(make_plan(data, "rx 7700 xt").releases)
    assert xt["7.0.0"].support == "listed by AMD"  # type: ignore[attr-defined]
    assert xt["6.4.1"].support == "same ISA as a listed product"  # type: ignore[attr-defined]  # PRO W7700 listed
    mi50 = _by_version(make_plan(data, "mi50").releases)
    assert mi50["6.3.0"].status == "deprecated"  # type: ignore[attr-defined]  # AMD's 6.3 page marks it deprecated
    mi325x = _by_version(make_plan(data, "mi325x", "Ubuntu 24.04").releases)["6.3.1"]
    assert mi325x.status.startswith("supported, but not on ubuntu 24.04")  # type: ignore[attr-defined]


@pytest.mark.parametrize("gpu", ["rx 7900 xtx", "rx 9070 xt", "Radeon PRO W6800"])
@pytest.mark.parametrize("version", ["7.0.0", "7.0.2", "7.1.0", "10.0.0"])
def test_rhel_8_10_with_a_radeon_on_7_x_is_not_supported(data: Dataset, gpu: str, version: str) -> None:
    option = _by_version(make_plan(data, gpu, "RHEL 8.10").releases)[version]
    assert option.status == "supported, but not on rhel 8.10", option.note  # type: ignore[attr-defined]
    mi300x = _by_version(make_plan(data, "mi300x", "RHEL 8.10").releases)[version]
    assert mi300x.status == "supported"  # type: ignore[attr-defined]


@pytest.mark.parametrize("version", ["7.2.1", "7.2.2", "7.2.3", "7.2.4"])
def test_ubuntu_24_04_4_is_listed_for_7_2(data: Dataset, version: str) -> None:
    option = _by_version(make_plan(data, "mi300x", "Ubuntu 24.04.4", rocm="7.2").releases)[version]
    assert option.status == "supported"  # type: ignore[attr-defined]


def test_torch_2_15_variants_and_arch_lists(data: Dataset) -> None:
    release = next(r for r in data.torch.releases if str(r.version) == "2.15.0")
    variants = {v.name: v for v in release.variants}
    assert set(variants) == {"rocm7.2", "rocm7.14", "cu126", "cu130", "cu132", "cu134", "cpu"}
    assert "gfx1151" in variants["rocm7.14"].arch_list and "gfx900" not in variants["rocm7.14"].arch_list
    assert variants["rocm7.2"].arch_list[:2] == ("gfx900", "gfx906")
    assert release.pypi_default == "cu132"
    for name in ("2.14.1", "2.12.1"):
        assert any(str(r.version) == name for r in data.torch.releases)
    rocm714 = next(v for r in data.torch.releases if str(r.version) == "2.14.0" for v in r.variants
                   if v.name == "rocm7.14")
    assert len(rocm714.arch_list) == 13


def test_gtx_1080_resolves(data: Dataset) -> None:
    gpu = resolve_gpu(data, "GTX 1080")
    assert gpu.arch == "sm_61" and gpu.name == "NVIDIA GeForce GTX 1080"
    assert make_plan(data, "gtx 1080").wheels


def test_data_older_than_60_days_names_the_update_command(data: Dataset) -> None:
    old = Context(Fingerprint(), data, data.as_of + datetime.timedelta(days=61))
    found = list(stale_data(old))
    assert found and "gpuready data update" in found[0].remedy
    assert not list(stale_data(Context(Fingerprint(), data, data.as_of + datetime.timedelta(days=59))))


def test_plan_says_which_data_set_it_used(data: Dataset) -> None:
    assert data.as_of.isoformat() in make_plan(data, "mi300x").data


def test_footnotes_become_limits_in_the_right_direction() -> None:
    facts = merged(amd.matrix_facts((SOURCES / "amd-matrix-historical.csv.txt").read_text(),
                                    (SOURCES / "amd-matrix-footnotes.rst.txt").read_text(), "u"))
    assert facts[("rocm", "6.4.0", "only_on_gpus.ol 9")][0] == ("AMD Instinct MI300X",)
    assert facts[("rocm", "7.0.2", "only_on_gpus.ol 8")][0] == ("AMD Instinct MI300X",)
    assert "AMD Instinct MI355X" in facts[("rocm", "7.0.2", "only_on_gpus.ol 10")][0]
    assert ("rocm", "6.4.0", "only_on_gpus.ubuntu 22.04.5") not in facts
    assert "AMD Radeon PRO V710" in facts[("rocm", "6.4.2", "only_on_gpus.azurelinux 3.0")][0]


EXPLAINED = {
    "rocm 7.1.0 os.azurelinux": "the 7.1.0-era matrix lists Azure Linux 3.0; AMD's 7.1.1 revision (the data's "
                                "source) dropped it",
    "rocm 7.1.0 only_on_gpus.azurelinux 3.0": "same row as above",
    "rocm 10.0.0 only_on_os.AMD Instinct MI300X": "MI300X is on every listed OS: the data records no limit row",
    "rocm 10.0.0 only_on_os.AMD Instinct MI350P": "MI350P is recorded on 7.14.0 only (added there)",
    "rocm 10.0.0 only_on_os.AMD Radeon RX 9050 (4GB)": "the data's Radeon row predates the 4GB model",
    "torch 2.8 pypi_default": "2.8.0's plain-pip default is not recorded in the data (unverified)",
    "torch 2.11 pypi_default": "not recorded in the data (unverified)",
    "torch 2.12 pypi_default": "not recorded in the data (unverified)",
    "torch 2.13 pypi_default": "not recorded in the data (unverified)",
    "torch 2.14 pypi_default": "not recorded in the data (unverified)",
}


def test_update_offline_reproduces_the_shipped_releases_variants_and_arch_lists(data: Dataset, tmp_path: Path) -> None:
    found = run(data, recorded(SOURCES), TODAY)
    unexplained = [f"{c.what}: {c.old} -> {c.new}" for c in found.changes
                   if c.status != "added" and c.what not in EXPLAINED]
    assert not unexplained, "differences from the shipped data no one has explained:\n" + "\n".join(unexplained)
    assert not [c for c in found.changes if c.what.startswith("torch") and c.status == "added"
                and "release" in c.what], "a torch release on PyPI is missing from the shipped data"
    # release/2.0 predates the file; no release/2.15 branch was recorded (2.15.0's variants come from main instead)
    assert [f for f in found.failed if "2.0 build matrix" not in f and "2.15 build matrix" not in f] == []
    joined = merged(found.facts)
    shipped_arch = {v.name: v.arch_list for r in data.torch.releases if str(r.version) == "2.14.0" for v in r.variants}
    assert set(joined[("torch-arch", "rocm7.14", "arch_list")][0]) == set(shipped_arch["rocm7.14"])
    assert set(joined[("torch-arch", "rocm-legacy", "arch_list")][0]) == set(shipped_arch["rocm7.2"])
    assert set(joined[("torch-arch", "cu126", "arch_list")][0]) == set(shipped_arch["cu126"])
    out = write(found, data, tmp_path / "new", TODAY)
    assert load_dataset(out).torch.releases and (out / "DIFF.md").read_text().startswith("# gpuready data update")


def test_update_never_writes_over_the_installed_data(data: Dataset, tmp_path: Path) -> None:
    found = run(data, recorded(SOURCES), TODAY)
    with pytest.raises(InputError, match="installed"):
        write(found, data, Path(data.directory), TODAY)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    with pytest.raises(InputError, match="not empty"):
        write(found, data, tmp_path / "busy", TODAY)


def test_a_source_that_cannot_be_parsed_is_named_and_the_data_kept(data: Dataset, tmp_path: Path) -> None:
    for sidecar in SOURCES.glob("*.source.yaml"):
        (tmp_path / sidecar.name).write_text(sidecar.read_text())
        target = sidecar.read_text().split("file: ", 1)[1].split("\n", 1)[0]
        (tmp_path / target).write_text((SOURCES / target).read_text())
    (tmp_path / "amd-docs-gpus.yaml.txt").write_text("- not a mapping\n")
    found = run(data, recorded(tmp_path), TODAY)
    assert any(f.startswith("AMD supported GPUs and OS tables") for f in found.failed)
    assert found.data is not None and found.data.rocm is data.rocm


@pytest.mark.parametrize(("name", "arch", "confirmed"), [
    ("rx 5500 xt", "gfx1012", True), ("RX 5700 XT", "gfx1010", True), ("rx 5700", "gfx1010", True),
    ("rx 5600 xt", "gfx1010", False), ("Radeon RX 580 Series", "gfx803", False), ("rx 570", "gfx803", False),
    ("rx 480", "gfx803", True), ("vega 56", "gfx900", True), ("rx vega 64", "gfx900", True),
    ("radeon vii", "gfx906", True), ("tesla m40", "sm_52", False), ("gtx 1060", "sm_61", False),
    ("gtx 1070", "sm_61", False), ("rtx 2060", "sm_75", False), ("rtx 2070", "sm_75", False),
    ("rtx 3070", "sm_86", False), ("rtx 3080 ti", "sm_86", False),
])
def test_common_consumer_cards_resolve_with_honest_provenance(data: Dataset, name: str, arch: str,
                                                              confirmed: bool) -> None:
    gpu = resolve_gpu(data, name)
    assert gpu.arch == arch and gpu.confirmed is confirmed
    if gpu.name == "AMD Radeon VII":
        return  # catalogued before, with AMD's own rates
    assert not gpu.peak_tflops and gpu.memory_bandwidth_gbps is None, "no peak rate without a vendor source"
    if gpu.vendor.value == "amd":
        assert "llvm/docs/AMDGPUUsage.rst" in gpu.source and "f5c8b0a9" in gpu.source


def test_a_card_no_rocm_release_lists_gets_no_release_and_says_so(data: Dataset) -> None:
    plan = make_plan(data, "rx 5700 xt")
    assert plan.releases == () and "No ROCm release in the data lists gfx1010" in plan.notes[0]
    assert make_plan(data, "tesla m40").wheels, "sm_52 wheels exist for CUDA 12.x builds that still compile it"


def test_jax_rocm_plugins_on_pypi_are_all_in_the_data(data: Dataset) -> None:
    found = run(data, recorded(SOURCES), TODAY)
    assert not [c.what for c in found.changes if c.what.startswith("jax-rocm7-plugin")]
    newest = {str(p.jax): p for p in data.jax.rocm}
    assert {"0.11.1", "0.11.2", "0.12.0"} <= set(newest)
    assert newest["0.12.0"].rocm == () and "pypi.org" in newest["0.12.0"].source, "no invented ROCm pairing"


def test_cu134_arrives_with_2_15_not_2_14(data: Dataset) -> None:
    """The issue listed cu134 as missing for 2.14; PyTorch's release/2.14 build matrix has no CUDA 13.4 (12.6, 13.0,
    13.2), release/2.15's has."""
    facts = merged(run(data, recorded(SOURCES), TODAY).facts)
    assert "cu134" not in facts[("torch", "2.14", "variants")][0]
    variants = {str(r.version): {v.name for v in r.variants} for r in data.torch.releases}
    assert "cu134" not in variants["2.14.0"] | variants["2.14.1"] and "cu134" in variants["2.15.0"]
