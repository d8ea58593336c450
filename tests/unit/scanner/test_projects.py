"""`gpuready scan` over small example projects written for the purpose: exact findings and lines."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from gpuready.cli import main
from gpuready.scanner.engine import scan_tree
from gpuready.scanner.kb import KnowledgeBase, load_kb
from tests.fixture_kinds import FIXTURES

PROJECTS = FIXTURES / "scan-projects"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_kb()


def found(root: Path, kb: KnowledgeBase, tmp_path: Path) -> tuple[set[tuple[str, str, str]], str]:
    report = scan_tree(root, kb, jobs=1, cache_dir=tmp_path)
    return {(f.severity.value, f.code, f.location) for f in report.findings}, report.verdict


EXPECTED = {
    "clean": ("portable", {
        ("info", "scan.python.nccl_backend", "train.py:9"),
    }),
    "flash_attn_required": ("needs alternatives", {
        ("warn", "scan.package.flash-attn", "model.py:2"),
        ("warn", "scan.package.xformers", "model.py:5"),
        ("warn", "scan.package.apex", "optional_flag.py:5"),
    }),
    "cuda_extension": ("blocked", {
        ("warn", "scan.kernel.cuda_version_macro", "csrc/binding.cpp:4"),
        ("warn", "scan.kernel.cublaslt", "csrc/blas.cu:1"),
        ("blocker", "scan.kernel.full_warp_mask", "csrc/blas.cu:12"),
        ("warn", "scan.kernel.cudnn", "csrc/blas.cu:2"),
        ("warn", "scan.kernel.fp8_header", "csrc/blas.cu:3"),
        ("blocker", "scan.kernel.full_warp_mask", "csrc/fused.cu:10"),
        ("blocker", "scan.kernel.inline_ptx", "csrc/fused.cu:17"),
        ("info", "scan.kernel.cub", "csrc/fused.cu:2"),
        ("blocker", "scan.kernel.cutlass", "csrc/fused.cu:3"),
        ("blocker", "scan.kernel.mma", "csrc/fused.cu:4"),
        ("blocker", "scan.kernel.warp_size_32", "csrc/fused.cu:6"),
        ("warn", "scan.python.cuda_home", "setup.py:2"),
        ("warn", "scan.python.cpp_extension_cuda", "setup.py:6"),
        ("warn", "scan.package.apex", "setup.py:9"),
    }),
    "gates": ("needs alternatives", {
        ("warn", "scan.python.capability_gate", "utils.py:15"),  # == (9, 0); major >= 8 (line 11) is fine on AMD
        ("info", "scan.python.cudnn_flag", "utils.py:19"),
        ("info", "scan.python.nvtx", "utils.py:20"),
        ("warn", "scan.python.cuda_arch_list", "utils.py:21"),
        ("warn", "scan.python.nvidia_smi_call", "utils.py:22"),
        ("warn", "scan.python.nvcc_call", "utils.py:26"),
        ("warn", "scan.python.version_cuda", "utils.py:6"),
    }),
    "requirements": ("blocked", {
        ("warn", "scan.package.cupy-cuda12x", "environment.yml:6"),
        ("info", "scan.package.deepspeed", "environment.yml:7"),
        ("warn", "scan.package.flash-attn", "pyproject.toml:4"),
        ("warn", "scan.package.vllm", "pyproject.toml:7"),
        ("warn", "scan.requirement.cuda_index_url", "requirements.txt:2"),
        ("warn", "scan.requirement.cuda_local_version", "requirements.txt:3"),
        ("info", "scan.package.bitsandbytes", "requirements.txt:4"),
        ("warn", "scan.package.nvidia-cuda-runtime-cu12", "requirements.txt:5"),
        ("blocker", "scan.package.pycuda", "setup.cfg:7"),
    }),
    "triton_kernel": ("needs alternatives", {
        ("info", "scan.package.triton", "kernel.py:1"),
        ("warn", "scan.triton.inline_asm", "kernel.py:9"),
    }),
    "broken": ("blocked", {
        ("info", "scan.file_skipped", "blob.py"),
        ("info", "scan.file_skipped", "legacy.py"),
        ("blocker", "scan.package.numba-cuda", "ok.py:1"),
    }),
}


@pytest.mark.parametrize("project", sorted(EXPECTED))
def test_exact_findings(project: str, kb: KnowledgeBase, tmp_path: Path) -> None:
    verdict, expected = EXPECTED[project]
    findings, got = found(PROJECTS / project, kb, tmp_path)
    assert findings == expected
    assert got == verdict


def test_plain_cpp_without_cuda_headers_is_not_flagged(kb: KnowledgeBase, tmp_path: Path) -> None:
    findings, _ = found(PROJECTS / "cuda_extension" / "csrc" / "cpu_only.cpp", kb, tmp_path)
    assert findings == set()


def test_nothing_scanned_is_executed(kb: KnowledgeBase, tmp_path: Path) -> None:
    canary = tmp_path / "CANARY"
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    payload = f"open({str(canary)!r}, 'w').write('executed')\n"
    (project / "pkg" / "__init__.py").write_text(payload + "import flash_attn\n")
    (project / "setup.py").write_text(payload + "from setuptools import setup\nsetup(name='x')\n")
    (project / "conftest.py").write_text(payload)
    report = scan_tree(project, kb, jobs=2, cache=False)
    assert not canary.exists(), "scanning imported or ran the project's code"
    assert any(f.code == "scan.package.flash-attn" for f in report.findings)


def test_unreadable_binary_syntax_error_and_huge_files_are_skipped(kb: KnowledgeBase, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import gpuready.scanner.engine as engine

    project = tmp_path / "p"
    project.mkdir()
    (project / "dangling.py").symlink_to(project / "missing.py")
    (project / "huge.py").write_text("x = 1\n" * 200)
    (project / "good.py").write_text("import pycuda.driver\n")
    monkeypatch.setattr(engine, "MAX_FILE_BYTES", 1000)
    report = scan_tree(project, kb, jobs=1, cache=False)
    skipped = {s.path: s.reason for s in report.skipped}
    assert skipped["dangling.py"] == "a broken or looping symlink"
    assert "larger than" in skipped["huge.py"]
    assert any(f.code == "scan.package.pycuda" and f.location == "good.py:1" for f in report.findings)


def test_cache_serves_unchanged_files_and_rereads_changed_ones(kb: KnowledgeBase, tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "a.py").write_text("import flash_attn\n")
    (project / "b.py").write_text("import torch\n")
    first = scan_tree(project, kb, jobs=1, cache_dir=tmp_path / "cache")
    assert first.cached == 0
    second = scan_tree(project, kb, jobs=1, cache_dir=tmp_path / "cache")
    assert second.cached == 2 and second.findings == first.findings
    (project / "b.py").write_text("import torch\nimport apex\n")
    third = scan_tree(project, kb, jobs=1, cache_dir=tmp_path / "cache")
    assert third.cached == 1
    assert {f.location for f in third.findings} == {"a.py:1", "b.py:2"}


def test_parallel_and_serial_scans_agree(kb: KnowledgeBase, tmp_path: Path) -> None:
    serial = scan_tree(PROJECTS, kb, jobs=1, cache=False)
    parallel = scan_tree(PROJECTS, kb, jobs=2, cache=False)
    assert serial.findings == parallel.findings and len(serial.findings) > 30


def test_cli_json_sarif_and_fail_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sarif = tmp_path / "scan.sarif"
    code = main(["scan", str(PROJECTS / "gates"), "--json", "--sarif", str(sarif), "--no-cache"])
    out = capsys.readouterr().out
    assert code == 0, "warnings do not fail by default (--fail-on blocker)"
    run = json.loads(out)
    assert run["kind"] == "scan" and run["outcome"]["verdict"] == "NEEDS ALTERNATIVES"
    assert run["outcome"]["counts"]["warn"] >= 2 and run["outcome"]["summary"].startswith("NEEDS ALTERNATIVES: ")
    document = json.loads(sarif.read_text())
    assert document["version"] == "2.1.0"
    schema = json.loads((FIXTURES / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(schema).validate(document)  # the OASIS SARIF 2.1.0 schema
    with pytest.raises(jsonschema.ValidationError):  # and it bites
        jsonschema.Draft7Validator(schema).validate({**document, "runs": [{"results": []}]})
    results = document["runs"][0]["results"]
    assert {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results} >= {
        ("scan.python.version_cuda", 6), ("scan.python.nvcc_call", 26)}
    assert all(r["level"] in ("warning", "note") for r in results)
    assert main(["scan", str(PROJECTS / "gates"), "--fail-on", "warning", "--no-cache"]) == 1
    assert main(["scan", str(PROJECTS / "requirements"), "--no-cache"]) == 1
    assert main(["scan", str(PROJECTS / "requirements"), "--fail-on", "never", "--no-cache"]) == 0
    capsys.readouterr()


def test_a_newer_knowledge_base(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kb_file = tmp_path / "packages.yaml"
    kb_file.write_text(
        "as_of: 2026-12-01\npackages:\n  - {name: torch-newthing, pip_names: [], import_names: [newthing], "
        "status: none, severity: blocker, message: CUDA only, alternative: use torch, "
        "source: 'https://example.org/newthing', read: 2026-12-01}\n")
    project = tmp_path / "p"
    project.mkdir()
    (project / "x.py").write_text("import newthing\n")
    assert main(["scan", str(project), "--kb", str(kb_file), "--no-cache"]) == 1
    assert "torch-newthing" in capsys.readouterr().out
    kb_file.write_text("as_of: 2026-12-01\npackages:\n  - {name: broken}\n")
    assert main(["scan", str(project), "--kb", str(kb_file)]) == 2
    err = capsys.readouterr().err
    assert str(kb_file) in err and "missing required field" in err


def test_environment_is_untouched(tmp_path: Path, kb: KnowledgeBase) -> None:
    before = dict(os.environ)
    scan_tree(PROJECTS, kb, jobs=2, cache=False)
    assert dict(os.environ) == before


def test_the_pre_commit_hook_runs_the_documented_command(capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    root = Path(__file__).parents[3]
    hooks = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "gpuready-scan")
    assert hook["pass_filenames"] is False and hook["language"] == "python"
    command = hook["entry"].split()
    assert command[:2] == ["gpuready", "scan"] and "--fail-on" in command
    assert main([*command[1:], "--no-cache", str(PROJECTS / "cuda_extension")]) == 1  # BLOCKED fails the commit
    assert main([*command[1:], "--no-cache", str(PROJECTS / "clean")]) == 0
    capsys.readouterr()
    assert "gpuready-scan" in (root / "docs" / "code-scanning.md").read_text(encoding="utf-8")
