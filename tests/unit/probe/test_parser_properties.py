"""Property tests: any text fed to any parser gives a result or a ParseError, never another exception."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuready.errors import ParseError
from gpuready.model import FactStatus
from gpuready.probe.parse import parse_fact
from gpuready.probe.parse.amd_smi import (
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
from gpuready.probe.paste import detect_kind
from tests.fixture_kinds import all_fixtures, parser_for

PARSERS: dict[str, Callable[[str], Any]] = {
    "rocminfo": parse_rocminfo,
    "amd-smi static": parse_amd_smi_static,
    "amd-smi list": parse_amd_smi_list,
    "amd-smi version": parse_amd_smi_version,
    "rocm-smi": parse_rocm_smi_json,
    "kfd": parse_kfd_properties,
    "nvidia-smi": parse_nvidia_smi_csv,
    "nvidia proc": parse_nvidia_proc_version,
    "os-release": parse_os_release,
    "lsb-release": parse_lsb_release,
    "collect_env": parse_collect_env,
    "rocm version": parse_rocm_info_version,
    "amdgpu version": parse_amdgpu_module_version,
    "topology": parse_topology,
}

# Text that looks a little like tool output, so the fuzzer reaches past the first check.
VOCABULARY = st.sampled_from([
    "Agent 1", "  Name:  gfx942", "  Device Type: GPU", "Marketing Name: X", "simd_count 4", "gfx_target_version 9",
    "PyTorch version: 2.1", "GPU models and configuration:", "GPU 0: A", '{"gpu_data": [', '{"card0": {', "[{",
    "ID=ubuntu", 'PRETTY_NAME="x', "name, pci.bus_id", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  1.2",
    "AMDSMI Tool: 1 | ROCm version: x", "GPU: 0", "BDF: 0000:", "\tGPU0\tGPU1", "GPU0\t X \tNV18",
    "Link Type between two GPUs", "LINK TYPE TABLE:", "XGMI", ",", ":", "=", '"', "\n", " ", "0x", "-1", "1.2.3",
])
TEXT = st.one_of(st.text(), st.lists(st.one_of(VOCABULARY, st.text(max_size=8)), max_size=40).map("".join))


@pytest.mark.parametrize("name", sorted(PARSERS))
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(text=TEXT)
def test_parsers_never_raise_anything_but_parse_error(name: str, text: str) -> None:
    try:
        PARSERS[name](text)
    except ParseError:
        pass
    fact = parse_fact(PARSERS[name], text, name)
    assert fact.status in (FactStatus.OK, FactStatus.ERROR)
    if fact.status is FactStatus.ERROR:
        assert fact.detail, "an error says why"


FIXTURES = all_fixtures()


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f"{f.kind}/{f.case}" for f in FIXTURES])
@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
          deadline=None)
@given(data=st.data())
def test_damaged_real_output_is_a_result_or_parse_error(fixture: Any, data: st.DataObject) -> None:
    """Cut a real output anywhere, or drop lines from it: the parser copes or says why."""
    text = fixture.text()
    lines = text.splitlines(keepends=True)
    choice = data.draw(st.sampled_from(["truncate", "drop"]))
    if choice == "truncate":
        damaged = text[: data.draw(st.integers(0, len(text)))]
    else:
        keep = data.draw(st.lists(st.booleans(), min_size=len(lines), max_size=len(lines)))
        damaged = "".join(line for line, kept in zip(lines, keep, strict=False) if kept)
    try:
        parser_for(fixture)(damaged)
    except ParseError:
        pass
    detect_kind(damaged)
