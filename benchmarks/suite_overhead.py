"""Quick suite wall time and isolation overhead: wall time of the isolated run against the sum of in-check times.

Targets (exit 1 when missed): the quick suite within 60 s on this machine, and overhead at most 15 %.

    python benchmarks/suite_overhead.py [--suite quick] [--device cpu] [--json-out overhead.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gpuready.checks.registry import BUILTIN
from gpuready.isolation.launchers import SubprocessLauncher

WALL_TARGET_S = 60.0
OVERHEAD_TARGET = 0.15


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="quick")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    specs = BUILTIN.select(args.suite)
    start = time.perf_counter()
    results = SubprocessLauncher(device=args.device).run(specs)
    wall = time.perf_counter() - start
    in_checks = sum(r.duration_s for r in results)
    overhead = (wall - in_checks) / wall if wall else 0.0
    print(f"{'check':<34} {'status':<8} {'time':>8}")
    for result in results:
        print(f"{result.check_id:<34} {result.status.value:<8} {result.duration_s:7.2f}s")
    print(f"\nsuite {args.suite} on {args.device}: {len(results)} checks, wall {wall:.2f} s, "
          f"in checks {in_checks:.2f} s, isolation overhead {overhead:.1%} (process start, result hand-off; "
          "the first check of each framework includes its import)")
    failures = []
    if wall > WALL_TARGET_S:
        failures.append(f"wall time {wall:.1f} s is over {WALL_TARGET_S:.0f} s")
    if overhead > OVERHEAD_TARGET:
        failures.append(f"overhead {overhead:.1%} is over {OVERHEAD_TARGET:.0%}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"suite": args.suite, "device": args.device, "wall_s": wall,
                                             "in_checks_s": in_checks, "overhead": overhead,
                                             "results": {r.check_id: r.status.value for r in results},
                                             "failures": failures}, indent=2))
    for failure in failures:
        print(f"TARGET MISSED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
