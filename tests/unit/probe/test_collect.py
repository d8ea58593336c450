"""Probes over replayed machines built from real recorded outputs."""

from __future__ import annotations

import json

from packaging.version import Version

from gpuready._framework_child import MARKER
from gpuready.model import BuildVariant, FactStatus, Fingerprint
from gpuready.model.build import build_label, variant_of
from gpuready.probe import collect_fingerprint
from gpuready.probe.amd import ROCM_SMI_ARGS
from gpuready.probe.frameworks import child_argv
from gpuready.probe.nvidia import nvidia_smi_argv
from gpuready.probe.parse.nvidia import QUERY_FIELDS
from gpuready.probe.redact import REDACTED
from gpuready.probe.system import CommandResult, NodeStat, ReplaySystem
from tests.fixture_kinds import FIXTURES


def fixture(path: str) -> str:
    return (FIXTURES / path).read_text(encoding="utf-8")


UBUNTU = {"/etc/os-release": fixture("os-release/ubuntu-24.04.txt"),
          "/etc/lsb-release": fixture("lsb-release/ubuntu-24.04.3.txt")}


def note(fp: Fingerprint, name: str) -> str:
    return " | ".join(f"{n.fact.status.value}: {n.fact.detail or n.fact.value}" for n in fp.probes if n.name == name)


def test_mi300x_node_from_rocminfo_and_rocm_install() -> None:
    system = ReplaySystem(
        commands={("rocminfo",): fixture("rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt")},
        files={**UBUNTU, "/opt/rocm/.info/version": fixture("rocm-version/opt-rocm-info-version-7.0.1.txt")},
    )
    fp = collect_fingerprint(system, frameworks=False)
    assert len(fp.devices) == 8
    assert {d.arch.value for d in fp.devices} == {"gfx942"}
    assert fp.devices[0].name.value == "AMD Instinct MI300X"
    assert fp.devices[0].memory_bytes.value == 206141652992
    assert fp.devices[0].sources == ("rocminfo",)
    assert fp.stack.rocm_version.value == Version("7.0.1")
    assert fp.stack.rocm_path.value == "/opt/rocm"
    assert fp.host.os_version.value == "24.04.3", "lsb-release refines VERSION_ID to the point release"
    assert fp.host.os_name.value == "Ubuntu 24.04.3 LTS"
    assert "not on PATH" in note(fp, "amd-smi")
    assert "not on PATH" in note(fp, "rocm-smi")


def test_uuids_and_hostname_are_redacted_by_default() -> None:
    system = ReplaySystem(commands={("rocminfo",): fixture("rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt")},
                          files={"/proc/sys/kernel/hostname": "gpu-node-17\n"})
    redacted = collect_fingerprint(system, frameworks=False)
    assert redacted.devices[0].uuid.value == REDACTED
    assert redacted.host.hostname.value == REDACTED
    shown = collect_fingerprint(system, frameworks=False, redact_identifiers=False)
    assert shown.devices[0].uuid.value == "GPU-07386a321fa45d1e"
    assert shown.host.hostname.value == "gpu-node-17"
    assert "gpu-node-17" not in json.dumps(redacted.host.hostname.value)


def test_amd_smi_is_preferred_and_rocm_smi_not_needed() -> None:
    system = ReplaySystem(commands={
        ("amd-smi", "version", "--json"): fixture("amd-smi/version-text-rocm6.4.0-mi300a-gpu-cpu.txt"),
        ("amd-smi", "static", "--json"): fixture("amd-smi/static-r9700-4gpu-gpu-data.json"),
        ("amd-smi", "list", "--json"): CommandResult(("amd-smi",), 1, "", "list failed"),
    })
    fp = collect_fingerprint(system, frameworks=False)
    assert [d.arch.value for d in fp.devices] == ["gfx1201"] * 4
    assert fp.devices[0].name.value == "AMD Radeon AI PRO R9700"
    assert fp.devices[0].sources == ("amd-smi",)
    assert fp.stack.rocm_version.value == Version("6.4.0"), "no /opt/rocm: amd-smi's ROCm version is used"
    assert fp.stack.amdgpu_driver_version.value == "6.10.5"
    assert fp.stack.amd_smi_version.value == "25.3.0+ede62f2"
    assert not any(n.name == "rocm-smi" for n in fp.probes), "rocm-smi only runs when amd-smi gave nothing"
    assert "list failed" in note(fp, "amd-smi")


def test_rocm_smi_fallback_and_kfd_topology_merge() -> None:
    system = ReplaySystem(
        commands={ROCM_SMI_ARGS: fixture("rocm-smi/productname-meminfo-rx7900xt.json")},
        files={"/sys/class/kfd/kfd/topology/nodes/0/properties": fixture("kfd-properties/cpu-node0-mi308x-host.txt"),
               "/sys/class/kfd/kfd/topology/nodes/1/properties": fixture("kfd-properties/mi210-node2.txt")},
    )
    fp = collect_fingerprint(system, frameworks=False)
    assert len(fp.devices) == 1, "the CPU node is skipped"
    device = fp.devices[0]
    assert device.name.value == "Radeon RX 7900 XT" and device.name.source == "rocm-smi"
    assert device.memory_bytes.value == 21458059264
    assert device.compute_units.source == "kfd", "fields rocm-smi lacks come from the KFD node"
    assert device.sources == ("rocm-smi", "kfd")


def test_rocminfo_permission_denied_is_reported_with_the_hint() -> None:
    system = ReplaySystem(
        commands={("rocminfo",): CommandResult(("rocminfo",), 1,
                                               fixture("rocminfo/permission-denied-not-in-render-group.txt"))},
        nodes={"/dev/kfd": NodeStat(group="render", mode=0o660, accessible=False, is_char_device=True),
               "/dev/dri/renderD128": NodeStat(group="render", mode=0o660, accessible=False, is_char_device=True)},
        user_groups=("navin", ("navin", "video")),
    )
    fp = collect_fingerprint(system, frameworks=False)
    assert fp.devices == ()
    text = note(fp, "rocminfo")
    assert text.startswith("error: Unable to open /dev/kfd read-write: Permission denied")
    assert 'not member of "render" group' in text
    kfd = fp.access.nodes[0]
    assert (kfd.path, kfd.exists, kfd.group.value, kfd.mode.value, kfd.accessible.value) == (
        "/dev/kfd", True, "render", "0660", False)
    assert fp.access.nodes[1].path == "/dev/dri/renderD128"
    assert fp.access.groups.value == ("navin", "video")


def test_nvidia_machine() -> None:
    system = ReplaySystem(commands={
        tuple(nvidia_smi_argv()): fixture("nvidia-smi-query/titan-v-rtx5880ada-mixed-570.csv"),
    }, files={"/proc/driver/nvidia/version": fixture("nvidia-proc-version/open-module-565-ubuntu-24.04.txt")})
    fp = collect_fingerprint(system, frameworks=False)
    assert [(d.name.value, d.arch.value) for d in fp.devices] == [
        ("NVIDIA TITAN V", "sm_70"), ("NVIDIA RTX 5880 Ada Generation", "sm_89")]
    assert fp.stack.nvidia_driver_version.value == "565.57.01"
    assert fp.stack.nvidia_kernel_module.value == "open"


def test_old_driver_without_compute_cap_is_asked_again() -> None:
    without = tuple(f for f in QUERY_FIELDS if f != "compute_cap")
    # Synthetic: the wording of nvidia-smi's rejection is ours; only the mention of the field matters.
    rejected = CommandResult(("nvidia-smi",), 2, 'Field "compute_cap" is not a valid field to query.\n')
    row = "0, Tesla V100-SXM2-16GB, 00000000:00:1E.0, 470.57.02, 16160, GPU-x\n"
    system = ReplaySystem(commands={tuple(nvidia_smi_argv()): rejected, tuple(nvidia_smi_argv(without)): row})
    fp = collect_fingerprint(system, frameworks=False)
    assert fp.devices[0].name.value == "Tesla V100-SXM2-16GB"
    assert fp.devices[0].memory_bytes.value == 16160 * 2**20
    assert fp.devices[0].arch.status is FactStatus.ABSENT
    assert fp.stack.nvidia_driver_version.value == "470.57.02", "driver from nvidia-smi when /proc lacks it"


def _child(payload: dict[str, object]) -> str:
    return "some warning printed by the framework\n" + MARKER + json.dumps(payload) + "\n"


def test_framework_facts_come_from_the_child() -> None:
    system = ReplaySystem(packages=(("torch", "2.5.1+rocm6.2"), ("pytorch-triton-rocm", "3.1.0"), ("numpy", "2.1")))
    argv = tuple(child_argv(system, "torch"))
    payload = {"ok": True, "facts": {"version": "2.5.1+rocm6.2", "hip": "6.2.41133-dd7f95766", "cuda": None,
                                     "available": True, "device_count": 1, "device_names": ["AMD Instinct MI300X"],
                                     "device_archs": ["gfx942:sramecc+:xnack-"], "arch_list": ["gfx90a", "gfx942"]}}
    system = ReplaySystem(packages=system.packages, commands={argv: _child(payload)})
    fp = collect_fingerprint(system)
    torch = fp.framework("torch")
    assert torch is not None
    assert torch.variant.value is BuildVariant.ROCM
    assert torch.backend_version.value == "6.2.41133-dd7f95766"
    assert torch.device_archs.value == ("gfx942:sramecc+:xnack-",)
    assert torch.arch_list.value == ("gfx90a", "gfx942")
    triton = fp.framework("pytorch-triton-rocm")
    assert triton is not None and triton.variant.value is BuildVariant.ROCM
    jax = fp.framework("jax")
    assert jax is not None and "not installed" in jax.version.detail
    assert [p.name for p in fp.packages] == ["numpy", "pytorch-triton-rocm", "torch"]


def test_framework_child_failures_are_facts() -> None:
    packages = (("torch", "2.6.0+rocm6.2.4"), ("jax", "0.4.35"))
    base = ReplaySystem(packages=packages)
    torch_argv, jax_argv = tuple(child_argv(base, "torch")), tuple(child_argv(base, "jax"))
    import_error = _child({"ok": False, "kind": "import",
                           "error": "ImportError: libamdhip64.so.6: cannot open shared object file"})
    system = ReplaySystem(packages=packages, commands={
        torch_argv: import_error,
        jax_argv: CommandResult(jax_argv, -11, "", "Fatal Python error: Segmentation fault\n"),
    })
    fp = collect_fingerprint(system)
    torch, jax = fp.framework("torch"), fp.framework("jax")
    assert torch is not None and jax is not None
    assert torch.version.value == "2.6.0+rocm6.2.4", "metadata still tells the version"
    assert torch.variant.value is BuildVariant.ROCM, "and the flavour, from the local version label"
    assert torch.accelerator_available.status is FactStatus.ERROR
    assert "libamdhip64.so.6" in torch.accelerator_available.detail
    assert jax.device_count.status is FactStatus.ERROR
    assert jax.device_count.detail.startswith("crashed with SIGSEGV")
    timeout = ReplaySystem(packages=packages, commands={
        torch_argv: CommandResult(torch_argv, None, error="timed out after 90 s")})
    torch = collect_fingerprint(timeout).framework("torch")
    assert torch is not None and torch.device_count.detail == "timed out after 90 s"


def test_variant_from_version_string() -> None:
    assert variant_of("2.5.1+rocm6.2") is BuildVariant.ROCM
    assert variant_of("2.9.1+rocm7.2.1.lw.gitff65f5bc") is BuildVariant.ROCM
    assert variant_of("2.8.0+cu128") is BuildVariant.CUDA
    assert variant_of("2.6.0+cpu") is BuildVariant.CPU
    assert variant_of("2.13.0") is BuildVariant.UNKNOWN
    assert build_label("2.9.1+rocm7.13.0a20260401").preview and build_label("2.9.1+rocm7.13.0a20260401").index == (
        "rocm7.13.0")
    assert build_label("2.8.0+cu128").backend == "12.8" and build_label("2.8.0+cu128").index == "cu128"
    assert build_label("2.4.1+rocm6.0").backend == "6.0" and not build_label("2.4.1+rocm6.0").preview
    nightly = build_label("2.7.0a0+rocm7.0.0rc20250717")  # TheRock's gfx120X-all nightly (pastes-holdout12)
    assert nightly.preview and nightly.backend == "7.0.0"


def test_container_and_environment() -> None:
    system = ReplaySystem(
        files={"/.dockerenv": ""},
        env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "HOME": "/root", "NCCL_DEBUG": "INFO",
             "LD_LIBRARY_PATH": "/usr/lib:/opt/rocm/lib:/home/u/lib"},
    )
    fp = collect_fingerprint(system, frameworks=False)
    assert fp.host.container.value == "docker"
    assert fp.environment == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "LD_LIBRARY_PATH": "/opt/rocm/lib",
                              "NCCL_DEBUG": "INFO"}
    k8s = collect_fingerprint(ReplaySystem(env={"KUBERNETES_SERVICE_HOST": "10.0.0.1"}), frameworks=False)
    assert k8s.host.container.value == "kubernetes"
    bare = collect_fingerprint(ReplaySystem(), frameworks=False)
    assert bare.host.container.status is FactStatus.ABSENT
    assert bare.host.os_name.status is FactStatus.ABSENT


def test_unreadable_or_malformed_files_become_error_facts() -> None:
    system = ReplaySystem(files={"/etc/os-release": "this is not os-release\n",
                                 "/opt/rocm/.info/version": "garbage\n",
                                 "/proc/driver/nvidia/version": "NVRM nothing here"})
    fp = collect_fingerprint(system, frameworks=False)
    assert fp.host.os_name.status is FactStatus.ERROR and "KEY=value" in fp.host.os_name.detail
    assert fp.stack.nvidia_driver_version.status is FactStatus.ERROR
    assert any(n.name == "rocm" and n.fact.status is FactStatus.ERROR for n in fp.probes)


def test_rocm_install_layouts() -> None:
    # Synthetic file trees: only the paths matter here (contents of .info/version come from a real fixture above).
    side_by_side = ReplaySystem(files={"/opt/rocm-6.2.0/bin/hipcc": "", "/opt/rocm-6.4.1/bin/hipcc": ""})
    fp = collect_fingerprint(side_by_side, frameworks=False)
    assert fp.stack.rocm_version.value == Version("6.4.1")
    assert fp.stack.rocm_installs == ("/opt/rocm-6.2.0", "/opt/rocm-6.4.1")
    core = ReplaySystem(files={"/opt/rocm/core-10.0/bin/amdclang": ""})
    assert collect_fingerprint(core, frameworks=False).stack.rocm_version.value == Version("10.0")
    core_info = ReplaySystem(files={"/opt/rocm/core/.info/version": "7.14.0-12\n"})
    fp = collect_fingerprint(core_info, frameworks=False)
    assert fp.stack.rocm_version.value == Version("7.14.0")
    assert fp.stack.rocm_path.value == "/opt/rocm/core"
    custom = ReplaySystem(env={"ROCM_PATH": "/usr/local/rocm"}, files={"/usr/local/rocm/.info/version": "6.3.2\n"})
    assert collect_fingerprint(custom, frameworks=False).stack.rocm_version.value == Version("6.3.2")


def test_amdgpu_dkms_module_version() -> None:
    system = ReplaySystem(files={"/sys/module/amdgpu/version": "6.12.12\n"})
    assert collect_fingerprint(system, frameworks=False).stack.amdgpu_driver_version.value == "6.12.12"
    in_tree = collect_fingerprint(ReplaySystem(), frameworks=False).stack.amdgpu_driver_version
    assert in_tree.status is FactStatus.ABSENT and "in-tree" in in_tree.detail


def test_a_cpu_only_torch_is_read_from_its_version_file_without_a_child() -> None:
    # Synthetic version.py in the shape torch writes at build time.
    cpu = "from typing import Optional\n__version__ = '2.13.0+cpu'\ndebug = False\ncuda: Optional[str] = None\n" \
          "hip: Optional[str] = None\n"
    system = ReplaySystem(packages=(("torch", "2.13.0+cpu"),), package_dirs={"torch": "/site/torch"},
                          files={"/site/torch/version.py": cpu})
    torch = collect_fingerprint(system).framework("torch")
    assert torch is not None
    assert (torch.version.value, torch.variant.value, torch.accelerator_available.value) == (
        "2.13.0+cpu", BuildVariant.CPU, False)
    assert "not imported" in torch.version.source
    rocm = cpu.replace("hip: Optional[str] = None", "hip: Optional[str] = '6.2.41133-dd7f95766'")
    system = ReplaySystem(packages=(("torch", "2.5.1+rocm6.2"),), package_dirs={"torch": "/site/torch"},
                          files={"/site/torch/version.py": rocm})
    torch = collect_fingerprint(system).framework("torch")
    assert torch is not None and torch.accelerator_available.status is FactStatus.ERROR, \
        "a GPU build is asked in a child process (here none answers)"
    xpu = cpu + "xpu: Optional[str] = '20250101'\n"
    system = ReplaySystem(packages=(("torch", "2.13.0+xpu"),), package_dirs={"torch": "/site/torch"},
                          files={"/site/torch/version.py": xpu})
    torch = collect_fingerprint(system).framework("torch")
    assert torch is not None and torch.variant.value is not BuildVariant.CPU, "an XPU build is not CPU-only"
    assert "not imported" not in torch.version.source


def test_topology_of_multi_gpu_nodes() -> None:
    csv = "".join(f"{i}, NVIDIA H100 80GB HBM3, 00000000:{i:02x}:00.0, 550.90.12, 9.0, 81559, GPU-{i}\n"
                  for i in range(8))  # synthetic rows; the topology below is real output
    system = ReplaySystem(commands={
        tuple(nvidia_smi_argv()): csv,
        ("nvidia-smi", "topo", "-m"): fixture("topology/nvidia-topo-8xh100-nvswitch-collect-env-indented.txt")})
    fp = collect_fingerprint(system, frameworks=False)
    assert fp.topology is not None and fp.topology.kinds() == {"nvlink"} and len(fp.topology.links) == 28
    showtopo = fixture("topology/rocm-smi-showtopo-mi308x-8gpu-xgmi.txt")
    amd = ReplaySystem(commands={("rocminfo",): fixture("rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt"),
                                 ("rocm-smi", "--showtopo"): showtopo})
    fp = collect_fingerprint(amd, frameworks=False)
    assert fp.topology is not None and fp.topology.kinds() == {"xgmi"} and fp.topology.numa["GPU7"] == "1"
    single = collect_fingerprint(ReplaySystem(commands={("rocminfo",): fixture(
        "rocminfo/rx7900xtx-gfx1100-rocm6.2.2.txt")}), frameworks=False)
    assert single.topology is None
