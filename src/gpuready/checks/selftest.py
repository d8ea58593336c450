"""Checks that misbehave on purpose, to prove the launcher contains them (used by gpuready's own tests)."""

from __future__ import annotations

import ctypes
import os
import time

from gpuready.isolation.spec import CheckContext, CheckSpec, Fail, Skip


def passes(context: CheckContext) -> None:
    """Records a number and passes."""
    context.record("answer", 42)


def skips(context: CheckContext) -> None:
    """Does not apply."""
    raise Skip("nothing to do here")


def fails(context: CheckContext) -> None:
    """A wrong result."""
    raise Fail("1 + 1 came out as 3")


def hangs(context: CheckContext) -> None:
    """Never returns (a stuck kernel, a deadlocked collective)."""
    while True:
        time.sleep(1)


def segfaults(context: CheckContext) -> None:
    """Dies from SIGSEGV (a driver or kernel bug)."""
    ctypes.string_at(0)


def out_of_memory(context: CheckContext) -> None:
    """Raises MemoryError."""
    raise MemoryError("cannot allocate 1 PiB")


def exits_without_result(context: CheckContext) -> None:
    """Leaves the process without a word (os._exit from deep inside a library)."""
    os._exit(7)


def spawns_a_lingering_child(context: CheckContext) -> None:
    """Starts a grandchild that would outlive the check, then hangs."""
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    context.note("grandchild_pid", process.pid)
    with open(os.environ["GPUREADY_SELFTEST_PIDFILE"], "w", encoding="utf-8") as handle:
        handle.write(str(process.pid))
    hangs(context)


SELFTEST = tuple(
    CheckSpec(id=f"selftest.{name}", target=f"gpuready.checks.selftest:{name}", suites=(), framework="none",
              timeout_s=5.0)
    for name in ("passes", "skips", "fails", "hangs", "segfaults", "out_of_memory", "exits_without_result",
                 "spawns_a_lingering_child")
)
