"""The run store: one row per Run (the JSON document plus columns to filter on); writes are transactions, so
concurrent writers lose nothing and a killed writer leaves every committed Run intact. Never pickle."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuready.errors import GpureadyError, InputError
from gpuready.model import Run

SCHEMA_MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, (
        "CREATE TABLE IF NOT EXISTS runs (id VARCHAR(64) PRIMARY KEY, kind VARCHAR(16) NOT NULL, "
        "created_at VARCHAR(40) NOT NULL, label VARCHAR(200) NOT NULL DEFAULT '', tags TEXT NOT NULL DEFAULT '', "
        "device VARCHAR(200) NOT NULL DEFAULT '', host VARCHAR(200) NOT NULL DEFAULT '', document TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at)",
        "CREATE INDEX IF NOT EXISTS runs_kind ON runs (kind)",
    )),
)
"""Versioned migrations: (version, statements). The store records the newest version it applied."""


class StoreError(GpureadyError):
    """The store cannot be opened or written."""


def default_url() -> str:
    """``$GPUREADY_STORE``, else SQLite under ``$XDG_DATA_HOME/gpuready`` (``~/.local/share/gpuready``)."""
    if os.environ.get("GPUREADY_STORE"):
        return os.environ["GPUREADY_STORE"]
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "gpuready"
    return f"sqlite:///{base / 'runs.sqlite'}"


@dataclass(frozen=True, slots=True)
class RunSummary:
    """A row of ``runs list``."""

    id: str
    kind: str
    created_at: str
    label: str
    tags: tuple[str, ...]
    device: str
    host: str


def _device_and_host(run: Run) -> tuple[str, str]:
    fingerprint = run.fingerprint
    if fingerprint is None:
        return "", ""
    device = next((d.name.value for d in fingerprint.devices if d.name.value), "")
    host = fingerprint.host.os_name.value or ""
    return device or "cpu", host


MIGRATION_LOCK_KEY = 0x67707572
"""PostgreSQL advisory lock held while migrating ('gpur')."""


def _with_driver(url: str) -> str:
    """``postgresql://`` means psycopg2 to SQLAlchemy; use psycopg 3 when that is the driver installed."""
    if url.startswith(("postgresql://", "postgres://")):
        import importlib.util

        if importlib.util.find_spec("psycopg2") is None and importlib.util.find_spec("psycopg") is not None:
            return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


class RunStore:
    """Runs in a database reached through SQLAlchemy."""

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine, event
        from sqlalchemy.exc import SQLAlchemyError

        self.url = url
        try:
            if url.startswith("sqlite:///"):
                Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
                self.engine = create_engine(url, connect_args={"timeout": 60})

                @event.listens_for(self.engine, "connect")
                def _pragmas(connection: Any, _: Any) -> None:  # WAL: readers never block the writer
                    cursor = connection.cursor()
                    cursor.execute("PRAGMA journal_mode=WAL")
                    cursor.execute("PRAGMA synchronous=NORMAL")
                    cursor.execute("PRAGMA busy_timeout=60000")
                    cursor.close()
            else:
                self.engine = create_engine(_with_driver(url), pool_pre_ping=True)
            self._migrate()
        except ImportError as error:
            raise StoreError(f"cannot open the run store {url}: its database driver is not installed ({error}); "
                             "for PostgreSQL: pip install 'psycopg[binary]'") from error
        except SQLAlchemyError as error:
            raise StoreError(f"cannot open the run store {url}: {str(error).splitlines()[0]}") from error

    def close(self) -> None:
        """Close the pooled connections."""
        self.engine.dispose()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _migrate(self, patience: float = 60.0) -> None:
        """Apply the migrations; on SQLite, retry while another process holds the database.

        Processes that open a new SQLite store at the same moment (ranks under torchrun) can get "database is
        locked" at once rather than after the busy timeout: switching the journal to WAL, or a read transaction
        that has to become a write one after another process committed, is refused without waiting.
        """
        import random
        import time

        from sqlalchemy.exc import OperationalError

        deadline = time.monotonic() + patience
        while True:
            try:
                self._migrate_once()
                return
            except OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02 + random.random() * 0.1)

    def _migrate_once(self) -> None:
        from sqlalchemy import text

        with self.engine.begin() as connection:
            if self.engine.dialect.name == "postgresql":  # nodes opening a new database at once migrate in turn
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            connection.execute(text("CREATE TABLE IF NOT EXISTS store_meta (version INTEGER NOT NULL)"))
            current = connection.execute(text("SELECT MAX(version) FROM store_meta")).scalar() or 0
            for version, statements in SCHEMA_MIGRATIONS:
                if version > current:
                    for statement in statements:
                        connection.execute(text(statement))
                    connection.execute(text("INSERT INTO store_meta (version) VALUES (:v)"), {"v": version})

    @property
    def version(self) -> int:
        """The newest migration applied."""
        from sqlalchemy import text

        with self.engine.connect() as connection:
            return int(connection.execute(text("SELECT MAX(version) FROM store_meta")).scalar() or 0)

    def save(self, run: Run) -> str:
        """Store a Run (one transaction); returns its id."""
        from sqlalchemy import text
        from sqlalchemy.exc import IntegrityError, SQLAlchemyError

        device, host = _device_and_host(run)
        row = {"id": run.id, "kind": run.kind.value, "created_at": run.created_at, "label": run.label,
               "tags": ",".join(run.tags), "device": device, "host": host, "document": json.dumps(run.to_dict())}
        try:
            with self.engine.begin() as connection:
                connection.execute(text(
                    "INSERT INTO runs (id, kind, created_at, label, tags, device, host, document) "
                    "VALUES (:id, :kind, :created_at, :label, :tags, :device, :host, :document)"), row)
        except IntegrityError as error:
            raise StoreError(f"a run with id {run.id} is already stored") from error
        except SQLAlchemyError as error:
            raise StoreError(f"could not save the run: {str(error).splitlines()[0]}") from error
        return run.id

    def get(self, run_id: str) -> Run:
        """A stored Run by id (or a unique id prefix)."""
        from sqlalchemy import text

        with self.engine.connect() as connection:
            rows = connection.execute(text("SELECT id, document FROM runs WHERE id LIKE :p"),
                                      {"p": f"{run_id}%"}).fetchall()
        if not rows:
            raise InputError("no stored run has this id", source=self.url, field=run_id)
        if len(rows) > 1:
            raise InputError(f"{len(rows)} stored runs start with this id; give more of it", source=self.url,
                             field=run_id)
        return Run.from_dict(json.loads(rows[0][1]), source=f"{self.url} run {rows[0][0]}")

    def list(self, kind: str | None = None, device: str | None = None, host: str | None = None,
             since: str | None = None, tag: str | None = None, label: str | None = None,
             limit: int = 100) -> list[RunSummary]:
        """Newest first, filtered."""
        from sqlalchemy import text

        clauses, values = [], {}
        for column, value in (("kind", kind), ("label", label)):
            if value:
                clauses.append(f"{column} = :{column}")
                values[column] = value
        for column, value in (("device", device), ("host", host)):
            if value:
                clauses.append(f"LOWER({column}) LIKE :{column}")
                values[column] = f"%{value.lower()}%"
        if since:
            clauses.append("created_at >= :since")
            values["since"] = since
        if tag:
            clauses.append("(',' || tags || ',') LIKE :tag")
            values["tag"] = f"%,{tag},%"
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        query = f"SELECT id, kind, created_at, label, tags, device, host FROM runs{where} " \
                f"ORDER BY created_at DESC, id LIMIT {int(limit)}"
        with self.engine.connect() as connection:
            rows = connection.execute(text(query), values).fetchall()
        return [RunSummary(r[0], r[1], r[2], r[3], tuple(t for t in r[4].split(",") if t), r[5], r[6]) for r in rows]

    def delete(self, run_ids: Sequence[str]) -> int:
        """Delete runs by exact id; returns how many went."""
        from sqlalchemy import text

        with self.engine.begin() as connection:
            return sum(connection.execute(text("DELETE FROM runs WHERE id = :id"), {"id": i}).rowcount
                       for i in run_ids)

    def count(self) -> int:
        """How many runs are stored."""
        from sqlalchemy import text

        with self.engine.connect() as connection:
            return int(connection.execute(text("SELECT COUNT(*) FROM runs")).scalar() or 0)

    def iter_documents(self) -> Iterator[tuple[str, str]]:
        """(id, JSON document) of every run."""
        from sqlalchemy import text

        with self.engine.connect() as connection:
            yield from ((r[0], r[1]) for r in connection.execute(text("SELECT id, document FROM runs")))


def open_store(url: str | None = None) -> RunStore:
    """The store at ``url`` (default: ``default_url()``)."""
    return RunStore(url or default_url())
