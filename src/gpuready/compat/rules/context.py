"""What the rules look at: the fingerprint, the data set, today, and views derived from them."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from gpuready.compat.catalogue import find_by_pci_id, find_gpu
from gpuready.compat.load import Dataset
from gpuready.compat.query import parse_version, rocm_release, torch_release
from gpuready.compat.schema import GpuEntry, RocmRelease, Segment, TorchRelease, TorchVariant
from gpuready.model import BuildVariant, Fact, Finding, Fingerprint, Framework, Severity, Vendor
from gpuready.probe.parse.kfd import normalise_gfx_name


@dataclass(frozen=True)
class Accelerator:
    """One GPU as the rules see it: what the probes said, completed from the catalogue."""

    index: int
    vendor: Vendor
    name: str | None
    arch: str | None
    entry: GpuEntry | None

    @property
    def label(self) -> str:
        """``#0 AMD Instinct MI300X (gfx942)``."""
        return f"#{self.index} {self.name or 'unknown GPU'}" + (f" ({self.arch})" if self.arch else "")

    @property
    def integrated(self) -> bool:
        """An APU / iGPU (by the catalogue, or by the generic iGPU name)."""
        if self.entry is not None:
            return self.entry.segment is Segment.APU
        return (self.name or "").strip() in ("AMD Radeon Graphics", "AMD Radeon(TM) Graphics")


@dataclass
class Context:
    """Inputs to every rule. ``cached_property`` views are computed once per judgement."""

    fingerprint: Fingerprint
    data: Dataset
    today: datetime.date = field(default_factory=datetime.date.today)

    @cached_property
    def accelerators(self) -> list[Accelerator]:
        """GPUs from the probes; when none were listed, what torch itself reported."""
        found = []
        gpus = self.data.gpus.gpus
        for device in self.fingerprint.devices:
            entry = None
            if device.name.value:
                entry = find_gpu(gpus, device.name.value, device.compute_units.value)
            if entry is None and device.pci_device_id.value:
                entry = find_by_pci_id(gpus, device.pci_device_id.value)
            arch = device.arch.value or (entry.arch if entry else None)
            found.append(Accelerator(device.index, device.vendor, device.name.value or (entry.name if entry else None),
                                     normalise_gfx_name(arch) if arch else None, entry))
        if found:
            return found
        torch = self.torch
        if torch is not None and torch.device_names.value:
            archs = list(torch.device_archs.value or ())
            vendor = Vendor.AMD if torch.variant.value is BuildVariant.ROCM else Vendor.NVIDIA
            for index, name in enumerate(torch.device_names.value):
                arch = archs[index] if index < len(archs) else None
                entry = find_gpu(gpus, name)
                arch = arch or (entry.arch if entry else None)
                found.append(Accelerator(index, vendor, name, normalise_gfx_name(arch) if arch else None, entry))
        return found

    @property
    def vendors(self) -> set[Vendor]:
        """Vendors of the accelerators present."""
        return {a.vendor for a in self.accelerators}

    @property
    def torch(self) -> Framework | None:
        """The installed torch, if any."""
        framework = self.fingerprint.framework("torch")
        if framework is None or not framework.installed:
            return None
        return framework

    @cached_property
    def torch_wheel(self) -> tuple[TorchRelease | None, TorchVariant | None]:
        """The data's entry for the installed torch."""
        if self.torch is None or not self.torch.version.value:
            return None, None
        return torch_release(self.data, _with_build_tag(self.torch))

    @cached_property
    def torch_arch_list(self) -> Fact[tuple[str, ...]]:
        """Targets compiled into the installed torch: its own report, else the data for that wheel."""
        torch = self.torch
        if torch is None:
            return Fact.absent("", "torch is not installed")
        if torch.arch_list.ok and torch.arch_list.value:
            return Fact.of(tuple(normalise_gfx_name(a) for a in torch.arch_list.value), torch.arch_list.source)
        release, variant = self.torch_wheel
        if variant is not None and variant.arch_list:
            return Fact.of(variant.arch_list, f"compatibility data: torch {release.version if release else ''} "
                                              f"{variant.name}")
        return Fact.absent("", "the compiled architecture list is not known for this build")

    @cached_property
    def rocm(self) -> RocmRelease | None:
        """The data's entry for the installed ROCm (from the install, else from torch's HIP version)."""
        version = self.fingerprint.stack.rocm_version.value
        if version is None and self.torch is not None and self.torch.variant.value is BuildVariant.ROCM:
            version = parse_version(self.torch.backend_version.value)
            if version is not None:
                version = parse_version(".".join(str(p) for p in version.release[:2]))
        return rocm_release(self.data, version) if version is not None else None


def _with_build_tag(torch: Framework) -> str:
    """torch's version with the local tag its build implies where the report left it out: ``pip list`` and
    Lightning print ``2.2.2``, and torch's own report says CUDA 12.1, so the wheel is ``2.2.2+cu121``."""
    version = str(torch.version.value)
    backend = parse_version(str(torch.backend_version.value or ""))
    if "+" in version or backend is None or len(backend.release) < 2:
        return version
    major, minor = backend.release[:2]
    if torch.variant.value is BuildVariant.CUDA:
        return f"{version}+cu{major}{minor}"
    if torch.variant.value is BuildVariant.ROCM:
        return f"{version}+rocm{major}.{minor}"
    return version


def finding(code: str, severity: Severity, message: str, *, evidence: Mapping[str, object] | None = None,
            remedy: str = "", source_url: str = "") -> Finding:
    """A Finding with its evidence rendered as strings."""
    return Finding(code=code, severity=severity, message=message,
                   evidence={k: ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else "" if v is None else str(v)
                             for k, v in (evidence or {}).items()},
                   remedy=remedy, source_url=source_url)
