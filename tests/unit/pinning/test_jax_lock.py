"""JAX in lock and verify (#17.4): jax, jaxlib, the GPU plugin and its PJRT runtime are locked, and their drift is
classified as a framework change (the likely cause of a regression), as torch's is; the backend's platform version
(the CUDA or ROCm runtime the plugin runs on) is a framework fact too."""

from __future__ import annotations

import dataclasses
import json

from gpuready._framework_child import MARKER
from gpuready.model import Device, Fact, Fingerprint, Framework, Package, Vendor
from gpuready.model.build import is_gpu_package
from gpuready.pinning import ChangeKind, classify_changes
from gpuready.pinning.lockfile import Lock, LockedBench, Thresholds, installed_distributions, pinned_requirements
from gpuready.pinning.verify import verify
from gpuready.probe.frameworks import framework_from_child
from gpuready.probe.system import CommandResult
from tests.unit.comparison.builders import bench_run, step_times

ROCM_WHEEL = ("https://repo.radeon.com/rocm/manylinux/rocm-rel-7.1.1/"
              "jax_rocm7_plugin-0.7.1-cp312-cp312-manylinux_2_28_x86_64.whl")
STACK = {"jax": "0.7.1", "jaxlib": "0.7.1", "jax-rocm7-plugin": "0.7.1", "jax-rocm7-pjrt": "0.7.1", "flax": "0.10.4",
         "optax": "0.2.4"}


def _jax(facts: dict[str, object]) -> Framework:
    packages = (Package("jax", "0.7.1"),)
    result = CommandResult(("python",), 0, MARKER + json.dumps({"ok": True, "facts": facts}) + "\n")
    return framework_from_child("jax", packages, result)


def _fingerprint(platform_version: str) -> Fingerprint:
    framework = _jax({"version": "0.7.1", "default_backend": "gpu", "platform_version": platform_version,
                      "device_count": 1, "device_names": ["AMD Instinct MI300X"], "device_archs": ["gfx942"],
                      "platforms": ["rocm"]})
    return Fingerprint(devices=(Device(0, Vendor.AMD, name=Fact.of("AMD Instinct MI300X")),), frameworks=(framework,))


def _lock() -> Lock:
    baseline = bench_run("AMD Instinct MI300X", step_times(0.1, 40, 0.01, seed=1)).measurements
    return Lock(_fingerprint("rocm 70101"), dict(STACK), {"jax-rocm7-plugin": ROCM_WHEEL},
                check_suite="quick", checks={"jax.ops.matmul": "pass", "jax.train.mlp": "pass"},
                benches=(LockedBench({"workload": "transformer", "framework": "jax"}, baseline),),
                thresholds=Thresholds(0.05), tool_version="test")


def test_the_child_reports_the_backend_platform_version_and_device_archs() -> None:
    framework = _fingerprint("rocm 70101").frameworks[0]
    assert framework.backend_version.value == "rocm 70101"
    assert framework.device_archs.value == ("gfx942",)
    assert framework.variant.value is not None and framework.variant.value.value == "rocm"
    older = _jax({"version": "0.4.35", "default_backend": "cpu", "device_count": 1, "platforms": ["cpu"]})
    assert older.backend_version.status.value == "unsupported"  # a child of an older gpuready reported none


def test_jax_jaxlib_plugin_and_pjrt_changes_are_framework_drift() -> None:
    before, after = _fingerprint("rocm 70101"), _fingerprint("rocm 70200")
    packages = {**STACK, "jax": "0.8.2", "jaxlib": "0.8.2", "jax-rocm7-plugin": "0.8.2", "jax-rocm7-pjrt": "0.8.2",
                "flax": "0.11.0"}
    old = [Package(n, v) for n, v in STACK.items()]
    new = [Package(n, v) for n, v in packages.items()]
    changes = {c.field: c for c in classify_changes(dataclasses.replace(before, packages=tuple(old)),
                                                    dataclasses.replace(after, packages=tuple(new)))}
    for name in ("package jax", "package jaxlib", "package jax-rocm7-plugin", "package jax-rocm7-pjrt", "jax backend"):
        assert changes[name].kind is ChangeKind.FRAMEWORK and changes[name].relevant, name
    assert changes["jax backend"].before == "rocm 70101" and changes["jax backend"].after == "rocm 70200"
    assert changes["package flax"].kind is ChangeKind.PYTHON_PACKAGES and not changes["package flax"].relevant


def test_a_plugin_upgrade_is_drift_and_the_likely_cause_of_a_slowdown() -> None:
    lock = _lock()
    distributions = {**lock.distributions, "jax-rocm7-plugin": "0.7.2", "optax": "0.2.5"}

    def slower(options: object) -> object:
        return bench_run("AMD Instinct MI300X", step_times(0.115, 40, 0.01, seed=2)).measurements

    report = verify(lock, lock.fingerprint, distributions, lambda ids, device: [], slower)  # type: ignore[arg-type]
    assert not report.ok and [b.verdict.regressed for b in report.benches] == [True]
    assert [c.field for c in report.drift] == ["package jax-rocm7-plugin"]
    assert report.likely_cause is not None and report.likely_cause.after == "0.7.2"
    unchanged = verify(lock, lock.fingerprint, lock.distributions, None, None)
    assert unchanged.ok and unchanged.changes == ()


def test_every_jax_distribution_that_carries_gpu_code_is_a_framework_package() -> None:
    for name in ("jax", "jaxlib", "jax-rocm7-plugin", "jax_rocm7_pjrt", "jax-rocm60-plugin", "jax-cuda12-plugin",
                 "jax-cuda12-pjrt", "jax-cuda13-pjrt"):
        assert is_gpu_package(name), name
    assert not any(is_gpu_package(name) for name in ("flax", "optax", "orbax-checkpoint"))


def test_pinned_requirements_keep_the_vendor_wheel_of_the_plugin() -> None:
    text = pinned_requirements(_lock())
    assert f"jax-rocm7-plugin @ {ROCM_WHEEL}" in text
    assert "jax==0.7.1" in text and "jaxlib==0.7.1" in text and "jax-rocm7-pjrt==0.7.1" in text
    assert "download.pytorch.org" not in text


def test_this_environment_locks_jax_and_jaxlib() -> None:
    import importlib.util

    versions, _ = installed_distributions()
    if importlib.util.find_spec("jax") is not None:
        assert {"jax", "jaxlib"} <= versions.keys()
