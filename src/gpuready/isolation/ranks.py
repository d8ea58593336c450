"""N cooperating processes on this machine (ranks of a collective): started together, each in its own process
group, all killed when one fails, when the deadline passes, or when the parent goes.

A rank runs ``python -m gpuready.isolation.ranks TARGET RANK WORLD INIT ARGS OUT``: ``TARGET`` is
``module:function`` called as ``function(rank, world, init_method, arguments)``; what it returns is written to
``OUT`` as JSON. ``torch.distributed``'s elastic launcher would restart and rendezvous ranks, but it has no
deadline of its own and does not kill a rank stuck in a collective; this keeps the one thing needed here, a hard
stop for all ranks, in one place.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpuready.isolation.lifeline import child_env

POLL_S = 0.05
GRACE_S = 10.0
"""How long the other ranks get to finish after one rank failed, before they are killed."""


class RankFailure(RuntimeError):
    """A rank exited with an error, or the ranks did not finish in time."""


def free_port() -> int:
    """A TCP port free on the loopback interface (for a rendezvous)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _kill(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    for process in processes:
        process.wait()


def run_ranks(target: str, world: int, arguments: Mapping[str, Any], *, timeout_s: float,
              env: Mapping[str, str] | None = None) -> list[Any]:
    """Run ``target`` in ``world`` processes and return each rank's result, in rank order.

    Raises ``RankFailure`` naming the rank and its last error line when one fails, or when they are not all done
    within ``timeout_s`` (a hung collective): every rank is killed either way.
    """
    init_method = f"tcp://127.0.0.1:{free_port()}"
    with tempfile.TemporaryDirectory(prefix="gpuready-ranks-") as folder:
        outs = [os.path.join(folder, f"rank{r}.json") for r in range(world)]
        logs = [open(os.path.join(folder, f"rank{r}.log"), "wb") for r in range(world)]  # noqa: SIM115
        processes = [subprocess.Popen(
            [sys.executable, "-m", "gpuready.isolation.ranks", target, str(r), str(world), init_method,
             json.dumps(dict(arguments)), outs[r]],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=logs[r], start_new_session=True,
            env={**os.environ, **(env or {}), **child_env()}) for r in range(world)]
        try:
            failure = _wait(processes, logs, time.monotonic() + timeout_s, timeout_s)
        finally:
            _kill(processes)
            for log in logs:
                log.close()
        if failure:
            raise RankFailure(failure)
        return [json.loads(Path(out).read_text(encoding="utf-8")) for out in outs]


def _last_line(log: Any) -> str:
    log.flush()
    text = Path(log.name).read_bytes()[-2000:].decode("utf-8", errors="replace").strip()
    return text.splitlines()[-1] if text else ""


def _wait(processes: list[subprocess.Popen[bytes]], logs: list[Any], deadline: float, timeout_s: float) -> str:
    """'' when every rank exited 0; otherwise what went wrong first."""
    first_error = ""
    while True:
        codes = [p.poll() for p in processes]
        for rank, code in enumerate(codes):
            if code not in (None, 0) and not first_error:
                first_error = f"rank {rank} exited {code}: {_last_line(logs[rank])}"
                deadline = min(deadline, time.monotonic() + GRACE_S)
        if all(code is not None for code in codes):
            return first_error
        if time.monotonic() > deadline:
            if first_error:
                return first_error
            waiting = [str(rank) for rank, code in enumerate(codes) if code is None]
            return f"rank(s) {', '.join(waiting)} did not finish within {timeout_s:g} s (a hung collective)"
        time.sleep(POLL_S)


def main(argv: list[str]) -> int:
    """One rank (see the module docstring)."""
    from gpuready.isolation.lifeline import die_with_parent

    target, rank, world, init_method, arguments, out = argv
    # a rank left behind by a killed parent would hold its collective's port and device
    die_with_parent(cleanup=Path(out).parent, own_group=True)
    module_name, _, attribute = target.partition(":")
    function = getattr(importlib.import_module(module_name), attribute)
    result = function(int(rank), int(world), init_method, json.loads(arguments))
    Path(out).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
