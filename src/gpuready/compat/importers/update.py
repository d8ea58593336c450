"""``gpuready data update``: read every source, compare with the installed data set, write a new one and a diff.

The installed data set is never changed in place. A source that cannot be fetched or parsed is named in the result
and the installed data for it is kept. What the importers can apply on their own is applied (new PyTorch releases
with their variants, dates and arch lists); every other difference is listed in the diff for review.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from packaging.version import InvalidVersion, Version

from gpuready.compat.importers.facts import Fact
from gpuready.compat.importers.sources import Fetch, sources
from gpuready.compat.load import DEFAULT_DATA, FILES, Dataset
from gpuready.compat.schema import Backend, TorchRelease, TorchVariant
from gpuready.errors import GpureadyError, InputError, ParseError
from gpuready.files import write_text
from gpuready.model.codec import to_dict


@dataclass(frozen=True)
class Change:
    """One difference between the sources and the installed data."""

    status: str
    """``added``, ``changed`` or ``removed``."""
    what: str
    old: str
    new: str
    url: str


@dataclass
class Update:
    """What a run found: facts, differences, sources that failed, and the data set to write."""

    facts: list[Fact] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    data: Dataset | None = None


def collect(fetch: Fetch, torch_lines: list[str], newest_core: str) -> tuple[list[Fact], list[str]]:
    """Every source's facts; a source that cannot be fetched or parsed is reported and skipped."""
    facts: list[Fact] = []
    failed: list[str] = []
    for source in sources(torch_lines, newest_core):
        try:
            texts = tuple(fetch(url) for url in source.urls)
            facts.extend(source.parse(texts))
        except (OSError, ValueError, ParseError) as error:
            failed.append(f"{source.name}: {error} (kept the installed data for it)")
    return facts, failed


def merged(facts: Iterable[Fact]) -> dict[tuple[str, str, str], tuple[tuple[str, ...], str]]:
    """Facts of the same entry and field joined in order (an OS row's versions come one cell at a time)."""
    joined: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    urls: dict[tuple[str, str, str], str] = {}
    for fact in facts:
        key = (fact.kind, fact.key, fact.field)
        joined[key].extend(v for v in fact.value if v not in joined[key])
        urls[key] = fact.url
    return {key: (tuple(values), urls[key]) for key, values in joined.items()}


def _installed(data: Dataset, kind: str, key: str, name: str) -> tuple[str, ...] | None:
    """The installed value for a fact's entry and field, or None where the data has no such entry."""
    if kind == "rocm":
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
    if kind == "torch":
        line = [r for r in data.torch.releases if f"{r.version.major}.{r.version.minor}" == key]
        if not line:
            return None
        newest = max(line, key=lambda r: r.version)
        return tuple(v.name for v in newest.variants) if name == "variants" else (newest.pypi_default,)
    return None


def compare(data: Dataset, facts: Iterable[Fact]) -> list[Change]:
    """Differences between imported facts and the installed data, each with the URL it was read at."""
    changes = []
    for (kind, key, name), (value, url) in sorted(merged(facts).items()):
        if kind == "pypi":
            changes.extend(_pypi_change(data, key, name, value, url))
            continue
        if kind == "torch-arch":
            continue  # applied with the releases that use the variant
        installed = _installed(data, kind, key, name)
        what = f"{kind} {key} {name}"
        if installed is None:
            changes.append(Change("added", what, "", ", ".join(value), url))
        elif set(installed) != set(value) and (installed or value):
            changes.append(Change("changed", what, ", ".join(installed), ", ".join(value), url))
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


def apply_torch(data: Dataset, facts: list[Fact], today: datetime.date) -> Dataset:
    """New PyTorch releases on PyPI, with their line's build-matrix variants and the build scripts' arch lists."""
    joined = merged(facts)
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


def run(data: Dataset, fetch: Fetch, today: datetime.date) -> Update:
    """Read every source, compare, and apply what can be applied."""
    lines = sorted({f"{r.version.major}.{r.version.minor}" for r in data.torch.releases if r.version.major >= 2},
                   key=Version)
    newest = max(Version(line) for line in lines)
    lines += [f"{newest.major}.{newest.minor + 1}", f"{newest.major}.{newest.minor + 2}"]
    core = max((r for r in data.rocm.releases if r.stream == "core" and r.gpus), key=lambda r: r.version,
               default=None)
    facts, failed = collect(fetch, lines, str(core.version) if core else "")
    failed = [f for f in failed if not any(f"PyTorch {line} build matrix" in f for line in lines[-2:])]
    return Update(facts, compare(data, facts), failed, apply_torch(data, facts, today))


def render_diff(update: Update, installed: str, today: datetime.date) -> str:
    """The human-readable diff: added / changed / removed, each with the URL it came from."""
    lines = [f"# gpuready data update, {today}", "", f"Compared with the installed data set: {installed}", ""]
    for status in ("added", "changed", "removed"):
        found = [c for c in update.changes if c.status == status]
        lines += [f"## {status.capitalize()} ({len(found)})", ""]
        lines += [f"- {c.what}: " + (f"{c.old} -> {c.new}" if c.old else c.new) + f"  <{c.url}>" for c in found]
        lines.append("")
    lines += ["## Sources that could not be read (installed data kept)", ""]
    lines += [f"- {f}" for f in update.failed] or ["- none"]
    return "\n".join(lines) + "\n"


def write(update: Update, installed: Dataset, out: Path, today: datetime.date) -> Path:
    """Write the new data set to ``out`` (a new or empty directory) with ``DIFF.md``; never over the installed one."""
    if out.resolve() in (Path(installed.directory).resolve(), DEFAULT_DATA.resolve()):
        raise InputError("refusing to write over the installed data set; choose a new directory", source=str(out),
                         field="out")
    if out.exists() and any(out.iterdir()):
        raise InputError("the output directory is not empty; choose a new one", source=str(out), field="out")
    out.mkdir(parents=True, exist_ok=True)
    data = update.data or installed
    for name in FILES:
        if name == "torch.yaml" and data.torch is not installed.torch:
            write_text(out / name, "# Written by gpuready data update; see DIFF.md.\n"
                       + yaml.safe_dump(to_dict(data.torch), sort_keys=False, allow_unicode=True, width=120))
        else:
            write_text(out / name, (Path(installed.directory) / name).read_text(encoding="utf-8"))
    write_text(out / "DIFF.md", render_diff(update, installed.directory, today))
    return out


__all__ = ["Change", "GpureadyError", "Update", "collect", "compare", "render_diff", "run", "write"]
