"""The float64 reference every framework's checks are judged against: tolerances per dtype, and ``ArrayComparison``
for results that NumPy can read (JAX arrays, NumPy arrays). The PyTorch checks use the same tolerances through
``checks/torch/_util.py``.
"""

from __future__ import annotations

from typing import Any

from gpuready.isolation.spec import CheckContext, Fail

ACCUMULATION_SLACK = 8.0
"""Headroom over the probabilistic error bound of float32 summation (correct kernels measure about 0.05-0.5 of the
bound with it; bf16/fp16 accumulation and TF32 inputs about 40-500)."""
RELATIVE_TOLERANCE = {"float64": 1e-10, "float32": 2e-4, "tf32": 8e-3, "float16": 8e-3, "bfloat16": 4e-2}
"""Max |actual - reference| / max |reference| allowed per compute dtype (reference: float64 on the CPU)."""
MAX_LISTED = 8


def fail_with(misses: list[str]) -> None:
    """Raise ``Fail`` listing the misses (the first few, and how many more), or return when there are none."""
    if misses:
        raise Fail("; ".join(misses[:MAX_LISTED]) + (f" (+{len(misses) - MAX_LISTED} more)"
                                                     if len(misses) > MAX_LISTED else ""))


class ArrayComparison:
    """Results (anything ``numpy.asarray`` reads) against float64 NumPy references; fails once, listing every miss."""

    def __init__(self, context: CheckContext) -> None:
        import numpy

        self.np = numpy
        self.context = context
        self.misses: list[str] = []

    def _float64(self, value: Any) -> Any:
        array = self.np.asarray(value)
        return array.astype(self.np.complex128 if self.np.iscomplexobj(array) else self.np.float64)

    def close(self, name: str, actual: Any, reference: Any, tolerance: float) -> float:
        """Relative max error (to the reference's largest magnitude); records it; remembers a miss."""
        np = self.np
        got, want = self._float64(actual), self._float64(reference)
        if got.shape != want.shape:
            self.misses.append(f"{name}: shape {got.shape} != {want.shape}")
            return float("inf")
        if not np.isfinite(got).all():
            self.misses.append(f"{name}: non-finite values")
            self.context.record(f"{name}.rel_err", float("inf"))
            return float("inf")
        scale = float(np.abs(want).max()) if want.size else 1.0
        error = float(np.abs(got - want).max()) / (scale or 1.0) if got.size else 0.0
        self.context.record(f"{name}.rel_err", error)
        if error > tolerance:
            self.misses.append(f"{name}: relative error {error:.2e} > {tolerance:.0e}")
        return error

    def accumulated(self, name: str, actual: Any, exact: Any, spread: Any, terms: int, out_eps: float) -> float:
        """An accumulation (a GEMM's dot products, a long sum) against the error of a correct one (see
        ``checks.torch._util.Comparison.accumulated``: ``exact`` is float64 of the inputs as rounded to the tested
        dtype, ``spread`` per element ``sqrt(sum of squared terms)``); the worst ratio to the bound is recorded."""
        np = self.np
        got = self._float64(actual)
        if not np.isfinite(got).all():
            self.misses.append(f"{name}: non-finite values")
            return float("inf")
        u32 = float(np.finfo(np.float32).eps) / 2
        tolerance = out_eps * np.abs(exact) + ACCUMULATION_SLACK * u32 * terms**0.5 * np.asarray(spread) + 1e-300
        ratio = float((np.abs(got - exact) / tolerance).max())
        self.context.record(f"{name}.error_over_bound", ratio)
        if ratio > 1.0:
            self.misses.append(f"{name}: error {ratio:.1f}x the bound of float32 accumulation over {terms} terms "
                               "(accumulating in a lower precision?)")
        return ratio

    def equal(self, name: str, actual: Any, reference: Any) -> None:
        """Exact equality (integers, sorts, copies, casts, RNG streams)."""
        got, want = self.np.asarray(actual), self.np.asarray(reference)
        if got.shape != want.shape or not self.np.array_equal(got, want):
            self.misses.append(f"{name}: not identical to the reference")

    def require(self, name: str, condition: bool, message: str) -> None:
        """Any other expectation."""
        if not condition:
            self.misses.append(f"{name}: {message}")

    def finish(self) -> None:
        """Fail with every miss, or return."""
        fail_with(self.misses)
