"""``gpuready data update``: read every source, compare with the installed data set, write a new one and a diff.

The installed data set is never changed in place. A source that cannot be fetched or parsed is named in the result
and the installed data for it is kept. What the importers can apply on their own is applied (``apply.py``: new
PyTorch releases with their variants, dates and arch lists; new container images); every other difference is listed
in the diff for review (``compare.py``).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from packaging.version import Version

from gpuready.compat.importers.apply import apply_containers, apply_torch
from gpuready.compat.importers.compare import Change, compare, merged
from gpuready.compat.importers.facts import Fact
from gpuready.compat.importers.sources import Fetch, sources
from gpuready.compat.load import DEFAULT_DATA, FILES, Dataset
from gpuready.errors import GpureadyError, InputError, ParseError
from gpuready.files import write_text
from gpuready.model.codec import to_dict


@dataclass
class Update:
    """What a run found: facts, differences, sources that failed, and the data set to write."""

    facts: list[Fact] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    data: Dataset | None = None


def collect(fetch: Fetch, torch_lines: list[str], newest_core: str,
            ngc_releases: list[str] | None = None) -> tuple[list[Fact], list[str]]:
    """Every source's facts; a source that cannot be fetched or parsed is reported and skipped."""
    facts: list[Fact] = []
    failed: list[str] = []
    for source in sources(torch_lines, newest_core, ngc_releases):
        try:
            texts = tuple(fetch(url) for url in source.urls)
            facts.extend(source.parse(texts))
        except (OSError, ValueError, ParseError) as error:
            failed.append(f"{source.name}: {error} (kept the installed data for it)")
    return facts, failed


def run(data: Dataset, fetch: Fetch, today: datetime.date) -> Update:
    """Read every source, compare, and apply what can be applied."""
    lines = sorted({f"{r.version.major}.{r.version.minor}" for r in data.torch.releases if r.version.major >= 2},
                   key=Version)
    newest = max(Version(line) for line in lines)
    lines += [f"{newest.major}.{newest.minor + 1}", f"{newest.major}.{newest.minor + 2}"]
    core = max((r for r in data.rocm.releases if r.stream == "core" and r.gpus), key=lambda r: r.version,
               default=None)
    known, upcoming = ngc_releases(data)
    facts, failed = collect(fetch, lines, str(core.version) if core else "", known + upcoming)
    not_yet = [f"PyTorch {line} build matrix" for line in lines[-2:]] + [f"NGC PyTorch {r} " for r in upcoming]
    failed = [f for f in failed if not any(name in f for name in not_yet)]
    joined = merged(facts)
    return Update(facts, compare(data, facts), failed,
                  apply_containers(apply_torch(data, joined, today), joined, today))


def ngc_releases(data: Dataset) -> tuple[list[str], list[str]]:
    """The NGC PyTorch releases the data knows (``25.12``) and the two months after the newest, which may not exist
    yet (their pages failing to load is not reported)."""
    known = sorted({m.group(1) for i in data.containers.images if i.image == "nvcr.io/nvidia/pytorch"
                    for m in [re.match(r"(\d\d\.\d\d)-py3$", i.tag)] if m})
    if not known:
        return [], []
    year, month = (int(p) for p in known[-1].split("."))
    upcoming = []
    for _ in range(2):
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        upcoming.append(f"{year:02d}.{month:02d}")
    return known, upcoming


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
        part = name.removesuffix(".yaml")
        if getattr(data, part) is not getattr(installed, part):
            write_text(out / name, "# Written by gpuready data update; see DIFF.md.\n"
                       + yaml.safe_dump(to_dict(getattr(data, part)), sort_keys=False, allow_unicode=True, width=120))
        else:
            write_text(out / name, (Path(installed.directory) / name).read_text(encoding="utf-8"))
    write_text(out / "DIFF.md", render_diff(update, installed.directory, today))
    return out


__all__ = ["Change", "GpureadyError", "Update", "collect", "compare", "merged", "ngc_releases", "render_diff", "run",
           "write"]
