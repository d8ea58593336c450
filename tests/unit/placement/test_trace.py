"""The audit's analysis over recorded op traces (plain data: no torch, no device)."""

from __future__ import annotations

import json

from gpuready.model import Severity, from_dict, to_dict
from gpuready.placement.trace import HOST, TARGET, OpRecord, Trace, analyse_trace


def op(name: str, kind: str, devices: tuple[str, ...], location: str, dtypes: tuple[str, ...] = ("float32",),
       size: int = 0) -> OpRecord:
    return OpRecord(op=name, kind=kind, devices=devices, dtypes=dtypes, location=location, bytes=size)


# A trace as a real CUDA run of a model with planted problems would record it (written for the test).
RECORDED = Trace(target="cuda", parameters_on_target=4, records=(
    op("aten.addmm.default", "compute", (TARGET,), "model.py:10"),
    op("aten.mul.Tensor", "compute", (HOST, TARGET), "model.py:11"),
    op("aten.mul.Tensor", "compute", (HOST, TARGET), "model.py:11"),
    op("aten._local_scalar_dense.default", "host_sync", (TARGET,), "model.py:12"),
    op("Tensor.cpu", "host_copy", (TARGET,), "model.py:13", size=4096),
    op("aten.sum.dim_IntList", "compute", (HOST,), "model.py:14"),
    op("aten.detach.default", "view", (HOST,), "model.py:14"),
    op("aten.sum.dim_IntList", "compute", (TARGET,), "model.py:15", dtypes=("float64",)),
))


def test_each_problem_at_its_line_worst_first() -> None:
    findings = analyse_trace(RECORDED)
    got = [(f.severity, f.code, f.location, f.evidence.get("count")) for f in findings]
    assert got == [
        (Severity.BLOCKER, "audit.mixed_device", "model.py:11", "2"),
        (Severity.WARN, "audit.cpu_fallback", "model.py:14", "1"),
        (Severity.WARN, "audit.host_sync", "model.py:12", "1"),
        (Severity.WARN, "audit.host_copy", "model.py:13", "1"),
        (Severity.WARN, "audit.float64", "model.py:15", "1"),
    ]
    assert next(f for f in findings if f.code == "audit.host_copy").evidence["bytes"] == "4096"


def test_a_clean_trace_has_no_findings() -> None:
    clean = Trace(target="cuda", parameters_on_target=2, records=(
        op("aten.addmm.default", "compute", (TARGET,), "m.py:1"), op("aten.t.default", "view", (TARGET,), "m.py:1")))
    assert analyse_trace(clean) == []


def test_model_not_on_device_and_no_device_work() -> None:
    records = (op("aten.addmm.default", "compute", (HOST,), "m.py:1"),)
    trace = Trace(target="cuda", parameters_on_host=3, records=records)
    codes = [f.code for f in analyse_trace(trace)]
    assert codes[:2] == ["audit.model_not_on_device", "audit.no_device_work"]
    assert "audit.cpu_fallback" not in codes, "with nothing on the device, CPU work is not a 'fallback'"
    partial = Trace(target="cuda", parameters_on_target=2, parameters_on_host=1, parameter_names_on_host=("w",),
                    records=(op("aten.addmm.default", "compute", (TARGET,), "m.py:1"),))
    assert [f.code for f in analyse_trace(partial)] == ["audit.parameters_on_host"]


def test_traces_round_trip_as_json() -> None:
    data = json.loads(json.dumps(to_dict(RECORDED)))
    assert from_dict(Trace, data) == RECORDED


def test_a_profiled_step_without_device_kernels_is_blocked() -> None:
    profiled = Trace(target="cuda", parameters_on_target=2, notes={"device_kernels": "0", "device_time_share": "0"},
                     records=(op("aten.addmm.default", "compute", (TARGET,), "m.py:1"),))
    assert [f.code for f in analyse_trace(profiled)] == ["audit.no_device_kernels"]
    busy = Trace(target="cuda", parameters_on_target=2, notes={"device_kernels": "42", "device_time_share": "0.9"},
                 records=profiled.records)
    assert analyse_trace(busy) == []
