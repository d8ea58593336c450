"""The run store: round trips, filters, versioned schema, concurrent writers, a writer killed mid-write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpuready.cli import main
from gpuready.errors import InputError
from gpuready.model import Device, Fact, Fingerprint, Run, RunKind, Vendor, make_run
from gpuready.store import open_store
from gpuready.store.database import SCHEMA_MIGRATIONS, StoreError

WRITER = """
import sys
from gpuready.model import RunKind, make_run
from gpuready.store import open_store
store = open_store(sys.argv[1])
for i in range(int(sys.argv[2])):
    store.save(make_run(RunKind.BENCH, "t", label=f"writer{sys.argv[3]}", tags=(f"n{i}",)))
    print(i, flush=True)
"""


def _url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runs.sqlite'}"


def test_round_trip_filters_and_delete(tmp_path: Path) -> None:
    store = open_store(_url(tmp_path))
    mi300 = make_run(RunKind.BENCH, "t", label="node-a", tags=("nightly", "mi300x"),
                fingerprint=Fingerprint(devices=(Device(0, Vendor.AMD, name=Fact.of("AMD Instinct MI300X")),)))
    h100 = make_run(RunKind.CHECK, "t", label="node-b",
               fingerprint=Fingerprint(devices=(Device(0, Vendor.NVIDIA, name=Fact.of("NVIDIA H100")),)))
    store.save(mi300)
    store.save(h100)
    assert store.get(mi300.id) == mi300
    assert store.get(mi300.id[:10]) == mi300
    assert [r.id for r in store.list(kind="bench")] == [mi300.id]
    assert [r.id for r in store.list(device="mi300")] == [mi300.id]
    assert [r.id for r in store.list(tag="nightly")] == [mi300.id]
    assert [r.id for r in store.list(label="node-b")] == [h100.id]
    assert store.list(tag="night") == [], "tags match whole"
    with pytest.raises(StoreError, match="already stored"):
        store.save(mi300)
    assert store.delete([h100.id]) == 1
    with pytest.raises(InputError, match="no stored run"):
        store.get(h100.id)
    assert store.version == SCHEMA_MIGRATIONS[-1][0]
    assert open_store(_url(tmp_path)).count() == 1, "reopening migrates nothing and loses nothing"


def test_eight_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    url = _url(tmp_path)
    open_store(url)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, url, "100", str(n)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE) for n in range(8)]
    for writer in writers:
        _, error = writer.communicate(timeout=300)
        assert writer.returncode == 0, error.decode()[-500:]
    store = open_store(url)
    assert store.count() == 800
    documents = list(store.iter_documents())
    assert all(Run.from_dict(__import__("json").loads(doc)).id == run_id for run_id, doc in documents)


def test_writers_opening_a_new_store_at_once_all_get_in(tmp_path: Path) -> None:
    """Ranks under torchrun create the same SQLite store at the same moment (this once failed with 'locked')."""
    url = _url(tmp_path)
    start = time.time() + 2.0
    racer = "import time, sys\nwhile time.time() < float(sys.argv[4]): pass\n" + WRITER
    writers = [subprocess.Popen([sys.executable, "-c", racer, url, "5", str(n), str(start)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for n in range(6)]
    for writer in writers:
        _, error = writer.communicate(timeout=300)
        assert writer.returncode == 0, error.decode()[-500:]
    assert open_store(url).count() == 30


def test_a_locked_database_while_migrating_is_retried_and_other_errors_are_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy.exc import OperationalError

    from gpuready.store.database import RunStore

    real = RunStore._migrate_once
    calls: list[int] = []

    def flaky(self: RunStore) -> None:
        calls.append(1)
        if len(calls) <= 2:  # what SQLite answers when another process switched to WAL or committed first
            raise OperationalError("PRAGMA journal_mode=WAL", {}, Exception("database is locked"))
        real(self)

    monkeypatch.setattr(RunStore, "_migrate_once", flaky)
    assert open_store(_url(tmp_path)).version == SCHEMA_MIGRATIONS[-1][0] and len(calls) == 3

    def broken(self: RunStore) -> None:
        raise OperationalError("SELECT", {}, Exception("disk I/O error"))

    monkeypatch.setattr(RunStore, "_migrate_once", broken)
    with pytest.raises(StoreError, match="disk I/O error"):
        open_store(f"sqlite:///{tmp_path / 'other.sqlite'}")


def test_a_writer_killed_mid_write_leaves_every_committed_run(tmp_path: Path) -> None:
    url = _url(tmp_path)
    open_store(url)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, url, "100000", "k"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    assert writer.stdout is not None
    committed = -1
    deadline = time.monotonic() + 60
    while committed < 50 and time.monotonic() < deadline:
        committed = int(writer.stdout.readline())
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    writer.stdout.close()
    store = open_store(url)
    stored = store.count()
    assert stored >= committed + 1, "every run the writer reported as saved is there"
    for run_id, document in store.iter_documents():
        assert Run.from_dict(__import__("json").loads(document)).id == run_id


def test_commands_save_their_runs_and_runs_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = _url(tmp_path)
    assert main(["env", "--no-frameworks", "--json", "--store", url, "--label", "lab-1", "--tag", "smoke"]) == 0
    assert main(["env", "--no-frameworks", "--json", "--store", url, "--no-save"]) == 0
    capsys.readouterr()
    assert main(["runs", "list", "--store", url, "--json"]) == 0
    rows = __import__("json").loads(capsys.readouterr().out)
    assert len(rows) == 1 and rows[0]["label"] == "lab-1" and "smoke" in rows[0]["tags"]
    run_id = rows[0]["id"]
    exported = tmp_path / "run.json"
    assert main(["runs", "export", run_id[:8], "--store", url, "-o", str(exported)]) == 0
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    assert main(["runs", "import", str(exported), "--store", other]) == 0
    assert open_store(other).get(run_id).label == "lab-1"
    assert main(["runs", "delete", run_id, "--store", url]) == 0
    assert main(["runs", "show", run_id, "--store", url]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["runs", "import", str(bad), "--store", url]) == 2
    capsys.readouterr()


def test_postgresql_round_trip_and_filters(postgres_url: str) -> None:
    run = make_run(RunKind.BENCH, "t", label="pg", tags=("nightly",),
              fingerprint=Fingerprint(devices=(Device(0, Vendor.AMD, name=Fact.of("AMD Instinct MI300X")),)))
    with open_store(postgres_url) as store:
        store.save(run)
        assert store.get(run.id[:10]) == run
        assert [r.id for r in store.list(device="mi300", tag="nightly")] == [run.id]
        with open_store(postgres_url) as again:
            assert again.version == SCHEMA_MIGRATIONS[-1][0]
        assert store.delete([run.id]) == 1


def test_postgresql_eight_concurrent_writers_lose_nothing(postgres_url: str) -> None:
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, postgres_url, "100", str(n)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for n in range(8)]
    for writer in writers:  # no store opened first: the eight also race to create the schema
        _, error = writer.communicate(timeout=300)
        assert writer.returncode == 0, error.decode()[-500:]
    with open_store(postgres_url) as store:
        assert store.count() == 800
