"""Runtime guard: use the accelerator only for a model verified on this stack, while the stack still matches.

    import gpuready.guard
    device = gpuready.guard.select_device(model="my-model", lock="gpuready.lock", fallback="cpu")

Cheap enough for every start: it reads the lock file, a few /sys and /proc files and the environment, and looks at
frameworks only when the caller has already imported them (it never imports torch or jax itself).
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gpuready.errors import InputError

if TYPE_CHECKING:
    from gpuready.model import Fingerprint

LOG = logging.getLogger("gpuready.guard")
_NVIDIA = re.compile(r"Kernel Module\s+(?:for\s+\S+\s+)?(\d+\.\d+(?:\.\d+)?)")


DEVICE_NODES = {"amd": "/dev/kfd", "nvidia": "/dev/nvidiactl"}
"""Per vendor, the device node a GPU process needs; its absence means the GPU is not reachable here."""


@dataclass(frozen=True, slots=True)
class CurrentFacts:
    """What the guard can learn in milliseconds; ``None`` means it could not tell (and is not held against you)."""

    framework_versions: Mapping[str, str] = field(default_factory=dict)
    amdgpu_driver: str | None = None
    nvidia_driver: str | None = None
    environment: Mapping[str, str] = field(default_factory=dict)
    device_nodes: Mapping[str, bool] = field(default_factory=dict)
    """Per vendor, whether its ``DEVICE_NODES`` entry exists; a vendor left out was not looked at."""


@dataclass(frozen=True, slots=True)
class Decision:
    """The device to use and why."""

    device: str
    verified: bool
    reasons: tuple[str, ...]


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def current_facts(environ: Mapping[str, str] | None = None) -> CurrentFacts:
    """This process's facts, without importing any framework."""
    from gpuready.probe.environment import relevant_environment

    versions = {}
    for name in ("torch", "jax"):
        module = sys.modules.get(name)
        version = getattr(module, "__version__", None) if module is not None else None
        if isinstance(version, str):
            versions[name] = version
    amdgpu = (_read("/sys/module/amdgpu/version") or "").strip() or None
    nvidia_text = _read("/proc/driver/nvidia/version") or ""
    match = _NVIDIA.search(nvidia_text)
    return CurrentFacts(versions, amdgpu, match.group(1) if match else None,
                        relevant_environment(os.environ if environ is None else environ),
                        {vendor: os.path.exists(node) for vendor, node in DEVICE_NODES.items()})


def _locked_gpu_vendors(fingerprint: Fingerprint) -> set[str]:
    """Vendors of the GPUs the lock saw: its probed devices, else frameworks that counted devices."""
    vendors = {device.vendor.value for device in fingerprint.devices}
    for framework in fingerprint.frameworks:
        count = framework.device_count.value
        if isinstance(count, int) and count > 0:
            variant = getattr(framework.variant.value, "value", "")
            vendors.add({"rocm": "amd", "cuda": "nvidia"}.get(variant, "unknown"))
    return vendors


def decide(model: str, lock: str | os.PathLike[str] = "gpuready.lock", *, fallback: str = "cpu",
           accelerator: str = "cuda", facts: CurrentFacts | None = None) -> Decision:
    """The accelerator when ``model`` is verified in the lock and nothing relevant drifted; the fallback otherwise.

    Never raises and never blocks: any doubt (an unreadable, hostile or special file, an error of its own) is the
    fallback, with the reason.
    """
    try:
        return _decide(model, lock, fallback, accelerator, facts)
    except Exception as error:  # noqa: BLE001 - the guard's promise: any doubt is the fallback
        return Decision(fallback, False, (f"the guard could not decide ({type(error).__name__}: "
                                          f"{str(error)[:200]}); using {fallback}",))


def _decide(model: str, lock: str | os.PathLike[str], fallback: str, accelerator: str,
            facts: CurrentFacts | None) -> Decision:
    from gpuready.pinning.lockfile import read_lock

    path = Path(lock)
    if not os.path.lexists(path):
        return Decision(fallback, False, (f"no lock file at {path}: run gpuready lock first",))
    try:
        locked = read_lock(path)
    except InputError as error:
        return Decision(fallback, False, (f"lock file unusable: {error}",))
    if model not in locked.models:
        return Decision(fallback, False, (f"model {model!r} was never verified on this stack (verified: "
                                          f"{', '.join(locked.models) or 'none'})",))
    vendors = _locked_gpu_vendors(locked.fingerprint)
    if not vendors:
        return Decision(fallback, False, ("the lock was taken where no GPU was seen, so the model was verified only on "
                                          f"the CPU; lock again on the GPU machine to use {accelerator}",))
    unknown = sorted(v for v in vendors if v not in DEVICE_NODES)
    if unknown:
        return Decision(fallback, False, (f"the lock's GPU vendor ({', '.join(unknown)}) is not one the guard can "
                                          "check here; lock again on a machine whose GPU gpuready identifies",))
    facts = facts or current_facts()
    missing = sorted(v for v in vendors if facts.device_nodes.get(v) is False)
    if missing:
        return Decision(fallback, False, (f"the locked {', '.join(missing)} GPU is not visible here (no "
                                          f"{', '.join(DEVICE_NODES[v] for v in missing)}): run gpuready doctor",))
    reasons = []
    for framework in locked.fingerprint.frameworks:
        was, now = framework.version.value, facts.framework_versions.get(framework.name)
        if was and now and was != now:
            reasons.append(f"{framework.name} {was} -> {now}")
    stack = locked.fingerprint.stack
    for name, was, now in (("amdgpu driver", stack.amdgpu_driver_version.value, facts.amdgpu_driver),
                           ("NVIDIA driver", stack.nvidia_driver_version.value, facts.nvidia_driver)):
        if was and now and was != now:
            reasons.append(f"{name} {was} -> {now}")
    locked_env = locked.fingerprint.environment
    for name in sorted(set(locked_env) | set(facts.environment)):
        if locked_env.get(name) != facts.environment.get(name):
            reasons.append(f"${name} {locked_env.get(name, '(unset)')!r} -> {facts.environment.get(name, '(unset)')!r}")
    if reasons:
        return Decision(fallback, False, ("environment drifted since the lock: " + "; ".join(reasons),))
    return Decision(accelerator, True, (f"model {model!r} verified on this stack ({locked.created_at})",))


def select_device(model: str, lock: str | os.PathLike[str] = "gpuready.lock", *, fallback: str = "cpu",
                  accelerator: str = "cuda") -> str:
    """``decide`` and log the reason (warning when falling back); returns the device string."""
    decision = decide(model, lock, fallback=fallback, accelerator=accelerator)
    (LOG.info if decision.verified else LOG.warning)("gpuready guard: %s -> %s", "; ".join(decision.reasons),
                                                     decision.device)
    return decision.device
