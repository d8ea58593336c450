"""What a check is: its spec (id, where its code lives, suites, timeout) and what its code may say (Skip, Fail)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class Skip(Exception):  # noqa: N818 - a signal, not an error
    """The check does not apply here (no device, unsupported dtype); the message says why."""


class Fail(Exception):  # noqa: N818 - a signal, not an error
    """The check ran and the result is wrong; the message says what."""


INPUT_ERROR = "input_error"
"""Key of a result's details when the work stopped on the user's input (a workload that does not load): the
parent turns it back into an ``InputError`` (exit 2) instead of a failed result."""


def import_torch() -> Any:
    """torch, or Skip when it is not installed."""
    try:
        import torch
    except ImportError as error:
        raise Skip(f"torch is not installed ({error})") from error
    return torch


@dataclass
class CheckContext:
    """What a running check gets: where to run, and where to put what it measured."""

    device: str = "auto"
    """``auto``, ``cpu``, ``cuda`` or ``cuda:N`` (ROCm builds of torch also call the GPU ``cuda``)."""
    options: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    reporter: Callable[[str], None] | None = None
    """Where ``progress`` goes (the worker sends it to the parent; nowhere by default)."""

    def progress(self, message: str) -> None:
        """Say what a long check is doing now (shown to the user while it runs)."""
        if self.reporter is not None:
            self.reporter(message)

    def record(self, name: str, value: float) -> None:
        """A number worth keeping (max error, bytes, seconds)."""
        self.metrics[name] = float(value)

    def note(self, name: str, value: Any) -> None:
        """A detail worth keeping (dtype, backend, shape)."""
        self.details[name] = value


CheckFunction = Callable[[CheckContext], None]


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """One check: a stable id and a lazy reference to its code."""

    id: str
    target: str
    """``package.module:function``, imported only in the process that runs it."""
    suites: tuple[str, ...] = ("full",)
    framework: str = "torch"
    timeout_s: float = 120.0
    description: str = ""

    def load(self) -> CheckFunction:
        """Import the check function (in the worker, never in the CLI)."""
        module_name, _, attribute = self.target.partition(":")
        function: CheckFunction = getattr(importlib.import_module(module_name), attribute)
        return function
