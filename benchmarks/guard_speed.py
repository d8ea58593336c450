"""How long the runtime guard takes at a script's start (target: median under 20 ms, cold process under 300 ms).

    python benchmarks/guard_speed.py [--calls 200]

Writes a lock of this machine (no checks, no benchmarks) to a temporary directory, then times
``gpuready.guard.decide`` in this process (warm) and ``python -c 'import gpuready.guard; ...'`` (cold start).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpuready.guard import decide
from gpuready.model import Device, Fact, Vendor
from gpuready.pinning.lockfile import Lock, installed_distributions, render_lock
from gpuready.probe import collect_fingerprint

WARM_TARGET_S = 0.020
COLD_TARGET_S = 0.300


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gpuready.lock"
        distributions, sources = installed_distributions()
        fingerprint = collect_fingerprint(frameworks=False)
        if not fingerprint.devices:
            # A lock taken without a GPU sends the guard straight to the fallback; a (synthetic) locked GPU makes it
            # read this machine's facts, which is the cost being measured.
            fingerprint = dataclasses.replace(fingerprint, devices=(Device(0, Vendor.AMD, Fact.of("synthetic GPU")),))
        path.write_text(render_lock(Lock(fingerprint, distributions, sources, models=("bench-model",))))
        warm = []
        for _ in range(args.calls):
            start = time.perf_counter()
            decision = decide("bench-model", path)
            warm.append(time.perf_counter() - start)
        cold = []
        for _ in range(7):
            start = time.perf_counter()
            code = "import sys, gpuready.guard as g; g.decide('bench-model', sys.argv[1])"
            subprocess.run([sys.executable, "-c", code, str(path)], check=True)
            cold.append(time.perf_counter() - start)
    python_alone = []
    for _ in range(7):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        python_alone.append(time.perf_counter() - start)
    warm_median, cold_median = statistics.median(warm), statistics.median(cold)
    print(f"decision: {decision.device} ({'; '.join(decision.reasons)})")
    print(f"warm decide: median {warm_median * 1e3:.2f} ms, p90 {sorted(warm)[int(0.9 * len(warm))] * 1e3:.2f} ms "
          f"over {len(warm)} calls (target {WARM_TARGET_S * 1e3:.0f} ms)")
    print(f"cold process with the guard: median {cold_median * 1e3:.0f} ms; python alone "
          f"{statistics.median(python_alone) * 1e3:.0f} ms (target {COLD_TARGET_S * 1e3:.0f} ms)")
    return 0 if warm_median <= WARM_TARGET_S and cold_median <= COLD_TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
