"""Which parser reads which fixture folder; shared by the fixture tests and ``regenerate_expected.py``."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpuready.model import Fact, to_dict
from gpuready.probe.parse import parse_fact
from gpuready.probe.parse.amd_smi import (
    parse_amd_smi_default,
    parse_amd_smi_list,
    parse_amd_smi_static,
    parse_amd_smi_version,
    parse_rocm_smi_json,
)
from gpuready.probe.parse.collect_env import parse_collect_env
from gpuready.probe.parse.kfd import parse_kfd_properties
from gpuready.probe.parse.nvidia import parse_nvidia_proc_version, parse_nvidia_smi_csv
from gpuready.probe.parse.os_release import parse_lsb_release, parse_os_release
from gpuready.probe.parse.rocm_version import parse_amdgpu_module_version, parse_rocm_info_version
from gpuready.probe.parse.rocminfo import parse_rocminfo
from gpuready.probe.parse.topology import parse_topology

FIXTURES = Path(__file__).parent / "fixtures"
OUTPUT_SUFFIXES = (".txt", ".json", ".csv")
NOT_ONE_PARSER = frozenset({"compat-sources", "runs-schema1", "pastes", "scan-corpus", "scan-projects", "audit-models",
                            "jax-models", "sarif", "hipify-tables", "pastes-holdout", "pastes-holdout2",
                            "scan-corpus-holdout", "pastes-holdout3", "scan-corpus-holdout2",
                            "pastes-holdout4", "scan-corpus-holdout3", "pastes-holdout5",
                            "scan-corpus-holdout4", "scan-corpus-holdout5", "pastes-holdout6",
                            "pastes-holdout7", "scan-corpus-holdout6", "pastes-holdout8", "scan-corpus-holdout7",
                            "pastes-holdout9", "scan-corpus-holdout8", "pastes-holdout10",
                            "scan-corpus-holdout9", "pastes-holdout11", "scan-corpus-holdout10",
                            "pastes-holdout12", "scan-corpus-holdout11", "pastes-holdout13",
                            "scan-corpus-holdout12", "pastes-holdout14", "scan-corpus-holdout13",
                            "pastes-holdout15", "scan-corpus-holdout14",
                            "pastes-holdout16", "scan-corpus-holdout15",
                            "pastes-holdout17", "scan-corpus-holdout16", "pastes-holdout18",
                            "scan-corpus-holdout17", "pastes-holdout19", "scan-corpus-holdout18",
                            "pastes-holdout20", "scan-corpus-holdout19",
                            "pastes-holdout21", "scan-corpus-holdout20"})
"""Folders of other material: stored Runs, whole pastes (read by the paste reader), scan labels, example code."""


@dataclass(frozen=True)
class Fixture:
    """One recorded output with its sidecars."""

    kind: str
    path: Path

    @property
    def case(self) -> str:
        return self.path.name[: -len(self.path.suffix)]

    @property
    def source_path(self) -> Path:
        return self.path.with_name(self.case + ".source.yaml")

    @property
    def expected_path(self) -> Path:
        return self.path.with_name(self.case + ".expected.json")

    def source(self) -> dict[str, Any]:
        data = yaml.safe_load(self.source_path.read_text(encoding="utf-8"))
        assert isinstance(data, dict), self.source_path
        return data

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")


def all_fixtures() -> list[Fixture]:
    """Every recorded output under tests/fixtures/<kind>/ (sidecars excluded)."""
    found = []
    for folder in sorted(p for p in FIXTURES.iterdir() if p.is_dir() and p.name not in NOT_ONE_PARSER):
        for path in sorted(folder.iterdir()):
            if path.suffix in OUTPUT_SUFFIXES and not path.name.endswith(".expected.json"):
                found.append(Fixture(folder.name, path))
    return found


def _query_fields(fixture: Fixture) -> list[str] | None:
    match = re.search(r"--query-gpu=(\S+)", str(fixture.source().get("command", "")))
    return match.group(1).split(",") if match else None


def parser_for(fixture: Fixture) -> Callable[[str], Any]:
    """The pure parser that reads this fixture."""
    kind, case = fixture.kind, fixture.case
    if kind == "amd-smi":
        if case.startswith("version"):
            return parse_amd_smi_version
        if case.startswith("list"):
            return parse_amd_smi_list
        if case.startswith("default"):
            return parse_amd_smi_default
        return parse_amd_smi_static
    if kind == "nvidia-smi-query":
        fields = _query_fields(fixture)
        return lambda text: parse_nvidia_smi_csv(text, fields)
    if kind == "rocm-version":
        return parse_amdgpu_module_version if case.startswith("sys-module") else parse_rocm_info_version
    parsers: dict[str, Callable[[str], Any]] = {
        "rocminfo": parse_rocminfo,
        "rocm-smi": parse_rocm_smi_json,
        "kfd-properties": parse_kfd_properties,
        "nvidia-proc-version": parse_nvidia_proc_version,
        "os-release": parse_os_release,
        "lsb-release": parse_lsb_release,
        "collect-env": parse_collect_env,
        "topology": parse_topology,
    }
    return parsers[kind]


def parse_to_data(fixture: Fixture) -> Any:
    """What the parser makes of the fixture, as JSON data (a Fact: ok with the value, or error with the reason)."""
    fact: Fact[Any] = parse_fact(parser_for(fixture), fixture.text(), fixture.kind)
    return to_dict(fact)
