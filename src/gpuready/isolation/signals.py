"""SIGTERM and SIGHUP end gpuready as Ctrl-C does: the launchers' ``finally`` blocks kill their children's
process groups and remove temporary directories on the way out (SIGKILL cannot be caught: the children's lifeline
ends them then, see ``gpuready.isolation.lifeline``)."""

from __future__ import annotations

import signal
import threading
from types import FrameType


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def terminate_like_interrupt() -> None:
    """Turn SIGTERM and SIGHUP into KeyboardInterrupt in this process (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, _interrupt)
