"""Count JAX's traces and XLA compilations, with their seconds, through ``jax.monitoring`` (one listener per
process, registered on first use). The jit check counts recompilations with it, the audit finds recompilation inside
a training loop, and the benchmark reports compile time apart from step time."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"

_lock = threading.Lock()
_totals: dict[str, list[float]] = {TRACE_EVENT: [], COMPILE_EVENT: []}
_registered = False


def _listen(event: str, seconds: float, **_: Any) -> None:
    if event in _totals:
        with _lock:
            _totals[event].append(float(seconds))


def _register() -> None:
    global _registered
    if not _registered:
        import jax.monitoring

        jax.monitoring.register_event_duration_secs_listener(_listen)
        _registered = True


@dataclass
class Compiles:
    """What JAX traced and compiled since this counter started (``with Compiles() as counted: ...``)."""

    traces: int = 0
    compiles: int = 0
    compile_seconds: float = 0.0
    _start: dict[str, int] = field(default_factory=dict)

    def __enter__(self) -> Compiles:
        _register()
        with _lock:
            self._start = {event: len(values) for event, values in _totals.items()}
        return self

    def __exit__(self, *exc: object) -> None:
        self.update()

    def update(self) -> Compiles:
        """Bring the counts up to now (also inside the ``with`` block)."""
        with _lock:
            traced = _totals[TRACE_EVENT][self._start.get(TRACE_EVENT, 0):]
            compiled = _totals[COMPILE_EVENT][self._start.get(COMPILE_EVENT, 0):]
        self.traces, self.compiles, self.compile_seconds = len(traced), len(compiled), float(sum(compiled))
        return self
