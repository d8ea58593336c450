"""``Run``: the unit gpuready saves, compares, locks and renders; older stored Runs are migrated on read."""

from __future__ import annotations

import copy
import enum
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from gpuready.model import outcome as verdicts
from gpuready.model.codec import from_dict, to_dict
from gpuready.model.fingerprint import Fingerprint
from gpuready.model.outcome import Outcome, Verdict, make_outcome
from gpuready.model.results import CheckResult, Finding, Measurement

SCHEMA_VERSION = 2
"""Bumped on any change to the shape of a serialised Run; docs/schema/run.schema.json follows it.

2: ``outcome`` and ``provenance`` on every Run; a Measurement's ``annotations`` (machine notes) apart from its
``settings`` (what identifies the workload); the Fact status ``skipped`` and a Fact's ``section``."""


class RunKind(str, enum.Enum):
    """Which command produced a Run."""

    ENV = "env"
    DOCTOR = "doctor"
    PLAN = "plan"
    CHECK = "check"
    AUDIT = "audit"
    SCAN = "scan"
    BENCH = "bench"
    VERIFY = "verify"


class Provenance(str, enum.Enum):
    """Where a Run's numbers and facts came from: reports and comparisons say so in their header."""

    MEASURED = "measured"
    """Probed and measured by gpuready on the machine the Run describes."""
    PASTED = "pasted"
    """Judged from a report copied from another machine (``--from``)."""
    SYNTHETIC = "synthetic"
    """Made up (a test, an example): never a measurement."""


_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class Run:
    """A fingerprint with the findings, check results and measurements made on it, and what they add up to."""

    kind: RunKind
    tool_version: str
    outcome: Outcome
    fingerprint: Fingerprint | None = None
    findings: tuple[Finding, ...] = ()
    results: tuple[CheckResult, ...] = ()
    measurements: tuple[Measurement, ...] = ()
    id: str = field(default_factory=_new_id)
    created_at: str = field(default_factory=_now)
    """ISO 8601 time in UTC."""
    label: str = ""
    tags: tuple[str, ...] = ()
    provenance: Provenance = Provenance.MEASURED
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise ValueError(f"id {self.id[:80]!r}: expected 1 to 64 letters, digits, '-' or '_'")
        try:
            datetime.fromisoformat(self.created_at)
        except ValueError:
            raise ValueError(f"created_at {self.created_at[:80]!r}: expected an ISO 8601 time, e.g. "
                             "2026-12-01T10:00:00+00:00") from None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data, lossless."""
        data: dict[str, Any] = to_dict(self)
        return data

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> Run:
        """Rebuild a Run (an older schema is migrated first); a wrong shape raises ``SchemaError`` naming the field."""
        from gpuready.errors import SchemaError

        version = data.get("schema_version", 1) if isinstance(data, dict) else SCHEMA_VERSION
        if version == 1:
            data = migrate_v1(data)
        elif version != SCHEMA_VERSION:
            raise SchemaError(
                f"schema_version {version!r} is not supported (this gpuready reads 1 and {SCHEMA_VERSION}; a newer "
                "gpuready wrote it)", source=source, field="$.schema_version")
        return from_dict(cls, data, source=source)


def default_outcome(kind: RunKind, findings: Sequence[Finding], results: Sequence[CheckResult]) -> Outcome:
    """The verdict a Run of this kind stands for, by the vocabulary of its kind."""
    if kind in (RunKind.ENV, RunKind.DOCTOR, RunKind.PLAN):
        verdict = verdicts.readiness(findings)
    elif kind is RunKind.SCAN:
        verdict = verdicts.portability(findings)
    elif kind is RunKind.AUDIT:
        verdict = verdicts.placement(findings)
    elif kind is RunKind.VERIFY:
        verdict = verdicts.verification(findings)
    else:
        verdict = verdicts.passed(results, findings)
    return make_outcome(verdict, findings, results)


def make_run(kind: RunKind, tool_version: str, *, fingerprint: Fingerprint | None = None,
             findings: Sequence[Finding] = (), results: Sequence[CheckResult] = (),
             measurements: Sequence[Measurement] = (), outcome: Outcome | None = None, label: str = "",
             tags: Sequence[str] = (), provenance: Provenance | None = None) -> Run:
    """A new Run; its outcome is derived from the findings and results unless given."""
    if provenance is None:
        provenance = Provenance.PASTED if fingerprint is not None and fingerprint.origin != "probe" else (
            Provenance.MEASURED)
    return Run(kind=kind, tool_version=tool_version,
               outcome=outcome or default_outcome(kind, findings, results), fingerprint=fingerprint,
               findings=tuple(findings), results=tuple(results), measurements=tuple(measurements), label=label,
               tags=tuple(tags), provenance=provenance)


MACHINE_NOTES_V1 = frozenset({"device", "flops_per_step", "peak_tflops", "peak", "fraction_of_peak", "peak_source",
                              "peak_confirmed", "peak_per_board", "devices_per_board", "peak_partition_share",
                              "device_memory_bytes", "kind", "best_n", "sweep_median_tflops"})
"""Schema 1 kept these in a measurement's settings; schema 2 keeps them in its annotations."""


def split_settings_v1(measurement: Any) -> None:
    """Move the machine notes of a schema-1 measurement (JSON data, in place) from its settings to annotations."""
    settings = measurement.get("settings") if isinstance(measurement, dict) else None
    if isinstance(settings, dict) and "annotations" not in measurement:
        measurement["annotations"] = {k: v for k, v in settings.items() if k in MACHINE_NOTES_V1}
        measurement["settings"] = {k: v for k, v in settings.items() if k not in MACHINE_NOTES_V1}


def migrate_v1(data: Any) -> Any:
    """A schema-1 Run document as schema 2: settings split, outcome and provenance added. Pure; the input is kept.

    An ``env`` Run of schema 1 recorded facts without judging them: its verdict is ``NOT JUDGED``.
    """
    if not isinstance(data, dict):
        return data
    data = copy.deepcopy(data)
    for measurement in data.get("measurements") or []:
        split_settings_v1(measurement)
    fingerprint = data.get("fingerprint")
    origin = fingerprint.get("origin", "probe") if isinstance(fingerprint, dict) else "probe"
    for framework in fingerprint.get("frameworks") or [] if isinstance(fingerprint, dict) else []:
        version = framework.get("version") if isinstance(framework, dict) else None
        if isinstance(version, dict) and "not installed" in str(version.get("detail", "")):
            framework.setdefault("installed", False)  # schema 1 said so only in the detail text
    data.setdefault("provenance", Provenance.MEASURED.value if origin == "probe" else Provenance.PASTED.value)
    if "outcome" not in data:
        try:
            kind = RunKind(data.get("kind"))
            findings = [from_dict(Finding, f) for f in data.get("findings") or []]
            results = [from_dict(CheckResult, r) for r in data.get("results") or []]
        except Exception:  # noqa: BLE001 - a malformed document is reported by the full decode below
            return data
        if kind is RunKind.ENV and not findings:
            result = make_outcome(Verdict.NOT_JUDGED, findings, results,
                                  "NOT JUDGED: facts recorded by a schema-1 env run; judge them with doctor --from")
        else:
            result = default_outcome(kind, findings, results)
        data["outcome"] = to_dict(result)
    data["schema_version"] = SCHEMA_VERSION
    return data
