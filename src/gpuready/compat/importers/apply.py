"""What ``data update`` applies on its own: new PyTorch releases (with their line's variants and arch lists) and new
container images (with tag, digest, platform and framework as the vendor's page links them), all unconfirmed."""

from __future__ import annotations

import dataclasses
import datetime

from packaging.version import Version

from gpuready.compat.importers.compare import Merged, image_by_reference
from gpuready.compat.load import Dataset
from gpuready.compat.schema import Backend, ContainerImage, TorchRelease, TorchVariant
from gpuready.model import Vendor

_FRAMEWORKS = {"rocm/pytorch": "torch", "rocm/jax": "jax", "rocm/vllm": "vllm", "nvcr.io/nvidia/pytorch": "torch"}


def apply_torch(data: Dataset, joined: Merged, today: datetime.date) -> Dataset:
    """New PyTorch releases on PyPI, with their line's build-matrix variants and the build scripts' arch lists."""
    arch = {key: value for (kind, key, _), (value, _) in joined.items() if kind == "torch-arch"}
    known = {r.version for r in data.torch.releases}
    added = []
    for (kind, package, version), (value, url) in joined.items():
        if kind != "pypi" or package != "torch":
            continue
        parsed = Version(version)
        if parsed in known or parsed < Version("2.0") or parsed.is_prerelease or parsed.is_devrelease:
            continue
        line = f"{parsed.major}.{parsed.minor}"
        matrix = joined.get(("torch", line, "variants"))
        if matrix is None:
            continue  # no build matrix read for this line: nothing to say about its variants
        variants = tuple(_variant(name, arch) for name in matrix[0])
        default = joined.get(("torch", line, "pypi_default"), ((), ""))[0]
        added.append(TorchRelease(parsed, variants, matrix[1], today, datetime.date.fromisoformat(value[0]),
                                  default[0] if default else "", confirmed=False,
                                  notes=f"Imported by gpuready data update on {today}: release and date from PyPI "
                                        f"({url}), variants from the release/{line} build matrix."))
    if not added:
        return data
    releases = tuple(sorted((*data.torch.releases, *added), key=lambda r: r.version))
    return dataclasses.replace(data, torch=dataclasses.replace(data.torch, releases=releases, as_of=today))


def _variant(name: str, arch: dict[str, tuple[str, ...]]) -> TorchVariant:
    backend = Backend.ROCM if name.startswith("rocm") else Backend.CUDA if name.startswith("cu") else Backend.CPU
    version = name.removeprefix("rocm") if backend is Backend.ROCM else (
        f"{name[2:-1]}.{name[-1]}" if backend is Backend.CUDA else "")
    key = name if name in arch else ("rocm-legacy" if backend is Backend.ROCM and Version(version) < Version("7.9")
                                     else "")
    targets = arch.get(key, ())
    return TorchVariant(name, backend, targets, version, confirmed=False)


def apply_containers(data: Dataset, joined: Merged, today: datetime.date) -> Dataset:
    """Images the vendors' pages link that the data does not have yet, as unconfirmed entries with their source."""
    fields: dict[str, dict[str, str]] = {}
    urls: dict[str, str] = {}
    for (kind, reference, name), (value, url) in joined.items():
        if kind == "container" and image_by_reference(data, reference) is None and value:
            fields.setdefault(reference, {})[name] = value[0]
            urls[reference] = url
    added = []
    for reference, found in sorted(fields.items()):
        repository, tag = reference.rsplit(":", 1)
        if "platform_version" not in found:
            continue  # an image without a ROCm / CUDA release in its tag or page cannot be judged
        vendor = Vendor.NVIDIA if repository.startswith("nvcr.io/nvidia/") else Vendor.AMD
        added.append(ContainerImage(repository, tag, vendor, found["platform_version"], urls[reference], today,
                                    _FRAMEWORKS.get(repository, ""), found.get("framework_version", ""),
                                    found.get("digest", ""), found.get("os", ""), found.get("python", ""),
                                    confirmed=False,
                                    notes=f"Imported by gpuready data update on {today} from {urls[reference]}."))
    if not added:
        return data
    images = (*data.containers.images, *added)
    return dataclasses.replace(data, containers=dataclasses.replace(data.containers, images=images, as_of=today))
