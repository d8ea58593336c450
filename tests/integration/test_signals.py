"""SIGINT, SIGTERM, SIGHUP or SIGKILL to a running ``gpuready check`` leave no process and no temporary folder
behind: the worker, and the grandchild its check started, end too (#19 item 18)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

DRIVER = """
import sys
from gpuready.checks import registry
from gpuready.isolation.spec import CheckSpec

registry.BUILTIN = registry.Registry([CheckSpec(
    id="selftest.spawns_a_lingering_child", target="gpuready.checks.selftest:spawns_a_lingering_child",
    suites=("quick",), framework="none", timeout_s=600.0)])
from gpuready.cli import main

sys.exit(main(["check", "--no-save"]))
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _wait(condition, seconds: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL],
                         ids=lambda s: signal.Signals(s).name)
def test_a_signal_leaves_no_process_and_no_temporary_folder(tmp_path: Path, signum: int) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    pidfile = tmp_path / "grandchild.pid"
    env = {**os.environ, "TMPDIR": str(temporary), "GPUREADY_SELFTEST_PIDFILE": str(pidfile),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    errors = tmp_path / "stderr"
    with open(errors, "wb") as stream:
        driver = subprocess.Popen([sys.executable, "-c", DRIVER], env=env, stdout=subprocess.DEVNULL, stderr=stream)
    grandchild = worker = 0
    try:
        assert _wait(lambda: pidfile.exists() and pidfile.read_text().strip(), 60), errors.read_text()
        grandchild = int(pidfile.read_text())
        worker = _parent(grandchild)
        assert _alive(worker) and worker != driver.pid
        assert list(temporary.glob("gpuready-*")), "the launcher's folder exists while the check runs"
        driver.send_signal(signum)
        driver.wait(timeout=30)
        assert _wait(lambda: not _alive(worker) and not _alive(grandchild), 15), "a child outlived gpuready"
        assert _wait(lambda: not list(temporary.glob("gpuready-*")), 15), list(temporary.iterdir())
        if signum != signal.SIGKILL:
            assert driver.returncode == 130 and "interrupted" in errors.read_text()
    finally:
        for pid in (driver.pid, worker, grandchild):
            if pid and _alive(pid):
                os.kill(pid, signal.SIGKILL)
        driver.wait(timeout=10)
