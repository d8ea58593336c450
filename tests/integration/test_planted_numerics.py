"""GEMMs and reductions at realistic lengths, judged against the error of correct float32 accumulation: planted
low-precision accumulation (bf16/fp16) and a float32 GEMM silently computed in TF32 fail; correct kernels pass
(#19 item 9b)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuready.checks.registry import BUILTIN
from gpuready.isolation.launchers import InlineLauncher

pytestmark = pytest.mark.torch
torch = pytest.importorskip("torch")
ORIGINAL_MATMUL = torch.Tensor.__matmul__
ORIGINAL_SUM = torch.Tensor.sum


def _tf32(x: Any) -> Any:
    bits = x.contiguous().view(torch.int32)
    return ((bits + 0x1000) & ~0x1FFF).view(torch.float32)


def _low_precision_matmul(a: Any, b: Any) -> Any:
    """Accumulates in the inputs' own dtype, 32 products at a time (a real class of kernel bug)."""
    if a.dim() != 2 or a.shape[-1] < 1024:
        return ORIGINAL_MATMUL(a, b)
    if a.dtype == torch.float32:
        return ORIGINAL_MATMUL(_tf32(a), _tf32(b))
    total = torch.zeros(a.shape[0], b.shape[1], dtype=a.dtype)
    for start in range(0, a.shape[1], 32):
        part = ORIGINAL_MATMUL(a[:, start:start + 32].float(), b[start:start + 32].float())
        total = (total.float() + part).to(a.dtype)
    return total


def _low_precision_sum(self: Any, *args: Any, **kwargs: Any) -> Any:
    if args or kwargs or self.dtype not in (torch.float16, torch.bfloat16) or self.numel() < 100_000:
        return ORIGINAL_SUM(self, *args, **kwargs)
    total = torch.zeros((), dtype=self.dtype)
    for chunk in self.split(256):
        total = (total.float() + ORIGINAL_SUM(chunk.float())).to(self.dtype)
    return total


def _run(check_id: str) -> Any:
    [result] = InlineLauncher(device="cpu").run([BUILTIN.get(check_id)])
    return result


def test_correct_kernels_pass_the_accumulation_bound() -> None:
    for check_id in ("torch.ops.matmul", "torch.ops.reductions"):
        result = _run(check_id)
        assert result.status.value == "pass", result.details
        bounds = {k: v for k, v in result.metrics.items() if k.endswith("error_over_bound")}
        assert bounds and max(bounds.values()) < 1.0


def test_low_precision_accumulation_and_tf32_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.Tensor, "__matmul__", _low_precision_matmul)
    result = _run("torch.ops.matmul")
    assert result.status.value == "fail"
    for name in ("float32", "bfloat16", "float16"):
        assert result.metrics[f"gemm_k4096.{name}.error_over_bound"] > 5, (name, result.metrics)
    assert "accumulating in a lower precision" in result.details["reason"]


def test_a_sum_accumulated_in_low_precision_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.Tensor, "sum", _low_precision_sum)
    result = _run("torch.ops.reductions")
    assert result.status.value == "fail" and "sum_in_dtype" in result.details["reason"]
