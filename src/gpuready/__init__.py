"""gpuready: is this accelerator stack ready for my model, and how does it compare with what I run today?

The public API (see ``gpuready.api`` and docs/API.md): ``fingerprint``, ``doctor``, ``plan``, ``check``, ``audit``,
``scan``, ``bench``, ``compare``, ``lock``, ``verify``, each with its typed configuration, plus ``fleet_report``,
``load_data``, ``load_runs`` and ``save``. Names are imported on first use, so ``import gpuready`` stays cheap (no
torch, no jax, no SQLAlchemy).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

_ELSEWHERE = {"InputError": "gpuready.errors", "GpureadyError": "gpuready.errors",
              "fleet_report": "gpuready.fleet.report"}

__all__ = [  # noqa: F405 - the names come from gpuready.api, on first use
    "__version__",
    "AuditConfig",
    "BenchConfig",
    "CheckConfig",
    "CheckResult",
    "CheckStatus",
    "CompareConfig",
    "DoctorConfig",
    "Fact",
    "FactStatus",
    "Finding",
    "Fingerprint",
    "FingerprintConfig",
    "GpureadyError",
    "InputError",
    "Level",
    "LockConfig",
    "Measurement",
    "Outcome",
    "PlanConfig",
    "Provenance",
    "Run",
    "RunKind",
    "ScanConfig",
    "Severity",
    "Verdict",
    "VerifyConfig",
    "audit",
    "bench",
    "check",
    "compare",
    "doctor",
    "fingerprint",
    "fleet_report",
    "load_data",
    "load_runs",
    "lock",
    "plan",
    "save",
    "scan",
    "verify",
]

if TYPE_CHECKING:
    from gpuready.api import *  # noqa: F403
    from gpuready.errors import GpureadyError, InputError
    from gpuready.fleet.report import fleet_report


def __getattr__(name: str) -> Any:
    if name in __all__ and name != "__version__":
        value = getattr(importlib.import_module(_ELSEWHERE.get(name, "gpuready.api")), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gpuready' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
