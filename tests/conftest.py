"""Shared test settings: device tests are skipped unless asked for; torch tests need torch, jax tests
JAX with flax, optax and orbax."""

from __future__ import annotations

import importlib.util
import os
import time
import uuid
from collections.abc import Iterator

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


@pytest.fixture(scope="module")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PostgreSQL server: GPUREADY_TEST_POSTGRES, or one started from the pgserver wheel (CI installs it). One per
    test module: a server started early would not outlive the isolation tests, which end stray processes."""
    if os.environ.get("GPUREADY_TEST_POSTGRES"):
        yield os.environ["GPUREADY_TEST_POSTGRES"]
        return
    pgserver = pytest.importorskip("pgserver", reason="no PostgreSQL: set GPUREADY_TEST_POSTGRES or install pgserver")
    pytest.importorskip("psycopg")
    for attempt in range(3):  # initdb/pg_ctl start can lose a race on a loaded machine: try a fresh directory
        try:
            server = pgserver.get_server(tmp_path_factory.mktemp("pgdata"), cleanup_mode="stop")
            break
        except Exception:  # pgserver raises its own and subprocess errors
            if attempt == 2:
                raise
    yield server.get_uri()
    server.cleanup()


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A fresh database on the server for one test, dropped afterwards."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from gpuready.store.database import _with_driver

    name = f"gpuready_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(_with_driver(postgres_server), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}"))
    url = make_url(_with_driver(postgres_server)).set(database=name).render_as_string(hide_password=False)
    yield url
    from sqlalchemy.exc import OperationalError

    for attempt in range(5):  # FORCE ends the test's sessions; on a loaded machine the admin link can go with them,
        try:                  # and a server that lost a backend answers "in recovery mode" for a few seconds
            with admin.connect() as connection:
                connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            break
        except OperationalError:
            admin.dispose()  # a fresh connection for the next try; the fifth failure is a real one
            if attempt == 4:
                raise
            time.sleep(1 + attempt)
    admin.dispose()
