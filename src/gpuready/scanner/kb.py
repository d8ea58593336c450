"""The scanner's knowledge base: packages (with ROCm status and alternatives) and code patterns, as data."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuready.errors import SchemaError
from gpuready.files import read_yaml
from gpuready.model import Severity
from gpuready.model.codec import from_dict

DATA = Path(__file__).with_name("data")
MAX_KB_BYTES = 16 * 2**20


class RocmStatus(str, enum.Enum):
    """How a package stands on ROCm."""

    OFFICIAL = "official"
    FORK = "fork"
    PARTIAL = "partial"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class PackageEntry:
    """One package the scanner knows."""

    name: str
    pip_names: tuple[str, ...]
    import_names: tuple[str, ...]
    status: RocmStatus
    severity: Severity
    message: str
    alternative: str
    source: str
    read: datetime.date
    since: str = ""
    rocm_from: str = ""
    """The first version with ROCm support, as a version (``0.48.0``): a requirement that excludes it is judged as
    a CUDA-only pin."""
    confirmed: bool = True
    notes: str = ""


@dataclass(frozen=True, slots=True)
class PackageBase:
    """``packages.yaml``."""

    as_of: datetime.date
    packages: tuple[PackageEntry, ...]


@dataclass(frozen=True, slots=True)
class PatternRule:
    """One code rule: detected through the AST (python.*, requirement.*) or by its regular expression."""

    id: str
    severity: Severity
    message: str
    alternative: str
    source: str
    pattern: str = ""


@dataclass(frozen=True, slots=True)
class PatternSet:
    """``patterns.yaml``."""

    as_of: datetime.date
    rules: tuple[PatternRule, ...]


def normalise_package(name: str) -> str:
    """PEP 503: lower case, runs of ``-_.`` become ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class KnowledgeBase:
    """Packages and patterns, with the indexes matching uses (built once, at load)."""

    packages: PackageBase
    patterns: PatternSet
    digest: str
    """Changes whenever the data does (part of the scan cache key)."""
    pip_index: dict[str, PackageEntry]
    """Normalised requirement name -> entry."""
    import_index: dict[str, PackageEntry]
    """Import name (``numba.cuda``, ``flash_attn``) -> entry."""
    rule_index: dict[str, PatternRule]
    repo_index: dict[str, PackageEntry] = dataclasses.field(default_factory=dict)
    """GitHub ``owner/name`` (lower case) of the repository an entry's source names -> entry: what a requirement
    installed from ``git+https://github.com/owner/name`` is."""

    def by_repo(self, repo: str) -> PackageEntry | None:
        """The entry whose source is the GitHub repository ``owner/name``."""
        return self.repo_index.get(repo.lower().removesuffix(".git"))

    def rule(self, rule_id: str) -> PatternRule | None:
        """A rule by id."""
        return self.rule_index.get(rule_id)

    def by_pip_name(self, requirement_name: str) -> PackageEntry | None:
        """The entry for a requirement's distribution name."""
        return self.pip_index.get(normalise_package(requirement_name))

    def by_import(self, module: str) -> PackageEntry | None:
        """The entry whose import name is ``module`` or its nearest parent package (``numba.cuda.x`` -> numba.cuda)."""
        parts = module.split(".")
        for end in range(len(parts), 0, -1):
            entry = self.import_index.get(".".join(parts[:end]))
            if entry is not None:
                return entry
        return None


def _read(path: Path) -> Any:
    data = read_yaml(path, MAX_KB_BYTES, "knowledge base", SchemaError)
    if not isinstance(data, dict):
        raise SchemaError("expected a mapping at the top level", source=str(path), field="$")
    for key in ("packages", "rules"):
        for entry in data.get(key) or []:
            if isinstance(entry, dict) and entry.get("severity") == "warning":
                entry["severity"] = "warn"
    return data


def load_kb(packages: Path | None = None, patterns: Path | None = None) -> KnowledgeBase:
    """The bundled knowledge base, or newer files the user gives (``--kb FILE`` replaces the packages)."""
    packages_path = packages or DATA / "packages.yaml"
    patterns_path = patterns or DATA / "patterns.yaml"
    package_base = from_dict(PackageBase, _read(packages_path), source=str(packages_path))
    pattern_set = from_dict(PatternSet, _read(patterns_path), source=str(patterns_path))
    for index, rule in enumerate(pattern_set.rules):
        if rule.pattern:
            try:
                re.compile(rule.pattern)
            except re.error as error:
                raise SchemaError(f"invalid regular expression: {error}", source=str(patterns_path),
                                  field=f"$.rules[{index}].pattern") from error
    for index, entry in enumerate(package_base.packages):
        if not entry.source.startswith("https://"):
            raise SchemaError("source must be an https:// URL", source=str(packages_path),
                              field=f"$.packages[{index}].source")
    digest = hashlib.sha256(packages_path.read_bytes() + patterns_path.read_bytes()).hexdigest()[:16]
    pip_index = {normalise_package(p): e for e in package_base.packages for p in (e.name, *e.pip_names)}
    import_index = {name: e for e in package_base.packages for name in e.import_names}
    repo_index: dict[str, PackageEntry] = {}
    for entry in package_base.packages:  # a repository several entries cite is the first one's (flash-attn's)
        found = re.match(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?(?:[/#]|$)", entry.source)
        if found and not found.group(1).lower().startswith("rocm/"):  # AMD's own forks are the ROCm builds
            repo_index.setdefault(found.group(1).lower(), entry)
    return KnowledgeBase(package_base, pattern_set, digest, pip_index, import_index,
                         {r.id: r for r in pattern_set.rules}, repo_index)
