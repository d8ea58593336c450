"""The check registry: one source of truth, duplicates rejected, did-you-mean, suites; JUnit output."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

from gpuready.checks.registry import BUILTIN, Registry
from gpuready.checks.selftest import SELFTEST
from gpuready.errors import InputError
from gpuready.isolation.spec import CheckSpec
from gpuready.model import CheckResult, CheckStatus, RunKind, make_run
from gpuready.report.junit import render_junit


def test_duplicate_ids_and_bad_targets_are_rejected() -> None:
    spec = CheckSpec(id="torch.x", target="a.b:c")
    with pytest.raises(ValueError, match="duplicate check id 'torch.x'"):
        Registry([spec, CheckSpec(id="torch.x", target="a.b:d")])
    with pytest.raises(ValueError, match="not 'module:function'"):
        Registry([CheckSpec(id="torch.y", target="a.b.c")])


def test_unknown_ids_get_did_you_mean() -> None:
    with pytest.raises(InputError, match="did you mean torch.ops.matmul"):
        BUILTIN.get("torch.ops.matmull")
    with pytest.raises(InputError, match="matches no check"):
        BUILTIN.select("full", only=("torch.opz.*",))


def test_suites() -> None:
    quick = {s.id for s in BUILTIN.select("quick")}
    full = {s.id for s in BUILTIN.select("full")}
    distributed = {s.id for s in BUILTIN.select("distributed")}
    assert quick < full and not distributed & full
    assert {"torch.ops.matmul", "torch.train.transformer", "torch.checkpoint.roundtrip"} <= quick
    assert {"torch.ops.fft", "torch.compile.equivalence"} <= full - quick
    assert distributed == {"torch.distributed.collectives", "torch.distributed.ddp", "jax.distributed.local",
                           "jax.distributed.processes"}
    ops = {i for i in full if i.startswith("torch.ops")}
    assert {s.id for s in BUILTIN.select("full", only=("torch.ops.*",))} == ops
    assert all(s.framework == "jax" for s in BUILTIN.select("quick", framework="jax"))
    jax_quick = {s.id for s in BUILTIN.select("quick", framework="jax")}
    assert {"jax.device.backend", "jax.ops.matmul", "jax.train.mlp", "jax.checkpoint.roundtrip"} <= jax_quick
    assert {"jax.ops.fft", "jax.train.transformer", "jax.jit.equivalence", "jax.jit.recompilation"} <= full - quick
    assert "jax.basics" not in quick | full | distributed and BUILTIN.get("jax.basics").framework == "jax"


def test_every_builtin_target_exists() -> None:
    import importlib

    for spec in [*BUILTIN, *SELFTEST]:
        module, _, attribute = spec.target.partition(":")
        assert callable(getattr(importlib.import_module(module), attribute)), spec.id


def test_listing_checks_imports_no_framework() -> None:
    import subprocess
    import sys

    code = ("import sys; from gpuready.checks.registry import BUILTIN; BUILTIN.select('full'); "
            "print([m for m in ('torch', 'jax') if m in sys.modules])")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "[]"


def test_junit() -> None:
    run = make_run(RunKind.CHECK, "t", results=(
        CheckResult("torch.ops.matmul", CheckStatus.PASS, 0.5, "cpu"),
        CheckResult("torch.ops.fft", CheckStatus.FAIL, 0.1, "cpu", details={"reason": "fft: relative error 1e-2"}),
        CheckResult("torch.device.hang", CheckStatus.TIMEOUT, 5.0, "cpu", details={"reason": "no result", "output_tail":
                                                                                 "stuck <here> & there"}),
        CheckResult("torch.device.streams", CheckStatus.SKIP, 0.0, "cpu", details={"reason": "needs a GPU"}),
    ))
    suite = ElementTree.fromstring(render_junit(run).split("\n", 1)[1])
    counts = (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped"))
    assert counts == ("4", "1", "1", "1")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["fft"].find("failure").get("message") == "fft: relative error 1e-2"  # type: ignore[union-attr]
    assert "stuck <here> & there" in (cases["hang"].find("error").text or "")  # type: ignore[union-attr]
    assert cases["streams"].find("skipped") is not None
