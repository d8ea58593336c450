"""Cost of the placement audit against a plain training step of the same workload (target: at most 3x).

Both are timed in this process on the same device (the CPU standing in for a GPU when there is none), after a
warm-up, as medians over repeated steps.

    python benchmarks/audit_overhead.py [--model transformer] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

TARGET_RATIO = 3.0


def main() -> int:
    import torch

    from gpuready.placement.run import run_audit
    from gpuready.workloads.loader import load_workload

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="transformer")
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"

    def plain() -> None:
        workload = load_workload(args.model)
        model = workload.model.to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        inputs, target = (t.to(device) for t in workload.batch(0))
        workload.loss(model(inputs), target).backward()
        optimizer.step()
        if device == "cuda":
            torch.cuda.synchronize()

    def audited() -> None:
        run_audit(load_workload(args.model), "cuda" if device == "cuda" else "standin")
        if device == "cuda":
            torch.cuda.synchronize()

    def once(step: object) -> float:
        start = time.perf_counter()
        step()  # type: ignore[operator]
        return time.perf_counter() - start

    plain()
    audited()  # warm-up both
    plain_samples, audited_samples, ratios = [], [], []
    for index in range(args.repeat):
        # Alternate the order and compare within a round, so the machine's drift cancels out.
        if index % 2 == 0:
            p, a = once(plain), once(audited)
        else:
            a, p = once(audited), once(plain)
        plain_samples.append(p)
        audited_samples.append(a)
        ratios.append(a / p)
    plain_s, audited_s = statistics.median(plain_samples), statistics.median(audited_samples)
    ratio = statistics.median(ratios)
    print(f"{args.model} on {device}: plain step {plain_s * 1e3:.1f} ms, audited step {audited_s * 1e3:.1f} ms "
          f"(medians of {args.repeat}, model build included in both); median per-round ratio {ratio:.2f}x")
    if ratio > TARGET_RATIO:
        print(f"TARGET MISSED: the audit costs {ratio:.2f}x a plain step (target {TARGET_RATIO}x)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
