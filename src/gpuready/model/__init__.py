"""The shared vocabulary: facts, fingerprints, findings, check results, measurements and runs."""

from gpuready.model.codec import from_dict, to_dict
from gpuready.model.fact import Fact, FactStatus
from gpuready.model.fingerprint import (
    Access,
    BuildVariant,
    Conflict,
    Device,
    DeviceNode,
    ErrorSeen,
    Fingerprint,
    Framework,
    Host,
    Link,
    Package,
    ProbeNote,
    SectionNote,
    Stack,
    Topology,
    Vendor,
)
from gpuready.model.metrics import MetricInfo, metric_info
from gpuready.model.outcome import Level, Outcome, Verdict
from gpuready.model.results import CheckResult, CheckStatus, Finding, Measurement, Severity, Summary, worst_first
from gpuready.model.run import SCHEMA_VERSION, Provenance, Run, RunKind, make_run

__all__ = [
    "SCHEMA_VERSION",
    "Access",
    "BuildVariant",
    "CheckResult",
    "CheckStatus",
    "Conflict",
    "Device",
    "DeviceNode",
    "ErrorSeen",
    "Fact",
    "FactStatus",
    "Finding",
    "Fingerprint",
    "Framework",
    "Host",
    "Level",
    "Link",
    "Measurement",
    "MetricInfo",
    "Outcome",
    "Package",
    "ProbeNote",
    "Provenance",
    "SectionNote",
    "Run",
    "RunKind",
    "Severity",
    "Stack",
    "Summary",
    "Topology",
    "Vendor",
    "Verdict",
    "from_dict",
    "make_run",
    "metric_info",
    "to_dict",
    "worst_first",
]
