"""Collect facts about this machine into a ``Fingerprint``. Probes collect; they never judge."""

from __future__ import annotations

import dataclasses
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from gpuready.model import Fact, Fingerprint, Framework, ProbeNote, Stack
from gpuready.model.config import FingerprintConfig
from gpuready.probe.access import collect_access
from gpuready.probe.amd import collect_amd
from gpuready.probe.devices import merge_devices
from gpuready.probe.environment import relevant_environment
from gpuready.probe.frameworks import (
    FRAMEWORK_TIMEOUT_S,
    child_argv,
    cpu_only_torch,
    framework_from_child,
    relevant_packages,
    triton_framework,
)
from gpuready.probe.host import collect_host
from gpuready.probe.libraries import gpu_records, installed_libraries, library_facts
from gpuready.probe.nvidia import collect_nvidia
from gpuready.probe.parse.records import GpuRecord
from gpuready.probe.redact import redact
from gpuready.probe.system import CommandResult, LocalSystem, ReplaySystem, System

FRAMEWORKS = ("torch", "jax")


def collect_fingerprint(
    system: System | None = None,
    *,
    frameworks: bool = True,
    redact_identifiers: bool = True,
    framework_timeout_s: float = FRAMEWORK_TIMEOUT_S,
) -> Fingerprint:
    """Probe the machine. Framework children start first and run while the other probes do."""
    system = system or LocalSystem()
    packages = relevant_packages(system.distributions())
    installed = {p.name for p in packages}
    with ThreadPoolExecutor(max_workers=4) as pool:
        children: dict[str, Future[CommandResult]] = {}
        static: dict[str, Framework] = {}
        if frameworks:
            cpu_torch = cpu_only_torch(system) if "torch" in installed else None
            if cpu_torch is not None:
                static["torch"] = cpu_torch
            for name in FRAMEWORKS:
                if name in installed and name not in static:
                    children[name] = pool.submit(system.run, child_argv(system, name), framework_timeout_s)
        for library in installed_libraries(packages):
            children[library] = pool.submit(system.run, child_argv(system, library), framework_timeout_s)
        host = collect_host(system)
        amd = collect_amd(system)
        nvidia = collect_nvidia(system)
        access = collect_access(system)
        results = {name: future.result() for name, future in children.items()}
    notes: list[ProbeNote] = [*amd.notes, *nvidia.notes]
    found = []
    for name in FRAMEWORKS:
        framework = static.get(name) or framework_from_child(name, packages, results.get(name),
                                                             skipped=not frameworks)
        found.append(framework)
        if not frameworks and name in installed:
            notes.append(ProbeNote(name, Fact.skipped("child process", "framework probes skipped on request")))
    triton = triton_framework(packages)
    if triton is not None:
        found.append(triton)
    library_gpus: dict[str, list[GpuRecord]] = {"nvml": [], "amdsmi": []}
    nvidia_driver, cuda_driver = nvidia.driver_version, Fact[str].absent(
        "nvml", "needs NVML (pip install nvidia-ml-py)")
    for library in library_gpus:
        if library not in results:
            continue
        facts, probe_note = library_facts(library, results[library])
        notes.append(probe_note)
        if facts is None:
            continue
        library_gpus[library] = gpu_records(library, facts)
        if library == "nvml":
            if isinstance(facts.get("driver_version"), str) and not nvidia_driver.ok:
                nvidia_driver = Fact.of(facts["driver_version"], "nvmlSystemGetDriverVersion")
            if isinstance(facts.get("cuda_driver_version"), str):
                cuda_driver = Fact.of(facts["cuda_driver_version"], "nvmlSystemGetCudaDriverVersion")
    amd_devices = merge_devices([("amdsmi", library_gpus["amdsmi"]), *amd.gpu_reports])
    nvidia_devices = merge_devices([("nvml", library_gpus["nvml"]), ("nvidia-smi", nvidia.gpus)])
    devices = tuple(dataclasses.replace(d, index=i) for i, d in enumerate(amd_devices + nvidia_devices))
    stack = Stack(
        rocm_version=amd.rocm_version,
        rocm_path=amd.rocm_path,
        rocm_installs=amd.rocm_installs,
        amdgpu_driver_version=amd.amdgpu_driver_version,
        nvidia_driver_version=nvidia_driver,
        nvidia_kernel_module=nvidia.kernel_module,
        nvidia_userspace_version=nvidia.userspace_version,
        cuda_driver_version=cuda_driver,
        cuda_toolkit_version=nvidia.cuda_toolkit_version,
        amd_smi_version=amd.amd_smi_version,
    )
    fingerprint = Fingerprint(
        host=host,
        devices=devices,
        stack=stack,
        frameworks=tuple(found),
        packages=packages,
        access=access,
        environment=relevant_environment(system.environ()),
        probes=tuple(notes),
        topology=amd.topology or nvidia.topology,
        origin="probe",
    )
    return redact(fingerprint) if redact_identifiers else fingerprint


def fingerprint_of(config: FingerprintConfig) -> Fingerprint:
    """This machine's fingerprint, or the one read from the reports the configuration names."""
    if config.reports:
        from gpuready.probe.paste import ReportKind, read_fingerprints

        kind = ReportKind(config.report_kind) if config.report_kind else None
        fingerprint = read_fingerprints([Path(p) for p in config.reports], kind)
        return redact(fingerprint) if config.redact else fingerprint
    return collect_fingerprint(frameworks=config.frameworks, redact_identifiers=config.redact)


__all__ = ["LocalSystem", "ReplaySystem", "System", "collect_fingerprint", "fingerprint_of", "redact"]
