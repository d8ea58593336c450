"""Op coverage: replay each distinct (op, dtypes, shapes) of an audit trace on the target device and on the CPU in
float64, and say for each whether it runs, and runs right.

An op is captured as its overload name and its arguments with every tensor replaced by a description (shape, dtype);
ops whose arguments cannot be described as plain data (generators, custom objects) are not replayed. Inputs are
rebuilt from a fixed seed: floating tensors random, integer tensors zero (always a valid index), boolean tensors
random. The replay runs as a check, so a crash or hang in one op is contained and named.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from gpuready.isolation.spec import CheckContext, CheckSpec

TOLERANCE = {"float64": 1e-9, "float32": 1e-3, "float16": 1e-2, "bfloat16": 5e-2}
COVERAGE_SPEC = CheckSpec(id="audit.coverage", target="gpuready.placement.replay:coverage", suites=(),
                          framework="torch", timeout_s=600.0,
                          description="replay the step's ops on the device against float64")
_NOT_REPLAYED = {"aten._local_scalar_dense", "aten.nonzero", "aten.detach", "aten.alias", "aten.lift_fresh",
                 "aten.copy_", "aten.empty", "aten.empty_like", "aten.empty_strided", "aten.set_", "aten.resize_"}


@dataclass(frozen=True, slots=True)
class ReplayOp:
    """An op with its arguments described as data."""

    op: str
    args: Any
    """``[args, kwargs]`` with tensors as ``{"tensor": shape, "dtype": name}``."""


def describe(value: Any) -> Any:
    """JSON description of an argument; raises ValueError for what cannot be rebuilt."""
    import torch

    if isinstance(value, torch.Tensor):
        return {"tensor": list(value.shape), "dtype": str(value.dtype).removeprefix("torch.")}
    if isinstance(value, torch.dtype):
        return {"torch_dtype": str(value).removeprefix("torch.")}
    if isinstance(value, (torch.device, torch.memory_format, torch.layout)):
        return {"skip": str(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    raise ValueError(f"cannot describe {type(value).__name__}")


def capture(op: str, args: Any, kwargs: Any) -> ReplayOp | None:
    """A replayable description of one op call, or None."""
    base = op.rsplit(".", 1)[0]
    parts = op.split(".")
    if base in _NOT_REPLAYED or len(parts) < 2 or parts[1].endswith("_"):
        return None  # in-place and bookkeeping ops are not replayed
    try:
        return ReplayOp(op, [describe(list(args)), {k: describe(v) for k, v in kwargs.items()}])
    except ValueError:
        return None


def _build(description: Any, device: Any, float_dtype: Any | None, generator: Any) -> Any:
    import torch

    if isinstance(description, dict) and "tensor" in description:
        dtype = getattr(torch, description["dtype"])
        shape = description["tensor"]
        if dtype.is_floating_point:
            value = torch.randn(shape, generator=generator, dtype=torch.float64)
            return value.to(device, float_dtype or dtype)
        if dtype == torch.bool:
            return (torch.rand(shape, generator=generator) > 0.5).to(device)
        return torch.zeros(shape, dtype=dtype).to(device)
    if isinstance(description, dict) and "torch_dtype" in description:
        dtype = getattr(torch, description["torch_dtype"])
        return torch.float64 if float_dtype is torch.float64 and dtype.is_floating_point else dtype
    if isinstance(description, dict) and "skip" in description:
        return None
    if isinstance(description, list):
        return [_build(item, device, float_dtype, generator) for item in description]
    return description


def _resolve(op: str) -> Any:
    import torch

    namespace, name, overload = (op.split(".") + ["default"])[:3]
    return getattr(getattr(getattr(torch.ops, namespace), name), overload)


def _first_tensor(value: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (list, tuple)):
        for item in value:
            found = _first_tensor(item)
            if found is not None:
                return found
    return None


def replay_one(item: ReplayOp, device: Any, perturb: str = "") -> dict[str, Any]:
    """Run one op on ``device`` and on the CPU in float64; ok / mismatch / unsupported / error."""
    import torch

    func = _resolve(item.op)
    args, kwargs = item.args
    in_dtype = next((d["dtype"] for d in _flatten(args) if isinstance(d, dict) and "tensor" in d), "float32")
    try:
        reference = func(*_build(args, "cpu", torch.float64, torch.Generator().manual_seed(0)),
                         **{k: _build(v, "cpu", torch.float64, torch.Generator().manual_seed(0))
                            for k, v in kwargs.items()})
    except Exception as error:  # noqa: BLE001 - an op without a float64 CPU kernel cannot be judged
        return {"op": item.op, "status": "no_reference", "detail": str(error).splitlines()[0][:200]}
    try:
        generator = torch.Generator().manual_seed(0)
        result = func(*_build(args, device, None, generator),
                      **{k: _build(v, device, None, torch.Generator().manual_seed(0)) for k, v in kwargs.items()})
    except Exception as error:  # noqa: BLE001 - the point: does it run on the device?
        return {"op": item.op, "status": "unsupported", "detail": str(error).splitlines()[0][:200]}
    got, want = _first_tensor(result), _first_tensor(reference)
    if got is None or want is None or not got.is_floating_point():
        return {"op": item.op, "status": "ok", "detail": "not a floating result; ran"}
    got64 = got.detach().to("cpu", torch.float64)
    want64 = want.detach().to(torch.float64)
    if perturb and (item.op == perturb or item.op.startswith(perturb + ".")):
        got64 = got64 + 0.5
    if got64.shape != want64.shape:
        return {"op": item.op, "status": "mismatch", "detail": f"shape {tuple(got64.shape)} != {tuple(want64.shape)}"}
    finite = torch.isfinite(want64)
    if not torch.equal(finite, torch.isfinite(got64)):
        return {"op": item.op, "status": "mismatch", "detail": "non-finite values where the reference has none"}
    scale = want64[finite].abs().max().item() if finite.any() else 1.0
    difference = (got64[finite] - want64[finite]).abs().max().item() / (scale or 1.0) if finite.any() else 0.0
    tolerance = TOLERANCE.get(in_dtype, 1e-3)
    status = "ok" if difference <= tolerance else "mismatch"
    return {"op": item.op, "status": status, "max_rel_error": difference, "dtype": in_dtype}


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [x for item in value for x in _flatten(item)]
    return [value]


def coverage(context: CheckContext) -> None:
    """Check entry: replay every captured op; progress lines name the op a crash happened in."""
    import torch

    from gpuready.model import from_dict
    from gpuready.workloads.torch_device import device_under_test

    device = device_under_test(context)
    items = [from_dict(ReplayOp, item) for item in context.options.get("ops", [])]
    progress = context.options.get("progress_file")
    results = []
    for item in items:
        if progress:
            with open(progress, "a", encoding="utf-8") as handle:
                handle.write(item.op + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        results.append(replay_one(item, device, str(context.options.get("perturb", ""))))
    context.note("ops", results)
    context.record("replayed", len(results))
    torch.cuda.empty_cache() if torch.cuda.is_available() else None
    json.dumps(results)  # results must be plain data
