"""What a JAX training step does besides computing, recorded in the audit's child process: copies of device arrays
to the host while the step runs (``jax.device_get``, NumPy conversion, ``float()``/``.item()``), host callbacks
compiled into it (``jax.debug.callback``/``print``, ``pure_callback``, ``io_callback``), NumPy conversion of a traced
value (the step cannot be jitted), compilations after the first step (shapes that change in the loop), and where its
result lives. Every event carries the first source line outside JAX and gpuready (``file:line``)."""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from gpuready.workloads.jax_compiles import Compiles
from gpuready.workloads.jax_device import equations, import_jax
from gpuready.workloads.jax_loader import carrier

CONVERSIONS = {"__array__": "NumPy conversion", "__float__": "float()", "__int__": "int()", "__bool__": "bool()",
               "__index__": "index", "item": ".item()", "tolist": ".tolist()"}
CALLBACKS = ("debug_callback", "debug_print", "pure_callback", "io_callback")
TRACER_ERRORS = ("TracerArrayConversionError", "ConcretizationTypeError", "TracerBoolConversionError",
                 "TracerIntegerConversionError")


def _library_roots() -> tuple[str, ...]:
    import gpuready

    roots = [os.path.dirname(os.path.dirname(os.__file__))]  # the standard library
    for module in ("jax", "jaxlib", "numpy", "optax", "flax"):
        found = sys.modules.get(module)
        if found is not None and getattr(found, "__file__", None):
            roots.append(os.path.dirname(str(found.__file__)))
    roots.append(os.path.dirname(str(gpuready.__file__)))
    return tuple(roots)


def user_line(frames: Iterator[tuple[str, int]], roots: tuple[str, ...]) -> str:
    """``file:line`` of the first frame outside the libraries (outermost-last order), '' when there is none."""
    for filename, line in frames:
        if not filename.startswith(roots) and not filename.startswith("<"):
            return f"{filename}:{line}"
    return ""


@dataclass
class Recording:
    """Events of one audited run, as JSON-able data."""

    transfers: dict[str, dict[str, Any]] = field(default_factory=dict)
    """``kind@file:line`` -> {kind, location, count, steps (the steps it happened in)}."""
    compiles: list[dict[str, Any]] = field(default_factory=list)
    """One entry per step after the first that compiled: {step, count, programs}."""
    callbacks: list[dict[str, str]] = field(default_factory=list)
    traced_error: dict[str, str] = field(default_factory=dict)
    step: int = -1
    _inside: threading.local = field(default_factory=threading.local)

    def transfer(self, kind: str, location: str) -> None:
        entry = self.transfers.setdefault(f"{kind}@{location}", {"kind": kind, "location": location, "count": 0,
                                                                   "steps": []})
        entry["count"] += 1
        if self.step not in entry["steps"]:
            entry["steps"].append(self.step)

    def as_details(self) -> dict[str, Any]:
        return {"transfers": sorted(self.transfers.values(), key=lambda e: -int(e["count"])),
                "recompiles": self.compiles, "callbacks": self.callbacks, "traced_error": self.traced_error}


@contextmanager
def recording_transfers(record: Recording) -> Iterator[None]:
    """Patch the ways a device array reaches the host (array methods, ``jax.device_get``, ``numpy.asarray``/
    ``array``) to record the line that asked: only calls made from the user's code count (not JAX's own), and the
    outermost one once."""
    jax = import_jax()
    import numpy
    from jax._src.array import ArrayImpl

    roots = _library_roots()
    state = record._inside

    def wrapped(kind: str, original: Callable[..., Any], test: Callable[..., bool] = lambda *a, **k: True
                ) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            caller = sys._getframe(1).f_code.co_filename
            if getattr(state, "busy", False) or record.step < 0 or caller.startswith(roots) or not test(
                    *args, **kwargs):
                return original(*args, **kwargs)
            state.busy = True
            try:
                record.transfer(kind, f"{caller}:{sys._getframe(1).f_lineno}")
                return original(*args, **kwargs)
            finally:
                state.busy = False
        return call

    def is_device_array(value: Any = None, *_: Any, **__: Any) -> bool:
        return isinstance(value, jax.Array) and not isinstance(value, jax.core.Tracer)

    saved: list[tuple[Any, str, Any]] = [(ArrayImpl, name, ArrayImpl.__dict__.get(name)) for name in CONVERSIONS]
    saved += [(jax, "device_get", jax.device_get), (numpy, "asarray", numpy.asarray), (numpy, "array", numpy.array)]
    try:
        for name, kind in CONVERSIONS.items():
            if ArrayImpl.__dict__.get(name) is not None:
                setattr(ArrayImpl, name, wrapped(kind, ArrayImpl.__dict__[name]))
        jax.device_get = wrapped("jax.device_get", jax.device_get)
        numpy.asarray = wrapped("NumPy conversion", numpy.asarray, is_device_array)
        numpy.array = wrapped("NumPy conversion", numpy.array, is_device_array)
        yield
    finally:
        for owner, name, original in saved:
            if original is not None:
                setattr(owner, name, original)


@contextmanager
def compile_log() -> Iterator[list[str]]:
    """The names and shapes JAX logs as it compiles (``jax_log_compiles``), while the block runs."""
    jax = import_jax()
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, entry: logging.LogRecord) -> None:
            text = entry.getMessage()
            if text.startswith("Compiling "):
                messages.append(text.split(". Argument mapping")[0][:300])

    handler, logger = Collect(level=logging.DEBUG), logging.getLogger("jax")
    previous_level, previous_flag, propagate = logger.level, jax.config.jax_log_compiles, logger.propagate
    logger.addHandler(handler)
    logger.propagate = False  # the messages are collected, not printed
    jax.config.update("jax_log_compiles", True)
    try:
        yield messages
    finally:
        jax.config.update("jax_log_compiles", previous_flag)
        logger.removeHandler(handler)
        logger.setLevel(previous_level)
        logger.propagate = propagate


def callbacks_in(step: Callable[..., Any], *arguments: Any) -> list[dict[str, str]]:
    """Host callbacks compiled into the step, each with the user's line (empty when the step cannot be traced)."""
    jax = import_jax()
    try:
        from jax._src import source_info_util

        jaxpr = jax.make_jaxpr(step)(*arguments)
    except Exception:  # noqa: BLE001 - a step that does not trace has other findings
        return []
    found = []
    for equation in equations(jaxpr):
        if equation.primitive.name in CALLBACKS:
            where = re.match(r"^(.+?):(\d+)(?::\d+)? \(", source_info_util.summarize(equation.source_info))
            found.append({"primitive": equation.primitive.name,
                          "location": f"{where.group(1)}:{where.group(2)}" if where else ""})
    return found


def traced_error(error: BaseException) -> dict[str, str]:
    """A tracer conversion error (NumPy or Python conversion of a traced value), with the user's line; {} else."""
    if type(error).__name__ not in TRACER_ERRORS:
        return {}
    import traceback

    frames = [(f.filename, f.lineno or 0) for f in reversed(traceback.extract_tb(error.__traceback__))]
    return {"error": type(error).__name__, "message": str(error).strip().splitlines()[0][:300],
            "location": user_line(iter(frames), _library_roots())}


def run_recorded(step: Callable[[Any, Any], Any], params: Any, batch: Callable[[int], Any], steps: int
                 ) -> tuple[Recording, Any]:
    """Run ``steps`` steps under the recorders (each step's output carried as the workload contract says); the
    recording and the last output."""
    jax = import_jax()
    record = Recording()
    output, carry = None, None
    with recording_transfers(record), compile_log() as messages:
        for index in range(steps):
            inputs = jax.device_put(batch(index))
            seen = len(messages)
            record.step = index
            try:
                with Compiles() as counted:
                    output = jax.block_until_ready(step(params, inputs))
            except Exception as error:
                record.step = -1
                found = traced_error(error)
                if not found:
                    raise
                record.traced_error = found
                break
            record.step = -1
            carry = carry or carrier(params, output, jax)[0]
            params = carry(output)
            if index and counted.traces:
                record.compiles.append({"step": index, "count": counted.traces, "programs": messages[seen:][:5]})
    if not record.traced_error:
        record.callbacks = callbacks_in(step, params, jax.device_put(batch(0)))
    return record, output
