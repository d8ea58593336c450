"""Golden files of the fleet engines: what a site gets (manifests, sbatch scripts, submitit parameters).
``GPUREADY_REGENERATE=1 pytest tests/unit/fleet_engines`` rewrites them; review the diff before committing."""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN = Path(__file__).parents[2] / "fixtures" / "fleet" / "engines"


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("GPUREADY_REGENERATE") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with GPUREADY_REGENERATE=1 and review it"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"
