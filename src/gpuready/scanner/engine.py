"""Walk a tree, analyse each file (in parallel, cached by content), and turn hits into findings and a verdict."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuready.model import Finding, Severity
from gpuready.scanner.dependencies import (
    analyse_environment_yml,
    analyse_pyproject,
    analyse_requirements,
    analyse_setup_cfg,
    analyse_setup_py,
)
from gpuready.scanner.hits import Hit
from gpuready.scanner.kb import KnowledgeBase
from gpuready.scanner.kernels import analyse_kernel, includes_cuda
from gpuready.scanner.python_source import analyse_python

SCANNER_VERSION = "1"
MAX_FILE_BYTES = 8 * 2**20
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
             ".pytest_cache", ".ruff_cache", ".eggs", "site-packages", "dist-packages", ".ipynb_checkpoints"}
KERNEL_SUFFIXES = {".cu", ".cuh"}
CPP_SUFFIXES = {".cpp", ".cc", ".cxx", ".h", ".hpp", ".hh", ".c"}
_ORDER = {Severity.BLOCKER: 0, Severity.WARN: 1, Severity.INFO: 2}


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file the scan could not read, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class ScanReport:
    """Findings, skipped files and what it took."""

    root: str
    findings: tuple[Finding, ...]
    skipped: tuple[SkippedFile, ...]
    files: int
    lines: int
    seconds: float
    cached: int
    verdict: str
    stats: dict[str, float] = field(default_factory=dict)


def classify(path: Path) -> str | None:
    """Which analyser reads this file, if any."""
    name, suffix = path.name.lower(), path.suffix.lower()
    if name == "setup.py":
        return "setup_py"
    if suffix == ".py":
        return "python"
    if suffix == ".txt" and ("requirements" in name or "constraints" in name or path.parent.name == "requirements"):
        return "requirements"
    if name == "pyproject.toml":
        return "pyproject"
    if name == "setup.cfg":
        return "setup_cfg"
    if name in ("environment.yml", "environment.yaml") or (suffix in (".yml", ".yaml") and name.startswith("conda")):
        return "environment"
    if suffix in KERNEL_SUFFIXES:
        return "kernel"
    if suffix in CPP_SUFFIXES:
        return "cpp"
    return None


def discover(root: Path) -> Iterator[tuple[Path, str]]:
    """Files to analyse under ``root`` (or ``root`` itself), skipping VCS, virtualenv and cache folders."""
    if root.is_file():
        kind = classify(root)
        if kind:
            yield root, kind
        return
    for folder, directories, files in os.walk(root):
        directories[:] = sorted(d for d in directories if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        for name in sorted(files):
            path = Path(folder) / name
            kind = classify(path)
            if kind:
                yield path, kind


def analyse_text(kind: str, text: str, kernel_rules: Sequence[tuple[str, str]]) -> list[Hit]:
    """Hits of one file's text (pure; raises SyntaxError and ValueError on malformed input)."""
    compiled = compile_rules_cached(tuple(kernel_rules))
    if kind == "python":
        return analyse_python(text)
    if kind == "setup_py":
        return analyse_python(text) + analyse_setup_py(text)
    if kind == "requirements":
        return analyse_requirements(text)
    if kind == "pyproject":
        return analyse_pyproject(text)
    if kind == "setup_cfg":
        return analyse_setup_cfg(text)
    if kind == "environment":
        return analyse_environment_yml(text)
    if kind == "kernel" or (kind == "cpp" and includes_cuda(text)):
        return analyse_kernel(text, [r for r in compiled if r[0].startswith("kernel.")])
    return []


_COMPILED: dict[tuple[tuple[str, str], ...], list[Any]] = {}


def compile_rules_cached(rules: tuple[tuple[str, str], ...]) -> list[Any]:
    """Compiled patterns, once per process."""
    if rules not in _COMPILED:
        import re

        _COMPILED[rules] = [(rule_id, re.compile(pattern)) for rule_id, pattern in rules]
    return _COMPILED[rules]


def _analyse_batch(batch: list[tuple[str, str, str]], kernel_rules: tuple[tuple[str, str], ...]
                   ) -> list[tuple[str, list[tuple[str, int, str, bool]], str]]:
    """Worker: (digest, kind, text) -> (digest, hits, error)."""
    results = []
    for digest, kind, text in batch:
        try:
            hits = analyse_text(kind, text, kernel_rules)
            results.append((digest, [(h.rule, h.line, h.detail, h.optional) for h in hits], ""))
        except SyntaxError as error:
            results.append((digest, [], f"Python syntax error at line {error.lineno} (Python 2 code?): {error.msg}"))
        except Exception as error:  # noqa: BLE001 - a file the analyser cannot read is reported and skipped
            results.append((digest, [], f"could not be analysed: {type(error).__name__}: {str(error)[:160]}"))
    return results


def _cache_path(cache_dir: Path | None) -> Path:
    base = cache_dir or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpuready"
    return base / "scan-cache.json"


def _load_cache(path: Path, key: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data.get("files", {}) if isinstance(data, dict) and data.get("key") == key else {}


def _save_cache(path: Path, key: str, files: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp")
        with handle:
            json.dump({"key": key, "files": files}, handle)
        os.replace(handle.name, path)
    except OSError:
        pass  # a cache that cannot be written only makes the next scan slower


def scan_tree(root: Path, kb: KnowledgeBase, *, jobs: int | None = None, cache: bool = True,
              cache_dir: Path | None = None) -> ScanReport:
    """Scan ``root``; nothing in it is imported or executed."""
    start = time.perf_counter()
    kernel_rules = tuple((r.id, r.pattern) for r in kb.patterns.rules if r.pattern)
    key = f"{SCANNER_VERSION}:{kb.digest}"
    cache_file = _cache_path(cache_dir)
    known = _load_cache(cache_file, key) if cache else {}
    skipped: list[SkippedFile] = []
    entries: list[tuple[str, str, str]] = []  # (relative path, kind, digest)
    todo: dict[str, tuple[str, str, str]] = {}
    lines = 0
    base = root if root.is_dir() else root.parent
    for path, kind in discover(root):
        relative = str(path.relative_to(base))
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                skipped.append(SkippedFile(relative, f"larger than {MAX_FILE_BYTES // 2**20} MiB"))
                continue
            data = path.read_bytes()
        except OSError as error:
            skipped.append(SkippedFile(relative, f"unreadable: {error.strerror or error}"))
            continue
        if b"\x00" in data[:8192]:
            skipped.append(SkippedFile(relative, "binary file"))
            continue
        lines += data.count(b"\n") + 1
        digest = hashlib.blake2b(data + kind.encode(), digest_size=16).hexdigest()
        entries.append((relative, kind, digest))
        if digest not in known and digest not in todo:
            todo[digest] = (digest, kind, data.decode("utf-8", errors="replace"))
    work = list(todo.values())
    fresh: dict[str, Any] = {}
    workers = max(1, jobs or os.cpu_count() or 1)
    if work:
        if workers == 1 or len(work) < 16:
            results = _analyse_batch(work, kernel_rules)
        else:
            chunk = max(8, len(work) // (workers * 8))
            batches = [work[i:i + chunk] for i in range(0, len(work), chunk)]
            with ProcessPoolExecutor(max_workers=workers) as pool:
                results = [r for part in pool.map(_analyse_batch, batches, [kernel_rules] * len(batches)) for r in part]
        for digest, hits, problem in results:
            fresh[digest] = {"hits": hits, "error": problem}
    if cache and fresh:
        _save_cache(cache_file, key, {**known, **fresh})
    findings: list[Finding] = []
    cached = 0
    for relative, _, digest in entries:
        record = fresh.get(digest) or known.get(digest)
        if digest in known and digest not in fresh:
            cached += 1
        if record is None:
            continue
        if record["error"]:
            skipped.append(SkippedFile(relative, record["error"]))
            continue
        if record["hits"]:
            findings += findings_for(relative, [Hit(*h) for h in record["hits"]], kb)
    findings += [Finding(code="scan.file_skipped", severity=Severity.INFO, message=f"not scanned: {s.reason}",
                         evidence={"reason": s.reason}, location=s.path) for s in skipped]
    findings.sort(key=lambda f: (_ORDER[f.severity], f.location))
    seconds = time.perf_counter() - start
    return ScanReport(root=str(root), findings=tuple(findings), skipped=tuple(skipped), files=len(entries),
                      lines=lines, seconds=seconds, cached=cached, verdict=verdict(findings),
                      stats={"lines_per_second": lines / seconds if seconds else 0.0, "workers": workers})


def requirement_name(requirement: str) -> str:
    """``torch==2.1.0+cu121 ; python_version>'3'`` -> ``torch``."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement.strip()


def findings_for(relative: str, hits: list[Hit], kb: KnowledgeBase) -> list[Finding]:
    """Turn one file's hits into findings (one per package per file; one per rule per line)."""
    findings: list[Finding] = []
    seen_packages: set[str] = set()
    for hit in hits:
        location = f"{relative}:{hit.line}"
        if hit.rule in ("import", "requirement"):
            if hit.rule == "import":
                entry = kb.by_import(hit.detail)
            else:
                entry = kb.by_pip_name(requirement_name(hit.detail))
            if entry is None or entry.name in seen_packages:
                continue
            seen_packages.add(entry.name)
            severity = Severity.INFO if hit.optional else entry.severity
            prefix = "optional (guarded) " if hit.optional else ""
            how = "imports" if hit.rule == "import" else "requires"
            findings.append(Finding(
                code=f"scan.package.{entry.name}", severity=severity,
                message=f"{prefix}{how} {entry.name} ({entry.status.value} on ROCm): {entry.message}",
                evidence={"detail": hit.detail, "status": entry.status.value, "since": entry.since},
                remedy=entry.alternative, source_url=entry.source, location=location))
            continue
        rule = kb.rule(hit.rule)
        if rule is None:
            continue
        findings.append(Finding(code=f"scan.{rule.id}", severity=rule.severity, message=rule.message,
                                evidence={"detail": hit.detail}, remedy=rule.alternative, source_url=rule.source,
                                location=location))
    return findings


def verdict(findings: Sequence[Finding]) -> str:
    """``blocked`` (a blocker), ``needs alternatives`` (a warning), or ``portable``."""
    severities = {f.severity for f in findings if f.code != "scan.file_skipped"}
    if Severity.BLOCKER in severities:
        return "blocked"
    if Severity.WARN in severities:
        return "needs alternatives"
    return "portable"
