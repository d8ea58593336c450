"""The HTML reports opened in headless Chromium: they render, show their plots, log no console errors, and a
hostile string from the environment stays text. Skipped where Playwright or a Chromium is not installed.

Set GPUREADY_SCREENSHOT_DIR to also save screenshots (docs/images/ holds the committed ones).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gpuready.comparison import CostInputs, Side, compare_sides
from gpuready.compat.load import load_dataset
from gpuready.model import CheckStatus, Provenance, Vendor, make_run
from gpuready.report.html import render_comparison_html, render_run_html
from tests.unit.comparison.builders import bench_run, check_run, scan_run, step_times

playwright = pytest.importorskip("playwright.sync_api")
pytest.importorskip("matplotlib")
CHROMIUM = next((path for path in (shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome",
                                                                    "headless_shell")) if path), None)
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def _runs() -> tuple[list[Side], object]:
    settings_sweep = []
    for batch, median in ((8, 0.061), (16, 0.100), (32, 0.180)):
        run = bench_run("NVIDIA H100 80GB HBM3", step_times(median * 1.3, seed=batch), label="H100 node",
                        workload=HOSTILE, batch_size=batch)
        settings_sweep.append(run)
    a = bench_run("NVIDIA H100 80GB HBM3", step_times(0.131, seed=1), label="H100 node", max_batch=96,
                  peak_memory_gib=41, cuda_driver="12.8")
    b = bench_run("AMD Instinct MI300X", step_times(0.100, seed=2), label="MI300X node", vendor=Vendor.AMD,
                  memory_gib=192, peak_memory_gib=44, max_batch=320, rocm="6.4.1")
    checks_a = check_run("NVIDIA H100 80GB HBM3",
                         {f"torch.ops.{op}": CheckStatus.PASS for op in ("mm", "conv", "sdpa")})
    checks_b = check_run("AMD Instinct MI300X", {"torch.ops.mm": CheckStatus.PASS, "torch.ops.conv": CheckStatus.PASS,
                                                 "torch.ops.sdpa": CheckStatus.FAIL})
    sides = [Side("H100 node", (a, checks_a)), Side("MI300X node", (b, checks_b, scan_run(2, 3)))]
    return sides, settings_sweep


def _open(tmp_path: Path, name: str, html: str) -> tuple[list[str], dict[str, object]]:
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    errors: list[str] = []
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))
        page.goto(path.as_uri())
        facts = page.evaluate("""() => ({
            svgs: Array.from(document.querySelectorAll('figure svg')).map(s => s.getBoundingClientRect().height),
            scripts: document.querySelectorAll('script').length,
            images: document.querySelectorAll('img').length,
            text: document.body.innerText,
            tables: document.querySelectorAll('table').length})""")
        directory = os.environ.get("GPUREADY_SCREENSHOT_DIR")
        if directory:
            page.screenshot(path=str(Path(directory) / name.replace(".html", ".png")), full_page=True)
        browser.close()
    return errors, facts


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine")
def test_comparison_report_renders_with_plots_and_no_errors(tmp_path: Path) -> None:
    sides, _ = _runs()
    comparison = compare_sides(sides, load_dataset().gpus.gpus, CostInputs({"H100": 2.99, "MI300X": 2.10}, 8, 0.85,
                                                                             2e9))
    errors, facts = _open(tmp_path, "compare-report.html", render_comparison_html(comparison, sides))
    assert errors == []
    assert len(facts["svgs"]) == 2 and all(height > 100 for height in facts["svgs"])  # type: ignore[union-attr]
    text = str(facts["text"])
    assert "MI300X node is 1.3" in text and "cheaper per token" in text and "torch.ops.sdpa" in text
    assert "SYNTHETIC: these numbers were made up" in text, "a report of made-up runs says so in its header"
    assert facts["scripts"] == 0 and facts["tables"] >= 4


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine")
def test_run_report_shows_a_hostile_model_name_as_text(tmp_path: Path) -> None:
    _, sweep = _runs()
    merged = make_run(sweep[0].kind, "test", fingerprint=sweep[0].fingerprint, label=HOSTILE,
                      measurements=[m for run in sweep for m in run.measurements], provenance=Provenance.SYNTHETIC)
    errors, facts = _open(tmp_path, "run-report.html", render_run_html(merged))
    assert errors == []
    assert facts["scripts"] == 0 and facts["images"] == 0
    assert HOSTILE in str(facts["text"]) and "SYNTHETIC" in str(facts["text"])
    assert len(facts["svgs"]) == 2 and all(height > 100 for height in facts["svgs"])  # type: ignore[union-attr]


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine")
def test_fleet_report_shows_the_heatmap_and_a_hostile_field_as_text(tmp_path: Path) -> None:
    from gpuready.fleet.analysis import analyse
    from gpuready.fleet.collect import Collected, digest
    from gpuready.fleet.render import render_html
    from tests.fleet_synthetic import Plants, fleet_documents

    plants = Plants(slow_gemm=("node0003",), failing_check=("node0009",), half_bandwidth=("node0014",),
                    other_driver=("node0011",))
    documents = fleet_documents(16, plants, "fdemo")
    for document in documents:  # a hostile kernel string on one node: it must stay text
        if "node:node0006" in document["tags"] and document.get("fingerprint"):
            document["fingerprint"]["host"]["kernel"]["value"] = HOSTILE
    found = [digest(d, "synthetic", "fdemo") for d in documents]
    report = analyse(Collected("fdemo", tuple(d for d in found if d is not None)))
    errors, facts = _open(tmp_path, "fleet-report.html", render_html(report))
    assert errors == []
    assert facts["scripts"] == 0 and facts["images"] == 0
    text = str(facts["text"])
    assert HOSTILE in text and "SYNTHETIC" in text and "DEFECTIVE NODES: 5 of 16" in text
    for node in ("node0003", "node0006", "node0009", "node0011", "node0014"):
        assert node in text
    assert "Heatmap" in text and facts["tables"] >= 5
