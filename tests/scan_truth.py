"""Real repositories judged against what a person labelled by reading their code (``tests/fixtures/scan-corpus``,
format in its README): the project verdict, and each place that matters at blocker or warning level.

Snapshots are never stored here: a label names the repository and commit, and the tree is taken from a local git
mirror (``GPUREADY_SCAN_MIRRORS``, default ``/work/.mirror/<owner>+<name>/repo``) when one is present. Nothing is
fetched. Used by benchmarks/scan_accuracy.py and the tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gpuready.model import Finding, Severity
from gpuready.scanner.engine import deciding

CORPUS = Path(__file__).parent / "fixtures" / "scan-corpus"
NEAR = 3
"""A reported line this close to a labelled line is the same place."""
VERDICTS = {"PORTABLE": "portable", "NEEDS ALTERNATIVES": "needs alternatives", "BLOCKED": "blocked"}


@dataclass(frozen=True)
class Label:
    """One labelled repository."""

    repo: str
    commit: str
    verdict: str
    findings: tuple[dict[str, Any], ...]
    not_findings: tuple[dict[str, Any], ...]
    components: tuple[dict[str, Any], ...]
    path: Path

    @classmethod
    def read(cls, path: Path) -> Label:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return cls(str(data["repo"]), str(data["commit"]), VERDICTS[str(data["verdict"]).upper()],
                   tuple(data.get("findings") or ()), tuple(data.get("not_findings") or ()),
                   tuple(data.get("components") or ()), path)


def labels(folder: Path = CORPUS) -> list[Label]:
    return [Label.read(p) for p in sorted(folder.glob("*.yaml"))]


def mirrors() -> Path:
    return Path(os.environ.get("GPUREADY_SCAN_MIRRORS", "/work/.mirror"))


def snapshot(label: Label, cache: Path | None = None) -> Path | None:
    """The labelled commit's tree, exported once from a local mirror (None when no mirror is present)."""
    mirror = mirrors() / label.repo.replace("/", "+") / "repo"
    if (mirror / ".git").is_dir():  # some mirrors arrive as a clone (repo/.git) rather than a bare repository
        mirror = mirror / ".git"
    if not mirror.is_dir():
        return None
    target = (cache or Path(tempfile.gettempdir()) / "gpuready-scan-corpus") / f"{label.repo.replace('/', '__')}-" \
                                                                                f"{label.commit[:12]}"
    if target.is_dir():
        return target
    partial = target.with_name(target.name + ".part")
    if partial.exists():
        shutil.rmtree(partial)
    if not _export(mirror, label.commit, partial):
        return None
    partial.rename(target)
    return target


def _export(mirror: Path, commit: str, into: Path) -> bool:
    """Write the commit's files under ``into`` (a mirror may lack its largest blobs: those are left out)."""
    listing = subprocess.run(["git", f"--git-dir={mirror}", "ls-tree", "-r", "-z", commit], capture_output=True,
                             timeout=600, check=False)
    if listing.returncode != 0:
        return False
    entries = []
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":
            entries.append((sha.decode(), name.decode("utf-8", errors="replace")))
    batch = subprocess.run(["git", f"--git-dir={mirror}", "cat-file", "--batch"],
                           input=b"".join(f"{sha}\n".encode() for sha, _ in entries), capture_output=True,
                           timeout=600, check=False)
    data, offset = batch.stdout, 0
    for _, name in entries:
        end = data.index(b"\n", offset)
        header = data[offset:end].split()
        offset = end + 1
        if len(header) < 3 or header[1] != b"blob":
            continue  # "<sha> missing": a large file the mirror does not hold
        size = int(header[2])
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data[offset:offset + size])
        offset += size + 1
    return True


def _location(finding: Finding) -> tuple[str, int]:
    path, _, line = finding.location.rpartition(":")
    return (path, int(line)) if line.isdigit() else (finding.location, 0)


def _lines(finding: Finding) -> list[int]:
    """Every line a finding reports in its file: its location and the other lines of the same rule there (shown in
    the text output as ``a.cu:10 (also 59, 60)``, and in the JSON evidence)."""
    first = _location(finding)[1]
    listed = finding.evidence.get("lines", "").partition(" (+")[0]
    return [first, *(int(n) for n in listed.split(", ") if n.isdigit() and int(n) != first)]


def _near(line: int, lines: Sequence[int]) -> bool:
    return any(abs(line - other) <= NEAR for other in lines)


@dataclass
class ScoredRepo:
    """One repository scanned and scored."""

    repo: str
    expected: str
    verdict: str = ""
    found: dict[str, bool] = field(default_factory=dict)
    """Labelled finding (path:first line, severity) -> reported at warning level or above."""
    reported: list[tuple[str, bool]] = field(default_factory=list)
    """Each blocker/warning the scan reported (path:line) -> it is a labelled place."""
    on_labelled_files: list[tuple[str, bool]] = field(default_factory=list)
    """The same, for reports in files the labels name (as a finding or a trap): the labels list the decisive places,
    not every file of a large kernel tree, so a report elsewhere is not necessarily wrong."""
    false_blockers: list[str] = field(default_factory=list)
    """Blockers that decide the project verdict (core or build) on a project labelled portable."""

    @property
    def agrees(self) -> bool:
        return self.verdict == self.expected


def score(label: Label, findings: Sequence[Finding], verdict: str) -> ScoredRepo:
    """Compare a scan with the labels."""
    scored = ScoredRepo(label.repo, label.verdict, verdict)
    serious = [f for f in findings if f.severity in (Severity.BLOCKER, Severity.WARN)]
    places = [(_location(f), f) for f in serious]
    for item in label.findings:
        lines = [int(n) for n in item.get("lines") or [item.get("line", 0)]]
        key = f"{item['path']}:{lines[0]} ({item.get('severity', '')}, {item.get('class', '')})"
        scored.found[key] = any(path == item["path"] and any(_near(n, lines) for n in _lines(finding))
                                for (path, _), finding in places)
    for (path, line), finding in places:
        matched = any(path == item["path"] and (any(_near(shown, [int(n) for n in item.get("lines") or [0]])
                                                    for shown in _lines(finding)) or
                                                len(item.get("lines") or ()) >= 10 and line > max(item["lines"]))
                      for item in label.findings)  # any line the finding shows (as recall counts it)
        scored.reported.append((f"{path}:{line} {finding.code}", matched))
        if any(path == item["path"] for item in (*label.findings, *label.not_findings)):
            scored.on_labelled_files.append((f"{path}:{line} {finding.code}", matched))
        if label.verdict == "portable" and finding.severity is Severity.BLOCKER and deciding(finding):
            scored.false_blockers.append(f"{path}:{line} {finding.code}")
    return scored
