"""The data model: lossless round trips, clear errors on bad documents, the committed JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from gpuready.errors import SchemaError
from gpuready.model import (
    SCHEMA_VERSION,
    BuildVariant,
    CheckResult,
    CheckStatus,
    Device,
    Fact,
    FactStatus,
    Finding,
    Fingerprint,
    Framework,
    Measurement,
    Run,
    RunKind,
    Severity,
    Stack,
    Summary,
    Vendor,
    from_dict,
    make_run,
    to_dict,
)
from gpuready.model.schema import render_schema

SCHEMA_FILE = Path(__file__).parents[3] / "docs" / "schema" / "run.schema.json"


def full_run() -> Run:
    fingerprint = Fingerprint(
        devices=(Device(index=0, vendor=Vendor.AMD, name=Fact.of("AMD Instinct MI300X", "rocminfo"),
                        arch=Fact.of("gfx942", "kfd"), memory_bytes=Fact.of(206141652992, "rocminfo"),
                        sources=("rocminfo", "kfd")),),
        stack=Stack(rocm_version=Fact.of(Version("6.2.3"), "/opt/rocm/.info/version", detail="6.2.3-42"),
                    nvidia_driver_version=Fact.absent("/proc/driver/nvidia/version", "no module")),
        frameworks=(Framework(name="torch", version=Fact.of("2.5.1+rocm6.2", "child"),
                              variant=Fact.of(BuildVariant.ROCM, "child"),
                              device_archs=Fact.of(("gfx942:sramecc+:xnack-",), "child"),
                              accelerator_available=Fact.of(True, "child"),
                              device_count=Fact.error("child", "timed out after 90 s")),),
        environment={"HIP_VISIBLE_DEVICES": "0"},
    )
    return make_run(
        RunKind.CHECK,
        "0.1.0",
        fingerprint=fingerprint,
        findings=(Finding(code="compat.gpu_unsupported", severity=Severity.BLOCKER, message="m",
                          evidence={"arch": "gfx1031"}, remedy="r", source_url="https://example.org/matrix"),),
        results=(CheckResult(check_id="torch.ops.matmul", status=CheckStatus.PASS, duration_s=0.5,
                             metrics={"max_abs_error": 1e-6}, details={"dtype": "bf16", "shape": [64, 64]}),),
        measurements=(Measurement(metric="step_time", unit="s", samples=(0.1, 0.2, 0.3),
                                  summary=Summary(count=3, median=0.2, p10=0.1, p90=0.3, mean=0.2, stdev=0.1)),),
        label="mi300x-node",
        tags=("nightly",),
    )


def test_run_round_trips_losslessly_through_json() -> None:
    run = full_run()
    again = Run.from_dict(json.loads(json.dumps(run.to_dict())))
    assert again == run
    assert isinstance(again.fingerprint.stack.rocm_version.value, Version)  # type: ignore[union-attr]
    assert again.fingerprint.frameworks[0].device_archs.value == ("gfx942:sramecc+:xnack-",)  # type: ignore[union-attr]


def test_committed_schema_matches_the_model() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == render_schema(), (
        "docs/schema/run.schema.json is stale: python -m gpuready.model.schema > docs/schema/run.schema.json"
    )


def test_runs_validate_against_the_committed_schema() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(full_run().to_dict(), schema)
    jsonschema.validate(make_run(RunKind.ENV, "0").to_dict(), schema)


def test_schema_rejects_what_the_model_rejects() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    data = full_run().to_dict()
    data["fingerprint"]["devices"][0]["memory_bytes"]["value"] = "lots"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)
    with pytest.raises(SchemaError, match=r"devices\[0\]\.memory_bytes\.value: expected an integer"):
        Run.from_dict(data)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("kind"), "missing required field 'kind'"),
        (lambda d: d.update(kind="party"), r"\$\.kind: expected one of"),
        (lambda d: d.update(surprise=1), "unknown field 'surprise'"),
        (lambda d: d["results"][0].update(status="fine"), r"results\[0\]\.status"),
        (lambda d: d["fingerprint"]["stack"]["rocm_version"].update(value="six"), "expected a version string"),
        (lambda d: d.update(schema_version=99), "schema_version 99 is not supported"),
        (lambda d: d.update(created_at="yesterday"), r"\$: created_at 'yesterday': expected an ISO 8601 time"),
        (lambda d: d.update(id="../../etc"), r"expected 1 to 64 letters"),
        (lambda d: d["fingerprint"]["stack"]["nvidia_driver_version"].update(value="1.0"),
         r"nvidia_driver_version: a Fact with status absent carries no value"),
    ],
)
def test_bad_documents_name_the_field(mutate: object, message: str) -> None:
    data = full_run().to_dict()
    mutate(data)  # type: ignore[operator]
    with pytest.raises(SchemaError, match=message):
        Run.from_dict(data, source="run.json")


def test_schema_version_is_recorded() -> None:
    assert full_run().to_dict()["schema_version"] == SCHEMA_VERSION


def test_fact_status_and_value_agree() -> None:
    with pytest.raises(ValueError):
        Fact(FactStatus.ERROR, "value")
    with pytest.raises(ValueError):
        Fact(FactStatus.OK, None)
    assert Fact.maybe(None, "x").status is FactStatus.ABSENT
    assert Fact.error("tool", "boom").get("fallback") == "fallback"


json_scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**63), max_value=2**64),
                         st.floats(allow_nan=False), st.text())


@settings(max_examples=100)
@given(
    name=st.text(),
    memory=st.integers(min_value=0, max_value=2**64),
    details=st.dictionaries(st.text(), st.recursive(json_scalars, lambda c: st.lists(c) | st.dictionaries(st.text(), c),
                                                    max_leaves=10)),
    samples=st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=20),
    status=st.sampled_from(list(FactStatus)),
)
def test_round_trip_property(name: str, memory: int, details: dict[str, object], samples: list[float],
                             status: FactStatus) -> None:
    fact: Fact[str] = Fact.of(name, "s") if status is FactStatus.OK else Fact(status, None, "s", "why")
    run = make_run(
        RunKind.BENCH,
        "t",
        fingerprint=Fingerprint(devices=(Device(index=0, vendor=Vendor.NVIDIA, name=fact,
                                                memory_bytes=Fact.of(memory, "m")),)),
        results=(CheckResult(check_id="c", status=CheckStatus.ERROR, details=details),),
        measurements=(Measurement(metric="m", unit="s", samples=tuple(samples),
                                  summary=Summary(len(samples), 0.0, 0.0, 0.0, 0.0, 0.0)),),
    )
    assert Run.from_dict(json.loads(json.dumps(run.to_dict()))) == run


def test_from_dict_builds_nested_generic_facts() -> None:
    data = to_dict(Fact.of(("gfx90a", "gfx942"), "torch"))
    assert from_dict(Fact[tuple[str, ...]], data).value == ("gfx90a", "gfx942")
    with pytest.raises(SchemaError, match=r"\$\.value\[1\]: expected a string"):
        from_dict(Fact[tuple[str, ...]], {"status": "ok", "value": ["gfx90a", 7]})
