"""The lock file: the tested environment, what to re-run and the baseline to hold it to (JSON, sorted keys)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gpuready.errors import InputError
from gpuready.files import read_json
from gpuready.model import Fingerprint, Measurement
from gpuready.model.build import build_label
from gpuready.model.codec import from_dict, to_dict
from gpuready.model.run import split_settings_v1
from gpuready.probe.container import ContainerIdentity, digest_of

LOCK_SCHEMA_VERSION = 3
"""2: locked measurements keep machine notes in ``annotations`` (Run schema 2). 3: ``container`` (engine, image,
digest, podman image ID, where each was read, what could not be) replaces ``container_image``. Locks of schema 1 and 2
are migrated on read."""
MAX_LOCK_BYTES = 64 * 2**20


@dataclass(frozen=True, slots=True)
class Thresholds:
    """How much change ``verify`` tolerates."""

    slowdown: float = 0.05
    """A benchmark regresses when it is this much worse, beyond the measured noise."""
    strict_packages: bool = False
    """Count changes to non-framework Python packages as drift."""


@dataclass(frozen=True, slots=True)
class LockedBench:
    """A benchmark to re-run with the options it ran with and every sample it gave."""

    options: dict[str, Any]
    baseline: tuple[Measurement, ...]


@dataclass(frozen=True, slots=True)
class Lock:
    """What ``gpuready lock`` records and ``verify`` and the runtime guard read."""

    fingerprint: Fingerprint
    distributions: dict[str, str] = field(default_factory=dict)
    """Every installed Python distribution (lower-case name -> version)."""
    sources: dict[str, str] = field(default_factory=dict)
    """Where pip recorded a distribution came from (PEP 610 direct_url), by name."""
    container: ContainerIdentity = field(default_factory=ContainerIdentity)
    """The image the lock was made in, as far as it could be told (see ``container.note``)."""
    models: tuple[str, ...] = ()
    """Models verified on this stack (the runtime guard's allow list)."""
    check_suite: str = ""
    check_device: str = "auto"
    checks: dict[str, str] = field(default_factory=dict)
    """check id -> status at lock time."""
    benches: tuple[LockedBench, ...] = ()
    thresholds: Thresholds = field(default_factory=Thresholds)
    tool_version: str = ""
    created_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    schema_version: int = LOCK_SCHEMA_VERSION


def render_lock(lock: Lock) -> str:
    """Human-readable, diff-friendly JSON (sorted keys, one field per line)."""
    return json.dumps(to_dict(lock), indent=2, sort_keys=True) + "\n"


def read_lock(path: Path) -> Lock:
    """A lock file (a first-release lock is migrated), or an InputError naming the file, field and expectation."""
    if not os.path.lexists(path):
        raise InputError("lock file not found (create one with gpuready lock)", source=str(path))
    data = read_json(path, MAX_LOCK_BYTES, "lock file")
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", source=str(path), field="$")
    version = data.get("schema_version")
    if version == 1:
        for bench in data.get("benches") or []:
            for measurement in (bench.get("baseline") or []) if isinstance(bench, dict) else []:
                split_settings_v1(measurement)
        version = 2
    if version == 2:
        data["container"] = _container_v2(data.pop("container_image", ""))
        data["schema_version"] = version = LOCK_SCHEMA_VERSION
    if version != LOCK_SCHEMA_VERSION:
        raise InputError(f"expected schema_version 1 to {LOCK_SCHEMA_VERSION}, found {version!r}", source=str(path),
                         field="$.schema_version")
    lock = from_dict(Lock, data, source=str(path))
    if not 0 <= lock.thresholds.slowdown < 10:
        raise InputError(f"expected a fraction such as 0.05, found {lock.thresholds.slowdown}", source=str(path),
                         field="$.thresholds.slowdown")
    return lock


def _container_v2(image: object) -> dict[str, str]:
    """A schema-2 lock's ``container_image`` (a reference the user gave, or nothing) as a schema-3 ``container``."""
    reference = image if isinstance(image, str) else ""
    return {"image": reference, "digest": digest_of(reference), "source": "container_image (lock schema 2)" if
            reference else "", "note": "" if reference else "lock schema 2 recorded no container image"}


def installed_distributions() -> tuple[dict[str, str], dict[str, str]]:
    """Every distribution visible to this interpreter, and the PEP 610 source of those installed from a URL."""
    from importlib import metadata

    versions: dict[str, str] = {}
    sources: dict[str, str] = {}
    for distribution in metadata.distributions():
        name = (distribution.metadata["Name"] or "").lower()
        if not name:
            continue
        versions[name] = distribution.version
        direct = distribution.read_text("direct_url.json")
        if direct:
            try:
                sources[name] = str(json.loads(direct).get("url", ""))
            except json.JSONDecodeError:
                pass
    return dict(sorted(versions.items())), dict(sorted(sources.items()))


def pinned_requirements(lock: Lock) -> str:
    """A requirements file pinning the framework build: the PyTorch index of its variant, then exact versions."""
    lines = [f"# Pinned by gpuready from the lock of {lock.created_at}. Install into a fresh environment with",
             "#   pip install -r this-file"]
    label = build_label(lock.distributions.get("torch", ""))
    if label.index and not label.preview:
        lines.append(f"--extra-index-url https://download.pytorch.org/whl/{label.index}")
    for name, version in lock.distributions.items():
        source = lock.sources.get(name, "")
        if source.startswith("file:"):
            lines.append(f"# {name}=={version} was installed from a local path: {source}")
        elif source.startswith("https://") and source.endswith(".whl"):
            lines.append(f"{name} @ {source}")  # a wheel from a vendor's site (a JAX ROCm plugin from repo.radeon.com)
        else:
            lines.append(f"{name}=={version}")
    return "\n".join(lines) + "\n"
