"""The shape of the compatibility data files (``compat/data/*.yaml``): frozen dataclasses read by the model codec.

Every entry carries ``source`` (a URL) and ``read`` (the date it was read); ``confirmed: false`` marks a fact seen
only in third-party material. A file's ``as_of`` is the date the whole file was last checked.
"""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass, field

from packaging.version import Version

from gpuready.model import Vendor


class Segment(str, enum.Enum):
    """Where a GPU is sold."""

    DATACENTER = "datacenter"
    WORKSTATION = "workstation"
    CONSUMER = "consumer"
    APU = "apu"
    EMBEDDED = "embedded"


@dataclass(frozen=True, slots=True)
class GpuEntry:
    """One GPU product."""

    name: str
    vendor: Vendor
    family: str
    """Microarchitecture: ``CDNA3``, ``RDNA3``, ``Hopper``, ``Ada Lovelace`` ..."""
    arch: str
    """Compiler target: ``gfx942`` or ``sm_90``."""
    segment: Segment
    source: str
    read: datetime.date
    aliases: tuple[str, ...] = ()
    memory_gib: float | None = None
    memory_bandwidth_gbps: float | None = None
    """Peak memory bandwidth in GB/s."""
    peak_tflops: dict[str, float] = field(default_factory=dict)
    """Dense peak per dtype (``fp64``, ``fp32``, ``tf32``, ``fp16``, ``bf16``, ``fp8``, ``int8``), no sparsity."""
    pci_device_ids: tuple[str, ...] = ()
    confirmed: bool = True
    notes: str = ""
    rates_source: str | None = None
    """Where ``peak_tflops`` and ``memory_bandwidth_gbps`` were read, when not from ``source``."""
    rates_read: datetime.date | None = None
    rates_confirmed: bool | None = None
    """Whether the rates come from the vendor's own text; ``None`` means ``confirmed`` covers them."""
    compute_units: int | None = None
    """CUs (AMD) or SMs (NVIDIA) of one visible device in its default mode: tells apart boards that report the same
    name (an MI250X GCD has 110, an MI250 GCD 104; both call themselves ``AMD Instinct MI250X / MI250``), and a device
    reporting fewer is a partition that gets its share of the compute peak."""
    devices_per_board: int = 1
    """How many devices the OS and frameworks see per board (2 GCDs on MI250X/MI250). Memory, bandwidth and peak
    rates are per board, as vendors state them; ``per_device`` divides."""

    def per_device(self, value: float) -> float:
        """A per-board figure as one visible device sees it."""
        return value / self.devices_per_board

    @property
    def peak_source(self) -> str:
        """The URL behind the peak rates and bandwidth."""
        return self.rates_source or self.source

    @property
    def peak_confirmed(self) -> bool:
        """True when the peak rates were read in the vendor's own material."""
        return self.confirmed if self.rates_confirmed is None else self.rates_confirmed


PEAK_DTYPES = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8")
"""The keys ``peak_tflops`` may use (``int8`` is TOPS)."""


@dataclass(frozen=True, slots=True)
class GpuCatalogue:
    """``gpus.yaml``."""

    as_of: datetime.date
    gpus: tuple[GpuEntry, ...]


@dataclass(frozen=True, slots=True)
class OsSupport:
    """One operating system a ROCm release lists, with its versions and kernels."""

    id: str
    """os-release ``ID``: ubuntu, rhel, sles, debian, ol, rocky, azurelinux, centos."""
    versions: tuple[str, ...]
    kernels: tuple[str, ...] = ()
    """Kernel series the docs list for it (``6.8``, ``5.15``), when they list any."""
    only_on_gpus: tuple[str, ...] = ()
    """AMD's footnote limits this OS row to these products (``RHEL 8.10 is supported only on MI300X ...``); empty
    means every listed GPU."""
    note: str = ""
    """The footnote's text, verbatim where it was imported."""


@dataclass(frozen=True, slots=True)
class GpuRestriction:
    """A documented limit on a GPU row: these products are supported by this release only on these OS versions."""

    products: tuple[str, ...]
    only_on_os: tuple[str, ...]
    """``ubuntu 24.04``, ``rhel 9.6`` ... (id and version)."""
    note: str = ""
    source: str | None = None
    """Where the limit was read, when not the release's ``source``."""


@dataclass(frozen=True, slots=True)
class RocmRelease:
    """One ROCm release as AMD's compatibility matrix and release notes describe it."""

    version: Version
    date: datetime.date
    targets: tuple[str, ...]
    """gfx targets officially supported."""
    source: str
    read: datetime.date
    stream: str = "legacy"
    """``legacy`` (5.x-7.2), ``preview`` (TheRock 7.9-7.13), ``core`` (Core SDK 7.14, 10.x)."""
    deprecated_targets: tuple[str, ...] = ()
    os: tuple[OsSupport, ...] = ()
    gpu_restrictions: tuple[GpuRestriction, ...] = ()
    gpus: tuple[str, ...] = ()
    """AMD's supported-GPU table for this release, by product name; empty when it was not recorded. A GPU whose target
    is in ``targets`` but whose name is not here is "same ISA as a listed product": it works in practice, AMD does not
    validate it."""
    gpus_source: str | None = None
    """Where ``gpus`` was read, when not the release's ``source``."""
    gpus_confirmed: bool = True
    """False where ``gpus`` was read in a copy of AMD's page, or in a revision whose release was inferred."""
    frameworks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Framework versions AMD validated with it: ``{"torch": ["2.6", "2.5"], "jax": ["0.4.35"]}``."""
    confirmed: bool = True
    notes: str = ""


@dataclass(frozen=True, slots=True)
class DriverCompat:
    """Which ROCm user-space releases a kernel driver (amdgpu) series supports."""

    driver: str
    """Driver series as its version begins: ``6.4`` (DKMS 6.4.x) or ``30.10`` (the 7.0+ numbering)."""
    user_space_min: Version
    user_space_max: Version
    source: str
    read: datetime.date
    confirmed: bool = True
    notes: str = ""


@dataclass(frozen=True, slots=True)
class RocmData:
    """``rocm.yaml``."""

    as_of: datetime.date
    releases: tuple[RocmRelease, ...]
    driver_compat: tuple[DriverCompat, ...] = ()


class Backend(str, enum.Enum):
    """What a framework build runs on."""

    ROCM = "rocm"
    CUDA = "cuda"
    CPU = "cpu"


@dataclass(frozen=True, slots=True)
class TorchVariant:
    """One wheel flavour of a PyTorch release (an index on download.pytorch.org)."""

    name: str
    """Local version label and index name: ``rocm6.2``, ``cu124``, ``cpu``."""
    backend: Backend
    arch_list: tuple[str, ...] = ()
    """Targets compiled in (PYTORCH_ROCM_ARCH / TORCH_CUDA_ARCH_LIST as gfx / sm names)."""
    backend_version: str = ""
    """``6.2`` or ``12.4``; empty for cpu."""
    confirmed: bool = True
    source: str | None = None
    """Where this variant's arch list was confirmed (a build script at a commit, or printed output in an issue),
    when that is not the release's ``source``."""
    read: datetime.date | None = None


@dataclass(frozen=True, slots=True)
class TorchRelease:
    """One PyTorch release and its wheel variants."""

    version: Version
    variants: tuple[TorchVariant, ...]
    source: str
    read: datetime.date
    date: datetime.date | None = None
    pypi_default: str = ""
    """The variant plain ``pip install torch`` gives on Linux x86_64 (a CUDA one)."""
    confirmed: bool = True
    notes: str = ""


@dataclass(frozen=True, slots=True)
class TorchData:
    """``torch.yaml``."""

    as_of: datetime.date
    index_url: str
    """Base of the wheel indexes, e.g. ``https://download.pytorch.org/whl``; a variant's index is base/name."""
    releases: tuple[TorchRelease, ...]


@dataclass(frozen=True, slots=True)
class CudaToolkit:
    """A CUDA toolkit release, the oldest driver its runtime runs on (minor-version compatibility, per platform),
    and the driver its GA release corresponds to."""

    version: Version
    min_driver_linux: str
    source: str
    read: datetime.date
    min_driver_windows: str = ""
    """The oldest Windows driver (WSL 2 uses the Windows driver); empty when not recorded."""
    driver_linux: str = ""
    """The Linux x86_64 driver the toolkit's GA release corresponds to (NVIDIA's "Toolkit Driver Version" table):
    the driver it needs without minor-version compatibility."""
    driver_windows: str = ""
    """The same for Windows x86_64; empty where NVIDIA lists none (N/A from CUDA 13)."""
    date: datetime.date | None = None
    confirmed: bool = True
    notes: str = ""


@dataclass(frozen=True, slots=True)
class CudaArchSupport:
    """Which compute capabilities a CUDA major release still compiles for."""

    cuda_major: int
    min_arch: str
    """The oldest supported target, e.g. ``sm_50`` (CUDA 12), ``sm_75`` (CUDA 13)."""
    source: str
    read: datetime.date
    dropped: tuple[str, ...] = ()
    deprecated: tuple[str, ...] = ()
    confirmed: bool = True
    notes: str = ""


@dataclass(frozen=True, slots=True)
class CudaData:
    """``cuda.yaml``."""

    as_of: datetime.date
    toolkits: tuple[CudaToolkit, ...]
    arch_support: tuple[CudaArchSupport, ...] = ()


@dataclass(frozen=True, slots=True)
class JaxRocmPairing:
    """A JAX release with its ROCm plugin packages."""

    jax: Version
    jaxlib: Version
    plugin: str
    """Package name of the plugin, e.g. ``jax-rocm7-plugin``."""
    pjrt: str
    """Package name of the PJRT runtime, e.g. ``jax-rocm7-pjrt``."""
    rocm: tuple[str, ...]
    """ROCm releases it is built for / tested with."""
    source: str
    read: datetime.date
    install: str = ""
    confirmed: bool = True
    notes: str = ""


@dataclass(frozen=True, slots=True)
class JaxData:
    """``jax.yaml``."""

    as_of: datetime.date
    rocm: tuple[JaxRocmPairing, ...]


@dataclass(frozen=True, slots=True)
class LinkSpec:
    """Peak bandwidth of a GPU-to-GPU link type, per GPU and per direction; or of a network port between nodes."""

    kind: str
    """``nvlink``, ``xgmi`` or ``pcie`` between GPUs; ``infiniband`` or ``ethernet`` (RoCE) between nodes."""
    generation: str
    per_gpu_gbps: float
    """One direction (GB/s): for a GPU link summed over the GPU's links; for a network kind PER PORT (the port's
    Gb/s / 8), which the judge shares among the node's GPUs."""
    source: str
    read: datetime.date
    gpus: tuple[str, ...] = ()
    """Products it applies to; empty means any GPU with this link kind."""
    confirmed: bool = True
    notes: str = ""


@dataclass(frozen=True, slots=True)
class LinkData:
    """``links.yaml``."""

    as_of: datetime.date
    links: tuple[LinkSpec, ...]


@dataclass(frozen=True, slots=True)
class ErrorMeaning:
    """What a known error message means (``errors.yaml``); the paste reader finds it under the same code."""

    code: str
    severity: str
    """``blocker`` or ``warn``."""
    message: str
    remedy: str
    problem: str
    """The diagnosis tag it supports (see tests/ground_truth.py)."""
    source: str


@dataclass(frozen=True, slots=True)
class ErrorData:
    """``errors.yaml``."""

    as_of: datetime.date
    errors: tuple[ErrorMeaning, ...]


@dataclass(frozen=True, slots=True)
class ContainerImage:
    """A vendor's official container image for one release: what is in it, and where the vendor says so."""

    image: str
    """Repository as ``docker pull`` takes it: ``rocm/pytorch``, ``nvcr.io/nvidia/pytorch``."""
    tag: str
    vendor: Vendor
    platform_version: str
    """The ROCm (``7.2.4``) or CUDA (``13.1.0``) release inside the image."""
    source: str
    read: datetime.date
    framework: str = ""
    """``torch``, ``jax``, ``vllm``; empty for a bare platform image (``rocm/dev-ubuntu-24.04``)."""
    framework_version: str = ""
    digest: str = ""
    """``sha256:...`` as the vendor's page links it (Docker Hub's per-platform image digest); empty when not stated."""
    os: str = ""
    """``ubuntu 24.04``."""
    python: str = ""
    confirmed: bool = True
    notes: str = ""

    @property
    def reference(self) -> str:
        """``rocm/pytorch:TAG``."""
        return f"{self.image}:{self.tag}"

    @property
    def pinned(self) -> str:
        """``rocm/pytorch:TAG@sha256:...`` where the digest is known (docker and podman pull the digest and ignore
        the tag), else the tag alone."""
        return f"{self.reference}@{self.digest}" if self.digest else self.reference


@dataclass(frozen=True, slots=True)
class ContainerRun:
    """The flags a vendor documents for giving a container its GPUs, per container engine."""

    vendor: Vendor
    engine: str
    """``docker`` or ``podman``."""
    flags: tuple[str, ...]
    """Arguments between ``run`` and the image, one token each (``--group-add``, ``video``)."""
    source: str
    read: datetime.date
    confirmed: bool = True
    notes: str = ""


@dataclass(frozen=True, slots=True)
class ContainerData:
    """``containers.yaml``."""

    as_of: datetime.date
    images: tuple[ContainerImage, ...]
    runs: tuple[ContainerRun, ...] = ()
