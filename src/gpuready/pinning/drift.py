"""What changed between two fingerprints, classified by how likely it is to change GPU behaviour (pure)."""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpuready.model import Fingerprint


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

FRAMEWORK_PACKAGES = re.compile(r"^(torch|torchvision|torchaudio|jax|jaxlib|jax[-_].*|triton|pytorch[-_]triton.*|"
                                r"flash[-_]attn|xformers|apex|deepspeed|vllm|transformer[-_]engine|bitsandbytes|"
                                r"nvidia[-_].*|rocm[-_].*|hip[-_].*|amdsmi|onnxruntime.*|tensorflow.*)$", re.I)
"""Distributions that ship GPU code or pin the GPU stack: a change to them is a framework change."""


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


def _text(fact: object) -> str:
    value = getattr(fact, "value", None)
    if value is None:
        return ""
    return str(getattr(value, "value", value))


def _fields(fingerprint: Fingerprint) -> dict[str, tuple[ChangeKind, str]]:
    host, stack = fingerprint.host, fingerprint.stack
    fields = {
        "gpu count": (ChangeKind.GPU, str(len(fingerprint.devices))),
        "gpu names": (ChangeKind.GPU, ", ".join(sorted({_text(d.name) for d in fingerprint.devices}))),
        "gpu archs": (ChangeKind.GPU, ", ".join(sorted({_text(d.arch) for d in fingerprint.devices}))),
        "amdgpu driver": (ChangeKind.KERNEL_DRIVER, _text(stack.amdgpu_driver_version)),
        "nvidia driver": (ChangeKind.KERNEL_DRIVER, _text(stack.nvidia_driver_version)),
        "nvidia kernel module": (ChangeKind.KERNEL_DRIVER, _text(stack.nvidia_kernel_module)),
        "cuda driver api": (ChangeKind.KERNEL_DRIVER, _text(stack.cuda_driver_version)),
        "rocm": (ChangeKind.ROCM_CUDA, _text(stack.rocm_version)),
        "cuda toolkit": (ChangeKind.ROCM_CUDA, _text(stack.cuda_toolkit_version)),
        "os": (ChangeKind.OS_KERNEL, _text(host.os_name)),
        "kernel": (ChangeKind.OS_KERNEL, _text(host.kernel)),
        "libc": (ChangeKind.OS_KERNEL, _text(host.libc)),
        "python": (ChangeKind.OS_KERNEL, _text(host.python)),
        "container": (ChangeKind.OS_KERNEL, _text(host.container)),
    }
    for framework in fingerprint.frameworks:
        for name, fact in (("version", framework.version), ("build", framework.variant),
                           ("backend", framework.backend_version)):
            fields[f"{framework.name} {name}"] = (ChangeKind.FRAMEWORK, _text(fact))
    for package in fingerprint.packages:
        kind = ChangeKind.FRAMEWORK if FRAMEWORK_PACKAGES.match(package.name) else ChangeKind.PYTHON_PACKAGES
        fields[f"package {package.name.lower()}"] = (kind, package.version)
    for name, value in fingerprint.environment.items():
        fields[f"env {name}"] = (ChangeKind.ENVIRONMENT, value)
    return fields


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
