"""NVIDIA facts: the kernel module, nvidia-smi's GPU list, the CUDA toolkit."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from gpuready.errors import ParseError
from gpuready.model import Fact, ProbeNote, Topology
from gpuready.probe.parse.nvidia import QUERY_FIELDS, parse_nvidia_proc_version, parse_nvidia_smi_csv
from gpuready.probe.parse.records import GpuRecord
from gpuready.probe.parse.topology import parse_nvidia_topo
from gpuready.probe.system import System

PROC_VERSION = "/proc/driver/nvidia/version"
NVML_LIBRARIES = ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.*", "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.*",
                  "/usr/lib64/libnvidia-ml.so.*", "/usr/lib/libnvidia-ml.so.*")
"""Where distributions install the driver's NVML library, named with its release (``libnvidia-ml.so.525.85.12``)."""
CUDA_VERSION_JSON = "/usr/local/cuda/version.json"


def nvidia_smi_argv(fields: tuple[str, ...] = QUERY_FIELDS) -> list[str]:
    """The nvidia-smi command gpuready runs."""
    return ["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"]


@dataclass(frozen=True)
class NvidiaFacts:
    """What the NVIDIA probes found."""

    gpus: list[GpuRecord] = field(default_factory=list)
    driver_version: Fact[str] = field(default_factory=lambda: Fact[str].absent("", "not probed"))
    kernel_module: Fact[str] = field(default_factory=lambda: Fact[str].absent("", "not probed"))
    cuda_toolkit_version: Fact[Version] = field(default_factory=lambda: Fact[Version].absent("", "not probed"))
    userspace_version: Fact[str] = field(default_factory=lambda: Fact[str].absent("", "not probed"))
    notes: list[ProbeNote] = field(default_factory=list)
    topology: Topology | None = None


def parse_cuda_version_json(text: str) -> Version:
    """``/usr/local/cuda/version.json`` (CUDA 11.1+): ``{"cuda": {"version": "12.4.1"}}``."""
    try:
        data = json.loads(text)
        return Version(str(data["cuda"]["version"]))
    except (json.JSONDecodeError, KeyError, TypeError, InvalidVersion) as error:
        raise ParseError(f"no cuda.version: {error}") from error


def userspace_version(system: System) -> Fact[str]:
    """The release of the driver's user-space side, from the name of its NVML library file: one release, or absent
    where none is installed where distributions put it, or several are (which one loads is then not known)."""
    found = sorted({match.group(1) for pattern in NVML_LIBRARIES for path in system.glob(pattern)
                    if (match := re.search(r"libnvidia-ml\.so\.(\d{3}\.\d+(?:\.\d+)?)$", path))})
    if len(found) == 1:
        return Fact.of(found[0], "libnvidia-ml.so file name")
    return Fact.absent("libnvidia-ml.so", f"several releases installed: {', '.join(found)}" if found else
                       "no versioned libnvidia-ml.so where distributions install it")


def collect_nvidia(system: System) -> NvidiaFacts:
    """Probe everything NVIDIA; each part optional, failures recorded in ``notes``."""
    notes: list[ProbeNote] = []
    driver: Fact[str] = Fact.absent(PROC_VERSION, "no NVIDIA kernel module loaded")
    module: Fact[str] = Fact.absent(PROC_VERSION, "no NVIDIA kernel module loaded")
    try:
        proc = system.read_text(PROC_VERSION)
    except OSError as error:
        proc = None
        driver, module = Fact.error(PROC_VERSION, str(error)), Fact.error(PROC_VERSION, str(error))
    if proc is not None:
        try:
            parsed = parse_nvidia_proc_version(proc)
            driver = Fact.of(parsed.version, PROC_VERSION)
            module = Fact.of(parsed.flavour, PROC_VERSION)
        except ParseError as error:
            driver, module = Fact.error(PROC_VERSION, error.reason), Fact.error(PROC_VERSION, error.reason)

    gpus: list[GpuRecord] = []
    fields: tuple[str, ...] = QUERY_FIELDS
    result = system.run(nvidia_smi_argv(fields))
    if not result.ok and "compute_cap" in result.stdout + result.stderr:
        # Drivers before compute_cap was a query field reject the whole query: ask again without it.
        fields = tuple(f for f in QUERY_FIELDS if f != "compute_cap")
        result = system.run(nvidia_smi_argv(fields))
    command = " ".join(nvidia_smi_argv(fields))
    if result.not_found:
        notes.append(ProbeNote("nvidia-smi", Fact.absent(command, "nvidia-smi is not on PATH")))
    elif not result.ok:
        notes.append(ProbeNote("nvidia-smi", Fact.error(command, result.failure())))
    else:
        try:
            gpus = list(parse_nvidia_smi_csv(result.stdout, fields))
            notes.append(ProbeNote("nvidia-smi", Fact.of(f"{len(gpus)} GPU(s)", command)))
        except ParseError as error:
            notes.append(ProbeNote("nvidia-smi", Fact.error(command, error.reason)))
    if not driver.ok and gpus and gpus[0].driver_version:
        driver = Fact.of(gpus[0].driver_version, "nvidia-smi")

    toolkit: Fact[Version] = Fact.absent(CUDA_VERSION_JSON, "no CUDA toolkit at /usr/local/cuda")
    try:
        text = system.read_text(CUDA_VERSION_JSON)
    except OSError as error:
        text, toolkit = None, Fact.error(CUDA_VERSION_JSON, str(error))
    if text is not None:
        try:
            toolkit = Fact.of(parse_cuda_version_json(text), CUDA_VERSION_JSON)
        except ParseError as error:
            toolkit = Fact.error(CUDA_VERSION_JSON, error.reason)
    topology = None
    if len(gpus) > 1:
        topo = system.run(["nvidia-smi", "topo", "-m"])
        if topo.ok:
            try:
                topology = parse_nvidia_topo(topo.stdout)
            except ParseError as error:
                notes.append(ProbeNote("nvidia-smi topo", Fact.error("nvidia-smi topo -m", error.reason)))
        else:
            notes.append(ProbeNote("nvidia-smi topo", Fact.error("nvidia-smi topo -m", topo.failure())))
    userspace = userspace_version(system) if proc is not None else Fact[str].absent("", "no NVIDIA kernel module")
    return NvidiaFacts(gpus=gpus, driver_version=driver, kernel_module=module, cuda_toolkit_version=toolkit,
                       userspace_version=userspace, notes=notes, topology=topology)
