"""A child never outlives its parent: on Linux the kernel signals it when the parent dies (PR_SET_PDEATHSIG), and a
watchdog thread checks the parent's pid as a second guard. On the way out the child removes the parent's temporary
folder (the parent cannot: it may have been SIGKILLed) and kills its own process group, so whatever the work
started (a grandchild, a rank) goes too."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

PR_SET_PDEATHSIG = 1
WATCH_S = 0.5
PARENT_ENV = "GPUREADY_PARENT_PID"
"""Set by the launchers to their own pid, so a child can tell that its parent died before it started watching."""
ORPHANED = 70
"""Exit status of a child that ended because its parent was gone."""


def child_env() -> dict[str, str]:
    """What a launcher adds to a child's environment."""
    return {PARENT_ENV: str(os.getpid())}


def die_with_parent(*, cleanup: Path | None = None, own_group: bool = False) -> None:
    """End this process when the process that started it ends, whatever signal that one got.

    ``cleanup``: a folder to remove first. ``own_group``: this process leads its own process group (started with
    ``start_new_session``), so killing the group kills everything it started and nothing else.
    """
    expected = os.environ.get(PARENT_ENV, "")
    parent = int(expected) if expected.isdigit() else os.getppid()
    ending = threading.Lock()

    def end(*_: object) -> None:
        if not ending.acquire(blocking=False):
            return
        if cleanup is not None:
            shutil.rmtree(cleanup, ignore_errors=True)
        if own_group and os.getpgrp() == os.getpid():
            try:
                os.killpg(os.getpid(), signal.SIGKILL)  # this process is in the group too
            except OSError:
                pass
        os._exit(ORPHANED)

    if sys.platform.startswith("linux"):
        try:
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGUSR2, end)
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGUSR2 if threading.current_thread() is threading.main_thread()
                       else signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError, ValueError):
            pass
    if os.getppid() != parent:  # the parent died before the request took effect
        end()

    def watch() -> None:
        while True:
            time.sleep(WATCH_S)
            if os.getppid() != parent:
                end()

    threading.Thread(target=watch, name="gpuready-lifeline", daemon=True).start()
