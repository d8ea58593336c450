"""Questions asked of the compatibility data: which release, which wheel, which driver. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Sequence

from packaging.version import InvalidVersion, Version

from gpuready.compat.load import Dataset
from gpuready.compat.schema import Backend, CudaToolkit, RocmRelease, TorchRelease, TorchVariant


def parse_version(text: str | None) -> Version | None:
    """A Version, or None for text that is not one."""
    if not text:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        match = re.match(r"\d+(?:\.\d+)*", text.strip())
        return Version(match.group(0)) if match else None


def rocm_release(data: Dataset, version: Version) -> RocmRelease | None:
    """The release entry for an installed ROCm: exact, else the newest entry of the same major.minor not above it."""
    releases = data.rocm.releases
    exact = next((r for r in releases if r.version == version), None)
    if exact is not None:
        return exact
    same = [r for r in releases if r.version.release[:2] == version.release[:2] and r.version <= version]
    return max(same, key=lambda r: r.version) if same else None


def torch_release(data: Dataset, version: str) -> tuple[TorchRelease | None, TorchVariant | None]:
    """The release and variant of an installed torch version string (``2.5.1+rocm6.2``)."""
    parsed = parse_version(version)
    if parsed is None:
        return None, None
    base = Version(parsed.base_version)
    release = next((r for r in data.torch.releases if r.version == base), None)
    if release is None:
        same_minor = [r for r in data.torch.releases if r.version.release[:2] == base.release[:2]]
        release = max(same_minor, key=lambda r: r.version) if same_minor else None
    if release is None:
        return None, None
    label = (parsed.local or "").split(".")[0] if parsed.local else ""
    local = parsed.local or ""
    variant = next((v for v in release.variants if local == v.name or local.startswith(v.name)), None)
    if variant is None and label:
        variant = next((v for v in release.variants if v.name.startswith(label)), None)
    return release, variant


def newest_torch(data: Dataset) -> Version | None:
    """The newest PyTorch release the data knows."""
    return max((r.version for r in data.torch.releases), default=None)


def arch_runs_on(device_arch: str, built: str) -> bool:
    """Can code built for ``built`` run on ``device_arch``?

    AMD code objects are exact per gfx target. NVIDIA cubins run on devices of the same major compute capability and
    an equal or higher minor (sm_86 code runs on sm_89).
    """
    if device_arch == built:
        return True
    device = re.fullmatch(r"sm_(\d+?)(\d)", device_arch)
    target = re.fullmatch(r"sm_(\d+?)(\d)", built)
    if device and target:
        return device.group(1) == target.group(1) and int(target.group(2)) <= int(device.group(2))
    return False


def arch_in_list(device_arch: str, arch_list: Sequence[str]) -> bool:
    """Whether any target of a build's list runs on the device."""
    base = device_arch.split(":")[0]
    return any(arch_runs_on(base, built.split(":")[0]) for built in arch_list)


def wheels_for_arch(data: Dataset, arch: str, backend: Backend) -> list[tuple[TorchRelease, TorchVariant]]:
    """Torch wheels (newest release first) whose arch list covers ``arch``."""
    found = []
    for release in sorted(data.torch.releases, key=lambda r: r.version, reverse=True):
        for variant in release.variants:
            if variant.backend is backend and variant.arch_list and arch_in_list(arch, variant.arch_list):
                found.append((release, variant))
    return found


def install_command(data: Dataset, release: TorchRelease, variant: TorchVariant) -> str:
    """The pip line that installs exactly this wheel from its index."""
    return f"pip install torch=={release.version} --index-url {data.torch.index_url.rstrip('/')}/{variant.name}"


def cuda_toolkit(data: Dataset, version: str) -> CudaToolkit | None:
    """The toolkit entry for a CUDA version string (``12.4`` or ``12.4.1``), matched on major.minor."""
    parsed = parse_version(version)
    if parsed is None:
        return None
    return next((t for t in data.cuda.toolkits if t.version.release[:2] == parsed.release[:2]), None)


def driver_version_key(text: str) -> tuple[int, ...]:
    """Compare NVIDIA driver versions numerically field by field (``570.124.04`` -> (570, 124, 4))."""
    return tuple(int(part) for part in re.findall(r"\d+", text))
