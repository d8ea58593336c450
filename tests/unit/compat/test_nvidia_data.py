"""NVIDIA's driver floors per platform (WSL 2 runs on the Windows driver) and the CUDA release-notes importer, tested
offline on the recorded copy of the tables."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpuready.compat.importers.nvidia import cuda_driver_facts, ngc_pytorch_facts, table_rows
from gpuready.compat.importers.update import merged
from gpuready.compat.judge import judge
from gpuready.compat.load import Dataset, load_dataset
from gpuready.errors import ParseError
from gpuready.model import Fact, Severity
from gpuready.probe.nvidia import nvidia_smi_argv
from tests.unit.compat.test_rules import judged, machine, torch_child

SOURCES = Path(__file__).parents[2] / "fixtures" / "compat-sources"
CUDA_NOTES = (SOURCES / "cuda-release-notes.html.txt").read_text()


@pytest.fixture(scope="module")
def data() -> Dataset:
    return load_dataset()


def _cuda118_machine(driver: str, kernel: str):  # type: ignore[no-untyped-def]
    row = f"0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, {driver}, 8.0, 81920, GPU-x\n"
    fp = machine(torch_version="2.5.1+cu118", nodes={}, torch=torch_child("2.5.1+cu118", cuda="11.8", available=False),
                 commands={tuple(nvidia_smi_argv()): row})
    return dataclasses.replace(fp, host=dataclasses.replace(fp.host, kernel=Fact.of(kernel, "uname")))


def test_wsl_is_held_to_the_windows_driver_floor(data: Dataset) -> None:
    """451.48 is above CUDA 11.x's Linux floor (450.80.02) but below its Windows one (452.39)."""
    linux = judged(_cuda118_machine("451.48", "6.8.0-45-generic"), data)[1]
    assert "cuda.driver_too_old" not in linux
    wsl = judged(_cuda118_machine("451.48", "5.15.167.4-microsoft-standard-WSL2"), data)[1]
    finding = wsl["cuda.driver_too_old"]
    assert "452.39" in finding.message and "Windows driver WSL runs on" in finding.message
    assert finding.evidence["platform"] == "windows (WSL)"


def test_a_driver_between_the_floor_and_the_toolkit_driver_runs_under_minor_version_compatibility(
        data: Dataset) -> None:
    """vLLM#4187's V100: torch 2.1.2+cu118 on driver 495.29.05, above CUDA 11.x's floor (450.80.02) and below CUDA
    11.8's own driver (520.61.05): a warning, with NVIDIA's compatibility page as source; 520.61.05 itself is clean."""
    found = judged(_cuda118_machine("495.29.05", "5.4.0-150-generic"), data)[1]
    assert "cuda.driver_too_old" not in found
    warning = found["cuda.minor_version_compatibility"]
    assert warning.severity.value == "warn" and "520.61.05" in warning.message
    assert warning.source_url.startswith("https://docs.nvidia.com/deploy/cuda-compatibility/")
    assert "cuda.minor_version_compatibility" not in judged(_cuda118_machine("520.61.05", "5.4.0-150-generic"), data)[1]
    wsl = judged(_cuda118_machine("515.65", "5.15.167.4-microsoft-standard-WSL2"), data)[1]
    assert "520.06" in wsl["cuda.minor_version_compatibility"].message, "WSL is held to the Windows driver"


def test_every_toolkit_has_both_platform_floors(data: Dataset) -> None:
    for toolkit in data.cuda.toolkits:
        assert toolkit.min_driver_linux and toolkit.min_driver_windows, toolkit.version


def test_the_release_notes_tables_reproduce_the_shipped_drivers(data: Dataset) -> None:
    facts = merged(cuda_driver_facts(CUDA_NOTES, "u"))
    for toolkit in data.cuda.toolkits:
        key = f"{toolkit.version.major}.{toolkit.version.minor}"
        if toolkit.driver_linux:
            assert facts[("cuda", key, "driver_linux")][0] == (toolkit.driver_linux,)
        if toolkit.driver_windows:
            assert facts[("cuda", key, "driver_windows")][0] == (toolkit.driver_windows,)
        family = facts[("cuda-family", str(toolkit.version.major), "min_driver_windows")][0][0]
        assert toolkit.min_driver_windows == family
    assert facts[("cuda-family", "11", "min_driver_linux")][0] == ("450.80.02",)
    assert facts[("cuda", "12.6", "driver_linux")][0] == ("560.28.03",), "the GA row, not an update's"
    assert ("cuda", "13.0", "driver_windows") not in facts, "N/A is no driver"


def test_table_rows_read_live_html_markup() -> None:
    page = ('<table><tr style="x"><td style="y"><p>CUDA 12.4 GA</p></td><td><p>&gt;=550.54.14</p></td>'
            '<td><p>&gt;=551.61</p></td></tr></table>')
    assert table_rows(page) == [["CUDA 12.4 GA", ">=550.54.14", ">=551.61"]]
    assert merged(cuda_driver_facts(page, "u"))[("cuda", "12.4", "driver_windows")][0] == ("551.61",)
    with pytest.raises(ParseError):
        list(cuda_driver_facts("<html>a page about something else</html>", "u"))


def test_ngc_release_notes() -> None:
    facts = merged(ngc_pytorch_facts((SOURCES / "ngc-pytorch-25.12.txt").read_text(), "u"))
    image = "nvcr.io/nvidia/pytorch:25.12-py3"
    assert facts[("container", image, "platform_version")][0] == ("13.1.0",)
    assert facts[("container", image, "framework_version")][0] == ("2.10.0a0+b4e4ee81d3",)
    assert facts[("container", image, "python")][0] == ("3.12",)
    older = ("Release 24.01 is based on CUDA 12.3.2, which requires NVIDIA Driver release 545 or later. "
             "PyTorch container image version 24.01 is based on 2.2.0a0+81ea7a4.")
    assert merged(ngc_pytorch_facts(older, "u"))[("container", "nvcr.io/nvidia/pytorch:24.01-py3", "min_driver")][0] \
        == ("545",)
    with pytest.raises(ParseError):
        list(ngc_pytorch_facts("Release 25.12 is based on CUDA 13.1.0.", "u"))


def test_a_system_toolkit_of_another_major_release_than_torch_is_a_warning(data: Dataset) -> None:
    """vLLM#5547's V100: torch 2.3.0 built with CUDA 12.1, nvcc 11.7 on the machine (collect_env's 'CUDA runtime
    version'): torch runs, extensions built there do not (torch's cpp_extension refuses a major mismatch)."""
    from gpuready.probe.paste import read_paste

    paste = ("PyTorch version: 2.3.0+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n"
             "ROCM used to build PyTorch: N/A\n\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
             "Is CUDA available: True\nCUDA runtime version: {toolkit}\nGPU models and configuration: "
             "GPU 0: Tesla V100-PCIE-32GB\nNvidia driver version: 535.171.04\n")
    found = {f.code: f for f in judge(read_paste(paste.format(toolkit="11.7.99"), "x"), data)}
    assert found["cuda.toolkit_unlike_torch"].severity is Severity.WARN
    assert found["cuda.toolkit_unlike_torch"].evidence == {"toolkit": "11.7.99", "torch CUDA": "12.1"}
    assert "cuda.toolkit_unlike_torch" not in {f.code for f in judge(read_paste(paste.format(toolkit="12.4.131"),
                                                                                  "x"), data)}


def test_a_torch_version_without_its_build_tag_takes_the_one_its_cuda_implies(data: Dataset) -> None:
    """pip list and Lightning print '2.2.2'; torch's CUDA 12.1 says the wheel is 2.2.2+cu121, whose targets the data
    knows; without the CUDA version the build stays unknown."""
    from gpuready.probe.paste import read_paste

    lightning = ("* CUDA:\n\t- GPU:\n\t\t- NVIDIA GeForce RTX 3080 Laptop GPU\n\t- available:         True\n"
                 "\t- version:           {cuda}\n* Lightning:\n\t- torch:             2.2.2\n")
    assert "unknown.torch_arch_list" not in {f.code for f in judge(read_paste(lightning.format(cuda="12.1"), "x"),
                                                                     data)}
    unknown = {f.code for f in judge(read_paste(lightning.format(cuda="None").replace(  # a GPU not every build has
        "RTX 3080 Laptop GPU", "GTX 680"), "x"), data)}
    assert unknown & {"unknown.torch_arch_list", "unknown.torch_build"}  # which build it is stays a question


MODULE_520 = ("$ cat /proc/driver/nvidia/version\n"
              "NVRM version: NVIDIA UNIX x86_64 Kernel Module  520.56.06  Thu Oct  6 21:38:55 UTC 2022\n"
              "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n")


@pytest.mark.parametrize("userspace, seen", [
    ("$ dpkg -l nvidia-smi\nii  nvidia-smi     525.85.12-1  amd64        NVIDIA System Management Interface\n",
     "525.85.12"),
    ("$ apt list --installed | grep nvidia\nnvidia-utils-535/jammy-updates,now 535.183.01-0ubuntu0.22.04.1 amd64 "
     "[installed,automatic]\n", "535.183.01"),
    ("ii  libnvidia-compute-520:amd64   520.56.06-0ubuntu1   amd64   NVIDIA libcompute package\n", None),
    ("ii  nvidia-utils-520   520.56-0ubuntu1   amd64   NVIDIA driver support binaries\n", None),
])
def test_a_kernel_module_of_another_release_than_the_user_space_driver_is_a_blocker(
        data: Dataset, userspace: str, seen: str | None) -> None:
    """illinois-cs-coursework#70 (the set 15 paste): /proc says module 520.56.06, dpkg says nvidia-smi 525.85.12:
    NVML refuses it ("Driver/library version mismatch"). The same release, said shorter (520.56), is no mismatch."""
    from gpuready.probe.paste import read_paste

    fingerprint = read_paste(MODULE_520 + userspace, "x")
    assert fingerprint.stack.nvidia_driver_version.value == "520.56.06"
    found = {f.code: f for f in judge(fingerprint, data)}
    if seen is None:
        assert "nvidia.module_unlike_userspace" not in found
        return
    assert fingerprint.stack.nvidia_userspace_version.value == seen
    blocker = found["nvidia.module_unlike_userspace"]
    assert blocker.severity is Severity.BLOCKER and blocker.evidence["user space"] == seen
    assert "reboot" in blocker.remedy and blocker.source_url


def test_the_user_space_version_is_not_held_against_the_driver_under_wsl(data: Dataset) -> None:
    """Under WSL the Linux side is a stub of the Windows driver with a version of its own."""
    from gpuready.probe.paste import read_paste

    paste = ("Linux box 5.15.153.1-microsoft-standard-WSL2 #1 SMP\nDriver Version: 560.94\n"
             "ii  nvidia-smi     555.42.06-1  amd64        NVIDIA System Management Interface\n")
    fingerprint = read_paste(paste, "x")
    assert fingerprint.stack.nvidia_userspace_version.value == "555.42.06"
    assert "nvidia.module_unlike_userspace" not in {f.code for f in judge(fingerprint, data)}


def test_xla_names_the_module_and_the_user_space_versions(data: Dataset) -> None:
    from gpuready.probe.paste import read_paste

    line = ("E external/xla/xla/stream_executor/cuda/cuda_diagnostics.cc:257] kernel version 535.129.3 does not "
            "match DSO version 545.23.8 -- cannot find working devices in this configuration\n")
    fingerprint = read_paste(line, "x")
    assert (fingerprint.stack.nvidia_driver_version.value, fingerprint.stack.nvidia_userspace_version.value) == (
        "535.129.3", "545.23.8")
    assert "nvidia.module_unlike_userspace" in {f.code for f in judge(fingerprint, data)}


@pytest.mark.parametrize("torch_line, gpu, covered", [
    ("- PyTorch version (GPU?): 2.2.1 (True)", "NVIDIA GeForce RTX 4070", True),  # accelerate#2564, the 14th set
    ("- PyTorch version (GPU?): 2.2.1 (True)", "NVIDIA GeForce GTX 680", False),  # sm_30: no build of 2.2.1 has it
    ("- PyTorch version (GPU?): 2.6.0a0+git8d4926e (True)", "NVIDIA GeForce RTX 4070", False),  # a source build
])
def test_a_torch_without_its_build_tag_is_judged_by_every_build_of_its_release(
        data: Dataset, torch_line: str, gpu: str, covered: bool) -> None:
    """torch sees an NVIDIA GPU, so it is a CUDA build: where every CUDA build of the release has kernels for the GPU,
    which one is installed does not matter (an info); otherwise it stays a warning."""
    from gpuready.probe.paste import read_paste

    found = {f.code: f for f in judge(read_paste(f"{torch_line}\n- GPU type: {gpu}\n", "x"), data)}
    assert ("torch.arch_in_every_build" in found) is covered
    assert ("unknown.torch_build" in found) is not covered
    if covered:
        assert found["torch.arch_in_every_build"].severity is Severity.INFO
        assert found["torch.arch_in_every_build"].evidence["builds"] == "cu121, cu118"


def test_gpus_of_different_architectures_are_a_warning_unless_one_kind_is_chosen(data: Dataset) -> None:
    """vllm#19045: two RTX 3090s (sm_86) and two GTX 1080 Tis (sm_61) in one box, all visible."""
    from gpuready.probe.paste import read_paste

    paste = ("PyTorch version: 2.6.0+cu124\nIs CUDA available: True\nCUDA used to build PyTorch: 12.4\n"
             "GPU models and configuration:\nGPU 0: NVIDIA GeForce RTX 3090\nGPU 1: NVIDIA GeForce RTX 3090\n"
             "GPU 2: NVIDIA GeForce GTX 1080 Ti\nGPU 3: NVIDIA GeForce GTX 1080 Ti\n")
    found = {f.code: f for f in judge(read_paste(paste, "x"), data)}
    mixed = found["devices.mixed_architectures"]
    assert mixed.severity is Severity.WARN and "CUDA_VISIBLE_DEVICES=0,1" in mixed.remedy
    alike = paste.replace("GTX 1080 Ti", "RTX 3090")
    assert "devices.mixed_architectures" not in {f.code for f in judge(read_paste(alike, "x"), data)}
    chosen = paste + "\nCUDA_VISIBLE_DEVICES=0,1\n"
    assert "devices.mixed_architectures" not in {f.code for f in judge(read_paste(chosen, "x"), data)}
