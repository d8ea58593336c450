"""Which of a vendor's official container images suit a GPU, and the docker / podman line that starts one with the
GPUs passed in, as the vendor documents it. Pure functions over the data set."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from gpuready.compat.load import Dataset
from gpuready.compat.query import cuda_toolkit, parse_version, rocm_release
from gpuready.compat.schema import ContainerImage, ContainerRun, GpuEntry
from gpuready.compat.support import Support, product_support
from gpuready.model import Vendor

USABLE = (Support.LISTED, Support.SAME_ISA, Support.TARGET_LISTED)


@dataclass(frozen=True, slots=True)
class RunCommand:
    """``docker run ...`` or ``podman run ...`` with the device flags, and where the flags come from."""

    engine: str
    line: str
    source: str
    confirmed: bool = True
    """False where the vendor does not document this engine and the flags are derived (AMD with podman)."""


@dataclass(frozen=True, slots=True)
class ContainerOption:
    """One image with what is in it and the lines that start it."""

    image: str
    """``repository:tag@sha256:...`` where the vendor's page gives the digest, else ``repository:tag``."""
    platform: str
    """``ROCm 7.2.4`` or ``CUDA 13.1.0``."""
    framework: str = ""
    """``torch 2.9.1``; empty for a bare platform image."""
    os: str = ""
    python: str = ""
    source: str = ""
    confirmed: bool = True
    commands: tuple[RunCommand, ...] = ()
    """``docker run ...`` and ``podman run ...`` with the vendor's device flags."""
    note: str = ""


def run_line(run: ContainerRun, image: str) -> str:
    """``docker run -it --rm <the vendor's flags> IMAGE``, quoted for a POSIX shell."""
    return shlex.join([run.engine, "run", "-it", "--rm", *run.flags, image])


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text.split("+")[0])[:3])


def _amd_fits(data: Dataset, gpu: GpuEntry) -> Callable[[ContainerImage], str | None]:
    """None when the image's ROCm release supports the GPU, else why not."""
    def fits(image: ContainerImage) -> str | None:
        version = parse_version(image.platform_version)
        release = rocm_release(data, version) if version is not None else None
        if release is None:
            return f"ROCm {image.platform_version} is not in the data"
        support = product_support(release, gpu.name, gpu.arch)
        return None if support in USABLE else f"ROCm {release.version}: {support.value} for {gpu.arch}"
    return fits


def _nvidia_fits(data: Dataset, gpu: GpuEntry) -> Callable[[ContainerImage], str | None]:
    """None when the image's CUDA major still compiles for the GPU's compute capability, else why not."""
    def fits(image: ContainerImage) -> str | None:
        version = parse_version(image.platform_version)
        major = version.major if version is not None else None
        support = next((s for s in data.cuda.arch_support if s.cuda_major == major), None)
        if support is None:
            return f"CUDA {image.platform_version}: no architecture support recorded"
        number = re.fullmatch(r"sm_(\d+)[af]?", gpu.arch)
        minimum = re.fullmatch(r"sm_(\d+)", support.min_arch)
        if gpu.arch in support.dropped or (number and minimum and int(number.group(1)) < int(minimum.group(1))):
            return f"CUDA {major} no longer builds for {gpu.arch}"
        return None
    return fits


def _note(data: Dataset, image: ContainerImage, gpu: GpuEntry) -> str:
    """NVIDIA: the host driver the image's CUDA needs. AMD: whether AMD lists the product for the image's ROCm."""
    if image.vendor is Vendor.NVIDIA:
        toolkit = cuda_toolkit(data, image.platform_version)
        return f"needs NVIDIA driver {toolkit.min_driver_linux} or newer on the host" if toolkit else ""
    version = parse_version(image.platform_version)
    release = rocm_release(data, version) if version is not None else None
    support = product_support(release, gpu.name, gpu.arch) if release is not None else None
    if release is not None and support is Support.SAME_ISA:
        return f"ROCm {release.version} does not list {gpu.name}; same ISA as a listed product"
    if release is not None and support is Support.TARGET_LISTED:
        return f"ROCm {release.version} supports {gpu.arch}; AMD's product list for it is not in the data"
    return ""


def container_options(data: Dataset, gpu: GpuEntry, framework: str, platform_line: str | None = None,
                      limit: int = 3) -> tuple[ContainerOption, ...]:
    """The vendor's images with ``framework`` whose platform release supports ``gpu``, newest platform and framework
    first; ``platform_line`` (``7.2``) keeps one release line."""
    fits = _amd_fits(data, gpu) if gpu.vendor is Vendor.AMD else _nvidia_fits(data, gpu)
    runs = [r for r in data.containers.runs if r.vendor is gpu.vendor]
    wanted = parse_version(platform_line) if platform_line else None
    found = []
    for image in data.containers.images:
        if image.vendor is not gpu.vendor or image.framework != framework or fits(image) is not None:
            continue
        version = parse_version(image.platform_version)
        if wanted is not None and (version is None or version.release[:len(wanted.release)] != wanted.release):
            continue
        found.append(image)
    found.sort(key=lambda i: (_version_key(i.platform_version), _version_key(i.framework_version),
                              _version_key(i.os), _version_key(i.python)), reverse=True)
    name = "ROCm" if gpu.vendor is Vendor.AMD else "CUDA"
    return tuple(ContainerOption(image.pinned, f"{name} {image.platform_version}",
                                 f"{framework} {image.framework_version}".strip(), image.os, image.python,
                                 image.source, image.confirmed,
                                 tuple(RunCommand(run.engine, run_line(run, image.pinned), run.source, run.confirmed)
                                       for run in runs), _note(data, image, gpu))
                 for image in found[:limit])


__all__ = ["ContainerOption", "RunCommand", "container_options", "run_line"]
