"""``gpuready compare`` and ``gpuready report`` end to end: stored ids and files, every format, bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gpuready.cli import main
from gpuready.model import CheckStatus, Run, Vendor
from gpuready.report.markdown import escape, render_run_markdown
from gpuready.report.prometheus import label_value, render_prometheus
from gpuready.store import open_store
from gpuready.store import render_run as render_json
from tests.unit.comparison.builders import bench_run, check_run, scan_run, step_times

HOSTILE = "<script>alert('x')</script> | `rm` [link](http://x) $1$ -->"


def _write(tmp_path: Path, name: str, run: Run) -> Path:
    path = tmp_path / name
    path.write_text(render_json(run))
    return path


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    a = bench_run("NVIDIA H100 80GB HBM3", step_times(0.131, seed=1), label="H100")
    b = bench_run("AMD Instinct MI300X", step_times(0.100, seed=2), label="MI300X", vendor=Vendor.AMD,
                  memory_gib=192, rocm="6.4.1")
    return _write(tmp_path, "a.json", a), _write(tmp_path, "b.json", b)


def test_compare_files_json_with_cost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _pair(tmp_path)
    code = main(["compare", str(a), str(b), "--price", "H100=2.5", "--price", "MI300X=2.0", "--gpus-per-node", "8",
                 "--train-tokens", "2e9", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    pairing = data["pairings"][0]
    assert pairing["conclusion"].startswith("MI300X is 1.3")
    assert {line["side"] for line in pairing["cost"]} == {"H100", "MI300X"}
    assert all(line["train_usd"] > 0 for line in pairing["cost"])


def test_compare_stored_ids_joined_with_checks_and_scan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = open_store(os.environ["GPUREADY_STORE"])
    bench_a = bench_run("NVIDIA H100 80GB HBM3", step_times(0.1, seed=1), label="incumbent")
    bench_b = bench_run("AMD Instinct MI300X", step_times(0.1, seed=5), label="candidate")
    checks = check_run("AMD Instinct MI300X", {"torch.ops.matmul": CheckStatus.PASS})
    scan = scan_run(1, 0)
    for run in (bench_a, bench_b, checks, scan):
        store.save(run)
    code = main(["compare", bench_a.id[:10], f"{bench_b.id[:10]}+{checks.id[:10]}+{scan.id[:10]}", "--md",
                 str(tmp_path / "c.md")])
    out = capsys.readouterr().out
    assert code == 0
    assert "within noise" in out and "candidate against incumbent" in out
    markdown = (tmp_path / "c.md").read_text()
    assert "### candidate against incumbent" in markdown and "1 blocker(s)" in markdown


@pytest.mark.parametrize("argv, message", [
    (["compare", "a.json"], "at least two"),
    (["compare", "a.json", "b.json", "--price", "H100"], "NAME=USD_PER_GPU_HOUR"),
    (["compare", "a.json", "nosuchid"], "no stored run"),
    (["compare", "a.json", "bad.json"], "bad.json"),
])
def test_compare_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                   message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _pair(tmp_path)
    (tmp_path / "bad.json").write_text("{not json")
    monkeypatch.chdir(tmp_path)  # restored afterwards: later tests' children must not start in this folder
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_report_writes_every_format_and_escapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = check_run("AMD Instinct MI300X", {"torch.ops.matmul": CheckStatus.PASS, HOSTILE: CheckStatus.FAIL})
    path = _write(tmp_path, "check.json", run)
    files = {kind: tmp_path / f"out.{kind}" for kind in ("html", "md", "junit", "prom")}
    code = main(["report", str(path), "--html", str(files["html"]), "--md", str(files["md"]), "--junit",
                 str(files["junit"]), "--prom", str(files["prom"])])
    assert code == 0, capsys.readouterr().err
    html = files["html"].read_text()
    assert "<script>" not in html and "&lt;script&gt;" in html
    markdown = files["md"].read_text()
    assert "<script>" not in markdown and "\\|" in markdown and "&lt;script&gt;" in markdown
    assert "testcase" in files["junit"].read_text()
    prom = files["prom"].read_text()
    assert 'gpuready_checks{device="",kind="check",label="",status="fail"} 1.0' in prom
    assert 'gpuready_verdict{device="",kind="check",label="",level="fail",verdict="FAIL"} 1.0' in prom
    code = main(["report", str(path)])
    assert code == 0 and "FAIL: 1 pass, 1 failed" in capsys.readouterr().out
    assert main(["report", str(path), "--json"]) == 0
    assert Run.from_dict(json.loads(capsys.readouterr().out)) == run


def test_markdown_escape_neutralises_markup() -> None:
    text = escape(HOSTILE + "\nsecond line")
    assert "<" not in text and ">" not in text and "\n" not in text
    for char in "|`[]$":
        assert f"\\{char}" in text
    assert escape("plain text 1.2x (CI 1.1-1.3)") == "plain text 1.2x (CI 1.1-1.3)"


def test_prometheus_output_parses_and_escapes_labels() -> None:
    run = bench_run("AMD \"Instinct\" MI300X\\", step_times(0.1), label="line\nbreak")
    text = render_prometheus(run)
    assert label_value('a"b\\c\nd') == 'a\\"b\\\\c\\nd'
    families = [line for line in text.splitlines() if line.startswith("# TYPE")]
    assert {line.split()[2] for line in families} == {"gpuready_run_timestamp_seconds", "gpuready_verdict",
                                                      "gpuready_measurement_median"}
    sample = next(line for line in text.splitlines() if 'metric="step_time"' in line)
    assert float(sample.rsplit(" ", 1)[1]) == pytest.approx(0.1, rel=0.02)
    assert 'device="AMD \\"Instinct\\" MI300X\\\\"' in sample and 'label="line\\nbreak"' in sample
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        return
    names = {family.name for family in text_string_to_metric_families(text)}
    assert "gpuready_measurement_median" in names


def test_run_markdown_lists_measurements() -> None:
    text = render_run_markdown(bench_run("NVIDIA H100 80GB HBM3", step_times(0.1), label="H100"))
    assert "| transformer | step\\_time |" in text and "NVIDIA H100 80GB HBM3" in text


def test_doctor_writes_a_prometheus_textfile_for_monitoring(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    fixture = sorted((Path(__file__).parents[1] / "fixtures" / "collect-env").glob("*.txt"))[0]
    prom = tmp_path / "gpuready.prom"
    code = main(["doctor", "--from", str(fixture), "--no-save", "--prom", str(prom)])
    capsys.readouterr()
    text = prom.read_text()
    verdict = next(line for line in text.splitlines() if line.startswith("gpuready_verdict{"))
    assert 'kind="doctor"' in verdict and verdict.endswith(" 1.0")
    assert ('verdict="NOT READY"' in verdict) == (code == 1)
    assert 'gpuready_findings{device="cpu",kind="doctor"' in text


def test_runs_import_and_delete_speak_json_and_import_all_or_nothing(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _pair(tmp_path)
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["runs", "import", str(a), str(bad), "--store", url]) == 2
    with open_store(url) as store:
        assert store.count() == 0, "a bad file stores nothing"
    capsys.readouterr()
    assert main(["runs", "import", str(a), str(b), "--store", url, "--json"]) == 0
    ids = json.loads(capsys.readouterr().out)
    assert len(ids) == 2
    assert main(["runs", "delete", ids[0][:10], "--store", url, "--json"]) == 2, "delete takes whole ids only"
    assert main(["runs", "delete", ids[0], "--store", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [ids[0]]
