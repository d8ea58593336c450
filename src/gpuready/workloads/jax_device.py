"""The JAX device a piece of isolated work runs on (one home for check, audit and bench): ``auto`` (JAX's default
backend), ``cpu``, ``cuda`` or ``cuda:N`` (a GPU through the CUDA or the ROCm plugin; JAX calls both ``gpu``).

JAX reads its platform and XLA flags once, when its first backend starts, so ``prepare`` runs before that: it pins
``cpu`` through ``JAX_PLATFORMS`` and gives the CPU several devices (``--xla_force_host_platform_device_count``) for
the collectives, as the PyTorch checks use gloo where there is no GPU. Only child processes call it.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

from gpuready.isolation.spec import CheckContext, Fail, Skip

HOST_DEVICES_FLAG = "--xla_force_host_platform_device_count"
CHECK_HOST_DEVICES = 4
"""CPU devices in a JAX check process (collectives over 4 make all_to_all and rings meaningful)."""


def prepare(device: str = "auto", host_devices: int = 0) -> None:
    """Set JAX's start-up environment for ``device`` in this (child) process, before JAX starts a backend."""
    if device == "cpu":
        os.environ["JAX_PLATFORMS"] = "cpu"
    flags = os.environ.get("XLA_FLAGS", "")
    if host_devices > 1 and HOST_DEVICES_FLAG not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} {HOST_DEVICES_FLAG}={host_devices}".strip()


def import_jax() -> Any:
    """jax, or Skip when it is not installed."""
    try:
        import jax
    except ImportError as error:
        raise Skip(f"jax is not installed ({error}); pip install 'gpuready[jax]'") from error
    return jax


def is_gpu(device: Any) -> bool:
    """Whether a JAX device is an accelerator (CUDA and ROCm devices; not the CPU)."""
    return str(getattr(device, "platform", "cpu")) not in ("cpu", "tpu")


def gpu_hardware() -> list[str]:
    """Vendors whose GPUs this machine shows without any framework (KFD nodes with SIMDs, NVIDIA device nodes)."""
    found = []
    for properties in glob.glob("/sys/class/kfd/kfd/topology/nodes/*/properties"):
        try:
            text = open(properties, encoding="utf-8").read()  # noqa: SIM115 - a tiny sysfs file
        except OSError:
            continue
        if any(line.startswith("simd_count") and line.split()[-1] != "0" for line in text.splitlines()):
            found.append("amd")
            break
    if glob.glob("/dev/nvidia[0-9]*") or glob.glob("/proc/driver/nvidia/gpus/*"):
        found.append("nvidia")
    return found


def backend_errors(jax: Any) -> dict[str, str]:
    """Why JAX's GPU backends failed to start, when it kept that (a private table; empty when absent)."""
    try:
        from jax._src import xla_bridge

        errors = getattr(xla_bridge, "_backend_errors", {}) or {}
        return {str(k): str(v).splitlines()[0][:300] for k, v in errors.items()}
    except Exception:  # noqa: BLE001 - best effort: a private table
        return {}


def jax_device(name: str = "auto") -> Any:
    """``name`` as a JAX device: ``auto`` is the default backend's first device; ``cuda[:N]`` a GPU or Fail."""
    jax = import_jax()
    if name in ("auto", "cpu", "standin"):
        return jax.devices("cpu")[0] if name == "cpu" else jax.devices()[0]
    index = int(name.partition(":")[2] or 0)
    gpus = [d for d in jax.devices() if is_gpu(d)]
    if not gpus:
        errors = backend_errors(jax)
        why = f" ({'; '.join(f'{k}: {v}' for k, v in errors.items())})" if errors else ""
        raise Fail(f"--device {name} was asked for, but JAX runs on {jax.default_backend()}: no GPU plugin loaded"
                   f"{why}")
    if index >= len(gpus):
        raise Fail(f"--device {name}: JAX sees only {len(gpus)} GPU(s)")
    return gpus[index]


def device_under_test(context: CheckContext) -> Any:
    """Prepare and import JAX, and return the device to test; notes backend, device and versions."""
    prepare(context.device, CHECK_HOST_DEVICES)
    jax = import_jax()
    device = jax_device(context.device or "auto")
    context.note("device", f"{device.platform}:{device.id} {device.device_kind}")
    context.note("backend", jax.default_backend())
    context.note("jax", str(jax.__version__))
    return device


def on(device: Any) -> AbstractContextManager[Any]:
    """Run the enclosed JAX work (jitted or not) on ``device``."""
    jax = import_jax()
    return jax.default_device(device)  # type: ignore[no-any-return]


def on_device(array: Any, dtype: Any) -> Any:
    """A NumPy array as a JAX array of ``dtype`` on the default device, converted on the host and transferred
    (``jnp.asarray`` compiles a small program per shape; ``device_put`` compiles nothing)."""
    import numpy

    jax = import_jax()
    return jax.device_put(numpy.asarray(array).astype(jax.numpy.dtype(dtype)))


def cpu_device() -> Any:
    """The CPU device for references (None when ``JAX_PLATFORMS`` left the CPU out)."""
    jax = import_jax()
    try:
        return jax.devices("cpu")[0]
    except RuntimeError:
        return None


def enable_x64() -> AbstractContextManager[Any]:
    """float64 in JAX for the enclosed work (``jax.enable_x64`` or, before 0.6, ``jax.experimental.enable_x64``)."""
    jax = import_jax()
    if hasattr(jax, "enable_x64"):
        return jax.enable_x64(True)  # type: ignore[no-any-return]
    from jax.experimental import enable_x64 as experimental

    return experimental()  # type: ignore[no-any-return]


def shard_map() -> Any:
    """``jax.shard_map`` (or ``jax.experimental.shard_map.shard_map`` before it moved)."""
    jax = import_jax()
    if hasattr(jax, "shard_map"):
        return jax.shard_map
    from jax.experimental.shard_map import shard_map as experimental

    return experimental


def synchronize(value: Any) -> Any:
    """Wait until every array in ``value`` is computed (JAX dispatches asynchronously)."""
    jax = import_jax()
    return jax.block_until_ready(value)


def equations(jaxpr: Any) -> Iterator[Any]:
    """Every equation of a (closed) jaxpr, those of the jaxprs nested in it (jit, cond, scan, custom rules) too."""
    inner = getattr(jaxpr, "jaxpr", jaxpr)
    for equation in getattr(inner, "eqns", ()):
        yield equation
        for value in equation.params.values():
            for item in value if isinstance(value, (tuple, list)) else (value,):
                if hasattr(item, "eqns") or hasattr(getattr(item, "jaxpr", None), "eqns"):
                    yield from equations(item)
