"""Walk a tree, analyse each file (in parallel, cached by content), and turn hits into findings and a verdict."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.resources
import json
import os
import posixpath
import re
import stat
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion

from gpuready.model import Finding, Severity
from gpuready.scanner.build_files import (
    analyse_ci,
    analyse_cmake,
    analyse_compose,
    analyse_config,
    analyse_dockerfile,
    analyse_docs,
    analyse_gitmodules,
    analyse_makefile,
)
from gpuready.scanner.cfamily import LANE_RULES, analyse_cfamily, uses_cuda
from gpuready.scanner.components import (
    AROUND,
    BUILD_SCRIPT,
    CI,
    DECIDING,
    DOCS,
    INSTALL,
    OPTIONAL,
    component_of,
    core_subprojects,
    cuda_variants,
    deployments,
    extension_imports,
    import_graph,
    optional_modules,
    optional_package_sources,
    other_cmake_build,
    own_packages,
    requirements_component,
    subprojects,
)
from gpuready.scanner.dependencies import (
    analyse_cog,
    analyse_environment_yml,
    analyse_pyproject,
    analyse_requirements,
    analyse_setup_cfg,
    analyse_setup_py,
)
from gpuready.scanner.hits import Hit
from gpuready.scanner.kb import KnowledgeBase, PackageEntry
from gpuready.scanner.python_source import analyse_python

SCANNER_VERSION = "60"
MAX_FILE_BYTES = 8 * 2**20
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
             ".pytest_cache", ".ruff_cache", ".eggs", "site-packages", "dist-packages", ".ipynb_checkpoints"}
KERNEL_SUFFIXES = {".cu", ".cuh"}
CPP_SUFFIXES = {".cpp", ".cc", ".cxx", ".h", ".hpp", ".hh", ".c", ".inl", ".cuinl", ".tcc"}
HEADER_SUFFIXES = {".cuh", ".h", ".hpp", ".hh", ".inl", ".cuinl", ".tcc"}
"""Of those, the files that are included rather than compiled on their own."""
MAX_FINDINGS_PER_FILE_RULE = 1
"""One finding per rule per file (at its first line; the evidence lists the others)."""
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
    components: dict[str, str] = field(default_factory=dict)
    """Verdict per part that does not decide the project verdict: tests, examples, ci, ``feature <package>`` ..."""


_NOT_CONTAINER_RECIPES = frozenset({".md", ".rst", ".txt", ".py", ".sh", ".bash", ".yml", ".yaml", ".json", ".toml",
                                    ".cfg", ".ipynb", ".html"})
"""Suffixes of files that name a Dockerfile without being one (``Dockerfile.md`` documents one,
``dockerfile_gen.py`` writes one): each is read as what its suffix says."""


def classify(path: Path) -> str | None:
    """Which analyser reads this file, if any."""
    name, suffix = path.name.lower(), path.suffix.lower()
    parts = {p.lower() for p in path.parts[:-1]}
    if name == "setup.py":
        return "setup_py"
    if name == "cmakelists.txt" or suffix == ".cmake":
        return "cmake"
    if name in ("makefile", "gnumakefile") or suffix == ".mk":
        return "makefile"
    if suffix in (".dockerfile", ".def") or "dockerfile" in name and suffix not in _NOT_CONTAINER_RECIPES:
        return "dockerfile"  # also "mmfreelm_DockerFile", "backend.Dockerfile", "Dockerfile.rocm"
    if name == ".gitmodules":
        return "gitmodules"
    if suffix in (".yml", ".yaml") and re.match(r"(?:docker-)?compose\b", name):
        return "compose"
    if name == "cog.yaml":
        return "cog"
    if suffix in (".yml", ".yaml") and (parts & {".github", ".circleci", ".gitlab", ".buildkite", ".azure-pipelines",
                                                 "azure-pipelines"} or name in (
            ".gitlab-ci.yml", "azure-pipelines.yml", ".travis.yml")):
        return "ci"
    if suffix in (".sh", ".bash", ".slurm", ".sbatch"):
        return "ci"  # shell scripts, Slurm batch scripts among them
    if suffix == ".hip":
        return "hip"
    if suffix == ".py":
        return "python"
    if suffix == ".txt" and ("requirements" in name or "constraints" in name or path.parent.name == "requirements"):
        return "requirements"
    if name == "pyproject.toml":
        return "pyproject"
    if name == "setup.cfg":
        return "setup_cfg"
    if suffix in (".yml", ".yaml") and ("environment" in name or name.startswith("conda")):
        return "environment"
    if suffix in (".yml", ".yaml"):
        return "config"  # a training recipe or run configuration
    if suffix in (".md", ".rst"):
        return "docs"
    if suffix in KERNEL_SUFFIXES:
        return "kernel"
    if suffix in CPP_SUFFIXES:
        return "cpp"
    return None


def discover(root: Path, unreadable: list[SkippedFile] | None = None) -> Iterator[tuple[Path, str]]:
    """Files to analyse under ``root`` (or ``root`` itself), skipping VCS, virtualenv and cache folders; folders
    that cannot be listed are added to ``unreadable``."""
    if root.is_file():
        kind = classify(root)
        if kind:
            yield root, kind
        return

    def refused(error: OSError) -> None:
        if unreadable is not None:
            where = Path(error.filename or str(root))
            relative = str(where.relative_to(root)) if where.is_relative_to(root) else str(where)
            unreadable.append(SkippedFile(relative, f"folder not readable: {error.strerror or error}"))

    for folder, directories, files in os.walk(root, onerror=refused):
        directories[:] = sorted(d for d in directories if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        for name in sorted(files):
            path = Path(folder) / name
            kind = classify(path)
            if kind:
                yield path, kind


def _install_folders(base: Path, entries: Sequence[tuple[str, str, str]]) -> list[str]:
    """Every file (relative path) in the folders that hold an install file the scan reads (a requirements or
    environment file): the names its siblings go by, read or not (``environment_pt240_rocm64.txt`` is one)."""
    found: list[str] = []
    for folder in sorted({PurePosixPath(relative).parent for relative, kind, _ in entries
                          if kind in ("requirements", "environment")}):
        try:
            names = sorted(os.listdir(base / folder))
        except OSError:
            continue
        found.extend(str(folder / name) for name in names)
    return found


def _not_a_plain_file(path: Path, inside: Path) -> str:
    """Why a path is not read ('' when it is a regular file in the tree): a symlink out of the tree, a FIFO, a
    device, a socket. Decided from lstat/stat before anything opens it."""
    mode = path.lstat().st_mode
    if stat.S_ISLNK(mode):
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            return "a broken or looping symlink"
        if not target.is_relative_to(inside):
            return "a symlink to outside the tree (not followed)"
        mode = target.stat().st_mode
    if stat.S_ISREG(mode):
        return ""
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else (
        "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return f"{kind}, not a regular file"


def analyse_text(kind: str, text: str, kernel_rules: Sequence[tuple[str, str]],
                 watched: frozenset[str] = frozenset()) -> list[Hit]:
    """Hits of one file's text (pure; raises SyntaxError and ValueError on malformed input). ``watched``: the
    knowledge base's top-level import names, whose uses in Python sources are hits too."""
    compiled = compile_rules_cached(tuple(kernel_rules))
    if kind == "python":
        return analyse_python(text, watched=watched)
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
    if kind == "cog":
        return analyse_cog(text)
    if kind == "config":
        return analyse_config(text)
    if kind == "kernel" or (kind == "cpp" and uses_cuda(text)):
        return analyse_cfamily(text, [r for r in compiled if r[0].startswith("kernel.")])
    if kind == "cmake":
        return analyse_cmake(text)
    if kind == "makefile":
        return analyse_makefile(text)
    if kind == "dockerfile":
        return analyse_dockerfile(text)
    if kind == "ci":
        return analyse_ci(text)
    if kind == "gitmodules":
        return analyse_gitmodules(text)
    if kind == "docs":
        return analyse_docs(text)
    if kind == "compose":
        return analyse_compose(text)
    if kind == "hip":
        return [Hit("credit.hip_sources", 1, "HIP source file")]
    return []


_COMPILED: dict[tuple[tuple[str, str], ...], list[Any]] = {}


def compile_rules_cached(rules: tuple[tuple[str, str], ...]) -> list[Any]:
    """Compiled patterns, once per process."""
    if rules not in _COMPILED:
        import re

        _COMPILED[rules] = [(rule_id, re.compile(pattern)) for rule_id, pattern in rules]
    return _COMPILED[rules]


def _analyse_batch(batch: list[tuple[str, str, str]], kernel_rules: tuple[tuple[str, str], ...],
                   watched: frozenset[str] = frozenset()) -> list[tuple[str, list[tuple[str, int, str, bool]], str]]:
    """Worker: (digest, kind, text) -> (digest, hits, error)."""
    results = []
    for digest, kind, text in batch:
        try:
            hits = analyse_text(kind, text, kernel_rules, watched)
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


@functools.cache
def _hipify_digest() -> str:
    """The HIPIFY tables' part of the cache key (the data can be updated apart from the knowledge base)."""
    data = importlib.resources.files("gpuready.scanner").joinpath("data/hipify.yaml").read_bytes()
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def scan_tree(root: Path, kb: KnowledgeBase, *, jobs: int | None = None, cache: bool = True,
              cache_dir: Path | None = None) -> ScanReport:
    """Scan ``root``; nothing in it is imported or executed."""
    start = time.perf_counter()
    kernel_rules = tuple((r.id, r.pattern) for r in kb.patterns.rules if r.pattern)
    watched = frozenset(name for name in kb.import_index if "." not in name)  # torch.cuda.nvtx's use is no package's
    key = f"{SCANNER_VERSION}:{kb.digest}:{_hipify_digest()}"
    cache_file = _cache_path(cache_dir)
    known = _load_cache(cache_file, key) if cache else {}
    skipped: list[SkippedFile] = []
    entries: list[tuple[str, str, str]] = []  # (relative path, kind, digest)
    sources: dict[str, bytes] = {}
    todo: dict[str, tuple[str, str, str]] = {}
    lines = 0
    base = root if root.is_dir() else root.parent
    inside = base.resolve()
    prefix = os.path.join(str(base), "")  # the base with its separator: each relative path is what follows it
    for path, kind in discover(root, skipped):
        text = str(path)
        relative = text[len(prefix):] if text.startswith(prefix) else str(path.relative_to(base))
        try:
            problem = _not_a_plain_file(path, inside)
            if problem:
                skipped.append(SkippedFile(relative, problem))
                continue
            with open(path, "rb") as handle:  # a regular file: no FIFO or device gets here, so no read can hang
                data = handle.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                skipped.append(SkippedFile(relative, f"larger than {MAX_FILE_BYTES // 2**20} MiB"))
                continue
        except OSError as error:
            skipped.append(SkippedFile(relative, f"unreadable: {error.strerror or error}"))
            continue
        if b"\x00" in data[:8192]:
            skipped.append(SkippedFile(relative, "binary file"))
            continue
        lines += data.count(b"\n") + 1
        digest = hashlib.blake2b(data + kind.encode(), digest_size=16).hexdigest()
        entries.append((relative, kind, digest))
        if kind in ("kernel", "cpp"):
            sources[relative] = data  # where a device function could be called from
        if digest not in known and digest not in todo:
            todo[digest] = (digest, kind, data.decode("utf-8-sig", errors="replace"))
    work = list(todo.values())
    fresh: dict[str, Any] = {}
    workers = max(1, jobs or os.cpu_count() or 1)
    if work:
        if workers == 1 or len(work) < 16:
            results = _analyse_batch(work, kernel_rules, watched)
        else:
            chunk = max(8, len(work) // (workers * 8))
            batches = [work[i:i + chunk] for i in range(0, len(work), chunk)]
            with ProcessPoolExecutor(max_workers=workers) as pool:
                results = [r for part in pool.map(_analyse_batch, batches, [kernel_rules] * len(batches),
                                                  [watched] * len(batches)) for r in part]
        for digest, hits, problem in results:
            fresh[digest] = {"hits": hits, "error": problem}
    if cache and fresh:
        _save_cache(cache_file, key, {**known, **fresh})
    findings: list[Finding] = []
    cached = 0
    own = own_packages(relative for relative, _, _ in entries)
    imports = {relative: [(h[2], bool(h[3])) for h in (fresh.get(digest) or known.get(digest) or {}).get("hits", [])
                          if h[0] == "module_import"]
               for relative, kind, digest in entries if kind in ("python", "setup_py")}
    extensions = {h[2]: relative for relative, kind, digest in entries if kind == "setup_py" or (
                      kind == "python" and BUILD_SCRIPT.fullmatch(relative.rpartition("/")[2]))
                  for h in (fresh.get(digest) or known.get(digest) or {}).get("hits", []) if h[0] == "extension_name"}
    own |= {name.split(".")[0] for name in extensions}  # the extensions the project builds are its own modules too
    root_build = {relative: [rule for rule, *_ in (fresh.get(digest) or known.get(digest) or {}).get("hits", [])]
                  for relative, _, digest in entries if relative in ("setup.py", "pyproject.toml", "setup.cfg")}
    settings_only = "pyproject.toml" in root_build and "declares_project" not in root_build["pyproject.toml"] and not (
        {"setup.py", "setup.cfg"} & set(root_build))
    nested = subprojects((relative for relative, _, _ in entries), settings_only)
    nested += other_cmake_build((relative for relative, _, _ in entries),
                                "builds_extensions" in root_build.get("setup.py", []),
                                any("uses_cmake" in rules for rules in root_build.values()))
    nested += tuple(folder for folder in deployments((relative for relative, _, _ in entries), "setup.py" in root_build
                                                     or "declares_project" in root_build.get("pyproject.toml", []))
                    if not any(folder.startswith(prefix) for prefix in nested))
    graph = import_graph(imports)
    core = core_subprojects(imports, nested, extensions, graph)
    cuda_only: dict[str, str] = {}  # the sources of an extension the build script makes only when not on ROCm
    for relative, kind, digest in entries:
        record = fresh.get(digest) or known.get(digest) or {}
        for hit in record.get("hits", []) if kind in ("setup_py", "cmake") else []:
            if hit[0] in ("cuda_only_extension", "cuda_only_sources"):
                name, _, paths = hit[2].partition("|")
                name = f"CUDA-only sources of {relative}" if hit[0] == "cuda_only_sources" else name
                cuda_only.update(dict.fromkeys(_beside(relative, paths.split(",")), name))
    cuda_only.update(_included_only_by(cuda_only, sources))
    extras = [h[2] for relative, _, digest in entries if relative in ("setup.py", "pyproject.toml", "setup.cfg")
              for h in (fresh.get(digest) or known.get(digest) or {}).get("hits", []) if h[0] == "extra_name"]
    loads_by_name = any(h[0] == "loads_by_name" for relative, kind, digest in entries if kind == "python"
                        for h in (fresh.get(digest) or known.get(digest) or {}).get("hits", []))
    optional = optional_modules(imports, extras, graph, loads_by_name)
    if "builds_extensions" not in root_build.get("setup.py", []) and not any(
            "uses_cmake" in rules for rules in root_build.values()):  # the install compiles nothing: code loads them
        optional.update(optional_package_sources((r for r, kind, _ in entries if kind in ("kernel", "cpp")), optional))
    layout = Layout({**cuda_only, **optional}, tuple(p for p in nested if p not in core),
                    cuda_variants(_install_folders(base, entries)))
    unused = unused_functions({relative: (fresh.get(digest) or known.get(digest) or {}).get("hits", [])
                               for relative, kind, digest in entries if kind in ("kernel", "cpp")}, sources)
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
            file_hits = [Hit(*h) for h in record["hits"]]
            findings += findings_for(relative, without_dead_lanes(file_hits, unused) if unused else file_hits, kb,
                                     own, layout)
    if extensions and _cuda_only_extensions(findings):  # what imports the extensions fails on ROCm
        module_imports = {relative: [(h[1], h[2]) for h in (fresh.get(digest) or known.get(digest) or {}).get(
            "hits", []) if h[0] == "module_import" and not h[3]]
            for relative, kind, digest in entries if kind == "python"}
        for relative, line, name in extension_imports(module_imports, extensions):
            findings += findings_for(relative, [Hit("python.cuda_extension_import", line, name)], kb, own, layout)
    if any(f.code == "scan.credit.shfl_remap" for f in findings):  # the project maps masked shuffles for ROCm
        findings = [f for f in findings if f.code != "scan.kernel.full_warp_mask"]
    findings = with_stale_pins(findings)
    findings += [_skipped_finding(s) for s in skipped]
    findings.sort(key=lambda f: (_ORDER[f.severity], f.location))
    seconds = time.perf_counter() - start
    return ScanReport(root=str(root), findings=tuple(findings), skipped=tuple(skipped), files=len(entries),
                      lines=lines, seconds=seconds, cached=cached, verdict=verdict(findings),
                      stats={"lines_per_second": lines / seconds if seconds else 0.0, "workers": workers},
                      components=component_verdicts(findings))


_BUILD_FILE = re.compile(r"(?:^|/)(?:setup\.py|CMakeLists\.txt|[^/]+\.cmake|pyproject\.toml|build\.py)$")
"""A build script: a ROCm branch there builds the extensions for ROCm (one in a kernel header, such as code copied
from a project that has a ROCm port, does not)."""


def _cuda_only_extensions(findings: Sequence[Finding]) -> bool:
    """Whether the project's compiled extensions are CUDA-only: torch's extension builder makes them, with no ROCm
    path in the build (a ROCm build branch, HIP sources), and kernels that cannot be hipified (a blocker in the core's
    kernel code)."""
    codes = {f.code for f in findings}
    credited = any(f.code in ("scan.credit.rocm_build", "scan.credit.hip_sources") or (
        f.code == "scan.credit.rocm_branch" and _BUILD_FILE.search(f.location.rsplit(":", 1)[0])) for f in findings)
    return "scan.python.cpp_extension_cuda" in codes and not credited and any(
        f.code.startswith("scan.kernel.") and f.severity is Severity.BLOCKER and deciding(f) for f in findings)


def unused_functions(hits: dict[str, list[Any]], sources: dict[str, bytes]) -> frozenset[str]:
    """The device functions holding 32-lane code (``device_function`` hits) whose name appears in no C/C++/CUDA
    source of the project but at their own definitions: nothing calls them (a declaration elsewhere counts as a
    use, so the answer errs towards "called")."""
    definitions: dict[str, set[tuple[str, str]]] = {}
    for relative, found in hits.items():
        for hit in found:
            if hit[0] == "device_function":
                name, _, opened = hit[2].partition("|")
                definitions.setdefault(name, set()).add((relative, opened))
    if not definitions:
        return frozenset()
    blob = b"\n".join(sources.values())
    unused = set()
    for name, defined in definitions.items():
        needle = name.encode()
        if blob.count(needle) > len(defined):  # as text it appears elsewhere: count it as a whole name
            uses = 0
            for match in re.finditer(re.escape(needle), blob):
                before, after = blob[match.start() - 1:match.start()], blob[match.end():match.end() + 1]
                if not (before.isalnum() or before in (b"_", b"~")) and not (after.isalnum() or after == b"_"):
                    uses += 1
                    if uses > len(defined):
                        break
            if uses > len(defined):
                continue
        unused.add(name)
    return frozenset(unused)


def without_dead_lanes(hits: list[Hit], unused: frozenset[str]) -> list[Hit]:
    """A file's hits with the 32-lane ones inside functions nothing calls made one note per such function."""
    dead = {h.line: h.detail.partition("|")[0] for h in hits if h.rule == "device_function"
            and h.detail.partition("|")[0] in unused}
    if not dead:
        return hits
    kept = [h for h in hits if not (h.rule in LANE_RULES and h.line in dead)]
    noted: dict[str, int] = {}
    for line, name in sorted(dead.items()):
        noted.setdefault(name, line)
    return kept + [Hit("kernel.unused_lane_helper", line, name) for name, line in noted.items()]


def _skipped_finding(skipped: SkippedFile) -> Finding:
    """A file or folder not scanned: when it is source in the core or the build that could not be read (too large,
    unreadable), its portability is unknown (a warning, so the project is not called portable on the strength of
    what was not read); binary files, Python 2 sources, FIFOs, devices and links are noted only."""
    component = component_of(skipped.path)
    unknown = component in DECIDING and skipped.reason.startswith(("larger than", "unreadable", "folder not readable"))
    return Finding(code="scan.file_skipped", severity=Severity.WARN if unknown else Severity.INFO,
                   message=f"not scanned: {skipped.reason}" + ("; whether it ports to ROCm is unknown" if unknown
                                                               else ""),
                   evidence={"reason": skipped.reason, "component": component}, location=skipped.path)


_LINKED = {"scan.python.bitsandbytes_config": "bitsandbytes"}
"""Findings that stand or fall with a package's version."""


def with_stale_pins(findings: list[Finding]) -> list[Finding]:
    """Where the project pins a package below its first ROCm release, every use of that package is a warning."""
    stale = {f.code.removeprefix("scan.package.") for f in findings if f.evidence.get("pinned_below_rocm") and (
        f.evidence.get("component", "core") not in AROUND)}  # the install's pins
    if not stale:
        return findings
    updated = []
    for found in findings:
        package = found.code.removeprefix("scan.package.") if found.code.startswith("scan.package.") else _LINKED.get(
            found.code)
        if package in stale and found.severity is Severity.INFO:
            found = dataclasses.replace(found, severity=Severity.WARN, message=found.message + (
                f" The project pins {package} below its first version with ROCm support."))
        updated.append(found)
    return updated


def _pinned_below(requirement: str, first: str) -> bool:
    """Whether a requirement allows no version from ``first`` on (``bitsandbytes==0.40.0`` against 0.48.0)."""
    try:
        specifier = Requirement(requirement.split(";")[0].strip()).specifier
        return bool(str(specifier)) and not any(specifier.contains(v, prereleases=True)
                                                for v in (first, "9999", f"{first.split('.')[0]}.9999"))
    except (InvalidRequirement, InvalidVersion, ValueError):
        return False


def requirement_name(requirement: str) -> str:
    """``torch==2.1.0+cu121 ; python_version>'3'`` -> ``torch``."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement.strip()


_INCLUDE = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def _included_only_by(cuda_only: dict[str, str], sources: dict[str, bytes]) -> dict[str, str]:
    """Headers that only CUDA-only sources include (by file name), with the part those sources are in: they are
    compiled only with them (bitsandbytes' gemm_4bit_mma.cuh, included by its sm75/sm80 GEMMs alone)."""
    if not cuda_only:
        return {}
    includers: dict[str, set[str]] = {}
    for relative, data in sources.items():
        for name in _INCLUDE.findall(data):
            includers.setdefault(PurePosixPath(name.decode("utf-8", "replace")).name, set()).add(relative)
    found = {}
    for relative in sources:
        if relative in cuda_only or PurePosixPath(relative).suffix.lower() not in HEADER_SUFFIXES:
            continue
        by = includers.get(PurePosixPath(relative).name, set())
        if by and all(source in cuda_only for source in by):
            found[relative] = cuda_only[min(by)]
    return found


def _beside(build_file: str, sources: list[str]) -> list[str]:
    """Source paths a build file names, relative to the project root (they are relative to the build file)."""
    folder = PurePosixPath(build_file).parent
    return [posixpath.normpath(str(folder / source)) for source in sources if source]


@dataclass(frozen=True)
class Layout:
    """Where the project's optional parts are: sub-packages it imports only guarded or lazily, and sub-projects
    with their own build."""

    optional_modules: dict[str, str] = field(default_factory=dict)
    """File path -> the optional feature (module) it belongs to."""
    subprojects: tuple[str, ...] = ()
    cuda_variants: frozenset[str] = frozenset()
    """Install files that are the CUDA variant of one the project also ships for ROCm (components.cuda_variants)."""

    def component(self, relative: str, hit: Hit) -> str:
        """The part of the project a hit belongs to: a feature (``feature <name>``) or ``core``, ``tests`` ..."""
        where = component_of(relative)
        if where not in DECIDING:
            return where
        for prefix in self.subprojects:
            if relative == prefix or relative.startswith(prefix) and prefix.endswith("/"):
                return f"feature {prefix.rstrip('/')}"
        if relative in self.optional_modules:
            return f"feature {self.optional_modules[relative]}"
        if relative in self.cuda_variants:
            return INSTALL
        if hit.rule in ("requirement", "requirement_git"):
            by_file = requirements_component(relative)
            if by_file is not None:
                return by_file
        return OPTIONAL if hit.optional else where


_INSTRUCTIONS = (".md", ".rst", ".sh", ".bash", ".slurm", ".sbatch", "makefile", ".mk")
"""Files whose install commands may install the project itself (a requirements file naming a package the project
vendors a copy of still requires it)."""


def _is_the_project(entry: PackageEntry, own: frozenset[str]) -> bool:
    """Whether a known package is the scanned project itself (scanning exllamav2, whose ``import exllamav2_ext`` loads
    the extension its own build makes under a name set in a variable): a project is no dependency of its own."""
    return any(_import_name(name) in own for name in (entry.name, *entry.pip_names))


def _import_name(distribution: str) -> str:
    """A distribution's name as the package it installs is usually imported: ``flash-attn`` -> ``flash_attn``."""
    return re.sub(r"[-.]+", "_", distribution.lower())


def findings_for(relative: str, hits: list[Hit], kb: KnowledgeBase, own: frozenset[str] = frozenset(),
                 layout: Layout | None = None) -> list[Finding]:
    """One file's hits as findings: one per package per file, one per rule per file (its first line, the others
    in the evidence); imports of the project's own packages are no dependency; every finding says which part of
    the project it is in (evidence ``component``)."""
    layout = layout or Layout()
    findings: list[Finding] = []
    seen_packages: set[str] = set()
    by_rule: dict[str, list[Hit]] = {}
    package_lines: dict[str, list[int]] = {}  # every line a package is imported, required or used on (evidence)
    named = {(h.line, h.detail.partition("|")[0]): h.detail.partition("|")[2].split(",") for h in hits
             if h.rule == "module_import" and "|" in h.detail}  # `from numba import cuda`: numba, [cuda]
    for hit in hits:
        if hit.rule == "import_use":  # where an imported package is used: its finding's lines, no finding of its own
            if hit.detail.split(".")[0] not in own and (used := kb.by_import(hit.detail)) is not None:
                package_lines.setdefault(used.name, []).append(hit.line)
            continue
        if hit.rule in ("import", "requirement", "requirement_git"):
            if hit.rule == "import":
                if hit.detail.split(".")[0] in own:
                    continue
                entry = kb.by_import(hit.detail)
                submodules = [kb.import_index[f"{hit.detail}.{name}"] for name in named.get((hit.line, hit.detail), ())
                              if f"{hit.detail}.{name}" in kb.import_index]
                entry = submodules[0] if submodules else entry  # a module of its own in the data: numba.cuda
            elif hit.rule == "requirement_git":
                entry = kb.by_repo(hit.detail)
            else:
                if relative.lower().endswith(_INSTRUCTIONS) and _import_name(requirement_name(hit.detail)) in own:
                    continue  # the project itself (a README's or a script's `pip install gsplat`)
                entry = kb.by_pip_name(requirement_name(hit.detail))
            if entry is None or hit.rule == "import" and _is_the_project(entry, own):
                continue
            package_lines.setdefault(entry.name, []).append(hit.line)
            if entry.name in seen_packages:
                continue
            seen_packages.add(entry.name)
            component = layout.component(relative, hit)
            feature = f"feature {entry.name}" if component == OPTIONAL else component
            prefix = "optional (guarded or lazy) " if hit.optional else ""
            how = "imports" if hit.rule == "import" else "requires"
            stale = hit.rule == "requirement" and bool(entry.rocm_from) and _pinned_below(hit.detail, entry.rocm_from)
            findings.append(Finding(
                code=f"scan.package.{entry.name}", severity=Severity.WARN if stale and entry.severity is Severity.INFO
                else entry.severity,
                message=f"{prefix}{how} {entry.name} ({entry.status.value} on ROCm): {entry.message}" + (
                    f" This requirement allows no version from {entry.rocm_from} on." if stale else ""),
                evidence={"detail": hit.detail, "status": entry.status.value, "since": entry.since,
                          "component": feature, **({"pinned_below_rocm": entry.rocm_from} if stale else {})},
                remedy=entry.alternative, source_url=entry.source, location=f"{relative}:{hit.line}"))
            continue
        by_rule.setdefault(hit.rule, []).append(hit)
    for index, found in enumerate(findings):
        lines = sorted(set(package_lines.get(found.code.removeprefix("scan.package."), ())))
        if len(lines) > 1:
            findings[index] = dataclasses.replace(found, evidence={**found.evidence, "lines": _listed(lines)})
    for rule_id, rule_hits in by_rule.items():
        rule = kb.rule(rule_id)
        if rule is None:
            continue
        first = rule_hits[0]
        lines = sorted({h.line for h in rule_hits})
        component = layout.component(relative, first)
        evidence = {"detail": first.detail, "component": component}
        if len(lines) > 1:
            evidence["lines"] = _listed(lines)
        findings.append(Finding(code=f"scan.{rule.id}", severity=rule.severity, message=rule.message,
                                evidence=evidence, remedy=rule.alternative, source_url=rule.source,
                                location=f"{relative}:{first.line}"))
    return findings


def _listed(lines: Sequence[int]) -> str:
    """The lines a finding stands for, as its evidence shows them: the first 20, then how many more."""
    return ", ".join(map(str, lines[:20])) + (f" (+{len(lines) - 20} more)" if len(lines) > 20 else "")


_OUTSIDE_THE_CODE = {"scan.build.dockerfile_cuda_base": CI, "scan.build.nvidia_container_runtime": CI,
                     "scan.ci.": CI, "scan.install.": INSTALL, "scan.docs.": DOCS}
"""Findings that do not decide whether the project runs on ROCm, by code prefix, and the part they are judged in
instead: containers and CI are deployment, and an install step to watch leaves the code portable."""


def _outside_the_code(code: str) -> str | None:
    """The part a finding with this code is judged in when it does not decide the project verdict (None: it may)."""
    return next((part for prefix, part in _OUTSIDE_THE_CODE.items() if code.startswith(prefix)), None)


def _worst(findings: Sequence[Finding]) -> str:
    severities = {f.severity for f in findings}
    if Severity.BLOCKER in severities:
        return "blocked"
    if Severity.WARN in severities:
        return "needs alternatives"
    return "portable"


def deciding(finding: Finding) -> bool:
    """Whether a finding decides the project verdict: in the core code or the build, not a container or CI."""
    return (finding.evidence.get("component", "core") in DECIDING and not finding.code.startswith("scan.credit.")
            and _outside_the_code(finding.code) is None)


def verdict(findings: Sequence[Finding]) -> str:
    """The project's: ``blocked`` (a blocker), ``needs alternatives`` (a warning), or ``portable``, from the core
    code and the build (tests, examples, CI, containers and optional features have their own verdicts)."""
    return _worst([f for f in findings if deciding(f)])


def component_verdicts(findings: Sequence[Finding]) -> dict[str, str]:
    """The verdict of each part that does not decide the project's: ``tests``, ``ci``, ``feature flash-attn`` ..."""
    parts: dict[str, list[Finding]] = {}
    for found in findings:
        if found.code.startswith("scan.credit.") or deciding(found) or found.severity is Severity.INFO and (
                found.code == "scan.file_skipped"):
            continue
        part = found.evidence.get("component", "core")
        if part in DECIDING:
            part = _outside_the_code(found.code) or part
        parts.setdefault(part, []).append(found)
    return {part: _worst(found) for part, found in sorted(parts.items())}
