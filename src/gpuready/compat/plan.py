"""What-if before installing: for a GPU (and an OS), which releases support it and what to install."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from gpuready.compat.catalogue import find_gpu, normalise_name, suggest
from gpuready.compat.containers import ContainerOption, container_options
from gpuready.compat.load import Dataset
from gpuready.compat.query import arch_runs_on, install_command, parse_version, wheels_for_arch
from gpuready.compat.schema import Backend, GpuEntry, RocmRelease
from gpuready.compat.support import Support, listed_siblings, os_fit, product_support
from gpuready.errors import InputError, ParseError
from gpuready.model import Vendor
from gpuready.probe.parse.os_release import parse_os_name


@dataclass(frozen=True, slots=True)
class ReleaseOption:
    """A platform release (ROCm, or a CUDA major) and how it fits the request."""

    name: str
    version: str
    status: str
    """``supported``, ``deprecated``, ``supported (OS not listed)``, ``restricted on this OS``."""
    source: str
    date: str = ""
    frameworks: tuple[str, ...] = ()
    note: str = ""
    support: str = ""
    """For a GPU product on ROCm: ``listed by AMD``, ``same ISA as a listed product`` (works in practice, not
    validated), ``target listed`` (AMD's product list for the release not recorded) or ``deprecated``."""


@dataclass(frozen=True, slots=True)
class WheelOption:
    """A framework build that has kernels for the GPU, with the command that installs it."""

    framework: str
    version: str
    variant: str
    install: str
    source: str


@dataclass(frozen=True, slots=True)
class Hardware:
    """What the catalogue knows of the GPU itself: memory and the vendor's peak rates, with where they were read."""

    memory_gib: float | None = None
    memory_bandwidth_gbps: float | None = None
    peak_tflops: dict[str, float] | None = None
    """Dense peak per dtype (int8 in TOPS)."""
    source: str = ""
    confirmed: bool = True
    """False when the rates were read in a third-party copy of the vendor's figures."""
    devices_per_board: int = 1
    """Devices the OS sees per board; the figures above are per board."""

    @classmethod
    def of(cls, gpu: GpuEntry) -> Hardware:
        """The catalogue entry's hardware facts."""
        rated = bool(gpu.peak_tflops or gpu.memory_bandwidth_gbps)
        return cls(gpu.memory_gib, gpu.memory_bandwidth_gbps, dict(gpu.peak_tflops) or None,
                   gpu.peak_source if rated else "", gpu.peak_confirmed if rated else True, gpu.devices_per_board)


@dataclass(frozen=True, slots=True)
class Plan:
    """The answer to ``gpuready plan``."""

    gpu: str
    vendor: str
    arch: str
    os: str
    releases: tuple[ReleaseOption, ...]
    wheels: tuple[WheelOption, ...]
    recommendation: str
    notes: tuple[str, ...] = ()
    hardware: Hardware = Hardware()
    data: str = ""
    """The data set judged with: its directory and date (``... as of 2026-12-01``)."""
    containers: tuple[ContainerOption, ...] = ()
    """The vendor's official images that suit the GPU (newest first), with the docker / podman lines that start them."""


def parse_os(text: str) -> tuple[str, str]:
    """``Ubuntu 24.04`` -> (ubuntu, 24.04); ``RHEL 9.6`` -> (rhel, 9.6); ``SLES 15 SP6`` -> (sles, 15.6)."""
    try:
        return parse_os_name(text)
    except ParseError:
        raise InputError(f"{text!r}: expected a distribution and version such as 'Ubuntu 24.04', 'RHEL 9.6', "
                         "'SLES 15 SP6'", field="os") from None


def resolve_gpu(data: Dataset, name: str) -> GpuEntry:
    """The catalogue entry for a product name; unknown names raise with "did you mean"."""
    entry = find_gpu(data.gpus.gpus, name)
    if entry is None:
        close = suggest(data.gpus.gpus, name)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise InputError(f"{name!r} is not in the GPU catalogue{hint}", field="gpu")
    return entry


def _support_note(data: Dataset, release: RocmRelease, gpu: GpuEntry, support: Support) -> str:
    if support is not Support.SAME_ISA:
        return ""
    arch_of = {normalise_name(g.name): g.arch for g in data.gpus.gpus}
    siblings = listed_siblings(release, gpu.arch, arch_of)
    unconfirmed = "" if release.gpus_confirmed else "; AMD's list read in a copy or an undated revision"
    return (f"{gpu.name} is not in AMD's list; it shares {gpu.arch} with "
            f"{', '.join(siblings) or 'a listed product'} (works in practice, not validated{unconfirmed})")


def _amd_plan(data: Dataset, gpu: GpuEntry, os_text: str | None, framework: str, rocm: str | None) -> Plan:
    os_id, os_version = parse_os(os_text) if os_text else ("", "")
    options: list[ReleaseOption] = []
    names = {gpu.name, *gpu.aliases}
    for release in sorted(data.rocm.releases, key=lambda r: r.version, reverse=True):
        support = product_support(release, gpu.name, gpu.arch)
        if support is Support.UNSUPPORTED:
            continue
        status = "deprecated" if support is Support.DEPRECATED else "supported"
        note = _support_note(data, release, gpu, support)
        if os_id:
            fit = os_fit(release, os_id, os_version, names)
            if not fit.allowed:
                status, note = f"{status}, but not on {os_id} {os_version}", "; ".join(
                    p for p in (fit.why, note) if p)
        options.append(ReleaseOption("ROCm", str(release.version), status, release.source,
                                     str(release.date), tuple(release.frameworks.get(framework, ())), note
                                     + (f" ({release.stream})" if release.stream != "legacy" else ""),
                                     support.value))
    if rocm:
        wanted = parse_version(rocm)
        options = [o for o in options if wanted is not None and parse_version(o.version) is not None and
                   parse_version(o.version).release[:len(wanted.release)] == wanted.release]  # type: ignore[union-attr]
        if not options:
            raise InputError(f"{rocm}: no ROCm release in the data supports {gpu.name} ({gpu.arch})", field="rocm")
    wheels = _wheels(data, gpu, Backend.ROCM) if framework == "torch" else ()
    good = [o for o in options if o.status == "supported" and "preview" not in o.note]
    notes: list[str] = []
    if not options:
        notes.append(f"No ROCm release in the data lists {gpu.arch}; community builds or HSA_OVERRIDE_GFX_VERSION are "
                     "unsupported territory.")
    if framework == "jax":
        recommendation = _recommend_jax(data, good) or _recommend(data, good, options, wheels, gpu)
        for pairing in sorted((p for p in data.jax.rocm if p.rocm), key=lambda p: p.jax, reverse=True)[:4]:
            notes.append(f"JAX {pairing.jax} with ROCm {', '.join(pairing.rocm)}: "
                         f"{pairing.install or f'pip install {pairing.plugin} {pairing.pjrt}'}")
    else:
        recommendation = _recommend(data, good, options, wheels, gpu)
    return Plan(gpu.name, gpu.vendor.value, gpu.arch, f"{os_id} {os_version}".strip(), tuple(options), wheels,
                recommendation, tuple(notes), Hardware.of(gpu))


def _recommend_jax(data: Dataset, good: list[ReleaseOption]) -> str:
    """The newest ROCm release that fits and that a documented JAX ROCm plugin release pairs with."""
    confirmed = {str(r.version) for r in data.rocm.releases if r.confirmed}
    for option in [o for o in good if o.version in confirmed] + good:
        line = ".".join(option.version.split(".")[:2])
        pairings = sorted((p for p in data.jax.rocm if line in p.rocm), key=lambda p: p.jax, reverse=True)
        if pairings:
            best = pairings[0]
            how = best.install or f"pip install {best.plugin}=={best.jax} {best.pjrt}=={best.jax} jax=={best.jax}"
            return f"ROCm {option.version} ({option.date}) with JAX {best.jax}: {how}"
    return ""


def _recommend(data: Dataset, good: list[ReleaseOption], options: list[ReleaseOption],
               wheels: tuple[WheelOption, ...], gpu: GpuEntry) -> str:
    """The newest confirmed ROCm release that fits, paired with a PyTorch wheel built for that same ROCm line."""
    confirmed = {str(r.version) for r in data.rocm.releases if r.confirmed}
    for option in [o for o in good if o.version in confirmed] + good:
        line = ".".join(option.version.split(".")[:2])
        wheel = next((w for w in wheels if w.variant == f"rocm{line}" or w.variant.startswith(f"rocm{line}.")), None)
        if wheel is not None:
            return (f"ROCm {option.version} ({option.date}) with torch {wheel.version} ({wheel.variant}): "
                    f"{wheel.install}")
    if good:
        return f"ROCm {good[0].version} ({good[0].date})" + (
            f"; newest torch wheel with {gpu.arch} kernels: {wheels[0].install}" if wheels else "")
    if options:
        return f"ROCm {options[0].version} ({options[0].status})"
    return f"no supported ROCm release for {gpu.name}"


def _wheels(data: Dataset, gpu: GpuEntry, backend: Backend) -> tuple[WheelOption, ...]:
    seen: set[str] = set()
    found = []
    for release, variant in wheels_for_arch(data, gpu.arch, backend):
        if str(release.version) in seen:
            continue
        seen.add(str(release.version))
        found.append(WheelOption("torch", str(release.version), variant.name,
                                 install_command(data, release, variant), release.source))
    return tuple(found[:8])


def _nvidia_plan(data: Dataset, gpu: GpuEntry, os_text: str | None) -> Plan:
    options = []
    for support in sorted(data.cuda.arch_support, key=lambda s: s.cuda_major, reverse=True):
        if arch_runs_on(gpu.arch, support.min_arch) or _at_least(gpu.arch, support.min_arch):
            toolkits = [t for t in data.cuda.toolkits if t.version.major == support.cuda_major]
            newest = max(toolkits, key=lambda t: t.version) if toolkits else None
            options.append(ReleaseOption(
                "CUDA", f"{support.cuda_major}.x" + (f" (newest {newest.version})" if newest else ""),
                "deprecated" if gpu.arch in support.deprecated else "supported", support.source,
                note=f"driver {newest.min_driver_linux} or newer" if newest else ""))
    wheels = _wheels(data, gpu, Backend.CUDA)
    notes = ["gpuready's data has no per-OS matrix for NVIDIA; any distribution the driver supports will do."] \
        if os_text else []
    if wheels:
        best = wheels[0]
        toolkit = next((t for t in data.cuda.toolkits if best.variant == f"cu{t.version.major}{t.version.minor}"),
                       None)
        recommendation = f"torch {best.version} ({best.variant}): {best.install}" + (
            f"; needs NVIDIA driver {toolkit.min_driver_linux} or newer" if toolkit else "")
    else:
        recommendation = f"no PyTorch wheel in the data has kernels for {gpu.arch}"
    return Plan(gpu.name, gpu.vendor.value, gpu.arch, os_text or "", tuple(options), wheels, recommendation,
                tuple(notes), Hardware.of(gpu))


def _at_least(arch: str, minimum: str) -> bool:
    a, b = re.fullmatch(r"sm_(\d+)", arch), re.fullmatch(r"sm_(\d+)", minimum)
    return bool(a and b and int(a.group(1)) >= int(b.group(1)))


def make_plan(data: Dataset, gpu_name: str, os_text: str | None = None, framework: str = "torch",
              rocm: str | None = None) -> Plan:
    """Supported releases, framework builds with kernels for the GPU, and the newest recommended combination."""
    gpu = resolve_gpu(data, gpu_name)
    if gpu.vendor is Vendor.AMD:
        plan = _amd_plan(data, gpu, os_text, framework, rocm)
    elif rocm:
        raise InputError(f"applies to AMD GPUs; {gpu.name} is {gpu.vendor.value}", field="rocm")
    else:
        plan = _nvidia_plan(data, gpu, os_text)
    return dataclasses.replace(plan, data=f"{data.directory} (as of {data.as_of.isoformat()})",
                               containers=container_options(data, gpu, framework, rocm))


__all__ = ["ContainerOption", "Plan", "ReleaseOption", "WheelOption", "make_plan", "parse_os", "resolve_gpu"]
