"""Scan speed on a large real tree (torch's own Python sources when torch is installed, else the standard
library), cold and warm, beside ``grep -rE`` with comparable patterns over the same tree.

Targets (exit 1 when missed): at least 100k lines/s per core cold (issue #15's bar); a warm re-scan at most 10 % of
the cold time.

    python benchmarks/scan_speed.py [TREE] [--jobs N] [--json-out speed.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from gpuready.scanner.engine import scan_tree
from gpuready.scanner.kb import load_kb

PER_CORE_TARGET = 100_000
WARM_TARGET = 0.10
GREP_PATTERN = (r"import (flash_attn|xformers|apex|pycuda|cupy)|torch\.version\.cuda|get_device_capability|"
                r"CUDA_HOME|nvidia-smi|CUDAExtension|cudnn\.benchmark|asm volatile|__shfl_down_sync")


def default_tree() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(sysconfig.get_paths()["stdlib"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    tree = args.tree or default_tree()
    kb = load_kb()
    with tempfile.TemporaryDirectory() as cache:
        cold = scan_tree(tree, kb, jobs=args.jobs, cache_dir=Path(cache))
        warm = scan_tree(tree, kb, jobs=args.jobs, cache_dir=Path(cache))
    start = time.perf_counter()
    grep = subprocess.run(["grep", "-rEn", "--include=*.py", "--include=*.cu", "--include=*.cpp", "--include=*.h",
                           GREP_PATTERN, str(tree)], capture_output=True, check=False)
    grep_s = time.perf_counter() - start
    per_core = cold.lines / cold.seconds / args.jobs
    ratio = warm.seconds / cold.seconds
    print(f"tree: {tree} ({cold.files} files, {cold.lines} lines, {len(cold.findings)} findings)")
    print(f"{'run':<10} {'seconds':>9} {'lines/s':>12}")
    print(f"{'cold':<10} {cold.seconds:9.2f} {cold.lines / cold.seconds:12,.0f}   ({args.jobs} workers; "
          f"{per_core:,.0f} lines/s per core)")
    print(f"{'warm':<10} {warm.seconds:9.2f} {warm.lines / warm.seconds:12,.0f}   ({warm.cached} files from cache; "
          f"{ratio:.1%} of cold)")
    print(f"{'grep -rE':<10} {grep_s:9.2f} {cold.lines / grep_s:12,.0f}   ({len(grep.stdout.splitlines())} matching "
          "lines; text only: no AST, no guards, no knowledge base)")
    failures = []
    if per_core < PER_CORE_TARGET:
        failures.append(f"cold {per_core:,.0f} lines/s per core is under {PER_CORE_TARGET:,}")
    if ratio > WARM_TARGET:
        failures.append(f"warm re-scan is {ratio:.1%} of cold, over {WARM_TARGET:.0%}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"tree": str(tree), "lines": cold.lines, "cold_s": cold.seconds,
                                             "warm_s": warm.seconds, "grep_s": grep_s, "jobs": args.jobs,
                                             "per_core_lines_s": per_core, "failures": failures}, indent=2))
    for failure in failures:
        print(f"TARGET MISSED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
