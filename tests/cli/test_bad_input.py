"""Bad input is exit 2 and one line naming the file, URL or option — never a traceback, never exit 3 — and it is
refused before anything runs or is stored (#19 items 3, 4, 10-17, 19)."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from gpuready.cli import main
from gpuready.model import RunKind, make_run
from gpuready.store import open_store, render_run
from tests.fixture_kinds import FIXTURES

PLANTED = FIXTURES / "audit-models" / "planted.py"


def _one_line(capsys: pytest.CaptureFixture[str], argv: list[str], *expected: str) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip() and not line.startswith(("wrote ", "saved "))]
    assert code == 2, (argv, captured.err)
    assert len(lines) == 1, (argv, lines)
    assert "Traceback" not in captured.err + captured.out
    for text in expected:
        assert text in lines[0], (argv, lines[0])
    return lines[0]


@pytest.fixture(autouse=True)
def _own_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("GPUREADY_STORE", raising=False)


def _store_rows(url: str) -> int:
    with open_store(url) as store:
        return store.count()


@pytest.mark.parametrize(("argv", "expected"), [
    (["bench", "transfomer"], ("did you mean 'transformer'",)),
    (["bench", "nope.py:make"], ("nope.py: no such file",)),
    (["bench", "mlp", "--batch-size", "8,x"], ("--batch-size",)),
    (["bench", "mlp", "--micro", "warp"], ("--micro", "gemm")),
    (["bench", "mlp", "--target", "speed>=fast"], ("--target",)),
    (["audit", "--model", "transfomer"], ("did you mean 'transformer'",)),
    (["audit", "--model", "nope.py:make"], ("no such file",)),
    (["check", "--timeout", "-5"], ("--timeout", "positive")),
    (["check", "--device", "tpu"], ("--device", "cuda:N")),
    (["check", "--only", "no.such.*"], ("--only", "matches no check")),
    (["lock", "--bench", "transfomer"], ("did you mean 'transformer'",)),
    (["runs", "list", "--since", "yesterday"], ("--since", "ISO date")),
    (["plan", "--gpu", "mi3000x"], ("--gpu", "did you mean")),
    (["compare", "only-one.json"], ("two sides",)),
])
def test_bad_options_and_workloads(capsys: pytest.CaptureFixture[str], argv: list[str],
                                   expected: tuple[str, ...]) -> None:
    _one_line(capsys, [*argv, *(["--no-save"] if argv[0] in ("bench", "audit", "check") else [])], *expected)


def test_a_factory_file_with_a_syntax_error_or_without_the_factory(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def make(:\n    pass\n")
    _one_line(capsys, ["audit", "--model", f"{broken}:make", "--no-save"], "broken.py:1: syntax error")
    other = tmp_path / "other.py"
    other.write_text("def make_workload():\n    return {}\n")
    _one_line(capsys, ["bench", f"{other}:make_workloads", "--no-save"], "did you mean 'make_workload'")


@pytest.mark.torch
def test_a_factory_returning_a_bare_module_is_bad_input_not_a_blocker(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    bare = tmp_path / "bare.py"
    bare.write_text("import torch\n\ndef make():\n    return torch.nn.Linear(4, 4)\n")
    _one_line(capsys, ["audit", "--model", f"{bare}:make", "--no-save"], "Linear", "has no model, batch, loss")


def test_a_batch_sweep_of_a_factory_without_batch_size_is_refused(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    fixed = tmp_path / "fixed.py"
    fixed.write_text("def make():\n    raise SystemExit('must not run')\n")
    for option in (["--batch-size", "4,64"], ["--find-max-batch"]):
        _one_line(capsys, ["bench", f"{fixed}:make", *option, "--no-save"], "--batch-size", "takes no batch_size")


@pytest.mark.parametrize("url", ["notaurl", "foo://bar", "sqlite://", "sqlite:///", "sqlite:///:memory:",
                                 "sqlite:////nonexistent-gpuready/dir/x.db"])
def test_stores_that_cannot_keep_anything(capsys: pytest.CaptureFixture[str], url: str) -> None:
    _one_line(capsys, ["env", "--no-frameworks", "--store", url], url)


def _sql(path: Path, statement: str, parameters: tuple[object, ...] = ()) -> None:
    """One statement on the SQLite file, the connection closed after (sqlite3's `with` only commits)."""
    with contextlib.closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(statement, parameters)


def _newer_store(path: Path) -> None:
    with open_store(f"sqlite:///{path}"):
        pass
    _sql(path, "INSERT INTO store_meta (version) VALUES (99)")


def _dropped_table(path: Path) -> None:
    with open_store(f"sqlite:///{path}"):
        pass
    _sql(path, "DROP TABLE runs")


@pytest.mark.parametrize(("damage", "expected"), [
    (lambda p: p.write_bytes(b"this is not a database" * 100), "cannot open the run store"),
    (lambda p: p.mkdir(), "is a directory"),
    (_newer_store, "newer than this gpuready"),
    (_dropped_table, "no runs table"),
])
def test_damaged_stores(tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: object,
                        expected: str) -> None:
    path = tmp_path / "runs.sqlite"
    damage(path)  # type: ignore[operator]
    _one_line(capsys, ["runs", "list", "--store", f"sqlite:///{path}"], expected)


def test_a_corrupt_document_row_and_a_store_under_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    run = make_run(RunKind.ENV, "t")
    with open_store(url) as store:
        store.save(run)
    _sql(tmp_path / "runs.sqlite", "UPDATE runs SET document = '{\"kind\": ' WHERE id = ?", (run.id,))
    _one_line(capsys, ["runs", "show", run.id, "--store", url], run.id, "damaged")
    (tmp_path / "afile").write_text("x")
    _one_line(capsys, ["runs", "list", "--store", f"sqlite:///{tmp_path / 'afile' / 'runs.sqlite'}"],
              "not a directory")


def test_a_sql_wildcard_never_matches_nor_deletes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    run = make_run(RunKind.ENV, "t")
    with open_store(url) as store:
        store.save(run)
    _one_line(capsys, ["runs", "show", "%", "--store", url], "no stored run")
    _one_line(capsys, ["runs", "show", "_", "--store", url], "no stored run")
    _one_line(capsys, ["runs", "delete", "%", "--store", url], "full id")
    _one_line(capsys, ["runs", "delete", run.id[:8], "--store", url], "full id")
    assert _store_rows(url) == 1


def test_run_files_with_bad_times_duplicate_ids_and_a_binary_kb(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    good = tmp_path / "good.json"
    good.write_text(render_run(make_run(RunKind.ENV, "t")))
    bad_time = tmp_path / "time.json"
    document = json.loads(good.read_text())
    document["created_at"] = "yesterday"
    bad_time.write_text(json.dumps(document))
    _one_line(capsys, ["runs", "import", str(bad_time), "--store", url], "time.json", "created_at")
    _one_line(capsys, ["runs", "import", str(good), str(good), "--store", url], "twice")
    assert main(["runs", "import", str(good), "--store", url]) == 0
    _one_line(capsys, ["runs", "import", str(good), "--store", url], "already stored")
    kb = tmp_path / "kb.yaml"
    kb.write_bytes(bytes(range(256)))
    _one_line(capsys, ["scan", str(FIXTURES / "scan-projects" / "clean"), "--kb", str(kb), "--no-save"],
              "kb.yaml", "binary")
    _one_line(capsys, ["scan", str(FIXTURES / "scan-projects" / "clean"), "--kb", "/dev/zero", "--no-save"],
              "/dev/zero", "device")


def test_scanning_nothing_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    _one_line(capsys, ["scan", str(empty), "--no-save"], "nothing to scan")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(256)))
    _one_line(capsys, ["scan", str(binary), "--no-save"], "nothing to scan")


def test_no_frameworks_is_skipped_not_a_failed_import(capsys: pytest.CaptureFixture[str]) -> None:
    main(["doctor", "--no-frameworks", "--json", "--no-save"])
    run = json.loads(capsys.readouterr().out)
    assert not any(f["code"] == "torch.import_failed" for f in run["findings"])
    torch = next((f for f in run["fingerprint"]["frameworks"] if f["name"] == "torch" and f["installed"]), None)
    if torch is not None:
        assert torch["accelerator_available"]["status"] == "skipped"
    main(["env", "--no-frameworks"])
    assert "error (not run)" not in capsys.readouterr().out


def test_outputs_are_written_before_a_store_failure_is_reported(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    out, prom = tmp_path / "run.json", tmp_path / "run.prom"
    code = main(["env", "--no-frameworks", "--json", "-o", str(out), "--prom", str(prom), "--store", "foo://bar"])
    assert code == 2 and json.loads(out.read_text())["kind"] == "env" and "gpuready_verdict" in prom.read_text()
    assert "foo://bar" in capsys.readouterr().err


def test_output_files_follow_the_umask(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    previous = os.umask(0o022)
    try:
        out = tmp_path / "run.prom"
        assert main(["doctor", "--from", str(FIXTURES / "os-release" / "ubuntu-24.04.txt"), "--prom", str(out),
                     "--no-save"]) in (0, 1)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644, "node-exporter, running as another user, must read it"


@pytest.mark.parametrize(("argv", "says"), [
    (["env", "--no-frameworks", "--store", "notaurl"], "not a database URL"),
    (["check", "--suite", "no_such_suite"], "gpuready check: Invalid value for '--suite'"),
    (["no-such-command"], "No such command"),
    (["bench", "--steps", "many"], "'many' is not a valid integer"),
])
def test_usage_errors_and_bad_store_urls_are_one_line_before_anything_runs(
        argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "", "nothing ran: a bad store URL is refused before the probe, not after"
    assert len(captured.err.strip().splitlines()) == 1 and says in captured.err, captured.err
