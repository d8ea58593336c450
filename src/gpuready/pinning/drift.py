"""What changed between two fingerprints, classified by how likely it is to change GPU behaviour (pure)."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from gpuready.model import Fingerprint
from gpuready.model.fields import fingerprint_fields


class ChangeKind(str, enum.Enum):
    """Classes of change, most likely to explain a regression first."""

    GPU = "gpu"
    KERNEL_DRIVER = "kernel-driver"
    ROCM_CUDA = "rocm-cuda"
    FRAMEWORK = "framework"
    ENVIRONMENT = "environment-variables"
    OS_KERNEL = "os-kernel"
    PYTHON_PACKAGES = "python-packages"


RELEVANT = frozenset(ChangeKind) - {ChangeKind.PYTHON_PACKAGES}
"""Kinds that count as drift for ``verify`` (other packages are reported, and count with ``--strict``)."""




@dataclass(frozen=True, slots=True)
class Change:
    """One field that differs."""

    kind: ChangeKind
    field: str
    before: str
    after: str

    @property
    def relevant(self) -> bool:
        return self.kind in RELEVANT


def _fields(fingerprint: Fingerprint) -> dict[str, tuple[ChangeKind, str]]:
    return {name: (ChangeKind(group), value) for name, (group, value) in fingerprint_fields(fingerprint).items()}


def classify_changes(before: Fingerprint, after: Fingerprint) -> list[Change]:
    """Every field that differs, most relevant kinds first. A fact known on one side and unknown on the other
    (``''``) is a change too: a driver that can no longer be read is as suspicious as one that changed."""
    old, new = _fields(before), _fields(after)
    changes = []
    for name in old.keys() | new.keys():
        kind = (old.get(name) or new[name])[0]
        was = old[name][1] if name in old else ""
        now = new[name][1] if name in new else ""
        if was != now:
            changes.append(Change(kind, name, was, now))
    order = list(ChangeKind)
    return sorted(changes, key=lambda change: (order.index(change.kind), change.field))


def likely_cause(changes: Sequence[Change]) -> Change | None:
    """The change most likely to explain a regression: the first in the order of ``ChangeKind``."""
    return changes[0] if changes else None
