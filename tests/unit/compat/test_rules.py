"""Rules over fingerprints built from real recorded outputs (replayed), judged with the bundled data."""

from __future__ import annotations

import dataclasses
import datetime
import json

import pytest

from gpuready._framework_child import MARKER
from gpuready.compat.judge import Verdict, judge, verdict
from gpuready.compat.load import Dataset, load_dataset
from gpuready.model import Finding, Fingerprint, Severity
from gpuready.probe import collect_fingerprint
from gpuready.probe.amd import ROCM_SMI_ARGS
from gpuready.probe.frameworks import child_argv
from gpuready.probe.nvidia import nvidia_smi_argv
from gpuready.probe.system import CommandResult, NodeStat, ReplaySystem
from tests.fixture_kinds import FIXTURES


@pytest.fixture(scope="module")
def data() -> Dataset:
    return load_dataset()


def fixture(path: str) -> str:
    return (FIXTURES / path).read_text(encoding="utf-8")


def judged(fp: Fingerprint, data: Dataset) -> tuple[Verdict, dict[str, Finding]]:
    findings = judge(fp, data, today=data.as_of)
    return verdict(findings), {f.code: f for f in findings}


UBUNTU = {"/etc/os-release": fixture("os-release/ubuntu-24.04.txt"),
          "/etc/lsb-release": fixture("lsb-release/ubuntu-24.04.3.txt")}
KFD_OK = NodeStat(group="render", mode=0o660, accessible=True, is_char_device=True)


def torch_child(version: str, *, hip: str | None = None, cuda: str | None = None, available: bool = True,
                names: list[str] | None = None, archs: list[str] | None = None,
                arch_list: list[str] | None = None) -> str:
    facts = {"version": version, "hip": hip, "cuda": cuda, "available": available,
             "device_count": len(names or []), "device_names": names or [], "device_archs": archs or [],
             "arch_list": arch_list or []}
    return MARKER + json.dumps({"ok": True, "facts": facts}) + "\n"


def machine(*, rocminfo: str | None = None, torch: str | None = None, torch_version: str = "",
            env: dict[str, str] | None = None, nodes: dict[str, NodeStat] | None = None,
            files: dict[str, str] | None = None, commands: dict[tuple[str, ...], str | CommandResult] | None = None,
            groups: tuple[str, ...] = ("user", "render", "video")) -> Fingerprint:
    base = ReplaySystem(packages=(("torch", torch_version),) if torch_version else ())
    all_commands: dict[tuple[str, ...], str | CommandResult] = dict(commands or {})
    if rocminfo:
        all_commands[("rocminfo",)] = fixture(rocminfo)
    if torch:
        all_commands[tuple(child_argv(base, "torch"))] = torch
    system = ReplaySystem(commands=all_commands, files={**UBUNTU, **(files or {})},
                          nodes=nodes if nodes is not None else {"/dev/kfd": KFD_OK, "/dev/dri/renderD128": KFD_OK},
                          env=env or {}, packages=base.packages, user_groups=("user", groups))
    return collect_fingerprint(system)


def test_healthy_mi300x_rocm_node_is_ready(data: Dataset) -> None:
    fp = machine(rocminfo="rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt", torch_version="2.5.1+rocm6.2",
                 torch=torch_child("2.5.1+rocm6.2", hip="6.2.41133-dd7f95766", names=["AMD Instinct MI300X"] * 8,
                                   archs=["gfx942:sramecc+:xnack-"] * 8),
                 files={"/opt/rocm/.info/version": "6.2.3-42\n"})
    outcome, found = judged(fp, data)
    assert not [f for f in found.values() if f.severity is Severity.BLOCKER], found
    assert outcome in (Verdict.READY, Verdict.READY_WITH_WARNINGS)
    assert "torch.arch_not_in_wheel" not in found


def test_cpu_torch_on_a_gpu_host_is_a_blocker_with_the_right_install_line(data: Dataset) -> None:
    fp = machine(rocminfo="rocminfo/rx7900xtx-gfx1100-rocm6.2.2.txt", torch_version="2.5.1+cpu",
                 torch=torch_child("2.5.1+cpu", available=False))
    outcome, found = judged(fp, data)
    assert outcome is Verdict.NOT_READY
    blocker = found["torch.cpu_build"]
    assert "--index-url https://download.pytorch.org/whl/rocm" in blocker.remedy
    assert "Radeon RX 7900 XTX" in blocker.message


def test_cuda_build_on_amd_and_rocm_build_on_nvidia(data: Dataset) -> None:
    amd = machine(rocminfo="rocminfo/mi250x-gcd-gfx90a-rocm6.2.1.txt", torch_version="2.5.1+cu124",
                  torch=torch_child("2.5.1+cu124", cuda="12.4", available=False))
    assert "torch.cuda_build_on_amd" in judged(amd, data)[1]
    nvidia = machine(torch_version="2.5.1+rocm6.2", torch=torch_child("2.5.1+rocm6.2", hip="6.2", available=False),
                     commands={tuple(nvidia_smi_argv()): fixture("nvidia-smi-query/titan-v-rtx5880ada-mixed-570.csv")},
                     nodes={})
    assert "torch.rocm_build_on_nvidia" in judged(nvidia, data)[1]


def test_arch_missing_from_the_wheel_names_a_wheel_that_has_it(data: Dataset) -> None:
    # The RX 9070 XT (gfx1201) with a torch whose compiled list (as torch reported it) lacks gfx1201.
    fp = machine(rocminfo="rocminfo/rx9070xt-gfx1201-igpu-gfx1036-rocm7.0.txt", torch_version="2.4.1+rocm6.1",
                 torch=torch_child("2.4.1+rocm6.1", hip="6.1.40091", names=["AMD Radeon RX 9070 XT"],
                                   archs=["gfx1201"], arch_list=["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942",
                                                                 "gfx1030", "gfx1100"]),
                 env={"HIP_VISIBLE_DEVICES": "0"})
    outcome, found = judged(fp, data)
    assert outcome is Verdict.NOT_READY
    blocker = found["torch.arch_not_in_wheel"]
    assert blocker.evidence["GPU arch"] == "gfx1201", "the iGPU is hidden by HIP_VISIBLE_DEVICES=0 and not judged"
    assert "pip install torch==" in blocker.remedy and "rocm" in blocker.remedy


def test_hsa_override_rules(data: Dataset) -> None:
    arch_list = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"]
    harmful = machine(rocminfo="rocminfo/rx7900xtx-gfx1100-rocm6.2.2.txt", torch_version="2.5.1+rocm6.2",
                      torch=torch_child("2.5.1+rocm6.2", hip="6.2", names=["Radeon RX 7900 XTX"], archs=["gfx1100"],
                                        arch_list=arch_list), env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})
    assert "env.hsa_override_harmful" in judged(harmful, data)[1]
    invalid = dataclasses.replace(harmful, environment={"HSA_OVERRIDE_GFX_VERSION": "gfx1100"})
    assert "env.hsa_override_invalid" in judged(invalid, data)[1]


def test_permission_denied_names_the_group(data: Dataset) -> None:
    denied = NodeStat(group="render", mode=0o660, accessible=False, is_char_device=True)
    fp = machine(commands={("rocminfo",): CommandResult(("rocminfo",), 1, fixture(
        "rocminfo/permission-denied-not-in-render-group.txt"))},
        nodes={"/dev/kfd": denied, "/dev/dri/renderD128": denied}, groups=("user",))
    outcome, found = judged(fp, data)
    assert outcome is Verdict.NOT_READY
    assert found["access.kfd_denied"].remedy.startswith("sudo usermod -aG render user")
    assert "gpu.none" not in found, "a failed probe is not 'no GPU'"


def test_container_without_kfd(data: Dataset) -> None:
    fp = machine(files={"/.dockerenv": "", "/sys/class/kfd/kfd/topology/nodes/1/properties":
                        fixture("kfd-properties/mi210-node2.txt")}, nodes={})
    found = judged(fp, data)[1]
    assert "--device=/dev/kfd" in found["access.container_without_devices"].remedy


def test_no_gpu_at_all(data: Dataset) -> None:
    fp = machine(nodes={})
    outcome, found = judged(fp, data)
    assert outcome is Verdict.NOT_READY and "gpu.none" in found


def test_visible_devices_hiding_everything_and_igpu_first(data: Dataset) -> None:
    fp = machine(rocminfo="rocminfo/rx9070xt-gfx1201-igpu-gfx1036-rocm7.0.txt")
    assert "devices.igpu_first" not in judged(fp, data)[1], "the dGPU is device 0 here"
    swapped = dataclasses.replace(fp, devices=tuple(dataclasses.replace(d, index=i)
                                                    for i, d in enumerate(reversed(fp.devices))))
    found = judged(swapped, data)[1]
    assert "HIP_VISIBLE_DEVICES=1" in found["devices.igpu_first"].remedy
    # the iGPU's gfx1036 is no target of ROCm 7.0: work on the default device fails (ROCm#4390, solved by disabling
    # the iGPU); with an override the runtime presents it as another target, and only a warning is left
    assert found["devices.igpu_first"].severity is Severity.WARN, "no ROCm release known: its targets are not"
    installed = machine(rocminfo="rocminfo/rx9070xt-gfx1201-igpu-gfx1036-rocm7.0.txt",
                        files={"/opt/rocm/.info/version": "7.0.0-38\n"})
    installed = dataclasses.replace(installed, devices=tuple(dataclasses.replace(d, index=i)
                                                             for i, d in enumerate(reversed(installed.devices))))
    assert judged(installed, data)[1]["devices.igpu_first"].severity is Severity.BLOCKER
    overridden = dataclasses.replace(installed, environment={"HSA_OVERRIDE_GFX_VERSION": "11.0.0"})
    assert judged(overridden, data)[1]["devices.igpu_first"].severity is Severity.WARN
    hidden = dataclasses.replace(fp, environment={"HIP_VISIBLE_DEVICES": "-1"})
    assert "env.visible_devices_hide_all" in judged(hidden, data)[1]


def test_nvidia_driver_too_old_for_the_wheel(data: Dataset) -> None:
    row = "0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, 470.57.02, 8.0, 81920, GPU-x\n"
    fp = machine(torch_version="2.5.1+cu124", nodes={},
                 torch=torch_child("2.5.1+cu124", cuda="12.4", available=False),
                 commands={tuple(nvidia_smi_argv()): row})
    found = judged(fp, data)[1]
    assert found["cuda.driver_too_old"].severity is Severity.BLOCKER
    assert "470.57.02" in found["cuda.driver_too_old"].message


def test_an_unknown_driver_is_a_warning_unless_torch_runs_cuda_on_the_gpu(data: Dataset) -> None:
    """A driver too old for the wheel's CUDA runtime makes torch.cuda.is_available() False; where torch reports the
    GPU available, the driver runs that CUDA whatever its version."""
    from gpuready.probe.paste import read_paste

    paste = ("PyTorch Version: 2.8.0+cu129\n- **Name:** cuda:0 NVIDIA GeForce RTX 5090 : cudaMallocAsync\n")
    assert "unknown.nvidia_driver" not in judged(read_paste(paste, "synthetic"), data)[1]
    unknown = paste.replace("- **Name:** cuda:0 NVIDIA GeForce RTX 5090 : cudaMallocAsync", "GPU: NVIDIA RTX 5090")
    assert "unknown.nvidia_driver" in judged(read_paste(unknown, "synthetic"), data)[1]


def test_a_kernel_another_distribution_built_is_the_host_of_a_container(data: Dataset) -> None:
    """vLLM#17875 (an Ubuntu 22.04.5 container on an LLNL TOSS host, kernel 4.18.0-553.47.1.1toss.t4) and vLLM#14062
    (Ubuntu 22.04.5 in a container on RHEL 9.5, 5.14.0-503.22.1.el9_5): the kernel is the host's, so it is not held
    against the container OS's list (an info says so); an Ubuntu kernel under Ubuntu still is."""
    from gpuready.probe.paste import read_paste

    paste = ('ROCm version: 6.3.0\nPRETTY_NAME="Ubuntu 22.04.5 LTS"\nGPU 0: AMD Instinct MI300X (gfx942)\n'
             "Linux box 5.14.0-503.22.1.el9_5.x86_64 #1 SMP\n")
    found = judged(read_paste(paste, "synthetic"), data)[1]
    assert "rocm.kernel_of_host" in found and "rocm.kernel_unlisted" not in found
    toss = judged(read_paste(paste.replace("5.14.0-503.22.1.el9_5", "4.18.0-553.47.1.1toss.t4"), "synthetic"), data)[1]
    assert "rocm.kernel_of_host" in toss
    ubuntu = judged(read_paste(paste.replace("5.14.0-503.22.1.el9_5.x86_64", "4.15.0-20-generic"), "synthetic"),
                    data)[1]
    assert "rocm.kernel_unlisted" in ubuntu and "rocm.kernel_of_host" not in ubuntu


def test_os_not_listed_for_the_rocm_release(data: Dataset) -> None:
    fp = machine(rocminfo="rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt", files={
        "/opt/rocm/.info/version": "6.0.2\n", "/etc/os-release": fixture("os-release/sles-15-sp6.txt"),
        "/etc/lsb-release": ""})
    found = judged(fp, data)[1]
    assert "rocm.os_unsupported" in found, "SLES 15 SP6 came with ROCm 6.2, not 6.0"


def test_an_unlisted_point_release_of_a_listed_ubuntu_lts_is_information(data: Dataset) -> None:
    """vLLM#38107: Ubuntu 24.04.4 with ROCm 7.2.0, whose list has 24.04.3: the same LTS (an info); its kernel is still
    held against the listed kernels. A release line that is not listed stays a warning."""
    from gpuready.probe.paste import read_paste

    paste = ('ROCm version: 7.2.0\nPRETTY_NAME="Ubuntu 24.04.4 LTS"\nGPU 0: AMD Radeon PRO V620 (gfx1030)\n'
             "Linux box 6.8.0-45-generic #45 SMP\n")
    found = judged(read_paste(paste, "synthetic"), data)[1]
    assert "rocm.os_point_release" in found and "rocm.os_unsupported" not in found
    kernel = judged(read_paste(paste.replace("6.8.0-45", "4.15.0-20"), "synthetic"), data)[1]
    assert "rocm.kernel_unlisted" in kernel
    no_kernel = judged(read_paste(paste.replace("Linux box 6.8.0-45-generic #45 SMP\n", ""), "synthetic"), data)[1]
    assert "rocm.os_unsupported" in no_kernel, "with no kernel shown, what point releases differ in is unchecked"
    other = judged(read_paste(paste.replace("24.04.4", "23.10"), "synthetic"), data)[1]
    assert "rocm.os_unsupported" in other and "rocm.os_point_release" not in other


def test_a_point_release_is_no_way_around_amds_gpu_to_os_limits(data: Dataset) -> None:
    """ROCm 6.0.0 lists the MI300X on Ubuntu 22.04.3 only: 22.04.1 stays a warning, never READY (review finding)."""
    from gpuready.compat.judge import verdict
    from gpuready.probe.paste import read_paste

    paste = ("ROCm version: 6.0.0\nOS: Ubuntu 22.04.1 LTS\nLinux box 5.15.0-91-generic #101 SMP\n"
             "GPU 0: AMD Instinct MI300X (gfx942)\ntorch 2.3.0+rocm6.0\nCUDA available: True\n")
    findings = judge(read_paste(paste, "synthetic"), data, today=data.as_of)
    assert "rocm.os_point_release" not in {f.code for f in findings}
    assert verdict(findings).value != "READY"


def test_a_gpu_name_cut_short_is_found_by_its_beginning(data: Dataset) -> None:
    """vLLM#20581's collect_env cut 'NVIDIA A100-SXM4-80GB' to '...-80G'; a family's short name finds nothing."""
    from gpuready.compat.catalogue import matching_gpus

    assert [g.name for g in matching_gpus(data.gpus.gpus, "NVIDIA A100-SXM4-80G")] == ["NVIDIA A100-SXM4-80GB"]
    assert matching_gpus(data.gpus.gpus, "NVIDIA GeForce RTX 40") == []


def test_stale_data_warns(data: Dataset) -> None:
    fp = machine(nodes={})
    findings = judge(fp, data, today=data.as_of + datetime.timedelta(days=400))
    assert any(f.code == "data.stale" for f in findings)
    assert not any(f.code == "data.stale" for f in judge(fp, data, today=data.as_of))


def test_rocm_smi_gfx_spelling_and_unsupported_consumer_gpu(data: Dataset) -> None:
    fp = machine(commands={ROCM_SMI_ARGS: fixture("rocm-smi/productname-meminfo-rx7900xt.json")},
                 files={"/opt/rocm/.info/version": "6.4.0-47\n"})
    found = judged(fp, data)[1]
    assert "rocm.gpu_unsupported" not in found, "gfx1100 is supported by ROCm 6.4"


def _without(fp: Fingerprint, path: tuple[str, ...]) -> Fingerprint:
    """The fingerprint with the Fact at ``path`` replaced by 'absent' (as a report that does not show it)."""
    from gpuready.model import Fact

    if len(path) == 1:
        return dataclasses.replace(fp, **{path[0]: Fact.absent("", "not in this report")})
    head, rest = path[0], path[1:]
    value = getattr(fp, head)
    if isinstance(value, tuple):
        index = int(rest[0])
        items = list(value)
        items[index] = _without(items[index], rest[1:])  # type: ignore[arg-type]
        return dataclasses.replace(fp, **{head: tuple(items)})
    return dataclasses.replace(fp, **{head: _without(value, rest)})


def _fact_paths(obj: object, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    from gpuready.model import Fact

    paths = []
    for field in dataclasses.fields(obj):  # type: ignore[arg-type]
        value = getattr(obj, field.name)
        if isinstance(value, Fact):
            paths.append((*prefix, field.name))
        elif dataclasses.is_dataclass(value):
            paths += _fact_paths(value, (*prefix, field.name))
        elif isinstance(value, tuple):
            for i, item in enumerate(value):
                if dataclasses.is_dataclass(item):
                    paths += _fact_paths(item, (*prefix, field.name, str(i)))
    return paths


def broken_machines() -> list[tuple[str, Fingerprint]]:
    denied = NodeStat(group="render", mode=0o660, accessible=False, is_char_device=True)
    return [
        ("cpu torch on a GPU host", machine(rocminfo="rocminfo/rx7900xtx-gfx1100-rocm6.2.2.txt",
                                            torch_version="2.5.1+cpu", torch=torch_child("2.5.1+cpu",
                                                                                          available=False))),
        ("kfd not accessible", machine(rocminfo="rocminfo/rx7900xtx-gfx1100-rocm6.2.2.txt",
                                       nodes={"/dev/kfd": denied, "/dev/dri/renderD128": denied})),
        ("no GPU", machine(nodes={})),
    ]


@pytest.mark.parametrize(("name", "fp"), broken_machines(), ids=[n for n, _ in broken_machines()])
def test_a_broken_setup_is_never_ready_because_a_fact_is_missing(name: str, fp: Fingerprint, data: Dataset) -> None:
    assert judged(fp, data)[0] is Verdict.NOT_READY
    for path in _fact_paths(fp):
        outcome, found = judged(_without(fp, path), data)
        assert outcome is not Verdict.READY, f"{name}: READY once {'.'.join(path)} was missing ({sorted(found)})"


def test_newer_torch_than_the_data_and_jax_plugin_mismatch(data: Dataset) -> None:
    fp = machine(rocminfo="rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt", torch_version="9.1.0+rocm12.0",
                 torch=torch_child("9.1.0+rocm12.0", hip="12.0", names=["AMD Instinct MI300X"], archs=["gfx942"],
                                   arch_list=["gfx942"]))
    fp = dataclasses.replace(fp, packages=(*fp.packages, *(
        __import__("gpuready.model", fromlist=["Package"]).Package(n, v)
        for n, v in (("jaxlib", "0.7.1"), ("jax-rocm7-plugin", "0.6.0")))))
    found = judged(fp, data)[1]
    assert "data.framework_newer" in found
    assert found["jax.plugin_mismatch"].remedy == "pip install jax-rocm7-plugin==0.7.1  (or install jax, jaxlib and " \
                                                  "the plugin together)"


def test_mixed_rocm_installs_and_library_path(data: Dataset) -> None:
    fp = machine(rocminfo="rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt", torch_version="2.5.1+rocm6.2",
                 torch=torch_child("2.5.1+rocm6.2", hip="6.2.41133-dd7f95766", names=["AMD Instinct MI300X"],
                                   archs=["gfx942"], arch_list=["gfx942"]),
                 files={"/opt/rocm-6.0.0/bin/hipcc": "", "/opt/rocm-6.2.3/bin/hipcc": ""},
                 env={"LD_LIBRARY_PATH": "/opt/rocm-6.0.0/lib"})
    found = judged(fp, data)[1]
    assert "rocm.multiple_installs" in found
    assert "/opt/rocm-6.0.0/lib" in found["rocm.ld_library_path_mismatch"].message


def test_driver_not_loaded_and_open_module_on_volta(data: Dataset) -> None:
    fp = machine(nodes={}, files={"/opt/rocm/.info/version": "6.2.0\n"})
    assert "driver.amdgpu_not_loaded" in judged(fp, data)[1]
    volta = machine(nodes={}, commands={tuple(nvidia_smi_argv()): fixture(
        "nvidia-smi-query/titan-v-rtx5880ada-mixed-570.csv")}, files={
        "/proc/driver/nvidia/version": fixture("nvidia-proc-version/open-module-565-ubuntu-24.04.txt")})
    found = judged(volta, data)[1]
    assert "TITAN V" in found["nvidia.open_module_unsupported_gpu"].message


def test_override_on_an_unsupported_rdna2_card(data: Dataset) -> None:
    # Synthetic: an RX 6700 XT (gfx1031) machine, built from the RX 6800 XT rocminfo with its target renamed.
    text = fixture("rocminfo/wsl-rx6800xt-gfx1030-rocm6.1.3.txt").replace("gfx1030", "gfx1031")
    arch_list = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"]
    base = dict(commands={("rocminfo",): text}, torch_version="2.5.1+rocm6.2")
    without = machine(**base, torch=torch_child("2.5.1+rocm6.2", hip="6.2", names=["AMD Radeon RX 6700 XT"],
                                                archs=["gfx1031"], arch_list=arch_list))  # type: ignore[arg-type]
    blocker = judged(without, data)[1]["torch.arch_not_in_wheel"]
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in blocker.remedy
    active = dataclasses.replace(without, environment={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})
    assert judged(active, data)[1]["env.hsa_override_active"].severity is Severity.WARN
    wrong = dataclasses.replace(without, environment={"HSA_OVERRIDE_GFX_VERSION": "11.0.2"})
    assert "env.hsa_override_no_match" in judged(wrong, data)[1]


def test_driver_series_outside_its_user_space_window(data: Dataset) -> None:
    # Synthetic version strings: a 30.10 driver (documented for ROCm 6.2 and newer) under ROCm 6.1.
    fp = machine(rocminfo="rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt", files={
        "/opt/rocm/.info/version": "6.1.2\n", "/sys/module/amdgpu/version": "30.10.1\n"})
    assert "rocm.driver_userspace_skew" in judged(fp, data)[1]
    kernel_style = machine(rocminfo="rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt", files={
        "/opt/rocm/.info/version": "5.7.0\n", "/sys/module/amdgpu/version": "6.3.6\n"})
    assert "rocm.driver_userspace_skew" not in judged(kernel_style, data)[1], "6.3.6 names no driver series"


def test_a_rocm_technology_preview_is_flagged_with_the_production_release_to_move_to(data: Dataset) -> None:
    fp = machine(rocminfo="rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt", files={"/opt/rocm/.info/version": "7.13.0\n"})
    found = judged(fp, data)[1]
    preview = found["rocm.preview_release"]
    assert preview.severity is Severity.WARN and "not for production" in preview.message
    assert "ROCm 7.14.0" in preview.remedy and "rocm.unknown_release" not in found
    production = machine(rocminfo="rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt",
                         files={"/opt/rocm/.info/version": "7.2.3\n"})
    assert "rocm.preview_release" not in judged(production, data)[1]


def test_unknown_arch_list_says_how_to_find_it_and_flags_therock_family_wheels(data: Dataset) -> None:
    from gpuready.probe.paste import read_fingerprint

    fp = read_fingerprint(FIXTURES / "collect-env/rocm7.13-mi300x-gfx942-torch2.9.1.txt", None)[1]
    unknown = judged(fp, data)[1]["unknown.torch_arch_list"]
    assert "get_arch_list()" in unknown.remedy and "per GPU family" in unknown.remedy
    assert unknown.source_url.startswith("https://rocm.docs.amd.com/")


def test_a_source_built_rocm_torch_on_a_gpu_its_release_supports_is_expected_to_have_its_kernels(
        data: Dataset) -> None:
    """vllm#16474's collect_env (real): torch 2.7.0a0+git295f2ed built with ROCm 6.3 on MI300X (gfx942, supported by
    6.3): the unshown arch list is an info with how to confirm. The same text with the GPU line made a gfx1031 card
    (a synthetic edit: 6.3 does not support it) keeps the warning, and so does a dated TheRock tag."""
    from gpuready.probe.paste import read_paste

    text = next(FIXTURES.glob("pastes-holdout3/h3-vllm-16474-*.txt")).read_text(encoding="utf-8")
    found = judged(read_paste(text, "vllm#16474"), data)[1]
    unshown = found["torch.arch_list_unshown"]
    assert unshown.severity is Severity.INFO and "gfx942" in unshown.remedy and "unknown.torch_arch_list" not in found
    assert "utils.cmake" in unshown.source_url
    other_gpu = text.replace("AMD Instinct MI300X (gfx942:sramecc+:xnack-)", "AMD Radeon RX 6700 XT (gfx1031)")
    assert "AMD Radeon RX 6700 XT" in other_gpu
    assert judged(read_paste(other_gpu, "edited"), data)[1]["unknown.torch_arch_list"].severity is Severity.WARN
    nightly = text.replace("2.7.0a0+git295f2ed", "2.7.0a0+rocm6.3.0rc20250717")
    assert "torch.arch_list_unshown" not in judged(read_paste(nightly, "edited"), data)[1]


def test_the_user_space_driver_is_read_from_nvml_library_file_names(data: Dataset) -> None:
    """On the machine: the NVML library's file name carries the user-space release; a loaded module of another
    release is a blocker (illinois-cs-coursework#70 shows it in a paste). Two releases side by side: not judged."""
    proc = {"/proc/driver/nvidia/version": fixture("nvidia-proc-version/open-module-565-ubuntu-24.04.txt")}
    module = machine(nodes={}, files=proc).stack.nvidia_driver_version.value
    assert module and module.startswith("565.")
    library = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so."
    same = machine(nodes={}, files={**proc, library + module: "", library + "1": ""})
    assert same.stack.nvidia_userspace_version.value == module
    assert "nvidia.module_unlike_userspace" not in judged(same, data)[1]
    newer = machine(nodes={}, files={**proc, library + "570.133.07": ""})
    assert judged(newer, data)[1]["nvidia.module_unlike_userspace"].severity is Severity.BLOCKER
    both = machine(nodes={}, files={**proc, library + "570.133.07": "", library + module: ""})
    assert not both.stack.nvidia_userspace_version.ok
    assert "several releases" in both.stack.nvidia_userspace_version.detail
