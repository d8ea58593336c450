"""The JAX checks' pure parts (no JAX needed): version pairing and what the compatibility data says of it, suites
with and without JAX installed, the bench options JAX refuses, the shared model identity, and commands that must not
import JAX (#17)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpuready.checks import numpy_reference
from gpuready.checks.driver import selected
from gpuready.checks.jax.device import data_notes, pairing_misses
from gpuready.errors import InputError
from gpuready.model.config import BenchConfig, CheckConfig
from gpuready.workloads.loader import builtin_identity
from gpuready.workloads.resolve import require_framework, resolve


def test_a_plugin_or_pjrt_of_another_release_than_jaxlib_does_not_pair() -> None:
    paired = {"jax": "0.7.1", "jaxlib": "0.7.1", "jax-rocm7-plugin": "0.7.1", "jax-rocm7-pjrt": "0.7.1"}
    assert pairing_misses(paired) == []
    assert pairing_misses({**paired, "jax-rocm7-plugin": "0.7.1.post2"}) == []  # ROCm fixes ship as .postN
    [miss] = pairing_misses({**paired, "jax-cuda12-pjrt": "0.6.0"})
    assert miss == "jax-cuda12-pjrt 0.6.0 does not pair with jaxlib 0.7.1 (pip install jax-cuda12-pjrt==0.7.1)"
    assert pairing_misses({"jax": "0.7.1"}) == ["jaxlib is not installed"]


def test_the_compatibility_data_is_consulted_for_rocm_plugins() -> None:
    [known] = data_notes({"jax": "0.7.1", "jaxlib": "0.7.1", "jax-rocm7-plugin": "0.7.1"}, None)
    assert known.startswith("jax-rocm7-plugin with jax 0.7.1: in gpuready's data for ROCm 7.1 (https://")
    [unknown] = data_notes({"jax": "0.3.0", "jaxlib": "0.3.0", "jax-rocm7-plugin": "0.3.0"}, None)
    assert unknown.endswith("not in gpuready's data (unknown pairing)")
    assert data_notes({"jax": "0.7.1", "jax-cuda12-plugin": "0.7.1"}, None) == []


def test_jax_checks_are_in_the_default_suite_only_when_jax_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "jax" else real(name, *a))
    assert not [s for s in selected(CheckConfig()) if s.framework == "jax"]
    assert {s.id for s in selected(CheckConfig(framework="jax"))} >= {"jax.device.backend", "jax.ops.matmul"}
    assert [s.id for s in selected(CheckConfig(only=("jax.ops.matmul",)))] == ["jax.ops.matmul"]
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object() if name == "jax" else real(name, *a))
    quick = {s.id for s in selected(CheckConfig())}
    assert {"torch.ops.matmul", "jax.device.backend", "jax.train.mlp", "jax.checkpoint.roundtrip"} <= quick


@pytest.mark.parametrize(("options", "field"), [
    ({"compile": True}, "compile"), ({"dataloader_workers": 2}, "dataloader_workers"),
    ({"micro": ("gemm", "copy")}, "micro"), ({"framework": "tensorflow"}, "framework")])
def test_bench_options_jax_cannot_honour_are_refused(options: dict[str, object], field: str) -> None:
    with pytest.raises(InputError) as refused:
        BenchConfig(**{"framework": "jax", **options})  # type: ignore[arg-type]
    assert refused.value.field == field
    BenchConfig(framework="jax", micro=("gemm",))


def test_only_the_jax_built_ins_and_factories_run_under_jax() -> None:
    for spec in ("cnn", "hf:llama"):
        with pytest.raises(InputError, match="no JAX"):
            require_framework(resolve(spec), "jax")
    for spec in ("mlp", "transformer", f"{Path(__file__).parents[2] / 'fixtures' / 'jax-models' / 'steps.py'}:linear"):
        require_framework(resolve(spec), "jax")
    require_framework(resolve("cnn"), "torch")


def test_one_preset_one_identity() -> None:
    preset, identity = builtin_identity("transformer", "small", None)
    assert preset == {"width": 256, "heads": 8, "layers": 4, "sequence": 256}
    assert identity["size"] == "small" and identity["sequence"] == 256 and len(identity["model_config"]) == 16
    assert builtin_identity("transformer", "small", 128)[1]["model_config"] != identity["model_config"]


def test_numpy_references_match_finite_differences() -> None:
    rng = np.random.default_rng(0)
    x, w, g = rng.standard_normal((3, 8)), rng.standard_normal(8), rng.standard_normal((3, 8))
    for name, function in numpy_reference.NORMS_ACTIVATIONS.items():
        _, grad = function(x, w, g)
        step = np.zeros_like(x)
        step[1, 2] = 1e-6
        numeric = ((function(x + step, w, g)[0] - function(x - step, w, g)[0]) * g).sum() / 2e-6
        assert grad[1, 2] == pytest.approx(numeric, rel=1e-5, abs=1e-8), name
    image, kernel, upstream = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3)), \
        rng.standard_normal((1, 3, 5, 5))
    grad_x, grad_w = numpy_reference.conv2d_grads(image, kernel, upstream, 1)
    for array, grad, index in ((image, grad_x, (0, 1, 2, 3)), (kernel, grad_w, (2, 1, 0, 2))):
        bumped = array.copy()
        bumped[index] += 1e-6
        args = (bumped, kernel) if array is image else (image, bumped)
        numeric = ((numpy_reference.conv2d(*args, np.zeros(3), 1) -
                    numpy_reference.conv2d(image, kernel, np.zeros(3), 1)) * upstream).sum() / 1e-6
        assert grad[index] == pytest.approx(numeric, rel=1e-4)


def test_commands_that_run_nothing_do_not_import_jax() -> None:
    code = ("import sys; from gpuready.cli import main; main(['bench', '--help']); main(['audit', '--help']); "
            "main(['check', '--list', '--framework', 'jax']); print('HEAVY', [m for m in ('jax', 'jaxlib', 'flax', "
            "'optax', 'orbax') if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in done.stdout and "jax.device.backend" in done.stdout
