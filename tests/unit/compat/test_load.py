"""The data loader: the bundled set is valid; malformed files fail naming the file and the key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuready.cli import main
from gpuready.compat.load import DEFAULT_DATA, FILES, load_dataset
from gpuready.errors import SchemaError


def test_bundled_data_loads_and_every_entry_cites_a_source() -> None:
    data = load_dataset()
    assert len(data.gpus.gpus) >= 60
    assert len(data.rocm.releases) >= 20
    assert len(data.torch.releases) >= 15
    assert data.cuda.toolkits and data.cuda.arch_support and data.jax.rocm
    for release in data.rocm.releases:
        assert release.source.startswith("https://")


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA, target)
    return target


@pytest.mark.parametrize(
    ("file", "edit", "field", "message"),
    [
        ("rocm.yaml", lambda d: d["releases"][0].update(version=6.1), "$.releases[0].version",
         "expected a version string"),
        ("gpus.yaml", lambda d: d["gpus"][3].update(arch="gfx-nine"), "$.gpus[3].arch", "expected a target"),
        ("torch.yaml", lambda d: d["releases"][0].pop("variants"), "$.releases[0]", "missing required field"),
        ("cuda.yaml", lambda d: d["toolkits"][0].update(source="http://insecure.example"), "$.toolkits[0].source",
         "https://"),
        ("gpus.yaml", lambda d: d["gpus"].append(dict(d["gpus"][0])), "$.gpus[", "duplicate entry"),
        ("jax.yaml", lambda d: d.update(as_of="yesterday"), "$.as_of", "a date"),
        ("rocm.yaml", lambda d: d["releases"][1].update(colour="red"), "$.releases[1]", "unknown field 'colour'"),
        ("gpus.yaml", lambda d: d["gpus"][3]["peak_tflops"].update(fp4=9000.0), "$.gpus[3].peak_tflops",
         "expected one of fp64"),
        ("gpus.yaml", lambda d: d["gpus"][3]["peak_tflops"].update(fp32=-1.0), "$.gpus[3].peak_tflops.fp32",
         "positive"),
        ("gpus.yaml", lambda d: d["gpus"][3].update(memory_bandwidth_gbps=0), "$.gpus[3].memory_bandwidth_gbps",
         "positive"),
        ("gpus.yaml", lambda d: d["gpus"][3].update(rates_source="http://example.com"), "$.gpus[3].rates_source",
         "https://"),
        ("torch.yaml", lambda d: d["releases"][0]["variants"][0].update(source="https://example.com", read=None),
         "$.releases[0].variants[0].read", "needs read"),
        ("gpus.yaml", lambda d: d["gpus"][3].update(devices_per_board=0), "$.gpus[3].devices_per_board",
         "whole number of devices"),
        ("gpus.yaml", lambda d: (d["gpus"][3].update(rates_source="https://example.com"),
                                 d["gpus"][3].pop("rates_read", None)), "$.gpus[3].rates_read", "needs rates_read"),
    ],
)
def test_malformed_data_names_file_and_key(copy: Path, file: str, edit: object, field: str, message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = copy / file
    data = yaml.safe_load(path.read_text())
    edit(data)  # type: ignore[operator]
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(SchemaError) as raised:
        load_dataset(copy)
    assert raised.value.source == str(path)
    assert field in (raised.value.field or "")
    assert message in str(raised.value)
    assert main(["data", "validate", str(copy)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and field in err


def test_yaml_syntax_error_names_the_line(copy: Path) -> None:
    (copy / "cuda.yaml").write_text("as_of: 2026-11-29\ntoolkits: [\n  {version: '12.4'\n")
    with pytest.raises(SchemaError, match=r"cuda.yaml: line \d+ column \d+: not valid YAML"):
        load_dataset(copy)


def test_missing_file_and_not_a_directory(copy: Path, tmp_path: Path) -> None:
    (copy / "jax.yaml").unlink()
    with pytest.raises(SchemaError, match="jax.yaml: missing data file"):
        load_dataset(copy)
    with pytest.raises(SchemaError, match="not a directory"):
        load_dataset(tmp_path / "nowhere")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_damage_to_a_data_file_is_valid_data_or_a_schema_error(copy: Path, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(FILES)))
    original = (DEFAULT_DATA / name).read_text()
    lines = original.splitlines(keepends=True)
    how = data.draw(st.sampled_from(["truncate", "drop", "swap-value"]))
    if how == "truncate":
        damaged = original[: data.draw(st.integers(0, len(original)))]
    elif how == "drop":
        keep = data.draw(st.lists(st.booleans(), min_size=len(lines), max_size=len(lines)))
        damaged = "".join(line for line, kept in zip(lines, keep, strict=True) if kept)
    else:
        index = data.draw(st.integers(0, max(0, len(lines) - 1)))
        junk = data.draw(st.sampled_from(["  - 17\n", "x: [\n", "version: 6.1\n", "'\n", "- {}\n", "arch: 42\n"]))
        damaged = "".join(lines[:index] + [junk] + lines[index + 1:])
    (copy / name).write_text(damaged)
    try:
        load_dataset(copy)
    except SchemaError as error:
        assert error.source and error.source.endswith(name)
    finally:
        (copy / name).write_text(original)
