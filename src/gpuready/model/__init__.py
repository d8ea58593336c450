"""The shared vocabulary: facts, fingerprints, findings, check results, measurements and runs."""

from gpuready.model.codec import from_dict, to_dict
from gpuready.model.fact import Fact, FactStatus
from gpuready.model.fingerprint import (
    Access,
    BuildVariant,
    Device,
    DeviceNode,
    Fingerprint,
    Framework,
    Host,
    Link,
    Package,
    ProbeNote,
    Stack,
    Topology,
    Vendor,
)
from gpuready.model.results import CheckResult, CheckStatus, Finding, Measurement, Severity, Summary
from gpuready.model.run import SCHEMA_VERSION, Run, RunKind

__all__ = [
    "SCHEMA_VERSION",
    "Access",
    "BuildVariant",
    "CheckResult",
    "CheckStatus",
    "Device",
    "DeviceNode",
    "Fact",
    "FactStatus",
    "Finding",
    "Fingerprint",
    "Framework",
    "Host",
    "Link",
    "Measurement",
    "Package",
    "ProbeNote",
    "Run",
    "RunKind",
    "Severity",
    "Stack",
    "Summary",
    "Topology",
    "Vendor",
    "from_dict",
    "to_dict",
]
