"""Progress of long work as plain lines on stderr (the same in a terminal and in a pipe or a CI log): what started,
what it is doing, what finished, and an estimate of what is left."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from gpuready.isolation.launchers import Event
from gpuready.report.check_text import live_line
from gpuready.report.terminal import inert


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


class ProgressLines:
    """A launcher's ``progress`` callback that prints one line per event."""

    def __init__(self, total: int, *, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic,
                 results: bool = True) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.clock = clock
        self.results = results
        self.done = 0
        self.begun = clock()
        self.started: dict[str, float] = {}

    def say(self, text: str) -> None:
        """One line, flushed at once."""
        print(inert(text), file=self.stream, flush=True)

    def __call__(self, event: Event) -> None:
        now = self.clock()
        if event.kind == "start":
            self.started[event.spec.id] = now
            if not self.results:
                self.say(f"[{self.done + 1}/{self.total}] {event.spec.id} ...")
        elif event.kind == "progress":
            elapsed = now - self.started.get(event.spec.id, now)
            self.say(f"      {event.spec.id}: {event.message} ({_duration(elapsed)} so far)")
        elif event.kind == "done" and event.result is not None:
            self.done += 1
            left = self.total - self.done
            estimate = f"; about {_duration((now - self.begun) / self.done * left)} left" if left else ""
            if self.results:
                self.say(f"{live_line(event.result)}   [{self.done}/{self.total}{estimate}]")
            else:
                self.say(f"[{self.done}/{self.total}] {event.spec.id} {event.result.status.value} in "
                         f"{_duration(now - self.started.get(event.spec.id, now))}{estimate}")
