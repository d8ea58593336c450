"""The fleet report as a public function (``gpuready.fleet_report``): it lives here, above the front door, because
the fleet package runs its node job through ``gpuready.api``."""

from __future__ import annotations

from pathlib import Path

from gpuready.errors import InputError
from gpuready.fleet.analysis import FleetReport, analyse
from gpuready.fleet.baseline import load_baseline
from gpuready.fleet.collect import from_folder, from_store
from gpuready.fleet.config import ReportConfig
from gpuready.fleet.tags import check_value


def fleet_report(fleet: str, *, store_url: str | None = None, folder: Path | None = None,
                 config: ReportConfig | None = None) -> FleetReport:
    """A fleet run's report: every node's Runs (from the store the nodes wrote to, or the folder they wrote under),
    fields that differ across nodes, checks failing on some, metric outliers, baseline rules, the defective nodes."""
    check_value("fleet", fleet)
    config = config or ReportConfig()
    baseline = load_baseline(config.baseline) if config.baseline is not None else None
    collected = from_folder(folder, fleet) if folder is not None else from_store(store_url, fleet)
    if not collected.digests:
        where = str(folder) if folder is not None else (store_url or "the default store")
        raise InputError(f"no Runs of fleet run {fleet} in {where}"
                         + (f" ({len(collected.unreadable)} could not be read)" if collected.unreadable else ""),
                         field="fleet")
    return analyse(collected, config, baseline)
