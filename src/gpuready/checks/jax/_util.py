"""What every JAX check starts with: JAX prepared and imported in this child, the device under test, and the
comparison against float64 NumPy that collects its misses."""

from __future__ import annotations

from typing import Any

from gpuready.checks.reference import ArrayComparison
from gpuready.isolation.spec import CheckContext
from gpuready.workloads.jax_device import device_under_test, import_jax


def begin(context: CheckContext) -> tuple[Any, Any, ArrayComparison]:
    """(device under test, jax, comparison); Skip without JAX, Fail when the device asked for is not there."""
    device = device_under_test(context)
    return device, import_jax(), ArrayComparison(context)
