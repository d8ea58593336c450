"""A fleet run's Runs, from a store or from the folder the nodes wrote, read as digests: the few things the fleet
report needs of each Run (placement, kind, verdict, fingerprint fields, check outcomes, measurement medians).

A digest is read straight from the Run's JSON document (schema 2) without building the whole ``Run``: a fleet of
2,000 nodes holds tens of thousands of Runs, and the full decode costs a millisecond or two each. Older schemas go
through the full decode and migration. A document that cannot be read is listed, never fatal: one node's damaged
file must not hide the other 1,999."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuready.errors import InputError
from gpuready.fleet.tags import placement_of
from gpuready.model.metrics import higher_is_better
from gpuready.model.outcome import Level, Verdict

MAX_DOCUMENT_BYTES = 64 * 2**20
FAILED_STATUSES = frozenset({"fail", "error", "timeout", "crash"})
_LEFT_OUT_SETTINGS = frozenset({"workload", "model_config", "dataloader_workers"})


@dataclass(frozen=True, slots=True)
class MetricValue:
    """One measurement's median, under a key that says what was measured (metric, workload and settings)."""

    key: str
    label: str
    """The key for people: the metric, the workload and the settings that usually tell measurements apart."""
    metric: str
    unit: str
    median: float
    higher_is_better: bool


@dataclass(frozen=True, slots=True)
class RunDigest:
    """What the fleet report reads of one Run."""

    id: str
    kind: str
    created_at: str
    node: str
    job: str
    engine: str
    verdict: str
    failed: bool
    summary: str
    fields: tuple[tuple[str, str], ...] = ()
    """Fingerprint fields that should agree across a fleet (``fingerprint_fields``); empty without a fingerprint."""
    checks: tuple[tuple[str, str], ...] = ()
    """(check id, status) of every check result."""
    metrics: tuple[MetricValue, ...] = ()
    provenance: str = "measured"


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A document that could not be read, and why."""

    source: str
    reason: str


@dataclass(frozen=True, slots=True)
class Collected:
    """A fleet run's digests, and what could not be read."""

    fleet: str
    digests: tuple[RunDigest, ...]
    unreadable: tuple[Unreadable, ...] = ()


def _value(fact: Any) -> str | None:
    if not isinstance(fact, dict) or fact.get("status") != "ok":
        return None
    value = fact.get("value")
    if value is None:
        return None
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _count_names(names: Iterable[str]) -> str:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{n} x {name}" for name, n in sorted(counts.items()))


HOST_FIELDS = ("os_name", "kernel", "machine", "cpu_model", "libc", "python", "container")
STACK_FIELDS = ("rocm_version", "amdgpu_driver_version", "nvidia_driver_version", "nvidia_kernel_module",
                "nvidia_userspace_version",
                "cuda_driver_version", "cuda_toolkit_version", "amd_smi_version")
FRAMEWORK_FIELDS = ("version", "variant", "backend_version", "device_count")


def fingerprint_fields(fingerprint: dict[str, Any]) -> dict[str, str]:
    """The facts every node of a healthy fleet shares: OS, kernel, container image, GPUs (names, architectures,
    memory), kernel driver, ROCm/CUDA, frameworks, installed packages and GPU-relevant environment variables.
    Facts unique to a node by nature (host name, UUIDs, PCI bus ids) are left out."""
    fields: dict[str, str] = {}
    host = fingerprint.get("host") or {}
    for name in HOST_FIELDS:
        value = _value(host.get(name))
        if value is not None:
            fields[f"host.{name}"] = value
    devices = [d for d in fingerprint.get("devices") or [] if isinstance(d, dict)]
    fields["devices.count"] = str(len(devices))
    for name in ("name", "arch", "memory_bytes"):
        values = [v for v in (_value(d.get(name)) for d in devices) if v is not None]
        if values:
            fields[f"devices.{name}"] = _count_names(values)
    stack = fingerprint.get("stack") or {}
    for name in STACK_FIELDS:
        value = _value(stack.get(name))
        if value is not None:
            fields[f"stack.{name}"] = value
    for framework in fingerprint.get("frameworks") or []:
        if isinstance(framework, dict) and framework.get("installed", True):
            for name in FRAMEWORK_FIELDS:
                value = _value(framework.get(name))
                if value is not None:
                    fields[f"frameworks.{framework.get('name')}.{name}"] = value
    for package in fingerprint.get("packages") or []:
        if isinstance(package, dict) and package.get("name"):
            fields[f"packages.{package['name']}"] = str(package.get("version", ""))
    for name, value in sorted((fingerprint.get("environment") or {}).items()):
        fields[f"environment.{name}"] = str(value)
    return fields


def metric_key(metric: str, workload: str, settings: dict[str, Any]) -> str:
    """What a measurement measured: the metric, the workload and every setting (equal keys are compared)."""
    shown = ", ".join(f"{k}={v}" for k, v in sorted(settings.items()) if k not in _LEFT_OUT_SETTINGS)
    return f"{metric} · {workload or '-'}" + (f" ({shown})" if shown else "")


_LABEL_SETTINGS = ("size", "mode", "precision", "batch_size", "sequence", "world_size")


def metric_label(metric: str, workload: str, settings: dict[str, Any]) -> str:
    """A short name: ``gemm_tflops_bf16``, ``allreduce_busbw_gbps_268435456 (world_size=8)``, ``step_time · mlp
    (train, fp32, batch 64)``; a framework other than torch and a compiled step are named too."""
    parts = [str(settings[k]) if k in ("mode", "precision", "size") else f"{k.replace('_size', '')} {settings[k]}"
             for k in _LABEL_SETTINGS if k in settings]
    if settings.get("framework") not in (None, "torch"):
        parts.append(str(settings["framework"]))
    if settings.get("compile") is True:
        parts.append("compiled")
    detail = f" ({', '.join(parts)})" if parts else ""
    if workload.startswith("micro.") or not workload:
        return metric + detail
    return f"{metric} · {workload}{detail}"


MetricNames = dict[tuple[str, str, str], tuple[str, str]]
"""(metric, workload, repr of settings) -> (key, label): a fleet repeats the same few measurements thousands of
times, so each name is made once per report."""


def _metrics(measurements: Iterable[Any], names: MetricNames) -> Iterator[MetricValue]:
    for m in measurements:
        median = (m.get("summary") or {}).get("median")
        metric = m.get("metric")
        if not isinstance(metric, str) or not isinstance(median, (int, float)) or isinstance(median, bool):
            continue
        settings = m.get("settings") if isinstance(m.get("settings"), dict) else {}
        workload = str(m.get("workload") or "")
        ident = (metric, workload, repr(settings))
        named = names.get(ident)
        if named is None:
            named = names[ident] = (metric_key(metric, workload, settings), metric_label(metric, workload, settings))
        yield MetricValue(named[0], named[1], metric, str(m.get("unit") or ""), float(median),
                          higher_is_better(metric))


def digest(document: Any, source: str, fleet: str | None = None, names: MetricNames | None = None) -> RunDigest | None:
    """The digest of one Run document, or None for a Run outside the fleet run (any fleet run when ``fleet`` is
    None). A wrong shape raises InputError."""
    if not isinstance(document, dict):
        raise InputError("expected a Run (a JSON object)", source=source)
    if document.get("schema_version", 1) != 2:
        from gpuready.model import Run

        document = Run.from_dict(document, source=source).to_dict()
    try:
        placement = placement_of([str(t) for t in document.get("tags") or []])
        if placement is None or (fleet is not None and placement.fleet != fleet):
            return None
        outcome = document["outcome"]
        verdict = str(outcome["verdict"])
        fingerprint = document.get("fingerprint")
        fields = tuple(sorted(fingerprint_fields(fingerprint).items())) if isinstance(fingerprint, dict) else ()
        checks = tuple((str(r["check_id"]), str(r["status"])) for r in document.get("results") or [])
        return RunDigest(str(document["id"]), str(document["kind"]), str(document.get("created_at", "")),
                         placement.node, placement.job, placement.engine, verdict,
                         Verdict(verdict).level is Level.FAIL, str(outcome.get("summary", "")), fields, checks,
                         tuple(_metrics(document.get("measurements") or [], {} if names is None else names)),
                         str(document.get("provenance", "measured")))
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise InputError(f"not a Run of schema 2 ({type(error).__name__}: {error})", source=source) from None


def _read(path: Path) -> Any:
    from gpuready.files import read_json

    return read_json(path, MAX_DOCUMENT_BYTES, "Run file")


def _digests(documents: Iterable[tuple[str, Callable[[], Any]]], fleet: str) -> Collected:
    """Each (source, how to load it) read and digested; what fails to load or digest is listed as unreadable."""
    digests: list[RunDigest] = []
    unreadable: list[Unreadable] = []
    names: MetricNames = {}
    for source, load in documents:
        try:
            found = digest(load(), source, fleet, names)
        except InputError as error:
            unreadable.append(Unreadable(source, error.reason))
            continue
        if found is not None:
            digests.append(found)
    return Collected(fleet, tuple(digests), tuple(unreadable))


def from_folder(folder: Path, fleet: str) -> Collected:
    """The Runs the nodes wrote under ``folder/<fleet>/`` (or ``folder`` itself when it is that fleet's folder);
    only Runs tagged with this fleet run count."""
    root = folder / fleet if (folder / fleet).is_dir() else folder
    if not root.is_dir():
        raise InputError(f"no folder of fleet run {fleet} here (expected {folder / fleet})", source=str(folder))

    def documents() -> Iterator[tuple[str, Callable[[], Any]]]:
        for directory, _, names in sorted(os.walk(root)):
            for name in sorted(names):
                if name.endswith(".json"):
                    path = Path(directory) / name
                    yield str(path), functools.partial(_read, path)

    return _digests(documents(), fleet)


def from_store(url: str | None, fleet: str) -> Collected:
    """The Runs tagged ``fleet:<fleet>`` in a store (a PostgreSQL URL every node wrote to, or SQLite)."""
    from gpuready.store import open_store

    with open_store(url) as store:
        documents = [(f"run {run_id}", _loads(text, run_id))
                     for run_id, text in store.documents_tagged(f"fleet:{fleet}")]
    return _digests(documents, fleet)


def _loads(text: str, run_id: str) -> Callable[[], Any]:
    def load() -> Any:
        from gpuready.files import loads_json

        return loads_json(text, f"run {run_id}")
    return load
