"""Imported facts against the installed data set: what was added, what changed, each with the URL it was read at."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from gpuready.compat.importers.facts import Fact
from gpuready.compat.load import Dataset
from gpuready.compat.schema import ContainerImage


@dataclass(frozen=True)
class Change:
    """One difference between the sources and the installed data."""

    status: str
    """``added``, ``changed`` or ``removed``."""
    what: str
    old: str
    new: str
    url: str


Merged = dict[tuple[str, str, str], tuple[tuple[str, ...], str]]


def merged(facts: Iterable[Fact]) -> Merged:
    """Facts of the same entry and field joined in order (an OS row's versions come one cell at a time)."""
    joined: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    urls: dict[tuple[str, str, str], str] = {}
    for fact in facts:
        key = (fact.kind, fact.key, fact.field)
        joined[key].extend(v for v in fact.value if v not in joined[key])
        urls[key] = fact.url
    return {key: (tuple(values), urls[key]) for key, values in joined.items()}


def _rocm(data: Dataset, key: str, name: str) -> tuple[str, ...] | None:
    release = next((r for r in data.rocm.releases if str(r.version) == key), None)
    if release is None:
        return None
    if name == "targets":
        return release.targets
    if name == "gpus":
        return release.gpus
    if name == "frameworks.torch":
        return release.frameworks.get("torch", ())
    if name.startswith("os."):
        return tuple(v for row in release.os if row.id == name[3:] for v in row.versions)
    if name.startswith("only_on_gpus."):
        os_id, version = name.split(".", 1)[1].split(" ", 1)
        return next((row.only_on_gpus for row in release.os if row.id == os_id and version in row.versions), ())
    if name.startswith("only_on_os."):
        product = name.split(".", 1)[1]
        return next((r.only_on_os for r in release.gpu_restrictions if product in r.products), ())
    return None


def _torch(data: Dataset, key: str, name: str) -> tuple[str, ...] | None:
    line = [r for r in data.torch.releases if f"{r.version.major}.{r.version.minor}" == key]
    if not line:
        return None
    newest = max(line, key=lambda r: r.version)
    return tuple(v.name for v in newest.variants) if name == "variants" else (newest.pypi_default,)


def _installed(data: Dataset, kind: str, key: str, name: str) -> tuple[str, ...] | None:
    """The installed value for a fact's entry and field, or None where the data has no such entry."""
    if kind == "rocm":
        return _rocm(data, key, name)
    if kind == "torch":
        return _torch(data, key, name)
    if kind == "cuda":
        toolkit = next((t for t in data.cuda.toolkits if f"{t.version.major}.{t.version.minor}" == key), None)
        return None if toolkit is None else ((getattr(toolkit, name),) if getattr(toolkit, name) else ())
    if kind == "container":
        image = image_by_reference(data, key)
        return None if image is None else ((str(getattr(image, name)),) if getattr(image, name, "") else ())
    return None


def image_by_reference(data: Dataset, reference: str) -> ContainerImage | None:
    """The installed image with this ``repository:tag``."""
    return next((i for i in data.containers.images if i.reference == reference), None)


def same_branch(installed: str, found: str) -> bool:
    """``525.60.13`` and ``525`` name the same driver floor at different precision."""
    a, b = re.findall(r"\d+", installed), re.findall(r"\d+", found)
    return bool(a) and a[:len(b)] == b[:len(a)]


def _family(data: Dataset, major: str, name: str, value: tuple[str, ...], url: str) -> list[Change]:
    """A major family's minor-version floor against each of its toolkits."""
    changes = []
    for toolkit in data.cuda.toolkits:
        installed = str(getattr(toolkit, name))
        if str(toolkit.version.major) == major and not same_branch(installed, value[0]):
            changes.append(Change("changed", f"cuda {toolkit.version} {name}", installed, value[0], url))
    return changes


def _pypi_change(data: Dataset, package: str, version: str, value: tuple[str, ...], url: str) -> list[Change]:
    try:
        parsed = Version(version)
    except InvalidVersion:
        return []
    if parsed.is_prerelease or parsed.is_devrelease:
        return []
    if package == "torch":
        known = {r.version for r in data.torch.releases}
        if parsed >= Version("2.0") and parsed not in known:
            return [Change("added", f"torch {version} release", "", f"on PyPI since {value[0]}", url)]
        return []
    known = {p.jax for p in data.jax.rocm}
    if parsed.release[:3] not in {k.release[:3] for k in known} and parsed > max(known, default=Version("0")):
        return [Change("added", f"{package} {version}", "", f"on PyPI since {value[0]} (no AMD pairing read)", url)]
    return []


def _oldest_toolkit(data: Dataset) -> tuple[int, int]:
    return min(((t.version.major, t.version.minor) for t in data.cuda.toolkits), default=(0, 0))


def compare(data: Dataset, facts: Iterable[Fact]) -> list[Change]:
    """Differences between imported facts and the installed data, each with the URL it was read at."""
    changes: list[Change] = []
    new_images: set[str] = set()
    for (kind, key, name), (value, url) in sorted(merged(facts).items()):
        if kind == "pypi":
            changes.extend(_pypi_change(data, key, name, value, url))
            continue
        if kind == "torch-arch":
            continue  # applied with the releases that use the variant
        if kind == "cuda-family":
            changes.extend(_family(data, key, name, value, url))
            continue
        if kind == "cuda" and tuple(int(p) for p in key.split(".")) < _oldest_toolkit(data):
            continue  # toolkits older than the data covers
        installed = _installed(data, kind, key, name)
        what = f"{kind} {key} {name}"
        if installed is None and kind == "container":
            if key not in new_images:
                new_images.add(key)
                changes.append(Change("added", f"container {key}", "", "new image (applied, unconfirmed)", url))
        elif installed is None:
            changes.append(Change("added", what, "", ", ".join(value), url))
        elif set(installed) != set(value) and (installed or value):
            changes.append(Change("changed", what, ", ".join(installed), ", ".join(value), url))
    return changes
