"""The run store: one row per Run (the JSON document plus columns to filter on), on SQLAlchemy Core tables.

Writes are transactions, so concurrent writers lose nothing and a killed writer leaves every committed Run intact.
Anything wrong with the store itself (a URL that is not one, a database that is corrupt, a directory, newer than
this gpuready, unwritable) is the user's input: ``StoreError``, exit 2, one line naming the URL. Never pickle.
"""

from __future__ import annotations

import builtins
import json
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuready.errors import InputError, SchemaError
from gpuready.model import Run

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection


class StoreError(InputError):
    """The store cannot be opened, read or written (exit 2, naming the URL)."""


def _create_v1(connection: Connection) -> None:
    from gpuready.store.tables import METADATA

    METADATA.create_all(connection, checkfirst=True)


SCHEMA_MIGRATIONS: tuple[tuple[int, Callable[[Connection], None]], ...] = ((1, _create_v1),)
"""Versioned migrations: (version, step). The store records the newest version it applied."""
MIGRATION_LOCK_KEY = 0x67707572
"""PostgreSQL advisory lock held while migrating ('gpur')."""


def data_home() -> Path:
    """``$XDG_DATA_HOME/gpuready`` (``~/.local/share/gpuready``)."""
    import platformdirs  # follows $XDG_DATA_HOME on Linux, and each platform's own place elsewhere

    return Path(platformdirs.user_data_dir("gpuready", appauthor=False))


def default_url() -> str:
    """``$GPUREADY_STORE``, else SQLite under the user's data directory."""
    if os.environ.get("GPUREADY_STORE"):
        return os.environ["GPUREADY_STORE"]
    return f"sqlite:///{data_home() / 'runs.sqlite'}"


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


def _with_driver(url: str) -> str:
    """``postgresql://`` means psycopg2 to SQLAlchemy; use psycopg 3 when that is the driver installed."""
    if url.startswith(("postgresql://", "postgres://")):
        import importlib.util

        if importlib.util.find_spec("psycopg2") is None and importlib.util.find_spec("psycopg") is not None:
            return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def check_url(url: str) -> Any:
    """The parsed URL (SQLAlchemy's ``URL``), or StoreError saying what a store URL looks like. Nothing is opened."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url)
    except ArgumentError as error:
        raise StoreError(f"not a database URL ({_first_line(error)}); expected e.g. sqlite:///path/runs.sqlite "
                         "or postgresql://host/db", source=url) from error


def _first_line(error: BaseException) -> str:
    text = str(getattr(error, "orig", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _sqlite_file(url: str, database: str | None) -> Path:
    """The database file of a SQLite URL; in-memory databases and missing directories outside gpuready's own data
    directory are refused (an in-memory store would say "saved" and keep nothing)."""
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        raise StoreError("an in-memory SQLite database keeps nothing; give a file, e.g. sqlite:///runs.sqlite",
                         source=url)
    path = Path(database).expanduser()
    parent = path.parent.resolve()
    if parent.exists() and not parent.is_dir():
        raise StoreError(f"{parent} is not a directory", source=url)
    if path.exists() and path.is_dir():
        raise StoreError(f"{path} is a directory, not a database file", source=url)
    if not parent.exists():
        own = data_home().resolve()
        if parent != own and own not in parent.parents:
            raise StoreError(f"directory {parent} does not exist (create it first)", source=url)
        parent.mkdir(parents=True, exist_ok=True)
    return path


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class RunStore:
    """Runs in a database reached through SQLAlchemy."""

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine, event
        from sqlalchemy.exc import SQLAlchemyError
        from sqlalchemy.pool import NullPool

        self.url = url
        parsed = check_url(url)
        try:
            if parsed.get_backend_name() == "sqlite":
                _sqlite_file(url, parsed.database)
                # No pool: every connection is closed when its block ends, so a store that is never closed leaks
                # nothing (opening a SQLite file costs well under a millisecond).
                self.engine = create_engine(url, connect_args={"timeout": 60}, poolclass=NullPool)

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
        except StoreError:
            raise
        except ImportError as error:
            raise StoreError(f"its database driver is not installed ({error}); for PostgreSQL: pip install "
                             "'psycopg[binary]'", source=url) from error
        except SQLAlchemyError as error:
            raise StoreError(f"cannot open the run store: {_first_line(error)}", source=url) from error

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
        from sqlalchemy.exc import OperationalError

        deadline = time.monotonic() + patience
        while True:
            try:
                self._migrate_once()
                return
            except OperationalError as error:
                racing = "locked" in str(error) or "already exists" in str(error)  # another process migrating
                if not racing or time.monotonic() > deadline:
                    raise
                time.sleep(0.02 + random.random() * 0.1)

    def _migrate_once(self) -> None:
        from sqlalchemy import func, inspect, select, text

        from gpuready.store.tables import store_meta

        with self.engine.begin() as connection:
            if self.engine.dialect.name == "postgresql":  # nodes opening a new database at once migrate in turn
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            store_meta.create(connection, checkfirst=True)
            current = connection.execute(select(func.max(store_meta.c.version))).scalar() or 0
            newest = SCHEMA_MIGRATIONS[-1][0]
            if current > newest:
                raise StoreError(f"this store has schema version {current}, newer than this gpuready knows "
                                 f"({newest}); upgrade gpuready to use it", source=self.url)
            for version, step in SCHEMA_MIGRATIONS:
                if version > current:
                    step(connection)
                    connection.execute(store_meta.insert().values(version=version))
            if "runs" not in inspect(connection).get_table_names():
                raise StoreError("the store is damaged: it has no runs table", source=self.url)

    def _guarded(self, action: str, work: Callable[[], Any]) -> Any:
        from sqlalchemy.exc import IntegrityError, SQLAlchemyError

        try:
            return work()
        except IntegrityError as error:
            raise StoreError(f"could not {action}: a run with that id is already stored", source=self.url) from error
        except SQLAlchemyError as error:
            raise StoreError(f"could not {action}: {_first_line(error)}", source=self.url) from error

    @property
    def version(self) -> int:
        """The newest migration applied."""
        from sqlalchemy import func, select

        from gpuready.store.tables import store_meta

        with self.engine.connect() as connection:
            return int(connection.execute(select(func.max(store_meta.c.version))).scalar() or 0)

    @staticmethod
    def _row(run: Run) -> dict[str, Any]:
        device, host = _device_and_host(run)
        return {"id": run.id, "kind": run.kind.value, "created_at": run.created_at, "label": run.label[:200],
                "tags": ",".join(run.tags), "device": device[:200], "host": host[:200],
                "document": json.dumps(run.to_dict())}

    def save(self, run: Run) -> str:
        """Store a Run (one transaction); returns its id."""
        return str(self.save_all([run])[0])

    def save_all(self, runs: Sequence[Run]) -> list[str]:
        """Store several Runs in one transaction: all of them or none."""
        from gpuready.store.tables import runs as table

        def work() -> list[str]:
            with self.engine.begin() as connection:
                for run in runs:
                    connection.execute(table.insert().values(**self._row(run)))
            return [run.id for run in runs]

        ids = [run.id for run in runs]
        if len(set(ids)) != len(ids):
            raise StoreError("the same run id appears twice in what was to be stored", source=self.url)
        result: list[str] = self._guarded("save the run", work)
        return result

    def _matching(self, prefix: str) -> list[tuple[str, str]]:
        from sqlalchemy import select

        from gpuready.store.tables import runs as table

        def work() -> list[tuple[str, str]]:
            query = select(table.c.id, table.c.document).where(
                table.c.id.like(_escape_like(prefix) + "%", escape="\\")).limit(3)
            with self.engine.connect() as connection:
                return [(str(r[0]), str(r[1])) for r in connection.execute(query)]

        found: list[tuple[str, str]] = self._guarded("read the store", work)
        return found

    def get(self, run_id: str) -> Run:
        """A stored Run by id (or a unique id prefix)."""
        if not run_id:
            raise InputError("expected a run id (or a unique prefix of one)", source=self.url)
        rows = self._matching(run_id)
        if not rows:
            raise InputError("no stored run has this id", source=self.url, field=run_id)
        if len(rows) > 1:
            raise InputError("more than one stored run starts with this id; give more of it", source=self.url,
                             field=run_id)
        found_id, document = rows[0]
        where = f"{self.url} run {found_id}"
        try:
            return Run.from_dict(json.loads(document), source=where)
        except (json.JSONDecodeError, RecursionError, ValueError) as error:
            if isinstance(error, SchemaError):
                raise
            raise StoreError(f"the stored document is damaged ({error})", source=where) from error

    def list(self, kind: str | None = None, device: str | None = None, host: str | None = None,
             since: str | None = None, tag: str | None = None, label: str | None = None,
             limit: int = 100) -> builtins.list[RunSummary]:
        """Newest first, filtered."""
        from sqlalchemy import func, literal, select

        from gpuready.store.tables import runs as table

        query = select(table.c.id, table.c.kind, table.c.created_at, table.c.label, table.c.tags, table.c.device,
                       table.c.host)
        if kind:
            query = query.where(table.c.kind == kind)
        if label:
            query = query.where(table.c.label == label)
        for column, value in ((table.c.device, device), (table.c.host, host)):
            if value:
                query = query.where(func.lower(column).like(f"%{_escape_like(value.lower())}%", escape="\\"))
        if since:
            query = query.where(table.c.created_at >= since_time(since))
        if tag:
            query = query.where((literal(",") + table.c.tags + literal(",")).like(
                f"%,{_escape_like(tag)},%", escape="\\"))
        query = query.order_by(table.c.created_at.desc(), table.c.id).limit(int(limit))

        def work() -> builtins.list[RunSummary]:
            with self.engine.connect() as connection:
                return [RunSummary(r[0], r[1], r[2], r[3], tuple(t for t in r[4].split(",") if t), r[5], r[6])
                        for r in connection.execute(query)]

        rows: builtins.list[RunSummary] = self._guarded("read the store", work)
        return rows

    def delete(self, run_ids: Sequence[str]) -> int:
        """Delete runs by exact id; returns how many went."""
        return len(self.delete_exact(run_ids))

    def delete_exact(self, run_ids: Sequence[str]) -> builtins.list[str]:
        """Delete runs by their full ids (a prefix never deletes); unknown ids are an InputError, and then nothing
        is deleted. Returns the ids deleted."""
        from sqlalchemy import select

        from gpuready.store.tables import runs as table

        wanted = list(dict.fromkeys(run_ids))

        def work() -> builtins.list[str]:
            with self.engine.begin() as connection:
                present = {r[0] for r in connection.execute(select(table.c.id).where(table.c.id.in_(wanted)))}
                missing = [i for i in wanted if i not in present]
                if missing:
                    raise InputError(f"no stored run has the full id {missing[0]!r} (delete takes whole ids; see "
                                     "runs list --json)", source=self.url)
                connection.execute(table.delete().where(table.c.id.in_(wanted)))
            return wanted

        deleted: builtins.list[str] = self._guarded("delete runs", work)
        return deleted

    def count(self) -> int:
        """How many runs are stored."""
        from sqlalchemy import func, select

        from gpuready.store.tables import runs as table

        with self.engine.connect() as connection:
            return int(connection.execute(select(func.count()).select_from(table)).scalar() or 0)

    def iter_documents(self) -> Iterator[tuple[str, str]]:
        """(id, JSON document) of every run."""
        from sqlalchemy import select

        from gpuready.store.tables import runs as table

        with self.engine.connect() as connection:
            yield from ((r[0], r[1]) for r in connection.execute(select(table.c.id, table.c.document)))

    def documents_tagged(self, tag: str) -> builtins.list[tuple[str, str]]:
        """(id, JSON document) of every run carrying ``tag`` (exactly), oldest first."""
        from sqlalchemy import literal, select

        from gpuready.store.tables import runs as table

        query = select(table.c.id, table.c.document).where(
            (literal(",") + table.c.tags + literal(",")).like(f"%,{_escape_like(tag)},%", escape="\\")).order_by(
            table.c.created_at, table.c.id)

        def work() -> builtins.list[tuple[str, str]]:
            with self.engine.connect() as connection:
                return [(r[0], r[1]) for r in connection.execute(query)]

        rows: builtins.list[tuple[str, str]] = self._guarded("read the store", work)
        return rows


def since_time(text: str) -> str:
    """An ISO date or time (``2026-11-01``, ``2026-11-01T08:00``) as the stored time format; InputError else."""
    import datetime

    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        try:
            moment = datetime.datetime.combine(datetime.date.fromisoformat(text), datetime.time())
        except ValueError:
            raise InputError(f"{text!r}: expected an ISO date such as 2026-11-01", field="since") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.astimezone(datetime.timezone.utc).isoformat(timespec="seconds")


def open_store(url: str | None = None) -> RunStore:
    """The store at ``url`` (default: ``default_url()``)."""
    return RunStore(url or default_url())
