"""``Run``: the unit gpuready saves, compares, locks and renders."""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from gpuready.model.codec import from_dict, to_dict
from gpuready.model.fingerprint import Fingerprint
from gpuready.model.results import CheckResult, Finding, Measurement

SCHEMA_VERSION = 1
"""Bumped on any change to the shape of a serialised Run; docs/schema/run.schema.json follows it."""


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


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class Run:
    """A fingerprint with the findings, check results and measurements made on it."""

    kind: RunKind
    tool_version: str
    fingerprint: Fingerprint | None = None
    findings: tuple[Finding, ...] = ()
    results: tuple[CheckResult, ...] = ()
    measurements: tuple[Measurement, ...] = ()
    id: str = field(default_factory=_new_id)
    created_at: str = field(default_factory=_now)
    """ISO 8601 time in UTC."""
    label: str = ""
    tags: tuple[str, ...] = ()
    schema_version: int = SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data, lossless."""
        data: dict[str, Any] = to_dict(self)
        return data

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> Run:
        """Rebuild a Run; a wrong shape raises ``SchemaError`` naming the field."""
        from gpuready.errors import SchemaError

        if isinstance(data, dict) and data.get("schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
            raise SchemaError(
                f"schema_version {data.get('schema_version')!r} is not supported (this gpuready reads "
                f"{SCHEMA_VERSION})",
                source=source,
                field="$.schema_version",
            )
        return from_dict(cls, data, source=source)
