"""Shared test settings: device tests are skipped unless asked for; torch tests need torch."""

from __future__ import annotations

import importlib.util

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--device", action="store_true", help="run tests that need a real accelerator")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    has_torch = importlib.util.find_spec("torch") is not None
    for item in items:
        if "device" in item.keywords and not config.getoption("--device"):
            item.add_marker(pytest.mark.skip(reason="needs an accelerator (run with --device)"))
        if "torch" in item.keywords and not has_torch:
            item.add_marker(pytest.mark.skip(reason="torch is not installed"))
