"""Every recorded output is parsed and compared with its reviewed expected.json; every one names its source."""

from __future__ import annotations

import json

import pytest

from tests.fixture_kinds import FIXTURES, NOT_ONE_PARSER, Fixture, all_fixtures, parse_to_data

FIXTURE_LIST = all_fixtures()
IDS = [f"{f.kind}/{f.case}" for f in FIXTURE_LIST]


def test_there_are_enough_real_fixtures() -> None:
    real = [f for f in FIXTURE_LIST if "synthetic" not in f.case]
    assert len(real) >= 25
    kinds = {f.kind for f in real}
    assert {"rocminfo", "amd-smi", "rocm-smi", "kfd-properties", "collect-env", "nvidia-smi-query",
            "nvidia-proc-version", "os-release"} <= kinds


@pytest.mark.parametrize("fixture", FIXTURE_LIST, ids=IDS)
def test_parser_output_matches_expected(fixture: Fixture) -> None:
    expected = json.loads(fixture.expected_path.read_text(encoding="utf-8"))
    assert parse_to_data(fixture) == expected


@pytest.mark.parametrize("fixture", FIXTURE_LIST, ids=IDS)
def test_fixture_names_its_source(fixture: Fixture) -> None:
    source = fixture.source()
    assert str(source.get("url", "")).startswith("https://"), "a real fixture names the public URL it came from"
    assert source.get("retrieved"), "and the date it was read"
    assert isinstance(source.get("excerpt"), bool), "and whether it is an excerpt"


def test_no_orphan_sidecars() -> None:
    outputs = {f.case for f in FIXTURE_LIST}
    for sidecar in FIXTURES.glob("*/*.source.yaml"):
        if sidecar.parent.name in NOT_ONE_PARSER:
            continue
        assert sidecar.name.removesuffix(".source.yaml") in outputs, sidecar
    for expected in FIXTURES.glob("*/*.expected.json"):
        assert expected.name.removesuffix(".expected.json") in outputs, expected


def test_only_the_truncated_fixture_fails_to_parse() -> None:
    failing = sorted(f.case for f in FIXTURE_LIST if parse_to_data(f)["status"] != "ok")
    assert failing == [f.case for f in FIXTURE_LIST if "truncated" in f.case]
