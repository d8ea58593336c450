"""Each fixture judged by ``gpuready doctor --from`` against what its source thread established.

The ground truth is the ``diagnosis`` in each fixture's ``.source.yaml`` (read from the public thread):
``problems`` are tags for what was actually wrong. ``PROBLEM_CODES`` says which finding codes count as catching each
problem. A fixture whose truth gpuready cannot see from that output alone is listed in ``tests/fixtures/verdicts.yaml``
under ``not_visible`` with the reason, so a gap is stated, never hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpuready.compat.judge import Verdict, judge, verdict
from gpuready.compat.load import Dataset
from gpuready.probe.paste import read_fingerprint
from tests.fixture_kinds import FIXTURES, Fixture, all_fixtures

PROBLEM_CODES: dict[str, set[str]] = {
    "user_not_in_render_group": {"access.kfd_denied", "access.render_node_denied"},
    "container_missing_devices": {"access.container_without_devices"},
    "gpu_not_officially_supported": {"rocm.gpu_unsupported", "rocm.gpu_deprecated", "torch.arch_not_in_wheel"},
    "gpu_not_in_wheel_arch_list": {"torch.arch_not_in_wheel"},
    "hsa_override_needed_or_misused": {"torch.arch_not_in_wheel", "env.hsa_override_harmful",
                                       "env.hsa_override_no_match", "env.hsa_override_active",
                                       "env.hsa_override_invalid"},
    "wrong_torch_flavour": {"torch.cpu_build", "torch.cuda_build_on_amd", "torch.rocm_build_on_nvidia"},
    "driver_too_old": {"cuda.driver_too_old", "rocm.driver_userspace_skew"},
    "driver_userspace_mismatch": {"rocm.driver_userspace_skew", "rocm.multiple_installs",
                                  "rocm.ld_library_path_mismatch"},
    "os_or_kernel_unsupported": {"rocm.os_unsupported", "rocm.kernel_unlisted"},
    "igpu_selected_instead_of_dgpu": {"devices.igpu_first"},
    "wsl_limitation": {"host.wsl"},
    "out_of_memory_or_resources": {"access.kfd_open_failed"},
}
JUDGED_KINDS = {"rocminfo", "collect-env", "amd-smi", "rocm-smi", "nvidia-smi-query", "kfd-properties",
                "os-release", "lsb-release", "nvidia-proc-version", "rocm-version", "topology"}
VERDICTS_FILE = FIXTURES / "verdicts.yaml"


@dataclass(frozen=True)
class Case:
    """One judged fixture: what the thread established and what gpuready said."""

    fixture: Fixture
    problems: tuple[str, ...]
    verdict: Verdict
    codes: tuple[str, ...]
    expected_verdict: str
    not_visible: dict[str, str]

    @property
    def visible_problems(self) -> list[str]:
        """Problems the thread confirmed that gpuready has codes for and the output can show."""
        return [p for p in self.problems if p in PROBLEM_CODES and p not in self.not_visible]

    @property
    def missed(self) -> list[str]:
        """Visible problems none of whose codes was raised."""
        return [p for p in self.visible_problems if not PROBLEM_CODES[p] & set(self.codes)]

    @property
    def caught(self) -> bool:
        """The verdict is what verdicts.yaml expects, and every visible problem was caught."""
        return self.verdict.value == self.expected_verdict and not self.missed


def expectations() -> dict[str, dict[str, Any]]:
    """``tests/fixtures/verdicts.yaml``: fixture -> expected verdict (and not_visible reasons)."""
    data = yaml.safe_load(VERDICTS_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def judged_fixtures() -> list[Fixture]:
    """Fixtures doctor can read by themselves (kind detected), which are not deliberately malformed."""
    from gpuready.probe.paste import detect_kind

    return [f for f in all_fixtures() if f.kind in JUDGED_KINDS and "truncated" not in f.case
            and detect_kind(f.text()) is not None]


def judge_fixture(fixture: Fixture, data: Dataset, expected: dict[str, Any]) -> Case:
    """Judge one fixture as ``gpuready doctor --from`` would, on the data's own date."""
    diagnosis = fixture.source().get("diagnosis") or {}
    _, fingerprint = read_fingerprint(Path(fixture.path))
    findings = judge(fingerprint, data, today=data.as_of)
    entry = expected.get(f"{fixture.kind}/{fixture.case}") or {}
    return Case(
        fixture=fixture,
        problems=tuple(diagnosis.get("problems") or ()),
        verdict=verdict(findings),
        codes=tuple(f.code for f in findings),
        expected_verdict=str(entry.get("verdict", "")),
        not_visible=dict(entry.get("not_visible") or {}),
    )
