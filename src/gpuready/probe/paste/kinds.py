"""Read a saved gpuready Run or a pasted tool report (collect_env, rocminfo, amd-smi, rocm-smi, nvidia-smi) from
another machine into a ``Fingerprint``. Bad input raises ``InputError`` naming the file and what was expected."""

from __future__ import annotations

import csv
import dataclasses
import enum
import io
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path

from packaging.version import InvalidVersion, Version

from gpuready.errors import InputError, ParseError
from gpuready.files import check_nesting, read_text, refuse_lone_surrogates
from gpuready.model import (
    BuildVariant,
    Fact,
    Fingerprint,
    Framework,
    Host,
    Package,
    ProbeNote,
    Run,
    Stack,
)
from gpuready.probe.devices import merge_devices
from gpuready.probe.parse.amd_smi import (
    parse_amd_smi_default,
    parse_amd_smi_list,
    parse_amd_smi_static,
    parse_amd_smi_version,
    parse_rocm_smi_json,
)
from gpuready.probe.parse.collect_env import CollectEnvReport, parse_collect_env
from gpuready.probe.parse.kfd import parse_kfd_properties
from gpuready.probe.parse.nvidia import parse_nvidia_proc_version, parse_nvidia_smi_csv
from gpuready.probe.parse.os_release import parse_lsb_release, parse_os_name, parse_os_release
from gpuready.probe.parse.records import GpuRecord
from gpuready.probe.parse.rocm_version import leading_version, parse_rocm_info_version
from gpuready.probe.parse.rocminfo import parse_rocminfo
from gpuready.probe.parse.topology import parse_topology

MAX_REPORT_BYTES = 16 * 1024 * 1024


class ReportKind(str, enum.Enum):
    """What a ``--from`` file holds."""

    RUN = "run"
    COLLECT_ENV = "collect-env"
    ROCMINFO = "rocminfo"
    AMD_SMI_STATIC = "amd-smi-static"
    AMD_SMI_LIST = "amd-smi-list"
    AMD_SMI_VERSION = "amd-smi-version"
    AMD_SMI_DEFAULT = "amd-smi-default"
    ROCM_SMI = "rocm-smi"
    NVIDIA_SMI_CSV = "nvidia-smi-csv"
    KFD_PROPERTIES = "kfd-properties"
    OS_RELEASE = "os-release"
    LSB_RELEASE = "lsb-release"
    NVIDIA_PROC_VERSION = "nvidia-proc-version"
    ROCM_VERSION_FILE = "rocm-version-file"
    TOPOLOGY = "topology"


def read_report_text(path: Path) -> str:
    """The file as text; empty, binary, unreadable, special (FIFO, device) or oversized files raise ``InputError``."""
    text = read_text(path, MAX_REPORT_BYTES, "report")
    if not text.strip():
        raise InputError("the file is empty", source=str(path))
    return text


_COLLECT_ENV = re.compile(r"^PyTorch version:", re.MULTILINE)
_ROCMINFO = re.compile(r"ROCk module|HSA System Attributes|^\s*Agent \d+\s*$|Unable to open /dev/kfd", re.MULTILINE)
_KFD = re.compile(r"^simd_count \d+", re.MULTILINE)
_TOPOLOGY = re.compile(r"Link Type between two GPUs|^LINK TYPE TABLE", re.MULTILINE)
_TOPOLOGY_TAB = re.compile(r"^\s*GPU0\t", re.MULTILINE)
_NVRM = re.compile(r"^NVRM version:", re.MULTILINE)
_LSB = re.compile(r"^DISTRIB_ID=", re.MULTILINE)
_OS_RELEASE = re.compile(r"^(ID|VERSION_ID|PRETTY_NAME)=", re.MULTILINE)
_VERSION_FILE = re.compile(r"\s*\d+\.\d+(\.\d+)?(-\d+)?\s*")
_AMD_SMI_LIST = re.compile(r"\s*GPU: \d+\s*\n\s*BDF:")
_AMD_SMI_DEFAULT = re.compile(r"^\s*\|\s*(?:AMD-SMI \S+\s+amdgpu version:|BDF\s+GPU-Name\s*\|)", re.MULTILINE)


def detect_kind(text: str) -> ReportKind | None:
    """Guess what a report is from its content."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(stripped) if len(stripped) < 64 * 2**20 else None
        except (ValueError, RecursionError):  # malformed, nested too deep, or an integer past the digit limit
            head = stripped[:4000]
            return ReportKind.RUN if '"tool_version"' in head or '"fingerprint"' in head else None
        return _detect_json(data)
    if "PyTorch version:" in text and _COLLECT_ENV.search(text):  # each pattern after a word it needs
        return ReportKind.COLLECT_ENV
    if ("ROCk module" in text or "HSA System Attributes" in text or "Agent " in text or "/dev/kfd" in text) and \
            _ROCMINFO.search(text):
        return ReportKind.ROCMINFO
    if "simd_count" in text and _KFD.search(text):
        return ReportKind.KFD_PROPERTIES
    if ("Link Type between" in text or "LINK TYPE TABLE" in text) and _TOPOLOGY.search(text) or (
            "GPU0\t" in text and "Legend:" in text and _TOPOLOGY_TAB.search(text)):
        return ReportKind.TOPOLOGY
    if "NVRM version:" in text and _NVRM.search(text):
        return ReportKind.NVIDIA_PROC_VERSION
    if "DISTRIB_ID=" in text and _LSB.search(text):
        return ReportKind.LSB_RELEASE
    if ("ID=" in text or "PRETTY_NAME=" in text) and _OS_RELEASE.search(text):
        return ReportKind.OS_RELEASE
    if _VERSION_FILE.fullmatch(text):
        return ReportKind.ROCM_VERSION_FILE
    if text.lstrip().startswith("AMDSMI Tool:"):
        return ReportKind.AMD_SMI_VERSION
    if _AMD_SMI_LIST.match(text):
        return ReportKind.AMD_SMI_LIST
    if ("AMD-SMI " in text or "GPU-Name" in text) and _AMD_SMI_DEFAULT.search(text):
        return ReportKind.AMD_SMI_DEFAULT
    first_row = stripped[:stripped.find("\n")] if "\n" in stripped else stripped
    if "," in first_row:  # a CSV's first row has its columns (a header or a GPU)
        if _first_rows_differ(text):
            return None  # the parser would refuse it at its second row; prose with commas mostly stops here
        try:
            parse_nvidia_smi_csv(text)
        except ParseError:
            return None
        return ReportKind.NVIDIA_SMI_CSV
    return None


def _first_rows_differ(text: str) -> bool:
    """Whether the first two rows of ``text`` read as CSV (blank rows skipped, as ``parse_nvidia_smi_csv`` does) have
    different numbers of cells, or are no CSV at all: read lazily, so a long text is not read whole."""
    try:
        rows = list(itertools.islice((row for row in csv.reader(io.StringIO(text)) if any(row)), 2))
    except csv.Error:
        return True
    return len(rows) == 2 and len(rows[0]) != len(rows[1])


def _detect_json(data: object) -> ReportKind | None:
    if isinstance(data, dict):
        if "schema_version" in data or ("kind" in data and "tool_version" in data):
            return ReportKind.RUN
        if "gpu_data" in data:
            return ReportKind.AMD_SMI_STATIC
        if any(re.fullmatch(r"card\d+", str(k)) for k in data) or "system" in data:
            return ReportKind.ROCM_SMI
        if "amdsmi_library_version" in data:
            return ReportKind.AMD_SMI_VERSION
        return None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        first = data[0]
        if "amdsmi_library_version" in first or first.get("tool") == "AMDSMI Tool":
            return ReportKind.AMD_SMI_VERSION
        if "bdf" in first and not ({"asic", "vram", "board"} & set(first)):
            return ReportKind.AMD_SMI_LIST
        if "gpu" in first:
            return ReportKind.AMD_SMI_STATIC
    return None


def _devices_only(records: tuple[GpuRecord, ...] | list[GpuRecord], source: str, origin: str) -> Fingerprint:
    return Fingerprint(devices=merge_devices([(source, list(records))]), origin=origin)


def _os_and_machine(text: str | None) -> tuple[str | None, str | None]:
    if not text:
        return None, None
    match = re.match(r"^(.*?)\s*\((x86_64|aarch64|ppc64le|s390x|AMD64|arm64)\)$", text)
    return (match.group(1), match.group(2)) if match else (text, None)


def fingerprint_from_collect_env(report: CollectEnvReport, origin: str) -> Fingerprint:
    """Facts a collect_env report shows, each sourced ``collect_env``."""
    src = "collect_env"
    os_name, machine = _os_and_machine(report.os)
    libc = report.libc.replace("glibc-", "glibc ") if report.libc else None
    os_id: Fact[str] = Fact.absent(src, "the report's OS name was not recognised")
    os_version: Fact[str] = Fact.absent(src, "the report's OS name was not recognised")
    if os_name:
        try:
            parsed_id, parsed_version = parse_os_name(os_name)
            os_id, os_version = Fact.of(parsed_id, src), Fact.of(parsed_version, src)
        except ParseError:
            pass
    host = Host(
        os_name=Fact.maybe(os_name, src),
        os_id=os_id,
        os_version=os_version,
        kernel=Fact.maybe(report.kernel, src),
        machine=Fact.maybe(machine, src),
        cpu_model=Fact.maybe(report.cpu_model, src),
        libc=Fact.maybe(libc, src),
        python=Fact.maybe(report.python_version, src),
    )
    backend = report.rocm_build_version or report.cuda_build_version
    if report.rocm_build_version:
        variant = BuildVariant.ROCM
    elif report.cuda_build_version:
        variant = BuildVariant.CUDA
    elif report.torch_version:
        variant = BuildVariant.CPU
    else:
        variant = BuildVariant.UNKNOWN
    gpus = report.gpus if report.cuda_available else ()
    torch = Framework(
        name="torch",
        version=Fact.maybe(report.torch_version, src),
        variant=Fact.of(variant, src),
        backend_version=Fact.maybe(backend, src) if variant is not BuildVariant.CPU else Fact.unsupported(
            src, "CPU-only build"),
        accelerator_available=Fact.maybe(report.cuda_available, src),
        device_count=Fact.of(len(gpus), src) if report.cuda_available is not None else Fact.absent(src),
        device_names=Fact.of(tuple(g.name for g in gpus if g.name), src) if gpus else Fact.absent(src),
        device_archs=Fact.of(tuple(g.arch for g in gpus if g.arch), src) if any(g.arch for g in gpus)
        else Fact.absent(src, "the report does not show the architecture"),
        arch_list=Fact.of(report.arch_list, f"{src} (torch warning)") if report.arch_list
        else Fact.absent(src, "the report does not show the compiled architectures"),
    )
    rocm: Fact[Version] = Fact.absent(src, "collect_env does not show the ROCm install")
    # HIP's version names the ROCm release from ROCm 4 on; before, the runtime printed other numbers (3.18.2 on
    # ROCm 3.7), so an old one is not read as a release
    runtime = report.hip_runtime_version
    usable_runtime = runtime if runtime and re.match(r"^(\d+)\.", runtime) and int(runtime.split(".")[0]) >= 4 else None
    hip = usable_runtime or report.rocm_build_version
    if hip:
        try:
            major_minor = leading_version(hip).release[:2]
            rocm = Fact.of(Version(".".join(map(str, major_minor))), f"{src} (HIP version)",
                           detail=f"ROCm release inferred from HIP {hip}")
        except (ParseError, InvalidVersion):
            pass
    driver: Fact[str] = Fact.maybe(report.nvidia_driver_version, src)
    pip = {Package(p.name.lower(), p.version) for p in report.packages if p.manager.startswith("pip")}
    packages = tuple(sorted(pip, key=lambda p: p.name))
    notes = tuple(ProbeNote("collect_env warning", Fact.of(w, src)) for w in report.warnings)
    return Fingerprint(
        host=host,
        devices=merge_devices([(src, list(report.gpus))]),
        stack=Stack(rocm_version=rocm, nvidia_driver_version=driver),
        frameworks=(torch,),
        packages=packages,
        probes=notes,
        origin=origin,
    )


def fingerprint_of_kind(kind: ReportKind, text: str, origin: str, source: str) -> Fingerprint:
    """The Fingerprint one tool's whole output shows (``kind`` known); ParseError when it is not that output."""
    if kind is ReportKind.RUN:
        check_nesting(text, source)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ParseError(f"malformed or truncated JSON: {error.msg} at line {error.lineno} column {error.colno}"
                             ) from error
        except (ValueError, RecursionError) as error:  # an integer past Python's digit limit
            raise ParseError(f"JSON that cannot be read ({str(error)[:120]})") from error
        refuse_lone_surrogates(text, source)
        run = Run.from_dict(data, source=source)
        if run.fingerprint is None:
            raise InputError("this Run holds no fingerprint", field="$.fingerprint")
        return run.fingerprint
    if kind is ReportKind.COLLECT_ENV:
        return fingerprint_from_collect_env(parse_collect_env(text), origin)
    if kind is ReportKind.ROCMINFO:
        report = parse_rocminfo(text)
        fp = _devices_only(report.gpus, "rocminfo", origin)
        notes = (ProbeNote("rocminfo", Fact.error("rocminfo", " ".join(
            p for p in (report.failure, report.hint) if p))),) if report.failure else ()
        return Fingerprint(
            devices=fp.devices,
            stack=Stack(amdgpu_driver_version=Fact.maybe(report.kfd_version, "rocminfo (ROCk module version)")),
            probes=notes,
            origin=origin,
        )
    if kind is ReportKind.ROCM_SMI:
        smi = parse_rocm_smi_json(text)
        return Fingerprint(
            devices=merge_devices([("rocm-smi", list(smi.gpus))]),
            stack=Stack(amdgpu_driver_version=Fact.maybe(smi.driver_version, "rocm-smi")),
            origin=origin,
        )
    if kind is ReportKind.AMD_SMI_VERSION:
        version = parse_amd_smi_version(text)
        not_listed = (ProbeNote("devices", Fact.unsupported(origin, "an amd-smi version report does not list GPUs")),)
        rocm = _rocm_fact(version.rocm_version, "amd-smi version", "")
        return Fingerprint(
            stack=Stack(rocm_version=rocm, amdgpu_driver_version=Fact.maybe(version.amdgpu_version, "amd-smi version"),
                        amd_smi_version=Fact.maybe(version.tool_version, "amd-smi version")),
            probes=not_listed,
            origin=origin,
        )
    if kind is ReportKind.AMD_SMI_DEFAULT:
        table = parse_amd_smi_default(text)
        rocm = _rocm_fact(table.rocm_version, "amd-smi", "amd-smi's table says N/A: it found no ROCm install beside it"
                          if table.tool_version else "the pasted table lacks amd-smi's title line")
        return Fingerprint(
            devices=merge_devices([("amd-smi", list(table.gpus))]),
            stack=Stack(rocm_version=rocm, amdgpu_driver_version=Fact.maybe(table.amdgpu_version, "amd-smi"),
                        amd_smi_version=Fact.maybe(table.tool_version, "amd-smi")),
            origin=origin,
        )
    if kind is ReportKind.TOPOLOGY:
        note = ProbeNote("devices", Fact.unsupported(origin, "a topology report names GPUs but not their models"))
        return Fingerprint(topology=parse_topology(text), probes=(note,), origin=origin)
    if kind in (ReportKind.OS_RELEASE, ReportKind.LSB_RELEASE, ReportKind.NVIDIA_PROC_VERSION,
                ReportKind.ROCM_VERSION_FILE):
        return _host_or_stack_only(kind, text, origin)
    parsers: dict[ReportKind, tuple[str, Callable[[str], tuple[GpuRecord, ...]]]] = {
        ReportKind.AMD_SMI_STATIC: ("amd-smi", parse_amd_smi_static),
        ReportKind.AMD_SMI_LIST: ("amd-smi list", parse_amd_smi_list),
        ReportKind.NVIDIA_SMI_CSV: ("nvidia-smi", parse_nvidia_smi_csv),
        ReportKind.KFD_PROPERTIES: ("kfd", lambda t: _kfd_record(t)),
    }
    source, parser = parsers[kind]
    fingerprint = _devices_only(parser(text), source, origin)
    if kind is ReportKind.KFD_PROPERTIES:
        note = ProbeNote("devices", Fact.unsupported(origin, "one KFD node file does not show the other nodes"))
        fingerprint = dataclasses.replace(fingerprint, probes=(note,))
    return fingerprint


def _rocm_fact(version: str | None, source: str, absent: str) -> Fact[Version]:
    """The ROCm release an amd-smi report names (its version line or its table's title)."""
    if not version:
        return Fact.absent(source, absent)
    try:
        return Fact.of(Version(version), source)
    except InvalidVersion:
        return Fact.error(source, f"unreadable ROCm version {version!r}")


def _host_or_stack_only(kind: ReportKind, text: str, origin: str) -> Fingerprint:
    """A file that tells one thing about the host or the stack, and nothing about devices."""
    note = ProbeNote("devices", Fact.unsupported(origin, f"a {kind.value} file does not list GPUs"))
    src = kind.value
    if kind is ReportKind.NVIDIA_PROC_VERSION:
        module = parse_nvidia_proc_version(text)
        stack = Stack(nvidia_driver_version=Fact.of(module.version, src),
                      nvidia_kernel_module=Fact.of(module.flavour, src))
        return Fingerprint(stack=stack, probes=(note,), origin=origin)
    if kind is ReportKind.ROCM_VERSION_FILE:
        version = parse_rocm_info_version(text)
        return Fingerprint(stack=Stack(rocm_version=Fact.of(version, src, detail=text.strip())), probes=(note,),
                           origin=origin)
    if kind is ReportKind.LSB_RELEASE:
        lsb = parse_lsb_release(text)
        host = Host(os_name=Fact.maybe(lsb.description, src), os_id=Fact.of(lsb.distrib_id.lower(), src),
                    os_version=Fact.maybe(lsb.point_release, src))
        return Fingerprint(host=host, probes=(note,), origin=origin)
    release = parse_os_release(text)
    host = Host(os_name=Fact.maybe(release.pretty_name or release.name, src), os_id=Fact.of(release.id, src),
                os_version=Fact.maybe(release.version_id, src))
    return Fingerprint(host=host, probes=(note,), origin=origin)


def _kfd_record(text: str) -> tuple[GpuRecord, ...]:
    node = parse_kfd_properties(text)
    if not node.is_gpu:
        return ()
    return (GpuRecord(vendor="amd", index=0, arch=node.arch, pci_bus=node.pci_bus, pci_device_id=node.device_id,
                      compute_units=node.compute_units, memory_bytes=node.local_mem_size or None),)
