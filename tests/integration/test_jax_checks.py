"""Every JAX check on the CPU (its host devices standing in for GPUs in the collectives), isolated as the torch
checks are; and the planted-fault approach: ops patched to return wrong values, a silent CPU fallback on a machine
said to have a GPU, and a checkpoint restore that drops a leaf, each failing the right check (#17)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpuready.checks.registry import BUILTIN
from gpuready.isolation.launchers import SubprocessLauncher
from gpuready.model import CheckResult, CheckStatus

pytestmark = pytest.mark.jax

WRONG_OPS = """
import jax, jax.numpy as jnp

_matmul, _fft, _ppermute = jnp.matmul, jnp.fft.fft, jax.lax.ppermute

def matmul(a, b, **kwargs):  # float32 products off by one part in a thousand
    out = _matmul(a, b, **kwargs)
    return out * 1.001 if out.dtype == jnp.float32 else out

def fft(a, *args, **kwargs):  # one bin of the spectrum lost
    return _fft(a, *args, **kwargs).at[..., 3].set(0)

def ppermute(x, axis_name, perm, **kwargs):  # the ring does not turn
    return x

jnp.matmul, jnp.fft.fft, jax.lax.ppermute = matmul, fft, ppermute
"""

DROPPED_LEAF = """
import orbax.checkpoint as ocp

_restore = ocp.StandardCheckpointer.restore

def restore(self, directory, target=None, **kwargs):  # a checkpoint that comes back without one array
    state = _restore(self, directory, target, **kwargs)
    del state["params"]["fc2"]["b"]
    return state

ocp.StandardCheckpointer.restore = restore
"""


def _run(ids: list[str], device: str = "cpu", plant: str = "", tmp_path: Path | None = None,
         options: dict[str, object] | None = None) -> dict[str, CheckResult]:
    env = None
    if plant and tmp_path is not None:
        (tmp_path / "sitecustomize.py").write_text(plant)
        env = {"PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    launcher = SubprocessLauncher(device=device, env=env, options=options or {})
    return {r.check_id: r for r in launcher.run([BUILTIN.get(i) for i in ids])}


def test_every_jax_check_passes_on_the_cpu() -> None:
    specs = [s for s in BUILTIN if s.framework == "jax"]
    results = {r.check_id: r for r in SubprocessLauncher(device="cpu").run(specs)}
    problems = {i: (r.status.value, r.details.get("reason")) for i, r in results.items()
                if r.status is not CheckStatus.PASS}
    assert problems == {} and len(results) == 20
    assert all(r.device.startswith("cpu:") for r in results.values())
    matmul = results["jax.ops.matmul"].metrics
    assert matmul["matmul.float64.rel_err"] < 1e-12 and 0 < matmul["matmul.bfloat16.rel_err"] < 4e-2
    assert 0 < max(v for k, v in matmul.items() if k.endswith("error_over_bound")) < 1
    assert results["jax.ops.attention"].details["implementations_run"][:2] == ["default", "xla"]
    assert results["jax.train.transformer"].metrics["transformer.loss_trajectory.rel_err"] < 1e-5
    assert results["jax.checkpoint.roundtrip"].metrics["arrays_compared"] >= 15
    assert results["jax.jit.recompilation"].details["compilations"]["new shape"] == 1
    assert results["jax.distributed.local"].details["devices"] == 4
    processes = results["jax.distributed.processes"]
    assert processes.details["process_count"] == 2 and processes.metrics["ops_ok"] >= 50
    backend = results["jax.device.backend"]
    assert backend.details["versions"]["jax"] and "jaxlib" in backend.details["versions"]


def test_wrong_ops_and_a_silent_cpu_fallback_fail_the_right_checks(tmp_path: Path) -> None:
    ids = ["jax.device.backend", "jax.ops.matmul", "jax.ops.fft", "jax.ops.sort_topk", "jax.distributed.local"]
    results = _run(ids, "auto", WRONG_OPS, tmp_path, options={"gpu_vendors": ["amd"]})
    status = {i: r.status for i, r in results.items()}
    assert status == {"jax.device.backend": CheckStatus.FAIL, "jax.ops.matmul": CheckStatus.FAIL,
                      "jax.ops.fft": CheckStatus.FAIL, "jax.ops.sort_topk": CheckStatus.PASS,
                      "jax.distributed.local": CheckStatus.FAIL}, {i: r.details.get("reason") for i, r in
                                                                  results.items()}
    assert "has a GPU (amd) but JAX runs on the CPU" in results["jax.device.backend"].details["reason"]
    matmul = results["jax.ops.matmul"].details["reason"]
    assert "matmul.float32: relative error 1.00e-03" in matmul and "bfloat16" not in matmul
    assert results["jax.ops.fft"].details["reason"].startswith("fft: relative error")
    assert results["jax.distributed.local"].details["reason"].startswith("wrong results: ppermute.")


def test_asking_for_a_gpu_jax_does_not_have_fails() -> None:
    [result] = _run(["jax.device.backend"], "cuda").values()
    assert result.status is CheckStatus.FAIL
    assert "--device cuda was asked for, but JAX runs on cpu: no GPU plugin loaded" in result.details["reason"]


def test_a_checkpoint_that_drops_a_leaf_fails_the_checkpoint_check(tmp_path: Path) -> None:
    [result] = _run(["jax.checkpoint.roundtrip"], plant=DROPPED_LEAF, tmp_path=tmp_path).values()
    assert result.status is CheckStatus.FAIL, result.details
    reason = result.details["reason"]
    assert reason.startswith("orbax: 1 of ") and "missing: params/fc2/b" in reason and "flax" not in reason
