"""``gpuready env`` end to end: exit codes, JSON against the schema, --from, bad input, --output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from gpuready.cli import main
from gpuready.model import Run
from tests.fixture_kinds import FIXTURES

SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "schema" / "run.schema.json").read_text())


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_env_on_this_machine_says_no_accelerator_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "env", "--no-frameworks")
    assert code == 0
    assert "No accelerator found" in out
    for section in ("Host", "Stack", "Frameworks", "Access"):
        assert section in out


def test_env_from_a_report_without_a_gpu_listing_does_not_say_the_work_runs_on_the_cpu(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A pasted pip list shows no GPU because it lists none, not because the machine has none."""
    paste = tmp_path / "issue.md"
    paste.write_text("```\n$ pip list | grep torch\ntorch           2.3.0+rocm6.0\n"
                     "torchvision     0.18.0+rocm6.0\n```\n")
    code, out, _ = run_cli(capsys, "env", "--from", str(paste))
    assert code == 0
    assert "whether the machine has one is unknown" in out and "Work will run on the CPU" not in out
    cpu_only = FIXTURES / "rocminfo" / "rx7900xtx-gfx1100-rocm6.2.2.txt"
    lines = cpu_only.read_text().splitlines()
    second = next(i for i, line in enumerate(lines) if line.strip().startswith("Agent 2"))
    paste.write_text("\n".join(lines[:second - 2] + ["*** Done ***"]) + "\n")  # rocminfo that lists the CPU only
    code, out, _ = run_cli(capsys, "env", "--from", str(paste))
    assert "output lists none" in out and "rocminfo" in out and "Work will run on the CPU" not in out


def test_env_json_validates_against_the_committed_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "env", "--json")
    assert code == 0
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    run = Run.from_dict(data)
    assert run.kind.value == "env"
    assert run.fingerprint is not None and run.fingerprint.devices == ()
    torch = run.fingerprint.framework("torch")
    assert torch is not None


@pytest.mark.torch
def test_env_shows_the_torch_build(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    torch_version = version("torch")  # never import torch in the test process

    code, out, _ = run_cli(capsys, "env", "--json")
    fingerprint = Run.from_dict(json.loads(out)).fingerprint
    assert code == 0 and fingerprint is not None
    framework = fingerprint.framework("torch")
    assert framework is not None
    assert framework.version.value == torch_version
    assert framework.variant.value is not None and framework.variant.value.value == "cpu"
    assert framework.accelerator_available.value is False
    assert "sys.modules" not in out
    code, text, _ = run_cli(capsys, "env")
    assert f"{torch_version}  (CPU-only build)" in text


def test_from_rocm_collect_env_extracts_the_essentials(capsys: pytest.CaptureFixture[str]) -> None:
    report = FIXTURES / "collect-env/rocm6.0-rx6950xt-gfx1030-torch2.3.txt"
    code, out, _ = run_cli(capsys, "env", "--from", str(report), "--json")
    assert code == 0
    jsonschema.validate(json.loads(out), SCHEMA)
    fp = Run.from_dict(json.loads(out)).fingerprint
    assert fp is not None and fp.origin == f"collect-env: {report.name}"
    torch = fp.framework("torch")
    assert torch is not None
    assert torch.version.value == "2.3.0+rocm6.0"
    assert torch.backend_version.value == "6.0.32830-d62f6a171"
    assert str(fp.stack.rocm_version.value) == "6.0"
    assert [(d.name.value, d.arch.value) for d in fp.devices] == [("AMD Radeon RX 6950 XT", "gfx1030")]


@pytest.mark.parametrize(
    ("fixture", "kind", "expected"),
    [
        ("rocminfo/rx7900xtx-gfx1100-rocm6.2.2.txt", None, "Radeon RX 7900 XTX"),
        ("amd-smi/static-mi210-gpu-data.json", None, "AMD Instinct MI210"),
        ("rocm-smi/productname-mi250x.json", None, "AMD INSTINCT MI200"),
        ("nvidia-smi-query/titan-v-rtx5880ada-mixed-570.csv", None, "NVIDIA TITAN V"),
        ("kfd-properties/mi210-node2.txt", None, "gfx90a"),
        ("collect-env/cuda12.4-8xh100-torch2.5.1.txt", "collect-env", "NVIDIA H100 80GB HBM3"),
    ],
)
def test_from_detects_each_kind(capsys: pytest.CaptureFixture[str], fixture: str, kind: str | None,
                                expected: str) -> None:
    argv = ["env", "--from", str(FIXTURES / fixture)] + (["--kind", kind] if kind else [])
    code, out, err = run_cli(capsys, *argv)
    assert code == 0
    assert err.startswith("saved run "), "the only thing on stderr is where the Run was stored"
    assert expected in out


def test_saved_json_reads_back(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    saved = tmp_path / "run.json"
    assert main(["env", "--from", str(FIXTURES / "rocminfo/mi300x-8gpu-gfx942-rocm6.2.3.txt"), "--json",
                 "-o", str(saved)]) == 0
    code, out, _ = run_cli(capsys, "env", "--from", str(saved), "--json")
    assert code == 0
    devices = Run.from_dict(json.loads(out)).fingerprint.devices  # type: ignore[union-attr]
    assert len(devices) == 8 and devices[0].uuid.value == "<redacted>"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x7fELF\x02\x01\x01\x00\x00\x00binary", "binary data"),
        (b"", "the file is empty"),
        (b'{"kind": "env", "tool_version": "0.1.0", "fingerprint": {"host": {"os_name": {"sta',
         "malformed or truncated JSON"),
        (b'{"gpu_data": [{"gpu": 0, "asic": {"market_name": "AMD Inst', "malformed or truncated JSON"),
        (b"hello, world\nthis is not a report\n", "nothing in it was recognised"),
        (b'{"kind": "env", "tool_version": "0", "fingerprint": {"devices": [{"index": "zero", "vendor": "amd"}]}}',
         "$.fingerprint.devices[0].index: expected an integer"),
        (b"\xff\xfe\xfa not utf-8", "not UTF-8"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes,
                                                 message: str) -> None:
    bad = tmp_path / "report.txt"
    bad.write_bytes(content)
    code, out, err = run_cli(capsys, "env", "--from", str(bad))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"gpuready: error: {bad}: ")
    assert message in err


def test_missing_file_and_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "env", "--from", str(tmp_path / "nope.txt"))
    assert code == 2 and "no such file" in err
    code, _, err = run_cli(capsys, "env", "--kind", "rocminfo")
    assert code == 2 and "--kind: a report kind applies only when reports are read" in err
    code, _, err = run_cli(capsys, "env", "--from", str(FIXTURES / "rocminfo/rx7900xtx-gfx1100-rocm6.2.2.txt"),
                           "--kind", "amd-smi-static")
    assert code == 2 and "not a readable amd-smi-static report" in err
    code, _, _ = run_cli(capsys, "no-such-command")
    assert code == 2


def test_output_is_written_whole_or_not_at_all(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "env.json"
    target.write_text("previous content")
    code, _, _ = run_cli(capsys, "env", "--from", str(tmp_path / "missing"), "--json", "-o", str(target))
    assert code == 2
    assert target.read_text() == "previous content", "a failed run leaves the old file alone"
    assert main(["env", "--no-frameworks", "--json", "-o", str(target)]) == 0
    assert json.loads(target.read_text())["kind"] == "env"
    assert [p.name for p in tmp_path.iterdir()] == ["env.json"], "no temporary files left behind"


def test_output_to_a_device_or_through_a_symlink_is_not_replaced(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert main(["env", "--no-frameworks", "--json", "-o", str(link)]) == 0
    assert link.is_symlink(), "the link itself stays a link"
    assert json.loads(real.read_text())["kind"] == "env"
    assert main(["env", "--no-frameworks", "--json", "-o", "/dev/null"]) == 0
    assert Path("/dev/null").is_char_device()


def test_help_does_not_import_frameworks() -> None:
    code = ("import sys; from gpuready.cli import main; rc = main(['--help']); "
            "heavy = [m for m in ('torch', 'jax', 'rich', 'numpy') if m in sys.modules]; "
            "print('HEAVY', heavy); sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in done.stdout
    assert "env" in done.stdout


def test_python_dash_m_entry_point() -> None:
    done = subprocess.run([sys.executable, "-m", "gpuready", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and "gpuready" in done.stdout


def test_failed_probe_is_not_reported_as_no_accelerator(capsys: pytest.CaptureFixture[str]) -> None:
    report = FIXTURES / "rocminfo/permission-denied-not-in-render-group.txt"
    code, out, _ = run_cli(capsys, "env", "--from", str(report))
    assert code == 0
    assert "No accelerator could be listed: rocminfo failed" in out
    assert "No accelerator found" not in out
    assert "Permission denied" in out


def test_unsupported_gpu_warning_gives_arch_and_compiled_list(capsys: pytest.CaptureFixture[str]) -> None:
    report = FIXTURES / "collect-env/cuda12.6-rtx5090d-sm120-unsupported-torch2.6.txt"
    code, out, _ = run_cli(capsys, "env", "--from", str(report), "--json")
    fp = Run.from_dict(json.loads(out)).fingerprint
    assert code == 0 and fp is not None
    assert fp.devices[0].arch.value == "sm_120"
    torch = fp.framework("torch")
    assert torch is not None
    assert torch.arch_list.value == ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
    assert fp.stack.nvidia_driver_version.value == "570.124.04", "driver versions keep their leading zeros"


def test_cli_report_kinds_match_the_reader() -> None:
    from gpuready.cli import REPORT_KINDS
    from gpuready.probe.paste import ReportKind

    assert set(REPORT_KINDS) == {k.value for k in ReportKind}


def test_a_header_less_csv_of_another_field_list_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "env", "--from", str(FIXTURES / "nvidia-smi-query/a100-sxm4-40gb-noheader-545.csv"),
                           "--json", "--no-save")
    assert code == 0
    devices = json.loads(out)["fingerprint"]["devices"]
    assert [d["name"]["value"] for d in devices] == ["NVIDIA A100-SXM4-40GB"] * 3
    assert {d["pci_bus"]["value"] for d in devices} == {"00000000:0b:00.0", "00000000:3b:00.0", "00000000:8b:00.0"}
    assert devices[0]["memory_bytes"]["value"] == 40960 * 2**20


def test_the_hostname_is_read_on_this_machine() -> None:
    from gpuready.probe import collect_fingerprint

    host = collect_fingerprint(frameworks=False, redact_identifiers=False).host
    assert host.hostname.ok and host.hostname.value == __import__("socket").gethostname()
