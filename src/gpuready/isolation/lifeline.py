"""A child never outlives its parent: on Linux the kernel sends SIGKILL when the parent dies (PR_SET_PDEATHSIG);
elsewhere, and as a second guard, a watchdog thread exits when the parent's pid changes."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
WATCH_S = 0.5
PARENT_ENV = "GPUREADY_PARENT_PID"
"""Set by the launchers to their own pid, so a child can tell that its parent died before it started watching."""


def child_env() -> dict[str, str]:
    """What a launcher adds to a child's environment."""
    return {PARENT_ENV: str(os.getpid())}


def die_with_parent() -> None:
    """Arrange for this process to end when the process that started it ends, whatever signal that one got."""
    expected = os.environ.get(PARENT_ENV, "")
    parent = int(expected) if expected.isdigit() else os.getppid()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(70)

    def watch() -> None:
        while True:
            time.sleep(WATCH_S)
            if os.getppid() != parent:
                os._exit(70)

    threading.Thread(target=watch, name="gpuready-lifeline", daemon=True).start()
