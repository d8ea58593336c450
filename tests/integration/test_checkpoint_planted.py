"""The checkpoint check compares every loaded tensor bit for bit: a ``torch.load`` that changes one weight by 1e-6
(planted through sitecustomize in the resuming process) fails it (#19 item 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuready.checks.registry import BUILTIN
from gpuready.isolation.launchers import SubprocessLauncher

pytestmark = pytest.mark.torch

PERTURB = """
import torch
_load = torch.load

def load(*args, **kwargs):
    state = _load(*args, **kwargs)
    first = next(iter(state["model"]))
    state["model"][first] = state["model"][first] + 1e-6
    return state

torch.load = load
"""


def test_a_loaded_weight_off_by_a_millionth_fails_the_checkpoint_check(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    spec = BUILTIN.get("torch.checkpoint.roundtrip")
    [clean] = SubprocessLauncher(device="cpu").run([spec])
    assert clean.status.value == "pass", clean.details
    assert clean.metrics["tensors_compared"] > 10, "model, optimizer moments, scheduler, RNG and scaler"
    (tmp_path / "sitecustomize.py").write_text(PERTURB)
    import os

    launcher = SubprocessLauncher(device="cpu", env={"PYTHONPATH": f"{tmp_path}{os.pathsep}"
                                                                   f"{os.environ.get('PYTHONPATH', '')}"})
    [planted] = launcher.run([spec])
    assert planted.status.value == "fail", planted.details
    assert "differ after loading, bit for bit" in planted.details["reason"]
