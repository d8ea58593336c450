"""Parser for the text of ``python -m torch.utils.collect_env``, old (torch 1.x) and new (2.x) formats.

This is what people paste into bug reports, so gpuready can read a report from a machine it cannot probe.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from gpuready.errors import ParseError
from gpuready.probe.parse.kfd import normalise_gfx_name
from gpuready.probe.parse.records import GpuRecord, cut_inside_a_word

_NOTHING = {"", "N/A", "Could not collect", "No CUDA", "None", "No relevant packages"}
_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9_ ()/.-]*?):(?:\s+(.*?))?\s*$")
_GPU_LINE = re.compile(r"^GPU (\d+): (.+?)(?: \(UUID: [^)]*\))?\s*$")
_AMD_GPU = re.compile(r"^(?P<name>.+?) \((?P<arch>gfx[0-9a-f]+)(?::[^)]*)?\)$")
_UNSUPPORTED_GPU = re.compile(r"^(?P<name>.+?) with CUDA capability (?P<arch>sm_\d+) is not compatible")
_SUPPORTED_ARCHS = re.compile(r"supports CUDA capabilities ((?:sm_\d+\s*)+)")
_PACKAGE = re.compile(r"^\[(?P<manager>[\w-]+)\]\s+(?P<name>[A-Za-z0-9_.\-]+)\s*(?:==\s*|\s+)(?P<version>\S+)")


@dataclass(frozen=True, slots=True)
class ReportedPackage:
    """A ``[pip3] torch==2.3.0`` or ``[conda] pytorch 2.3.0 ...`` line."""

    manager: str
    name: str
    version: str


@dataclass(frozen=True, slots=True)
class CollectEnvReport:
    """The facts a collect_env report shows; None where it says N/A or could not collect."""

    torch_version: str | None
    debug_build: bool | None = None
    cuda_build_version: str | None = None
    rocm_build_version: str | None = None
    os: str | None = None
    gcc: str | None = None
    libc: str | None = None
    python_version: str | None = None
    python_platform: str | None = None
    kernel: str | None = None
    """Kernel release, from ``Python platform: Linux-6.8.0-47-generic-x86_64-with-glibc2.35``."""
    cuda_available: bool | None = None
    cuda_runtime_version: str | None = None
    gpus: tuple[GpuRecord, ...] = ()
    nvidia_driver_version: str | None = None
    hip_runtime_version: str | None = None
    miopen_runtime_version: str | None = None
    cpu_model: str | None = None
    packages: tuple[ReportedPackage, ...] = ()
    warnings: tuple[str, ...] = ()
    """Lines printed before the report itself (torch's own warnings, e.g. an unsupported GPU)."""
    arch_list: tuple[str, ...] = ()
    """Architectures the build supports, when torch's unsupported-GPU warning lists them."""


def _value(text: str | None) -> str | None:
    if text is None:
        return None
    text = text.strip()
    return None if text in _NOTHING else text


def _bool(text: str | None) -> bool | None:
    value = _value(text)
    return {"True": True, "False": False}.get(value or "")


def _gpus(value: str | None, continuation: list[str], vendor_hint: str) -> tuple[GpuRecord, ...]:
    # a continuation line is a GPU only in a GPU's shape ("GPU 1: ...", "Name (gfx...)"): a pasted report cut
    # mid-line ("Nvidia driver ve") is not one
    lines = [line for line in ([value] if value else []) + [
        line for line in continuation if _GPU_LINE.match(line.strip()) or _AMD_GPU.match(line.strip())]
        if line and line.strip()]
    records: list[GpuRecord] = []
    for line in lines:
        line = line.strip()
        match = _GPU_LINE.match(line)
        name = match.group(2) if match else line
        index = int(match.group(1)) if match else len(records)
        amd = _AMD_GPU.match(name)
        if amd:
            records.append(GpuRecord(vendor="amd", index=index, name=amd.group("name"),
                                     arch=normalise_gfx_name(amd.group("arch"))))
        elif _value(name):
            # "Device 66a1": an old ROCm names an unknown board by its PCI device id, which the catalogue knows
            pci = re.fullmatch(r"Device ([0-9a-fA-F]{4})", name.strip())
            records.append(GpuRecord(vendor="amd" if pci else vendor_hint, index=index, name=name,
                                     pci_device_id=f"0x{pci.group(1).lower()}" if pci else None))
    names = [record.name or "" for record in records]
    return tuple(record for record in records if not cut_inside_a_word(record.name or "", names))


def parse_collect_env(text: str) -> CollectEnvReport:
    """Parse a collect_env report; anything before ``PyTorch version:`` is kept as warnings."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("PyTorch version:")), None)
    if start is None:
        raise ParseError("no 'PyTorch version:' line: not a torch.utils.collect_env report")
    warnings = tuple(
        line.strip() for line in lines[:start]
        if line.strip() and not line.startswith("Collecting environment information")
    )
    fields: dict[str, str | None] = {}
    blocks: dict[str, list[str]] = {}
    current: str | None = None
    for line in lines[start:]:
        if not line.strip():
            current = None
            continue
        match = _LINE.match(line)
        is_gpu_continuation = current == "GPU models and configuration" and _GPU_LINE.match(line.strip())
        if current and (line.startswith(("[", "/", " ")) or is_gpu_continuation or current == "CPU"):
            blocks.setdefault(current, []).append(line)
            continue
        if match:
            key, value = match.group(1).strip(), match.group(2)
            fields.setdefault(key, value)
            current = key
        elif current:
            blocks.setdefault(current, []).append(line)
    torch_version = _value(fields.get("PyTorch version"))
    rocm_build = _value(fields.get("ROCM used to build PyTorch"))
    cuda_build = _value(fields.get("CUDA used to build PyTorch"))
    cpu_model = None
    for line in blocks.get("CPU", []):
        if line.startswith("Model name:"):
            cpu_model = _value(line.split(":", 1)[1])
            break
    packages = tuple(
        ReportedPackage(m.group("manager"), m.group("name"), m.group("version"))
        for line in blocks.get("Versions of relevant libraries", [])
        if (m := _PACKAGE.match(line.strip()))
    )
    platform = _value(fields.get("Python platform"))
    kernel = None
    if platform:
        # platform.platform() names the processor between machine and libc where uname reports one (Gentoo):
        # Linux-6.7.7-gentoo-dist-x86_64-AMD_Ryzen_9_5950X_16-Core_Processor-with-glibc2.40
        kernel_match = re.match(r"^Linux-(.+?)-(?:x86_64|aarch64|ppc64le|s390x)(?:-([^-].*?))?-with", platform)
        kernel = kernel_match.group(1) if kernel_match else None
        if cpu_model is None and kernel_match and kernel_match.group(2):
            cpu_model = kernel_match.group(2)
    vendor_hint = "amd" if rocm_build else "nvidia" if cuda_build else "other"
    gpus = _gpus(_value(fields.get("GPU models and configuration")),
                 blocks.get("GPU models and configuration", []), vendor_hint)
    # torch warns before the report when a GPU is newer than the build: the warning names its sm_ target.
    for warning in warnings:
        unsupported = _UNSUPPORTED_GPU.match(warning.removeprefix("UserWarning: ").strip())
        if unsupported:
            gpus = tuple(dataclasses.replace(g, arch=g.arch or unsupported.group("arch"))
                         if g.name == unsupported.group("name") else g for g in gpus)
    supported = next((m.group(1).split() for w in warnings if (m := _SUPPORTED_ARCHS.search(w))), [])
    return CollectEnvReport(
        torch_version=torch_version,
        debug_build=_bool(fields.get("Is debug build")),
        cuda_build_version=cuda_build,
        rocm_build_version=rocm_build,
        os=_value(fields.get("OS")),
        gcc=_value(fields.get("GCC version")),
        libc=_value(fields.get("Libc version")),
        python_version=_value((fields.get("Python version") or "").split(" (")[0].split(" |")[0]),
        python_platform=platform,
        kernel=kernel,
        cuda_available=_bool(fields.get("Is CUDA available")),
        cuda_runtime_version=_value(fields.get("CUDA runtime version")),
        gpus=gpus,
        nvidia_driver_version=_value(fields.get("Nvidia driver version")),
        hip_runtime_version=_value(fields.get("HIP runtime version")),
        miopen_runtime_version=_value(fields.get("MIOpen runtime version")),
        cpu_model=cpu_model,
        packages=packages,
        warnings=warnings,
        arch_list=tuple(supported),
    )
