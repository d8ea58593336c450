"""Pasted reports end to end: several --from files and standard input merged, the Markdown triage reply (escaped,
with what to paste next and how the paste was read), the verdict as a field of the JSON, the read parts listed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuready.cli import main
from tests.paste_truth import PASTES

NOBINARY = PASTES / "a-rocm-1756-rx6700s-gfx1032-nobinary-then-override-true.txt"
COLLECT_ENV = PASTES / "a-pytorch-146809-7900xtx-mint-memory-access-fault-training.txt"


def test_several_files_and_standard_input_merge_into_one_judgement(tmp_path: Path) -> None:
    smi = tmp_path / "smi.txt"
    smi.write_text("$ uname -r\n6.8.0-51-generic\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "gpuready", "doctor", "--no-save", "--json", "--from", "-",
                           "--from", str(smi)], input=COLLECT_ENV.read_text(encoding="utf-8"), capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr  # NOT READY: a memory access fault
    run = json.loads(done.stdout)
    assert run["outcome"]["verdict"] == "NOT READY"
    fp = run["fingerprint"]
    assert fp["host"]["kernel"]["value"] == "6.8.0-51-generic"
    assert {s["source"] for s in fp["sections"]} == {"standard input", "smi.txt"}
    assert any(f["code"] == "error.gpu_memory_access_fault" for f in run["findings"])


def test_the_markdown_reply_shows_the_paste_the_fixes_and_what_to_ask(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["doctor", "--no-save", "--md", "--from", str(NOBINARY)])
    out = capsys.readouterr().out
    assert code == 0  # READY WITH WARNINGS: the override fixed it further down
    assert out.startswith("### gpuready triage: READY WITH WARNINGS")
    assert "| HSA\\_OVERRIDE\\_GFX\\_VERSION | 10.3.0 |" in out
    assert "`error.hip_no_binary_for_gpu`" in out and "later part shows the GPU working" in out
    assert "**To decide, please also paste**" in out and "amd-smi version" in out
    assert "<details><summary>How the paste was read</summary>" in out and "python-print" in out


def test_a_hostile_paste_cannot_inject_markup_into_the_reply(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    paste = tmp_path / "evil.md"
    paste.write_text("### GPU\n\n<img src=x onerror=alert(1)> RX 7900 XTX\n\nRuntimeError: HIP error: invalid device "
                     "function <script>alert(1)</script>\n", encoding="utf-8")
    main(["doctor", "--no-save", "--md", "--from", str(paste)])
    out = capsys.readouterr().out
    assert "<script>" not in out and "<img" not in out
    assert "&lt;script&gt;" in out


def test_the_replys_own_fixes_keep_their_code_spans_and_a_pasted_value_stays_inert(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fix written with `rocminfo` in it shows as code, not as escaped backticks; a pasted GPU name with markup
    inside a finding's message is escaped (or at most an inert code span)."""
    paste = tmp_path / "issue.md"
    paste.write_text("```\n$ pip list | grep torch\ntorch 1.6.0\n>>> torch.cuda.is_available()\nFalse\n```\n"
                     "Failed to initialize NVML: Unknown Error\n", encoding="utf-8")
    main(["doctor", "--no-save", "--md", "--from", str(paste)])
    out = capsys.readouterr().out
    assert "paste `rocminfo` or `nvidia-smi` to tell which" in out and "\\`" not in out
    paste.write_text("### GPU\n\n`x` <b>RX 7900 XTX</b> [a](http://e)\n\ntorch.cuda.is_available() = False\n",
                     encoding="utf-8")
    main(["doctor", "--no-save", "--md", "--from", str(paste)])
    out = capsys.readouterr().out
    assert "<b>" not in out and "](http" not in out


def test_a_finding_source_is_a_working_link(capsys: pytest.CaptureFixture[str]) -> None:
    """Backslash escapes do not work inside an autolink: a source URL with `#` or `_` is written as it is."""
    from gpuready.report.markdown import link

    main(["doctor", "--no-save", "--md", "--from", str(PASTES.parent / "pastes-holdout17" /
                                                      "h17-vllm-19045-3090-1080ti-collect-env.txt")])
    out = capsys.readouterr().out
    assert "<https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables>" in out
    assert link("https://github.com/a/b_c") == "<https://github.com/a/b_c>"
    assert link("https://e.x/<script>") == "https://e.x/&lt;script&gt;"  # not a plain URL: escaped text


def test_the_text_report_lists_what_was_read_and_what_was_not(capsys: pytest.CaptureFixture[str]) -> None:
    main(["doctor", "--no-save", "--from", str(NOBINARY)])
    out = " ".join(capsys.readouterr().out.split())
    assert "paste lines read: 1-5 text; 7-10 not recognised" in out
    assert "python-print" in out
