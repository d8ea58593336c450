"""Real probes on this machine, and the real subprocess seam."""

from __future__ import annotations

import sys
import time

import pytest

from gpuready.model import BuildVariant, FactStatus
from gpuready.probe import LocalSystem, collect_fingerprint
from gpuready.probe.frameworks import child_argv, framework_from_child, relevant_packages


def test_local_fingerprint_is_complete_without_raising() -> None:
    fp = collect_fingerprint(frameworks=False)
    assert fp.host.kernel.ok and fp.host.python.ok and fp.host.machine.ok
    assert fp.access.nodes[0].path == "/dev/kfd"
    assert fp.host.hostname.value in (None, "<redacted>")


def test_commands_time_out_and_missing_programs_are_results() -> None:
    system = LocalSystem()
    start = time.monotonic()
    result = system.run(["sleep", "10"], timeout_s=0.3)
    assert time.monotonic() - start < 5
    assert result.error == "timed out after 0.3 s" and not result.ok
    missing = system.run(["gpuready-no-such-program"])
    assert missing.not_found
    failed = system.run([sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"])
    assert failed.failure() == "exit status 3: boom"


def test_framework_child_crash_is_a_fact() -> None:
    system = LocalSystem()
    result = system.run([sys.executable, "-c", "import os; os.abort()"])
    framework = framework_from_child("torch", relevant_packages([("torch", "2.13.0")]), result)
    assert framework.accelerator_available.status is FactStatus.ERROR
    assert framework.accelerator_available.detail.startswith("crashed with SIGABRT")


@pytest.mark.torch
def test_real_torch_child() -> None:
    from importlib.metadata import version

    torch_version = version("torch")  # never import torch in the test process

    system = LocalSystem()
    result = system.run(child_argv(system, "torch"), timeout_s=120)
    framework = framework_from_child("torch", relevant_packages(system.distributions()), result)
    assert framework.version.value == torch_version
    assert framework.variant.value is BuildVariant.CPU
    assert framework.accelerator_available.value is False
    assert framework.device_count.value == 0
