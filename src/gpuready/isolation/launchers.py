"""Where checks run: ``InlineLauncher`` (this process, for tests and debugging) or ``SubprocessLauncher``.

The subprocess launcher runs checks in a child process in its own session, several checks per child to keep the
cost of importing a framework low. The child reports the start and the result of each check as JSON lines; when a
check outlives its timeout the whole process group is killed and the check is a TIMEOUT; when the child dies the
running check is a CRASH (signal name and stderr tail). Either way a fresh child carries on with the rest.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gpuready.errors import InputError, SchemaError
from gpuready.isolation.execute import run_one
from gpuready.isolation.lifeline import child_env
from gpuready.isolation.spec import INPUT_ERROR, CheckSpec
from gpuready.model import CheckResult, CheckStatus, from_dict


@dataclass(frozen=True)
class Event:
    """What a launcher tells its caller while checks run."""

    kind: str
    """``start``, ``progress`` (a running check said what it is doing) or ``done``."""
    spec: CheckSpec
    result: CheckResult | None = None
    message: str = ""


Progress = Callable[[Event], None]

POLL_S = 0.02
STDERR_TAIL = 2000


def _ignore(event: Event) -> None:
    return None


def raise_input_error(results: Sequence[CheckResult]) -> None:
    """Raise the ``InputError`` a child stopped on (a workload that does not load), so the caller exits 2."""
    for result in results:
        found = result.details.get(INPUT_ERROR)
        if isinstance(found, dict):
            raise InputError(str(found.get("message", "")), source=found.get("source") or None,
                             field=found.get("field") or None)


class Launcher(Protocol):
    """Runs checks and returns one result per check, in order."""

    def run(self, specs: Sequence[CheckSpec], progress: Progress = _ignore) -> list[CheckResult]: ...


@dataclass
class InlineLauncher:
    """Runs checks in this process: no isolation, for tests and debugging."""

    device: str = "auto"
    options: dict[str, Any] = field(default_factory=dict)

    def run(self, specs: Sequence[CheckSpec], progress: Progress = _ignore) -> list[CheckResult]:
        results = []
        for spec in specs:
            progress(Event("start", spec))

            def report(message: str, spec: CheckSpec = spec) -> None:
                progress(Event("progress", spec, message=message))

            result = run_one(spec, self.device, self.options, report)
            progress(Event("done", spec, result))
            results.append(result)
        return results


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


@dataclass
class SubprocessLauncher:
    """Runs checks in child processes (own session, per-check timeout, group kill, JSON lines back)."""

    device: str = "auto"
    options: dict[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] | None = None
    """Extra environment for the children (device selection goes here, never into this process's environment)."""
    timeout_s: float | None = None
    """Overrides every check's own timeout when set."""
    python: str = sys.executable

    def run(self, specs: Sequence[CheckSpec], progress: Progress = _ignore) -> list[CheckResult]:
        done: dict[str, CheckResult] = {}
        pending = list(specs)
        with tempfile.TemporaryDirectory(prefix="gpuready-checks-") as folder:
            attempt = 0
            while pending:
                attempt += 1
                finished = self._run_child(pending, Path(folder), attempt, progress)
                if not finished:
                    break
                for result in finished:
                    done[result.check_id] = result
                pending = [s for s in pending if s.id not in done]
        return [done[s.id] for s in specs if s.id in done]

    def _timeout(self, spec: CheckSpec) -> float:
        return self.timeout_s if self.timeout_s is not None else spec.timeout_s

    def _run_child(self, specs: list[CheckSpec], folder: Path, attempt: int, progress: Progress) -> list[CheckResult]:
        plan_path, out_path, log_path = (folder / f"{name}-{attempt}" for name in ("plan.json", "out.jsonl", "log"))
        plan = {"device": self.device, "options": self.options,
                "checks": [{"id": s.id, "target": s.target} for s in specs]}
        plan_path.write_text(json.dumps(plan), encoding="utf-8")
        out_path.touch()
        by_id = {s.id: s for s in specs}
        env = {**os.environ, **(self.env or {}), **child_env()}
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [self.python, "-m", "gpuready.isolation._worker", str(plan_path), str(out_path)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        results: list[CheckResult] = []
        running: CheckSpec | None = specs[0]
        started = time.monotonic()
        offset = 0
        saw_start = False
        announced: set[str] = set()
        if running is not None:
            progress(Event("start", running))
            announced.add(running.id)
        try:
            while True:
                exited = process.poll() is not None
                with open(out_path, encoding="utf-8") as handle:
                    handle.seek(offset)
                    chunk = handle.read()
                complete, _, partial = chunk.rpartition("\n")
                offset += len(complete) + 1 if complete else 0
                for line in complete.splitlines() if complete else []:
                    record = json.loads(line)
                    spec = by_id[record["id"]]
                    if record["event"] == "progress":
                        progress(Event("progress", spec, message=str(record.get("message", ""))))
                        continue
                    if record["event"] == "start":
                        running, started, saw_start = spec, time.monotonic(), True
                        if spec.id not in announced:
                            progress(Event("start", spec))
                            announced.add(spec.id)
                    else:
                        result = self._decode(record["result"], spec)
                        results.append(result)
                        progress(Event("done", spec, result))
                        running = None
                if exited:
                    break
                if len(results) == len(specs):
                    # Every check reported (results are on disk): the child's interpreter teardown (a framework's
                    # atexit hooks can take a second) is not waited for; the group is ended below.
                    break
                if running is not None and time.monotonic() - started > self._timeout(running):
                    _kill_group(process)
                    result = CheckResult(check_id=running.id, status=CheckStatus.TIMEOUT,
                                         duration_s=round(time.monotonic() - started, 3), device=self.device,
                                         details={"reason": f"no result within {self._timeout(running):g} s; the "
                                                            "process group was killed",
                                                  "output_tail": _tail(log_path)})
                    results.append(result)
                    progress(Event("done", running, result))
                    return results
                time.sleep(POLL_S)
        finally:
            if process.poll() is None:
                _kill_group(process)
            else:
                try:  # anything the checks started and left behind in the session goes too
                    os.killpg(process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        returncode = process.returncode
        reported = {r.check_id for r in results}
        if not saw_start:
            # The child died before starting any check (a broken interpreter or install): say so for all of them.
            for spec in specs:
                result = CheckResult(check_id=spec.id, status=CheckStatus.ERROR, device=self.device,
                                     details={"reason": f"the check process exited with status {returncode} before "
                                                        "running any check", "output_tail": _tail(log_path)})
                results.append(result)
                progress(Event("done", spec, result))
            return results
        if running is not None and running.id not in reported:
            how = f"killed by {_signal_name(returncode)}" if returncode < 0 else (
                f"exited with status {returncode} without a result")
            result = CheckResult(check_id=running.id, status=CheckStatus.CRASH,
                                 duration_s=round(time.monotonic() - started, 3), device=self.device,
                                 details={"reason": f"the check process {how}", "returncode": returncode,
                                          "output_tail": _tail(log_path)})
            results.append(result)
            progress(Event("done", running, result))
        return results

    @staticmethod
    def _decode(data: Any, spec: CheckSpec) -> CheckResult:
        try:
            return from_dict(CheckResult, data, source=f"check {spec.id}")
        except SchemaError as error:
            return CheckResult(check_id=spec.id, status=CheckStatus.ERROR,
                               details={"reason": f"the check process sent an unreadable result: {error}"})


def _tail(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-STDERR_TAIL:].decode("utf-8", errors="replace")
