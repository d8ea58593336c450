"""Hostile trees (issue 19.20): device and FIFO files, symlinks out of the tree, unreadable folders, a BOM, an
oversized kernel, pathological lines and huge dependency lists. Never a hang, never unbounded memory, never a
traceback; what could not be read is said, and makes the verdict unknown rather than clean."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gpuready.cli import main
from gpuready.scanner.engine import MAX_FILE_BYTES, scan_tree
from gpuready.scanner.kb import KnowledgeBase, load_kb


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_kb()


def _skipped(report) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {s.path: s.reason for s in report.skipped}


def test_devices_fifos_and_symlinks_out_of_the_tree_are_not_read(kb: KnowledgeBase, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("import pycuda.driver\n", encoding="utf-8")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "ok.py").write_text("import torch\n", encoding="utf-8")
    (tree / "zero.py").symlink_to("/dev/zero")
    (tree / "random.cu").symlink_to("/dev/urandom")
    (tree / "away.py").symlink_to(outside)
    os.mkfifo(tree / "pipe.py")
    start = time.perf_counter()
    report = scan_tree(tree, kb, jobs=1, cache=False)
    assert time.perf_counter() - start < 30
    skipped = _skipped(report)
    assert {"zero.py", "random.cu", "away.py", "pipe.py"} <= set(skipped)
    assert "outside the tree" in skipped["away.py"] and "FIFO" in skipped["pipe.py"]
    assert not any(f.code == "scan.package.pycuda" for f in report.findings), "the symlink was followed out"


def test_an_unreadable_folder_is_said(kb: KnowledgeBase, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.py").write_text("import torch\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    real_scandir = os.scandir

    def refusing(path):  # type: ignore[no-untyped-def]
        if str(path).endswith("sub"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)
    monkeypatch.setattr(os, "scandir", refusing)
    assert "Permission denied" in _skipped(scan_tree(tmp_path, kb, jobs=1, cache=False)).get("sub", "")


def test_a_byte_order_mark_is_read_not_a_syntax_error(kb: KnowledgeBase, tmp_path: Path) -> None:
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfimport pycuda.driver\n")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert report.skipped == () and any(f.code == "scan.package.pycuda" for f in report.findings)


def test_an_unscanned_source_file_makes_the_verdict_unknown_not_clean(kb: KnowledgeBase, tmp_path: Path) -> None:
    (tmp_path / "small.py").write_text("import torch\n", encoding="utf-8")
    with open(tmp_path / "huge.cu", "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
        handle.seek(0)
        handle.write(b"// generated\n")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert report.verdict != "portable"
    skipped = next(f for f in report.findings if f.code == "scan.file_skipped")
    assert skipped.severity.value == "warn" and "unknown" in skipped.message


def test_pathological_lines_and_dependency_lists_take_linear_time(kb: KnowledgeBase, tmp_path: Path) -> None:
    (tmp_path / "gen.cu").write_text("#if " + "#if CUDA " * 25_000 + "\n__global__ void k() {}\n",
                                     encoding="utf-8")
    (tmp_path / "lanes.cu").write_text("__shfl_sync(0, v, 0); lane = " + "a " * 100_000 + ";\n", encoding="utf-8")
    deps = "\n".join(f'  "package-{i}>=1.0",' for i in range(100_000))
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\ndependencies = [\n{deps}\n]\n",
                                             encoding="utf-8")
    start = time.perf_counter()
    scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert time.perf_counter() - start < 20


def test_a_device_as_knowledge_base_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.py").write_text("import torch\n", encoding="utf-8")
    assert main(["scan", str(tmp_path), "--kb", "/dev/zero", "--no-save", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "/dev/zero" in err
