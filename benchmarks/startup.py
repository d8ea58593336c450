"""Start-up cost, side by side: ``gpuready --help``, ``gpuready env --json`` and ``python -m torch.utils.collect_env``.

Runs each command N times (after one warm-up run), reports the median wall time with p10/p90, prints a table and
writes JSON. Targets (checked, exit 1 when missed): ``gpuready --help`` at or under 0.25 s median, and
``gpuready env --json`` faster than collect_env when torch is installed.

    python benchmarks/startup.py [--repeat 7] [--json-out startup.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HELP_TARGET_S = 0.25


def gpuready_command() -> list[str]:
    """The installed console script beside this interpreter, or ``python -m gpuready``."""
    script = Path(sys.executable).parent / "gpuready"
    return [str(script)] if script.exists() else [sys.executable, "-m", "gpuready"]


def time_command(argv: list[str], repeat: int) -> dict[str, object]:
    """Wall time of ``argv`` over ``repeat`` runs after a warm-up run."""
    subprocess.run(argv, capture_output=True, check=False)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, check=False)
        samples.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed with {done.returncode}: {done.stderr.decode()[-500:]}")
    ordered = sorted(samples)

    def quantile(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    return {"command": " ".join(argv), "samples_s": samples, "median_s": statistics.median(samples),
            "p10_s": quantile(0.1), "p90_s": quantile(0.9)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json-out", type=Path, default=None)
    args = parser.parse_args()
    commands = {
        "gpuready --help": gpuready_command() + ["--help"],
        "gpuready env --json": gpuready_command() + ["env", "--json"],
    }
    has_torch = importlib.util.find_spec("torch") is not None
    if has_torch:
        commands["collect_env"] = [sys.executable, "-m", "torch.utils.collect_env"]
    results = {name: time_command(argv, args.repeat) for name, argv in commands.items()}

    print(f"{'command':<22} {'median':>9} {'p10':>9} {'p90':>9}   (n={args.repeat})")
    for name, result in results.items():
        print(f"{name:<22} {result['median_s']:>8.3f}s {result['p10_s']:>8.3f}s {result['p90_s']:>8.3f}s")
    failures = []
    help_median = float(results["gpuready --help"]["median_s"])  # type: ignore[arg-type]
    if help_median > HELP_TARGET_S:
        failures.append(f"gpuready --help median {help_median:.3f}s is over {HELP_TARGET_S}s")
    if has_torch:
        env_median = float(results["gpuready env --json"]["median_s"])  # type: ignore[arg-type]
        collect_median = float(results["collect_env"]["median_s"])  # type: ignore[arg-type]
        print(f"gpuready env --json takes {env_median / collect_median:.2f}x the time of collect_env")
        if env_median >= collect_median:
            failures.append("gpuready env --json is not faster than torch.utils.collect_env")
    else:
        print("torch is not installed: collect_env not measured")
    report = {"repeat": args.repeat, "python": sys.version.split()[0], "results": results, "failures": failures}
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({name: round(float(r["median_s"]), 4) for name, r in results.items()}))  # type: ignore[arg-type]
    for failure in failures:
        print(f"TARGET MISSED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
