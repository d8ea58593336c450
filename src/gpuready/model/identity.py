"""When two measurements measured the same thing (one home for compare and verify)."""

from __future__ import annotations

import json
from typing import Any

from gpuready.model.results import Measurement

FLOPS_TOLERANCE = 0.01
"""Counted FLOPs per step are a property of the model and the batch: more than 1% apart, it is not the same work."""
IMPLEMENTATION_SETTINGS = ("framework", "compile")
"""Settings that say how a workload ran, not what it is. Two frameworks' measurements of one workload (the same
built-in model and size, the same model-config hash) agree on every other setting: ``compare`` aligns them across
frameworks on the rest, and shows these side by side (``torch vs jax``)."""
DEFAULT_FRAMEWORK = "torch"
"""The framework of a measurement that names none (gpuready measured only with torch before JAX, and its micro
ceilings name none)."""
DEFAULT_FLOPS_SOURCE = "torch.utils.flop_counter"
"""Who counted a measurement's FLOPs when it does not say (torch's FlopCounterMode; JAX's come from XLA's cost
analysis, which also counts element-wise work: counts of two counters are never set against each other)."""


def settings_text(settings: dict[str, Any], leave_out: tuple[str, ...] = ()) -> str:
    """``batch_size=8, mode=train, ...`` (sorted) for people."""
    return ", ".join(f"{k}={v}" for k, v in sorted(settings.items()) if k not in leave_out)


def alignment_key(m: Measurement) -> str:
    """Workload, metric and every setting: equal keys are candidates for the same measurement."""
    return json.dumps([m.workload, m.metric, dict(sorted(m.settings.items()))], default=str, sort_keys=True)


def framework_of(m: Measurement) -> str:
    """The framework that measured ``m``."""
    return str(m.settings.get("framework") or DEFAULT_FRAMEWORK)


def flops_source(m: Measurement) -> str:
    """Who counted ``m``'s FLOPs."""
    return str(m.annotations.get("flops_source") or DEFAULT_FLOPS_SOURCE)


def workload_key(m: Measurement) -> str:
    """Workload, metric and every setting but the implementation ones (``IMPLEMENTATION_SETTINGS``): equal keys of
    two frameworks' measurements are the same workload run two ways."""
    settings = {k: v for k, v in sorted(m.settings.items()) if k not in IMPLEMENTATION_SETTINGS}
    return json.dumps([m.workload, m.metric, settings], default=str, sort_keys=True)


def _flops_per_item(m: Measurement) -> float | None:
    flops, batch = m.annotations.get("flops_per_step"), m.settings.get("batch_size")
    if not isinstance(flops, (int, float)) or isinstance(flops, bool) or not flops:
        return None
    return float(flops) / batch if isinstance(batch, int) and not isinstance(batch, bool) and batch > 0 else float(
        flops)


def same_work(a: Measurement, b: Measurement) -> bool:
    """False when both counted FLOPs and the counts per sample differ: the settings agree, yet the model does not
    (a Run of schema 1 recorded no model size, so a tiny and a small transformer had equal settings). Counts made by
    two different counters (torch's and XLA's) are not compared: the model-config hash says the model is the same."""
    per_a, per_b = _flops_per_item(a), _flops_per_item(b)
    if per_a is None or per_b is None or flops_source(a) != flops_source(b):
        return True
    return abs(per_a - per_b) <= FLOPS_TOLERANCE * max(per_a, per_b)
