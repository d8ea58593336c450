"""``Fingerprint``: the facts about one machine's accelerator stack, as probed or as read from a pasted report."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from packaging.version import Version

from gpuready.model.fact import Fact, unknown


class Vendor(str, enum.Enum):
    """Who made an accelerator."""

    AMD = "amd"
    NVIDIA = "nvidia"
    OTHER = "other"


class BuildVariant(str, enum.Enum):
    """Which accelerator a framework build targets (from its version string or its own report)."""

    ROCM = "rocm"
    CUDA = "cuda"
    CPU = "cpu"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Host:
    """The computer around the accelerators."""

    os_name: Fact[str] = field(default_factory=unknown)
    """Human name with the point release where known, e.g. ``Ubuntu 22.04.4 LTS``."""
    os_id: Fact[str] = field(default_factory=unknown)
    """``ID`` of os-release, e.g. ``ubuntu``, ``rhel``, ``sles``."""
    os_version: Fact[str] = field(default_factory=unknown)
    """``VERSION_ID``, refined to the point release by lsb-release (``22.04.4``)."""
    kernel: Fact[str] = field(default_factory=unknown)
    """Kernel release as ``uname -r`` prints it, e.g. ``6.8.0-45-generic``."""
    machine: Fact[str] = field(default_factory=unknown)
    """CPU architecture, e.g. ``x86_64``."""
    cpu_model: Fact[str] = field(default_factory=unknown)
    libc: Fact[str] = field(default_factory=unknown)
    """C library and version, e.g. ``glibc 2.35``."""
    python: Fact[str] = field(default_factory=unknown)
    container: Fact[str] = field(default_factory=unknown)
    """``docker``, ``podman``, ``kubernetes``, ``containerd`` ..., absent on bare metal."""
    hostname: Fact[str] = field(default_factory=unknown)
    """Redacted unless the user asks otherwise."""


@dataclass(frozen=True, slots=True)
class Device:
    """One accelerator as the probes saw it."""

    index: int
    vendor: Vendor
    name: Fact[str] = field(default_factory=unknown)
    arch: Fact[str] = field(default_factory=unknown)
    """Compiler target: ``gfx942``, ``gfx1100``, ``sm_90``."""
    memory_bytes: Fact[int] = field(default_factory=unknown)
    pci_bus: Fact[str] = field(default_factory=unknown)
    pci_device_id: Fact[str] = field(default_factory=unknown)
    """PCI device id in hex, e.g. ``0x74a1``."""
    compute_units: Fact[int] = field(default_factory=unknown)
    """Compute units (AMD) or streaming multiprocessors (NVIDIA)."""
    uuid: Fact[str] = field(default_factory=unknown)
    """Redacted unless the user asks otherwise."""
    sources: tuple[str, ...] = ()
    """Every probe that reported this device."""


@dataclass(frozen=True, slots=True)
class Stack:
    """Vendor driver and user-space releases."""

    rocm_version: Fact[Version] = field(default_factory=unknown)
    rocm_path: Fact[str] = field(default_factory=unknown)
    rocm_installs: tuple[str, ...] = ()
    """Versioned ROCm trees found side by side, e.g. ``/opt/rocm-6.2.0``."""
    amdgpu_driver_version: Fact[str] = field(default_factory=unknown)
    """The amdgpu kernel module version (DKMS builds report one; in-tree drivers follow the kernel)."""
    nvidia_driver_version: Fact[str] = field(default_factory=unknown)
    """As the driver prints it (``570.124.04``: not PEP 440, leading zeros matter to people)."""
    nvidia_kernel_module: Fact[str] = field(default_factory=unknown)
    """``open`` or ``proprietary``."""
    nvidia_userspace_version: Fact[str] = field(default_factory=unknown)
    """The driver's user-space side (NVML, libcuda, nvidia-smi) where it shows on its own, e.g. an installed
    package's version: it must be the kernel module's, else nothing can use the GPU."""
    cuda_driver_version: Fact[str] = field(default_factory=unknown)
    """The newest CUDA the driver supports (not the toolkit)."""
    cuda_toolkit_version: Fact[Version] = field(default_factory=unknown)
    amd_smi_version: Fact[str] = field(default_factory=unknown)


@dataclass(frozen=True, slots=True)
class Framework:
    """One ML framework as installed (from package metadata) and as it reports itself (from a child process)."""

    name: str
    """Distribution name: ``torch``, ``jax``, ``triton``, ``pytorch-triton-rocm``."""
    version: Fact[str] = field(default_factory=unknown)
    """The full version string, e.g. ``2.5.1+rocm6.2``."""
    variant: Fact[BuildVariant] = field(default_factory=unknown)
    backend_version: Fact[str] = field(default_factory=unknown)
    """``torch.version.hip`` on ROCm builds, ``torch.version.cuda`` on CUDA builds."""
    accelerator_available: Fact[bool] = field(default_factory=unknown)
    device_count: Fact[int] = field(default_factory=unknown)
    device_names: Fact[tuple[str, ...]] = field(default_factory=unknown)
    device_archs: Fact[tuple[str, ...]] = field(default_factory=unknown)
    """``gcnArchName`` (``gfx942:sramecc+:xnack-``) or ``sm_90`` per visible device."""
    arch_list: Fact[tuple[str, ...]] = field(default_factory=unknown)
    """Architectures compiled into the build (``torch.cuda.get_arch_list()``)."""
    default_backend: Fact[str] = field(default_factory=unknown)
    """JAX's default backend (``gpu``, ``rocm``, ``cuda``, ``cpu``)."""
    installed: bool = True
    """False when the distribution is not installed at all (every fact is then absent for that reason)."""


@dataclass(frozen=True, slots=True)
class DeviceNode:
    """A device file an accelerator is used through."""

    path: str
    exists: bool
    group: Fact[str] = field(default_factory=unknown)
    mode: Fact[str] = field(default_factory=unknown)
    """Permission bits in octal, e.g. ``0660``."""
    accessible: Fact[bool] = field(default_factory=unknown)
    """Whether this user can open it for reading and writing."""


@dataclass(frozen=True, slots=True)
class Access:
    """Whether this user, in this container, can reach the devices."""

    nodes: tuple[DeviceNode, ...] = ()
    user: Fact[str] = field(default_factory=unknown)
    groups: Fact[tuple[str, ...]] = field(default_factory=unknown)


@dataclass(frozen=True, slots=True)
class Package:
    """An installed Python distribution relevant to the accelerator stack."""

    name: str
    version: str


@dataclass(frozen=True, slots=True)
class ProbeNote:
    """What one probe did: ran, was absent, failed (with why)."""

    name: str
    fact: Fact[str]


@dataclass(frozen=True, slots=True)
class Link:
    """How two devices connect."""

    a: str
    b: str
    kind: str
    """``nvlink``, ``xgmi``, ``pcie-switch`` (PIX/PXB), ``pcie-host-bridge`` (PHB), ``pcie-numa-node`` (NODE),
    ``pcie-cross-socket`` (SYS), ``pcie`` (a PCIe link the tool does not qualify)."""
    label: str = ""
    """As the tool printed it: ``NV18``, ``XGMI``, ``SYS``."""


@dataclass(frozen=True, slots=True)
class Topology:
    """Links between the devices of a multi-GPU node, and their NUMA affinity."""

    source: str
    devices: tuple[str, ...]
    links: tuple[Link, ...] = ()
    numa: dict[str, str] = field(default_factory=dict)
    """Device -> NUMA node (as the tool prints it)."""
    cpu_affinity: dict[str, str] = field(default_factory=dict)

    def kinds(self) -> set[str]:
        """Link kinds present between GPUs."""
        return {link.kind for link in self.links}


@dataclass(frozen=True, slots=True)
class ErrorSeen:
    """A known error message in a pasted report: evidence in itself, judged like any other fact."""

    code: str
    """Which error (``hip_no_binary_for_gpu``, ``kfd_permission_denied`` ...), from the paste reader's patterns."""
    text: str
    """The line as pasted (shortened)."""
    section: str = ""
    detail: str = ""
    """What the line names, where it says (a gfx target, a library file ...)."""
    line: int = 0
    """Its line number in the paste (0: not known)."""
    later_success: str = ""
    """Where a later part of the same paste shows the GPU working after a change (an override set, a restart):
    ``line 27: torch.cuda.is_available() is True, after HSA_OVERRIDE_GFX_VERSION=10.3.0 (line 21)``; empty if none."""


@dataclass(frozen=True, slots=True)
class SectionNote:
    """What a stretch of a pasted report was recognised as, or that it was not."""

    first_line: int
    last_line: int
    kind: str
    """``collect-env``, ``rocminfo``, ``pip-list`` ... or ``unrecognised``."""
    command: str = ""
    """The command line it followed, when the paste shows one."""
    confidence: float = 1.0
    facts: int = 0
    """How many facts were read from it."""
    source: str = ""
    """The file it is in, when several were read together."""


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two parts of a paste that disagree (a container and its host, two torch versions): both values kept."""

    field: str
    values: tuple[str, ...]
    sections: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """Everything known about one machine's stack."""

    host: Host = field(default_factory=Host)
    devices: tuple[Device, ...] = ()
    stack: Stack = field(default_factory=Stack)
    frameworks: tuple[Framework, ...] = ()
    packages: tuple[Package, ...] = ()
    access: Access = field(default_factory=Access)
    environment: dict[str, str] = field(default_factory=dict)
    """Environment variables that change GPU behaviour, as set."""
    probes: tuple[ProbeNote, ...] = ()
    topology: Topology | None = None
    origin: str = "probe"
    """``probe`` for this machine, or the kind and file it was read from (``collect_env: report.txt``)."""
    errors: tuple[ErrorSeen, ...] = ()
    """Known error messages in a pasted report."""
    sections: tuple[SectionNote, ...] = ()
    """For a pasted report: what each part was recognised as (``unrecognised`` parts included)."""
    conflicts: tuple[Conflict, ...] = ()

    def framework(self, name: str) -> Framework | None:
        """The framework with this distribution name, if present."""
        return next((f for f in self.frameworks if f.name == name), None)
