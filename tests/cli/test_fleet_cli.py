"""``gpuready fleet node|report|baseline`` end to end: real node jobs on this CPU, several nodes writing to one
PostgreSQL store at once, synthetic fleets (made up) for the report's exit codes and formats, bad input exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuready.cli import main
from tests.fleet_synthetic import Plants, fleet_documents

CHEAP = ["--suite", "quick", "--only", "torch.device.enumerate", "--micro", "none", "--device", "cpu"]


def _write_fleet(root: Path, fleet: str, nodes: int, plants: Plants) -> None:
    for n, document in enumerate(fleet_documents(nodes, plants, fleet)):
        node = next(t for t in document["tags"] if t.startswith("node:")).split(":", 1)[1]
        folder = root / fleet / node
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{n:05d}.json").write_text(json.dumps(document))


@pytest.mark.torch
def test_two_nodes_on_this_cpu_then_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for node in ("cpu-a", "cpu-b"):
        code = main(["fleet", "node", "--fleet-run", "fcpu", "--node", node, "--job-id", f"j-{node}",
                     "--engine", "test", "--out", str(tmp_path), *CHEAP])
        assert code in (0, 1)  # doctor says NOT READY on a machine without a GPU
    written = sorted(p.relative_to(tmp_path).parts[:2] for p in tmp_path.rglob("*.json"))
    assert written == [("fcpu", "cpu-a")] * 2 + [("fcpu", "cpu-b")] * 2
    run = json.loads(next((tmp_path / "fcpu" / "cpu-a").glob("check-*.json")).read_text())
    assert {"fleet:fcpu", "node:cpu-a", "job:j-cpu-a", "engine:test"} <= set(run["tags"])
    capsys.readouterr()
    code = main(["fleet", "report", "fcpu", "--out", str(tmp_path), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert [n["node"] for n in report["nodes"]] == ["cpu-a", "cpu-b"]
    assert all(n["verdicts"]["check"] == "PASS" for n in report["nodes"])
    doctor_ready = {n["verdicts"]["doctor"] for n in report["nodes"]}
    assert code == (1 if doctor_ready == {"NOT READY"} else code)


def test_report_exit_codes_and_formats_on_a_synthetic_fleet(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    _write_fleet(tmp_path, "fgood", 8, Plants())
    _write_fleet(tmp_path, "fbad", 8, Plants(slow_gemm=("node0003",), failing_check=("node0005",)))
    assert main(["fleet", "report", "fgood", "--out", str(tmp_path)]) == 0
    assert "HEALTHY: 8 nodes" in capsys.readouterr().out
    html, prom = tmp_path / "fleet.html", tmp_path / "prom"
    assert main(["fleet", "report", "fbad", "--out", str(tmp_path), "--html", str(html),
                 "--textfile-dir", str(prom)]) == 1
    out = capsys.readouterr().out
    assert "DEFECTIVE NODES: 2 of 8" in out and "node0003" in out and "[check] check torch.ops.matmul: fail" in out
    page = html.read_text()
    assert "Heatmap" in page and "<script" not in page and "node0005" in page
    textfile = (prom / "node0003.prom").read_text()
    assert 'gpuready_fleet_node_defective{fleet_run="fbad",node="node0003"} 1.0' in textfile
    assert 'gpuready_fleet_node_defective{fleet_run="fbad",node="node0001"} 0.0' in (prom / "node0001.prom").read_text()
    assert main(["fleet", "report", "fbad", "--out", str(tmp_path), "--md"]) == 1
    assert "### Defective nodes" in capsys.readouterr().out
    assert main(["fleet", "report", "fbad", "--out", str(tmp_path), "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert [d["node"] for d in document["defective"]] == ["node0003", "node0005"]


def test_baseline_then_report_against_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write_fleet(tmp_path, "fgood", 6, Plants())
    _write_fleet(tmp_path, "fbad", 8, Plants(slow_gemm=("node0003",)))
    baseline = tmp_path / "baseline.yaml"
    assert main(["fleet", "baseline", "fbad", "--out", str(tmp_path), "-o", str(baseline)]) == 2
    assert "defective nodes" in capsys.readouterr().err
    assert main(["fleet", "baseline", "fgood", "--out", str(tmp_path), "-o", str(baseline)]) == 0
    assert baseline.read_text().startswith("fleet_baseline: 1")
    assert main(["fleet", "report", "fbad", "--out", str(tmp_path), "--baseline", str(baseline)]) == 1
    assert "[baseline] gemm_tflops_bf16" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "says"), [
    (["fleet", "report", "fnone", "--out", "{tmp}"], "no Runs of fleet run fnone"),
    (["fleet", "report", "bad,id", "--out", "{tmp}"], "FLEET_RUN"),
    (["fleet", "report", "fgood", "--out", "{tmp}", "--baseline", "{tmp}/missing.yaml"], "missing.yaml"),
    (["fleet", "report", "fgood", "--out", "{tmp}", "--mad", "-1"], "--mad"),
    (["fleet", "node", "--fleet-run", "f1", *CHEAP], "--out/--store"),
    (["fleet", "node", "--fleet-run", "f1", "--out", "{tmp}", "--micro", "flops"], "--micro"),
    (["fleet", "node", "--fleet-run", "f 1", "--out", "{tmp}"], "--fleet-run: expected"),
])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                         says: str) -> None:
    _write_fleet(tmp_path, "fgood", 3, Plants())
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err, err


def test_a_bad_baseline_file_exits_2_naming_file_and_field(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    _write_fleet(tmp_path, "fgood", 3, Plants())
    bad = tmp_path / "b.yaml"
    bad.write_text("fleet_baseline: 1\nmetrics:\n  - {metric: x, baseline: fast}\n")
    assert main(["fleet", "report", "fgood", "--out", str(tmp_path), "--baseline", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert str(bad) in err and "metrics[0].baseline" in err and len(err.splitlines()) == 1


NODE = """
import sys
from gpuready.cli import main
sys.exit(main(["fleet", "node", "--fleet-run", "fpg", "--node", sys.argv[2], "--store", sys.argv[1],
               "--suite", "none", "--micro", "none", "--engine", "test"]))
"""


def test_several_nodes_write_to_one_postgresql_store_at_once(postgres_url: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    nodes = [subprocess.Popen([sys.executable, "-c", NODE, postgres_url, f"pg-{n}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE) for n in range(4)]
    for node in nodes:
        _, error = node.communicate(timeout=300)
        assert node.returncode in (0, 1), error.decode()[-800:]
    capsys.readouterr()
    main(["fleet", "report", "fpg", "--store", postgres_url, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert [n["node"] for n in report["nodes"]] == ["pg-0", "pg-1", "pg-2", "pg-3"]
    assert all(n["runs"] == 1 for n in report["nodes"])
