"""Record where each op of a step runs: a dispatch-level interceptor plus a function-level one for placement,
host copies and host syncs.

On a machine with a GPU the labels come from ``tensor.device``. On a CPU-only machine the CPU *stands in* for the
accelerator: every request to place a tensor on the target device (``.to("cuda")``, ``.cuda()``,
``device="cuda"``) is served on the CPU and the resulting tensor is marked as being "on the target"; marks flow
from inputs to outputs at the dispatch level, so a tensor created without a device inside ``forward`` stays a host
tensor, exactly as it would on a real GPU. ``.cpu()`` of a marked tensor returns an unmarked copy (a host copy).
"""

from __future__ import annotations

import os
import sys
import sysconfig
import time
from typing import Any

from gpuready.placement.replay import capture
from gpuready.placement.trace import HOST, TARGET, OpRecord

_MARK = "_gpuready_on_target"
_OWNED = "_gpuready_owned_by_model"
"""Set on the model's own tensors (parameters, buffers, plain tensor attributes) before the step: moving one of
those to the device inside the step is a copy of a constant, paid every step."""
_SYNC_OPS = {"aten._local_scalar_dense", "aten.nonzero", "aten.masked_select", "aten.is_nonzero", "aten.equal",
             "aten.unique", "aten._unique2", "aten.item"}
_SKIP_PREFIXES: tuple[str, ...] = ()
BOOKKEEPING = {"aten.detach", "aten.alias", "aten.view", "aten._unsafe_view", "aten.lift_fresh", "aten.t",
               "aten.lift_fresh_copy", "aten.transpose", "aten.permute", "aten.expand", "aten.unsqueeze",
               "aten.squeeze", "aten.reshape", "aten._reshape_alias", "aten.as_strided", "aten.slice", "aten.select",
               "aten.empty_like", "aten.zeros_like", "aten.ones_like", "aten.copy_", "aten._to_copy"}
"""Ops that move no data through compute units; never called CPU fallback on their own."""


def _skip_prefixes() -> tuple[str, ...]:
    global _SKIP_PREFIXES  # noqa: PLW0603 - computed once per process
    if not _SKIP_PREFIXES:
        import torch

        import gpuready

        _SKIP_PREFIXES = (os.path.dirname(torch.__file__), os.path.dirname(gpuready.__file__),
                          sysconfig.get_paths()["stdlib"], "<")
    return _SKIP_PREFIXES


def user_location() -> str:
    """``file.py:LINE`` of the innermost frame outside torch, gpuready and the standard library."""
    prefixes = _skip_prefixes()
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(prefixes):
            return f"{os.path.relpath(filename) if not filename.startswith('..') else filename}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return "(backward pass)"


class PlacementRecorder:
    """Holds the records and knows each tensor's label."""

    def __init__(self, target_type: str, standin: bool) -> None:
        self.target_type = target_type
        self.standin = standin
        self.in_step = False
        """True while the step itself runs (placing the model and the batch is not part of it)."""
        self.silent = False
        """True while the stand-in does work of its own (copying a tensor it moves): not the user's ops."""
        self.records: list[OpRecord] = []
        self.replay: dict[tuple[str, tuple[Any, ...]], Any] = {}
        """Distinct (op, argument description) -> ReplayOp, for op coverage."""

    def label(self, tensor: Any) -> str:
        if self.standin:
            return TARGET if getattr(tensor, _MARK, False) else HOST
        return TARGET if tensor.device.type == self.target_type else HOST

    def mark(self, value: Any) -> Any:
        import torch

        if self.standin:
            for tensor in _tensors(value):
                try:
                    setattr(tensor, _MARK, True)
                except (AttributeError, RuntimeError):
                    pass
        return value if not isinstance(value, torch.Tensor) or not self.standin else value

    @staticmethod
    def note_model(model: Any) -> None:
        """Mark every tensor the model holds (parameters, buffers, tensors kept as plain attributes)."""
        for module in model.modules():
            for value in vars(module).values():
                for tensor in _tensors(list(value.values()) if isinstance(value, dict) else value):
                    try:
                        setattr(tensor, _OWNED, True)
                    except (AttributeError, RuntimeError):
                        pass

    def wants_target(self, device: Any) -> bool:
        if device is None:
            return False
        text = str(device)
        return text.split(":")[0] == self.target_type

    def add(self, op: str, kind: str, tensors: list[Any], outputs: list[Any] | None = None,
            seconds: float = 0.0, labels: list[str] | None = None) -> None:
        """Record an op; devices come from its inputs (0-dim host scalars left out), dtypes also from outputs.

        ``labels`` are the inputs' labels when the caller already has them (the dispatch hot path).
        """
        labels = labels if labels is not None else [self.label(t) for t in tensors]
        devices = tuple(sorted({label for t, label in zip(tensors, labels, strict=True)
                                if label == TARGET or t.dim() > 0}))
        dtypes = tuple(sorted({str(t.dtype).removeprefix("torch.") for t in [*tensors, *(outputs or [])]}))
        routine = kind in ("compute", "view") and devices == (TARGET,) and "float64" not in dtypes
        self.records.append(OpRecord(
            op=op, kind=kind, devices=devices, dtypes=dtypes,
            # Where an op came from is looked up only for ops that can be a finding: it is the costly part.
            shapes=() if routine else tuple(tuple(t.shape) for t in tensors[:4]),
            location="" if routine else user_location(), seconds=seconds,
            bytes=sum(t.numel() * t.element_size() for t in tensors) if kind in ("host_copy", "numpy") else 0))


_WATCHED = {"to", "cuda", "cpu", "numpy", "new_tensor", "new_zeros", "new_ones", "new_empty", "new_full"}
"""Function-level calls the placement mode looks at; everything else passes straight through."""
_NAMES: dict[Any, tuple[str, str]] = {}


def _names(func: Any) -> tuple[str, str]:
    """(``aten.add.Tensor``, ``aten.add``) for an op overload, computed once per op."""
    names = _NAMES.get(func)
    if names is None:
        text = str(func)
        op = text if text.startswith("aten.") else f"aten.{func.__name__}"
        names = _NAMES[func] = (op, op.rsplit(".", 1)[0] if op.count(".") >= 2 else op)
    return names


def _tensors(value: Any) -> list[Any]:
    """Every tensor in a (nested) list, tuple or dict, in order."""
    import torch

    found: list[Any] = []
    _collect(value, torch.Tensor, found)
    return found


def _collect(value: Any, tensor_type: type, found: list[Any]) -> None:
    if isinstance(value, tensor_type):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect(item, tensor_type, found)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, tensor_type, found)


def modes(recorder: PlacementRecorder) -> tuple[Any, Any]:
    """The (function mode, dispatch mode) pair to enter around the audited step."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class Placement(TorchFunctionMode):  # type: ignore[misc]
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            name = getattr(func, "__name__", "")
            if name == "__get__":
                if (recorder.standin and args and isinstance(args[0], torch.Tensor)
                        and getattr(getattr(func, "__self__", None), "__name__", "") == "device"
                        and recorder.label(args[0]) == TARGET):
                    # A stand-in tensor says it is on the target, so `device=x.device` follows x as on a real GPU.
                    return torch.device(recorder.target_type, 0)
                return func(*args, **(kwargs or {}))
            if name not in _WATCHED and not (kwargs and recorder.standin and "device" in kwargs):
                return func(*args, **(kwargs or {}))
            kwargs = dict(kwargs or {})
            first = args[0] if args and isinstance(args[0], torch.Tensor) else None
            if name in ("to", "cuda", "cpu") and first is not None:
                return self._move(func, name, first, args, kwargs)
            if name == "numpy" and first is not None and recorder.label(first) == TARGET:
                recorder.add("Tensor.numpy", "numpy", [first])  # .item(), bool() are seen at dispatch, once
            if (recorder.standin and name.startswith("new_") and first is not None and recorder.label(first) == TARGET
                    and (kwargs.get("device") is None or recorder.wants_target(kwargs.get("device")))):
                kwargs.pop("device", None)  # like its source tensor, on the (stand-in) target
                return recorder.mark(func(*args, **kwargs))
            if recorder.standin and recorder.wants_target(kwargs.get("device")):
                kwargs["device"] = "cpu"
                return recorder.mark(func(*args, **kwargs))
            return func(*args, **kwargs)

        def _move(self, func: Any, name: str, tensor: Any, args: Any, kwargs: Any) -> Any:
            requested = kwargs.get("device")
            if name == "cuda":
                requested = recorder.target_type
            elif name == "cpu":
                requested = "cpu"
            elif requested is None and len(args) > 1 and isinstance(args[1], (str, torch.device)):
                requested = args[1]
            elif requested is None and len(args) > 1 and isinstance(args[1], torch.Tensor):
                requested = args[1].device if not recorder.standin else (
                    recorder.target_type if recorder.label(args[1]) == TARGET else "cpu")
            to_host = requested is not None and str(requested).split(":")[0] == "cpu"
            on_host_args = tuple("cpu" if i == 1 and isinstance(a, (str, torch.device)) else a
                                 for i, a in enumerate(args))
            on_host_kwargs = {**kwargs, "device": "cpu"} if "device" in kwargs else kwargs
            if to_host and recorder.label(tensor) == TARGET:
                recorder.add(f"Tensor.{name}", "host_copy", [tensor])
                if recorder.standin:
                    moved = func(*on_host_args, **on_host_kwargs) if name == "to" else tensor
                    result = moved.clone() if moved is tensor else moved
                    try:
                        setattr(result, _MARK, False)
                    except (AttributeError, RuntimeError):
                        pass
                    return result
            to_target = requested is not None and recorder.wants_target(requested)
            if to_target and recorder.in_step and recorder.label(tensor) == HOST and getattr(tensor, _OWNED, False):
                recorder.add(f"Tensor.{name}", "h2d_copy", [tensor])  # a constant copied to the GPU every step
            if recorder.standin and to_target:
                result = func(*on_host_args, **on_host_kwargs) if name == "to" else tensor
                if recorder.in_step and result is tensor and recorder.label(tensor) == HOST:
                    recorder.silent = True
                    try:  # a distinct copy, as on a GPU (and the host tensor keeps its place)
                        # detached: the copy-back of its gradient is not emulated (the host tensor gets no grad)
                        result = tensor.detach().clone().requires_grad_(tensor.requires_grad)
                    finally:
                        recorder.silent = False
                return recorder.mark(result)
            return func(*args, **kwargs)

    class Dispatch(TorchDispatchMode):  # type: ignore[misc]
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            if recorder.silent:
                return func(*args, **kwargs)
            inputs: list[Any] = []
            _collect(args, torch.Tensor, inputs)
            if kwargs:
                _collect(kwargs, torch.Tensor, inputs)
            start = time.perf_counter()
            result = func(*args, **kwargs)
            seconds = time.perf_counter() - start
            op, base = _names(func)
            if inputs:
                labels = [recorder.label(t) for t in inputs]
                on_target = TARGET in labels
                if on_target and (base in _SYNC_OPS or (
                        base == "aten.index" and any(t.dtype == torch.bool for t in _tensors(list(args[1:]))))):
                    recorder.add(op, "host_sync", inputs, labels=labels)
                else:
                    recorder.add(op, "view" if base in BOOKKEEPING else "compute", inputs, _tensors(result)[:1],
                                 seconds, labels=labels)
                    if base not in BOOKKEEPING:
                        key = (op, tuple((t.shape, t.dtype) for t in inputs))
                        if key not in recorder.replay:
                            replayable = capture(op, args, kwargs)
                            if replayable is not None:
                                recorder.replay[key] = replayable
                if recorder.standin and on_target:
                    # Outputs that are new tensors are on the target; an input updated in place keeps its own place.
                    given = {id(t) for t in inputs}
                    recorder.mark([t for t in _tensors(result) if id(t) not in given])
            return result

    return Placement(), Dispatch()
