"""Child-process entry point: ``python -m gpuready.isolation._worker PLAN.json OUT.jsonl``.

Runs the planned checks one after another and appends one JSON line before each (``start``) and one after
(``result``), flushed to disk, so the parent knows which check was running if this process hangs or dies.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from gpuready.isolation.execute import run_one
from gpuready.isolation.lifeline import die_with_parent
from gpuready.isolation.spec import CheckSpec
from gpuready.model import to_dict


def _write(stream: object, record: dict[str, object]) -> None:
    stream.write(json.dumps(record) + "\n")  # type: ignore[attr-defined]
    stream.flush()  # type: ignore[attr-defined]
    os.fsync(stream.fileno())  # type: ignore[attr-defined]


def main(argv: list[str]) -> int:
    """Run every check in the plan, in order."""
    if len(argv) != 2:
        print("usage: python -m gpuready.isolation._worker PLAN.json OUT.jsonl", file=sys.stderr)
        return 2
    die_with_parent(cleanup=Path(argv[0]).parent, own_group=True)
    with open(argv[0], encoding="utf-8") as handle:
        plan = json.load(handle)
    with open(argv[1], "a", encoding="utf-8") as out:
        for item in plan["checks"]:
            spec = CheckSpec(id=item["id"], target=item["target"])
            _write(out, {"event": "start", "id": spec.id, "time": time.time()})

            def report(message: str, check_id: str = spec.id) -> None:
                _write(out, {"event": "progress", "id": check_id, "message": message})

            result = run_one(spec, plan.get("device", "auto"), plan.get("options") or {}, report)
            _write(out, {"event": "result", "id": spec.id, "result": to_dict(result)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
