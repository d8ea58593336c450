"""The fingerprints of the sides, flattened into rows a person can scan for what differs (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuready.model import Fingerprint

if TYPE_CHECKING:
    from gpuready.comparison.model import Side


def _value(fact: object) -> str:
    value = getattr(fact, "value", None)
    return "" if value is None else str(value)


def flatten(fingerprint: Fingerprint | None) -> dict[str, str]:
    """The fields people compare across machines, as text ('' when unknown)."""
    if fingerprint is None:
        return {}
    host, stack = fingerprint.host, fingerprint.stack
    rows = {"os": _value(host.os_name), "kernel": _value(host.kernel), "cpu": _value(host.cpu_model),
            "python": _value(host.python), "container": _value(host.container),
            "gpu count": str(len(fingerprint.devices)),
            "gpu": ", ".join(sorted({_value(d.name) for d in fingerprint.devices})),
            "gpu arch": ", ".join(sorted({_value(d.arch) for d in fingerprint.devices})),
            "gpu memory (GiB)": ", ".join(sorted({f"{int(d.memory_bytes.value) / 2**30:.0f}"
                                                  for d in fingerprint.devices if d.memory_bytes.value})),
            "ROCm": _value(stack.rocm_version), "amdgpu driver": _value(stack.amdgpu_driver_version),
            "NVIDIA driver": _value(stack.nvidia_driver_version), "CUDA driver": _value(stack.cuda_driver_version),
            "CUDA toolkit": _value(stack.cuda_toolkit_version)}
    for framework in fingerprint.frameworks:
        variant = _value(framework.variant).replace("BuildVariant.", "").lower()
        backend = _value(framework.backend_version)
        rows[framework.name] = " ".join(part for part in (_value(framework.version), variant, backend) if part)
    return rows


def environment_rows(sides: Sequence[Side]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(field, value on each side) for every field known on at least one side."""
    flat = []
    for side in sides:
        merged: dict[str, str] = {}
        for run in side.runs:
            merged.update({k: v for k, v in flatten(run.fingerprint).items() if v})
        flat.append(merged)
    names: list[str] = []
    for values in flat:
        names.extend(name for name in values if name not in names)
    return tuple((name, tuple(values.get(name, "") for values in flat)) for name in names)
