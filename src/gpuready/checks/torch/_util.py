"""Shared pieces of the PyTorch checks: the device under test, the float64 CPU reference (tolerances in
``checks/reference.py``, shared with the JAX checks)."""

from __future__ import annotations

from typing import Any

from gpuready.checks.reference import ACCUMULATION_SLACK, RELATIVE_TOLERANCE, fail_with
from gpuready.isolation.spec import CheckContext, import_torch
from gpuready.workloads.torch_device import device_under_test, is_gpu, synchronize

__all__ = ["RELATIVE_TOLERANCE", "Comparison", "device_under_test", "import_torch", "is_gpu", "synchronize"]


class Comparison:
    """Collects comparisons against the CPU float64 reference and fails once, listing every miss."""

    def __init__(self, context: CheckContext) -> None:
        self.context = context
        self.misses: list[str] = []

    def close(self, name: str, actual: Any, reference: Any, tolerance: float) -> float:
        """Relative max error of ``actual`` against ``reference``; records it; remembers a miss."""
        torch = import_torch()
        actual64 = actual.detach().to("cpu", torch.float64) if not actual.is_complex() else actual.detach().to(
            "cpu", torch.complex128)
        reference64 = reference.detach().to("cpu", actual64.dtype)
        if actual64.shape != reference64.shape:
            self.misses.append(f"{name}: shape {tuple(actual64.shape)} != {tuple(reference64.shape)}")
            return float("inf")
        if not torch.isfinite(actual64).all():
            self.misses.append(f"{name}: non-finite values")
            self.context.record(f"{name}.rel_err", float("inf"))
            return float("inf")
        scale = reference64.abs().max().item() or 1.0
        error = (actual64 - reference64).abs().max().item() / scale
        self.context.record(f"{name}.rel_err", error)
        if error > tolerance:
            self.misses.append(f"{name}: relative error {error:.2e} > {tolerance:.0e}")
        return float(error)

    def accumulated(self, name: str, actual: Any, exact: Any, spread: Any, terms: int, out_eps: float) -> float:
        """An accumulation (a GEMM's dot products, a long sum) against the error of a correct one.

        ``exact`` is the float64 result of the inputs *as rounded to the tested dtype*; ``spread`` is, per element,
        ``sqrt(sum of the squared terms)``. A correct kernel accumulates in float32 and rounds once to the output
        dtype, so its error stays within one output ulp plus ``ACCUMULATION_SLACK * u32 * sqrt(terms) * spread``
        (the probabilistic bound of float32 summation, in any order). Accumulating in a lower precision (bf16,
        fp16, TF32 inputs) overshoots that by one to three orders of magnitude; the worst ratio is recorded.
        """
        torch = import_torch()
        got = actual.detach().to("cpu", torch.float64)
        if not torch.isfinite(got).all():
            self.misses.append(f"{name}: non-finite values")
            return float("inf")
        u32 = torch.finfo(torch.float32).eps / 2
        tolerance = out_eps * exact.abs() + ACCUMULATION_SLACK * u32 * terms**0.5 * spread + 1e-300
        ratio = float(((got - exact).abs() / tolerance).max().item())
        self.context.record(f"{name}.error_over_bound", ratio)
        if ratio > 1.0:
            self.misses.append(f"{name}: error {ratio:.1f}x the bound of float32 accumulation over {terms} terms "
                               "(accumulating in a lower precision?)")
        return ratio

    def equal(self, name: str, actual: Any, reference: Any) -> None:
        """Exact equality (integers, sorts, copies, casts)."""
        torch = import_torch()
        if not torch.equal(actual.detach().cpu(), reference.detach().cpu()):
            self.misses.append(f"{name}: not identical to the reference")

    def require(self, name: str, condition: bool, message: str) -> None:
        """Any other expectation."""
        if not condition:
            self.misses.append(f"{name}: {message}")

    def finish(self) -> None:
        """Fail with every miss, or return."""
        fail_with(self.misses)
