"""Upgrades simulated on recorded fingerprints, one change at a time; the noise-aware regression rule."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from packaging.version import Version

from gpuready.model import Fact, Fingerprint, Package
from gpuready.pinning import ChangeKind, classify_changes, judge_regression, likely_cause
from gpuready.probe.paste import read_fingerprint

FIXTURES = Path(__file__).parents[2] / "fixtures" / "collect-env"


def _recorded(name: str) -> Fingerprint:
    return read_fingerprint(FIXTURES / name, None)[1]


@pytest.fixture(params=["rocm6.4-wsl2-no-gpu-detected-torch2.8.txt", "cuda12.4-8xh100-torch2.5.1.txt"])
def recorded(request: pytest.FixtureRequest) -> Fingerprint:
    return _recorded(request.param)


def _with_package(fingerprint: Fingerprint, name: str, version: str) -> Fingerprint:
    packages = tuple(p for p in fingerprint.packages if p.name.lower() != name) + (Package(name, version),)
    return dataclasses.replace(fingerprint, packages=packages)


def test_the_same_fingerprint_has_no_changes(recorded: Fingerprint) -> None:
    assert classify_changes(recorded, recorded) == []


def test_a_kernel_driver_upgrade(recorded: Fingerprint) -> None:
    after = dataclasses.replace(recorded, stack=dataclasses.replace(
        recorded.stack, amdgpu_driver_version=Fact.of("6.12.12"), nvidia_driver_version=Fact.of("570.86.15")))
    changes = classify_changes(recorded, after)
    assert {c.kind for c in changes} == {ChangeKind.KERNEL_DRIVER}
    assert all(c.relevant for c in changes)


def test_a_rocm_or_cuda_upgrade(recorded: Fingerprint) -> None:
    after = dataclasses.replace(recorded, stack=dataclasses.replace(
        recorded.stack, rocm_version=Fact.of(Version("7.1")), cuda_toolkit_version=Fact.of(Version("12.8"))))
    changes = classify_changes(recorded, after)
    assert {c.kind for c in changes} == {ChangeKind.ROCM_CUDA}
    assert "7.1" in {c.after for c in changes} and likely_cause(changes) is changes[0]


def test_a_torch_upgrade(recorded: Fingerprint) -> None:
    torch = next(f for f in recorded.frameworks if f.name == "torch")
    upgraded = dataclasses.replace(torch, version=Fact.of("2.9.1+rocm6.4"))
    after = dataclasses.replace(recorded, frameworks=tuple(upgraded if f is torch else f for f in recorded.frameworks))
    after = _with_package(after, "torch", "2.9.1+rocm6.4")
    changes = classify_changes(recorded, after)
    assert {c.kind for c in changes} == {ChangeKind.FRAMEWORK}
    assert {c.field for c in changes} >= {"torch version"}


def test_a_non_framework_package_is_reported_but_not_relevant(recorded: Fingerprint) -> None:
    after = _with_package(recorded, "tqdm", "99.0")
    changes = classify_changes(recorded, after)
    assert [(c.kind, c.field, c.after) for c in changes] == [(ChangeKind.PYTHON_PACKAGES, "package tqdm", "99.0")]
    assert not changes[0].relevant


def test_a_gpu_relevant_environment_variable(recorded: Fingerprint) -> None:
    after = dataclasses.replace(recorded, environment={**recorded.environment, "HSA_OVERRIDE_GFX_VERSION": "11.0.0"})
    changes = classify_changes(recorded, after)
    assert [(c.kind, c.before, c.after) for c in changes] == [(ChangeKind.ENVIRONMENT, "", "11.0.0")]


def test_the_driver_is_blamed_before_a_package() -> None:
    before = _recorded("cuda12.4-8xh100-torch2.5.1.txt")
    after = _with_package(before, "tqdm", "99.0")
    after = dataclasses.replace(after, stack=dataclasses.replace(after.stack, nvidia_driver_version=Fact.of("999.1")))
    cause = likely_cause(classify_changes(before, after))
    assert cause is not None and cause.kind is ChangeKind.KERNEL_DRIVER


def _steps(median: float, noise: float, generator: random.Random, count: int = 50) -> list[float]:
    return [median * (1 + generator.gauss(0, noise)) for _ in range(count)]


@pytest.mark.parametrize("noise", [0.01, 0.03])
def test_a_ten_percent_slowdown_is_detected_at_gpu_noise_levels(noise: float) -> None:
    detected = 0
    for trial in range(40):
        generator = random.Random(trial)
        verdict = judge_regression(_steps(0.1, noise, generator), _steps(0.11, noise, generator), threshold=0.05)
        detected += verdict.regressed
    assert detected >= 38, f"only {detected}/40 detected at {noise:.0%} noise"


@pytest.mark.parametrize("noise", [0.01, 0.03, 0.10])
def test_a_a_raises_no_alarm_in_95_percent_of_trials(noise: float) -> None:
    alarms = 0
    for trial in range(100):
        generator = random.Random(1000 + trial)
        alarms += judge_regression(_steps(0.1, noise, generator), _steps(0.1, noise, generator)).regressed
    assert alarms <= 5


def test_a_slowdown_inside_wide_noise_does_not_count() -> None:
    generator = random.Random(3)
    baseline = _steps(0.1, 0.4, generator, count=8)
    current = [x * 1.08 for x in baseline[::-1]]
    verdict = judge_regression(baseline, current, threshold=0.05)
    assert not verdict.regressed and "noise" in verdict.reason


def test_throughput_regressions_read_the_other_way() -> None:
    verdict = judge_regression([100.0] * 10 + [101.0] * 10, [80.0] * 10 + [81.0] * 10, higher_is_better=True)
    assert verdict.regressed and verdict.slowdown.ratio == pytest.approx(100.5 / 80.5, rel=0.01)


def test_a_variable_unset_since_the_lock_and_a_package_no_longer_installed_are_drift(recorded: Fingerprint) -> None:
    """Both once raised KeyError (exit 3) in the most ordinary verify."""
    locked = dataclasses.replace(_with_package(recorded, "flash-attn", "2.7.4"),
                                 environment={**recorded.environment, "HSA_OVERRIDE_GFX_VERSION": "11.0.0"})
    now = dataclasses.replace(recorded, packages=tuple(p for p in recorded.packages if p.name != "flash-attn"),
                              environment={k: v for k, v in recorded.environment.items()
                                           if k != "HSA_OVERRIDE_GFX_VERSION"})
    changes = {c.field: c for c in classify_changes(locked, now)}
    variable = changes["env HSA_OVERRIDE_GFX_VERSION"]
    assert variable.before == "11.0.0" and variable.after == ""
    assert changes["package flash-attn"].kind is ChangeKind.FRAMEWORK and changes["package flash-attn"].after == ""
    assert changes["env HSA_OVERRIDE_GFX_VERSION"].relevant
