"""The launcher contains checks that hang, crash, run out of memory or vanish; the suite goes on."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gpuready.checks.selftest import SELFTEST
from gpuready.isolation.launchers import InlineLauncher, SubprocessLauncher
from gpuready.model import CheckStatus

BY_NAME = {spec.id.removeprefix("selftest."): spec for spec in SELFTEST}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive either
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except OSError:
        return False


def test_every_misbehaviour_is_a_result_and_the_suite_completes(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    order = ["passes", "hangs", "skips", "segfaults", "fails", "out_of_memory", "exits_without_result",
             "spawns_a_lingering_child", "passes"]
    specs = [BY_NAME[name] for name in order[:-1]]
    events: list[tuple[str, str]] = []
    launcher = SubprocessLauncher(timeout_s=2.0, env={"GPUREADY_SELFTEST_PIDFILE": str(pidfile)})
    start = time.monotonic()
    results = launcher.run(specs, lambda event: events.append((event.kind, event.spec.id)))
    elapsed = time.monotonic() - start
    status = {r.check_id.removeprefix("selftest."): r for r in results}
    assert [r.check_id for r in results] == [s.id for s in specs], "one result per check, in order"
    assert status["passes"].status is CheckStatus.PASS and status["passes"].metrics == {"answer": 42.0}
    assert status["skips"].status is CheckStatus.SKIP and status["skips"].details["reason"] == "nothing to do here"
    assert status["fails"].status is CheckStatus.FAIL and "came out as 3" in status["fails"].details["reason"]
    assert status["hangs"].status is CheckStatus.TIMEOUT and "process group was killed" in status["hangs"].details[
        "reason"]
    assert status["segfaults"].status is CheckStatus.CRASH
    assert "SIGSEGV" in status["segfaults"].details["reason"]
    assert status["out_of_memory"].status is CheckStatus.ERROR
    assert status["out_of_memory"].details["reason"] == "MemoryError: cannot allocate 1 PiB"
    assert "Traceback" in status["out_of_memory"].details["traceback"]
    assert status["exits_without_result"].status is CheckStatus.CRASH
    assert "exited with status 7 without a result" in status["exits_without_result"].details["reason"]
    assert status["spawns_a_lingering_child"].status is CheckStatus.TIMEOUT
    assert events[0] == ("start", "selftest.passes") and events[-1][0] == "done"
    assert elapsed < 60
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild), "the grandchild of a killed check is killed with its process group"


def test_inline_launcher_runs_in_this_process() -> None:
    results = InlineLauncher().run([BY_NAME["passes"], BY_NAME["fails"], BY_NAME["out_of_memory"]])
    assert [r.status for r in results] == [CheckStatus.PASS, CheckStatus.FAIL, CheckStatus.ERROR]


def test_a_child_that_cannot_start_does_not_loop(tmp_path: Path) -> None:
    launcher = SubprocessLauncher(python=str(tmp_path / "no-python-here"))
    with pytest.raises(FileNotFoundError):
        launcher.run([BY_NAME["passes"]])
    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'ImportError: broken install' >&2\nexit 1\n")
    broken.chmod(0o755)
    results = SubprocessLauncher(python=str(broken)).run([BY_NAME["passes"], BY_NAME["skips"]])
    assert [r.status for r in results] == [CheckStatus.ERROR, CheckStatus.ERROR]
    assert "before running any check" in results[0].details["reason"]
    assert "broken install" in str(results[0].details["output_tail"])
