"""What a workload is, for every experiment that runs one (check, audit, bench).

``Recipe``: a model factory (a fresh, seeded model per call), a batch for step ``i`` and the loss; the training checks
build the model twice (device and CPU reference) from one recipe.

``Workload``: one built model with its batches and loss, and ``identity``: the settings that say *which* workload
this is (its id, the model configuration's hash and, for the user's factory, a hash of its source), so that two
measurements are compared only when they measured the same thing.

``JaxRecipe`` and ``JaxWorkload`` are the same two ideas for JAX, where a model is a pure function of its parameters
and a step is a function ``(state, batch) -> state``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Recipe:
    """A model factory with deterministic data and its loss."""

    name: str
    make_model: Callable[[], Any]
    batch: Callable[[int], tuple[Any, Any]]
    loss: Callable[[Any, Any], Any]


@dataclass(frozen=True)
class Workload:
    """The pieces of a training or inference step.

    The user's factory returns a mapping (or an object) with ``model`` (an nn.Module), ``batch`` (``step -> (inputs,
    target)``), ``loss`` (``(output, target) -> loss``), and optionally ``optimizer`` (``parameters -> optimizer``)
    and ``placed`` (True when the model places itself and its inputs on the device).
    """

    name: str
    model: Any
    batch: Callable[[int], tuple[Any, Any]]
    loss: Callable[[Any, Any], Any]
    optimizer: Callable[[Any], Any] | None = None
    placed: bool = False
    identity: dict[str, Any] = field(default_factory=dict)
    """Settings that identify this workload in a Measurement (``workload``, ``model_config``, ``source_hash``)."""


def config_hash(config: Any) -> str:
    """A short, stable hash of a model configuration (any JSON-able value; other values by their text)."""
    text = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class JaxRecipe:
    """A JAX model as pure functions: seeded parameters in a dtype, the forward pass, deterministic data, the loss."""

    name: str
    init: Callable[[Any], Any]
    """``dtype -> params`` (the same numbers on every call, from a fixed seed)."""
    apply: Callable[..., Any]
    """``(params, inputs, dropout_key=None) -> output``; dropout (where the model has it) only with a key."""
    batch: Callable[[int], tuple[Any, Any]]
    """``step -> (inputs, target)`` as NumPy arrays."""
    loss: Callable[[Any, Any], Any]
    tokens: bool = False
    """The inputs are token ids (throughput is counted in tokens too)."""


@dataclass(frozen=True)
class JaxWorkload:
    """A JAX step to time or audit.

    The user's factory returns a mapping (or an object) with ``step`` (``(params, batch) -> new params``, or
    ``(new params, anything)``, or anything else for an inference step, whose ``params`` are then reused),
    ``params`` (the pytree the step carries: parameters, optimizer state...) and ``batch`` (``step -> batch``, a
    pytree of arrays), and optionally ``tokens_per_step``.
    """

    name: str
    step: Callable[[Any, Any], Any]
    params: Any
    batch: Callable[[int], Any]
    tokens_per_step: int = 0
    identity: dict[str, Any] = field(default_factory=dict)
    """Settings that identify this workload in a Measurement, as ``Workload.identity``."""
