"""Hostile strings stay inert: ESC sequences from reports, file names and Runs never reach the terminal raw, JUnit
stays well-formed XML, Markdown escapes the run id, SARIF URIs are percent-encoded (#19 item 21)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from gpuready.cli import main
from gpuready.model import CheckResult, CheckStatus, RunKind, make_run
from gpuready.report.junit import render_junit
from gpuready.report.sarif import render_sarif
from gpuready.report.terminal import inert
from gpuready.store import render_run

ESCAPES = ["\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\x9b31m", "\x00\x08\x7f", "\x1bc"]


def test_inert_keeps_text_and_shows_controls() -> None:
    assert inert("plain text\twith tab\nand newline") == "plain text\twith tab\nand newline"
    for escape in ESCAPES:
        assert not any(ord(c) < 32 and c not in "\t\n" or 0x7f <= ord(c) <= 0x9f for c in inert(escape))


@pytest.mark.parametrize("escape", ESCAPES)
def test_junit_is_well_formed_with_control_characters(escape: str) -> None:
    run = make_run(RunKind.CHECK, "t", results=[
        CheckResult(f"torch.ops.{escape}", CheckStatus.FAIL, device=escape, details={"reason": f"bad {escape}",
                                                                                   "traceback": escape * 3}),
        CheckResult("torch.ops.crash", CheckStatus.CRASH, details={"output_tail": "\ud800 lone surrogate" + escape})])
    ElementTree.fromstring(render_junit(run).split("\n", 1)[1])


def test_terminal_output_of_a_hostile_run_file_has_no_escape_sequences(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    hostile = "".join(ESCAPES)
    run = make_run(RunKind.CHECK, "t", label=hostile, results=[
        CheckResult(f"check{hostile}", CheckStatus.FAIL, device=hostile, details={"reason": hostile})])
    path = tmp_path / "run.json"
    path.write_text(render_run(run))
    for argv in (["report", str(path)], ["runs", "import", str(path), "--store",
                                         f"sqlite:///{tmp_path / 'runs.sqlite'}"],
                 ["runs", "list", "--store", f"sqlite:///{tmp_path / 'runs.sqlite'}"]):
        main(argv)
        captured = capsys.readouterr()
        assert "\x1b" not in captured.out + captured.err and "\x9b" not in captured.out + captured.err, argv
    markdown = tmp_path / "run.md"
    main(["report", str(path), "--md", str(markdown)])
    assert "\x1b" not in markdown.read_text()


def test_a_hostile_file_name_in_a_scanned_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "train\x1b[2J#frag ment.py").write_text("import torch\nv = torch.version.cuda.split('.')\n")
    assert main(["scan", str(project), "--no-save", "--no-cache"]) == 0
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out
    run = json.loads(json.dumps(make_run(RunKind.SCAN, "t").to_dict()))
    assert run["kind"] == "scan"
    sarif = tmp_path / "scan.sarif"
    main(["scan", str(project), "--no-save", "--no-cache", "--sarif", str(sarif)])
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(sarif.read_text())["runs"][0]["results"]]
    assert uris and all("#" not in uri and " " not in uri and "\x1b" not in uri for uri in uris)
    assert render_sarif([]) is not None


def test_markdown_escapes_the_run_id_header() -> None:
    from gpuready.report.markdown import render_run_markdown

    run = make_run(RunKind.ENV, "t")
    header = render_run_markdown(run).splitlines()[0]
    assert header == f"### gpuready env run {run.id[:12]}"


def test_rich_markup_in_a_failure_reason_is_shown_as_text() -> None:
    """A gloo error quoted '[/tmp/...]' in a check's reason: rich must not read it as a closing tag (it crashed)."""
    from gpuready.report import plain_text
    from gpuready.report.check_text import render_checks

    reason = "Connection closed by peer [/tmp/gloo.sock]:29500 [bold]not bold[/bold] [/]"
    run = make_run(RunKind.CHECK, "t", results=[
        CheckResult("torch.distributed.[/x]", CheckStatus.FAIL, device="[/cpu]", details={"reason": reason})])
    text = plain_text(render_checks(run))
    assert "[/tmp/gloo.sock]:29500" in text and "[bold]not bold[/bold]" in text and "[/cpu]" in text


def test_scan_text_names_every_line_of_a_rule_in_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One finding per rule and file, shown with the file's other lines for it (``a.cu:3 (also 5, 7)``)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(float* x) {\n"
                                  "  x[0] = __shfl_xor_sync(0xffffffff, x[0], 1);\n\n"
                                  "  x[1] = __shfl_xor_sync(0xffffffff, x[1], 2);\n\n"
                                  "  x[2] = __shfl_xor_sync(0xffffffff, x[2], 4);\n}\n", encoding="utf-8")
    assert main(["scan", str(project), "--no-save", "--no-cache"]) != 3
    out = " ".join(capsys.readouterr().out.split())
    assert "k.cu:3 (also 5, 7)" in out


def test_scan_text_names_the_part_a_finding_outside_the_core_belongs_to(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A blocker in tests/ does not decide the verdict; the text says where it is, so PORTABLE with a blocker reads."""
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k() {\n"
                                            "  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(x));\n}\n",
                                            encoding="utf-8")
    main(["scan", str(project), "--no-save", "--no-cache"])
    out = " ".join(capsys.readouterr().out.split())
    assert "scan.kernel.inline_ptx [tests]" in out
