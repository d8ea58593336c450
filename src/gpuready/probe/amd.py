"""AMD facts: KFD topology, amdgpu driver, ROCm install, amd-smi / rocm-smi / rocminfo."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from packaging.version import Version

from gpuready.errors import ParseError
from gpuready.model import Fact, ProbeNote, Topology
from gpuready.probe.parse.amd_smi import (
    AmdSmiVersion,
    RocmSmiReport,
    parse_amd_smi_list,
    parse_amd_smi_static,
    parse_amd_smi_version,
    parse_rocm_smi_json,
)
from gpuready.probe.parse.kfd import KfdNode, parse_kfd_properties
from gpuready.probe.parse.records import GpuRecord
from gpuready.probe.parse.rocm_version import (
    parse_amdgpu_module_version,
    parse_rocm_dir_name,
    parse_rocm_info_version,
)
from gpuready.probe.parse.rocminfo import RocminfoReport, parse_rocminfo
from gpuready.probe.parse.topology import parse_amd_topology
from gpuready.probe.system import System

T = TypeVar("T")

KFD_NODES = "/sys/class/kfd/kfd/topology/nodes/*/properties"
AMDGPU_VERSION = "/sys/module/amdgpu/version"
ROCM_SMI_ARGS = ("rocm-smi", "--showproductname", "--showmeminfo", "vram", "--showdriverversion", "--json")


@dataclass(frozen=True)
class AmdFacts:
    """What the AMD probes found, before merging into the fingerprint."""

    gpu_reports: list[tuple[str, list[GpuRecord]]] = field(default_factory=list)
    rocm_version: Fact[Version] = field(default_factory=lambda: Fact[Version].absent("", "not probed"))
    rocm_path: Fact[str] = field(default_factory=lambda: Fact[str].absent("", "not probed"))
    rocm_installs: tuple[str, ...] = ()
    amdgpu_driver_version: Fact[str] = field(default_factory=lambda: Fact[str].absent("", "not probed"))
    amd_smi_version: Fact[str] = field(default_factory=lambda: Fact[str].absent("", "not probed"))
    notes: list[ProbeNote] = field(default_factory=list)
    topology: Topology | None = None


def _tool(system: System, argv: list[str], parser: Callable[[str], T], notes: list[ProbeNote]) -> T | None:
    """Run one tool, parse its output, and record a note whatever happens."""
    name = " ".join(argv)
    result = system.run(argv)
    if result.not_found:
        notes.append(ProbeNote(argv[0], Fact.absent(name, f"{argv[0]} is not on PATH")))
        return None
    if not result.ok and not result.stdout.strip():
        notes.append(ProbeNote(argv[0], Fact.error(name, result.failure())))
        return None
    try:
        value = parser(result.stdout)
    except ParseError as error:
        detail = error.reason if result.ok else f"{result.failure()} ({error.reason})"
        notes.append(ProbeNote(argv[0], Fact.error(name, detail)))
        return None
    notes.append(ProbeNote(argv[0], Fact.of("ok", name)))
    return value


def _kfd_nodes(system: System, notes: list[ProbeNote]) -> list[KfdNode]:
    paths = system.glob(KFD_NODES)
    if not paths:
        notes.append(ProbeNote("kfd", Fact.absent(KFD_NODES, "no KFD topology: amdgpu driver not loaded")))
        return []
    nodes: list[KfdNode] = []
    for path in sorted(paths, key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0):
        try:
            text = system.read_text(path)
        except OSError as error:
            notes.append(ProbeNote("kfd", Fact.error(path, str(error))))
            continue
        if text is None:
            continue
        try:
            nodes.append(parse_kfd_properties(text))
        except ParseError as error:
            notes.append(ProbeNote("kfd", Fact.error(path, error.reason)))
    notes.append(ProbeNote("kfd", Fact.of(f"{sum(n.is_gpu for n in nodes)} GPU node(s)", KFD_NODES)))
    return nodes


def _rocm_install(system: System, notes: list[ProbeNote]) -> tuple[Fact[Version], Fact[str], tuple[str, ...]]:
    env = system.environ()
    roots = [p for p in (env.get("ROCM_PATH"), "/opt/rocm") if p]
    installs = tuple(p for p in system.glob("/opt/rocm-*") if parse_rocm_dir_name(p))
    candidates = []
    for root in roots:
        candidates += [f"{root}/.info/version", f"{root}/.info/version-rocm"]
        candidates += [f"{core}/.info/version" for core in system.glob(f"{root}/core*")]
    for path in candidates:
        try:
            text = system.read_text(path)
        except OSError as error:
            notes.append(ProbeNote("rocm", Fact.error(path, str(error))))
            continue
        if text is None:
            continue
        try:
            version = parse_rocm_info_version(text)
        except ParseError as error:
            notes.append(ProbeNote("rocm", Fact.error(path, error.reason)))
            continue
        root = path.split("/.info/")[0]
        notes.append(ProbeNote("rocm", Fact.of(str(version), path)))
        return Fact.of(version, path, detail=text.strip()), Fact.of(root, path), installs
    for root in roots:
        for core in system.glob(f"{root}/core-*"):
            core_version = parse_rocm_dir_name(core.replace("/core-", "/rocm-"))
            if core_version is not None:
                notes.append(ProbeNote("rocm", Fact.of(str(core_version), core)))
                return (Fact.of(core_version, core, detail="ROCm Core SDK directory name"), Fact.of(root, core),
                        installs)
    versions = sorted((v for p in installs if (v := parse_rocm_dir_name(p))), reverse=True)
    if versions:
        return Fact.of(versions[0], "/opt/rocm-*", detail="newest versioned ROCm directory"), Fact.of(
            f"/opt/rocm-{versions[0]}", "/opt/rocm-*"), installs
    notes.append(ProbeNote("rocm", Fact.absent(", ".join(roots), "no ROCm installation found")))
    absent = "no /opt/rocm/.info/version or /opt/rocm-* directory"
    return Fact.absent("/opt/rocm", absent), Fact.absent("/opt/rocm", absent), installs


def collect_amd(system: System) -> AmdFacts:
    """Probe everything AMD. Each tool is optional; what failed is recorded in ``notes``."""
    notes: list[ProbeNote] = []
    nodes = _kfd_nodes(system, notes)
    kfd_gpus = [
        GpuRecord(vendor="amd", index=i, arch=n.arch, pci_bus=n.pci_bus, pci_device_id=n.device_id,
                  compute_units=n.compute_units, memory_bytes=n.local_mem_size or None)
        for i, n in enumerate(n for n in nodes if n.is_gpu)
    ]
    try:
        module_text = system.read_text(AMDGPU_VERSION)
    except OSError as error:
        module_text = None
        driver = Fact[str].error(AMDGPU_VERSION, str(error))
    else:
        driver = Fact[str].absent(AMDGPU_VERSION, "no DKMS amdgpu module version (in-tree driver or not loaded)")
    if module_text is not None:
        try:
            driver = Fact.of(parse_amdgpu_module_version(module_text), AMDGPU_VERSION)
        except ParseError as error:
            driver = Fact.error(AMDGPU_VERSION, error.reason)
    rocm_version, rocm_path, installs = _rocm_install(system, notes)

    version: AmdSmiVersion | None = _tool(system, ["amd-smi", "version", "--json"], parse_amd_smi_version, notes)
    static = _tool(system, ["amd-smi", "static", "--json"], parse_amd_smi_static, notes) if version else None
    listed = _tool(system, ["amd-smi", "list", "--json"], parse_amd_smi_list, notes) if version else None
    rocm_smi: RocmSmiReport | None = None
    if static is None:
        rocm_smi = _tool(system, list(ROCM_SMI_ARGS), parse_rocm_smi_json, notes)
    rocminfo: RocminfoReport | None = _tool(system, ["rocminfo"], parse_rocminfo, notes)
    if rocminfo is not None and rocminfo.failure:
        notes[-1] = ProbeNote("rocminfo", Fact.error("rocminfo", " ".join(
            p for p in (rocminfo.failure, rocminfo.hint) if p)))

    if version and version.rocm_version and not rocm_version.ok:
        try:
            rocm_version = Fact.of(Version(version.rocm_version), "amd-smi version")
        except ValueError:
            pass
    if not driver.ok:
        reported = (version.amdgpu_version if version else None) or (rocm_smi.driver_version if rocm_smi else None)
        if reported:
            driver = Fact.of(reported, "amd-smi version" if version and version.amdgpu_version else "rocm-smi")
    reports: list[tuple[str, list[GpuRecord]]] = [
        ("amd-smi", list(static or ())),
        ("rocm-smi", list(rocm_smi.gpus if rocm_smi else ())),
        ("rocminfo", list(rocminfo.gpus if rocminfo else ())),
        ("kfd", kfd_gpus),
        ("amd-smi list", list(listed or ())),
    ]
    gpu_count = max((len(r) for _, r in reports), default=0)
    topology = None
    if gpu_count > 1:
        argv = ["amd-smi", "topology"] if version else ["rocm-smi", "--showtopo"]
        topology = _tool(system, argv, parse_amd_topology, notes)
    return AmdFacts(
        topology=topology,
        gpu_reports=reports,
        rocm_version=rocm_version,
        rocm_path=rocm_path,
        rocm_installs=installs,
        amdgpu_driver_version=driver,
        amd_smi_version=Fact.of(version.tool_version, "amd-smi version") if version and version.tool_version
        else Fact.absent("amd-smi version", "amd-smi not available"),
        notes=notes,
    )
