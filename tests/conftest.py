"""Shared test settings: device tests are skipped unless asked for; torch tests need torch, jax tests
JAX with flax, optax and orbax."""

from __future__ import annotations

import importlib.util

import pytest


@pytest.fixture(autouse=True)
def _private_run_store(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands save their Runs by default: keep every test's Runs out of the user's data directory."""
    folder = tmp_path_factory.mktemp("store")
    monkeypatch.setenv("GPUREADY_STORE", f"sqlite:///{folder / 'runs.sqlite'}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--device", action="store_true", help="run tests that need a real accelerator")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    has_torch = importlib.util.find_spec("torch") is not None
    has_jax = all(importlib.util.find_spec(name) is not None for name in ("jax", "flax", "optax", "orbax"))
    for item in items:
        if "device" in item.keywords and not config.getoption("--device"):
            item.add_marker(pytest.mark.skip(reason="needs an accelerator (run with --device)"))
        if "torch" in item.keywords and not has_torch:
            item.add_marker(pytest.mark.skip(reason="torch is not installed"))
        if "jax" in item.keywords and not has_jax:
            item.add_marker(pytest.mark.skip(reason="jax, flax, optax or orbax-checkpoint is not installed"))
