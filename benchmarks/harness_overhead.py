"""gpuready's step time against a minimal hand-written loop on the same workload (target: within 2 %).

Both run in this process, alternately, on the same device; each reports the median per-step time.

    python benchmarks/harness_overhead.py [--workload transformer] [--steps 50] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

TOLERANCE = 0.02


def main() -> int:
    import torch

    from gpuready.bench.workload import StepSettings, build, time_steps

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="transformer")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    settings = StepSettings(workload=args.workload, steps=args.steps, warmup=5)

    def hand_written() -> float:
        workload = build(settings)
        model = workload.model.to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        model.train()
        times = []
        for step in range(settings.warmup + args.steps):
            inputs, target = workload.batch(step)
            if device.type == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            inputs, target = inputs.to(device), target.to(device)
            loss = workload.loss(model(inputs).float(), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if device.type == "cuda":
                torch.cuda.synchronize()
            if step >= settings.warmup:
                times.append(time.perf_counter() - start)
        return statistics.median(times)

    def harness() -> float:
        return statistics.median(time_steps(settings, str(device)).step_seconds)

    ours, theirs, ratios = [], [], []
    for index in range(args.rounds):
        # Alternate which goes first, and compare within a round: the machine's drift cancels out.
        pair = (hand_written(), harness()) if index % 2 == 0 else tuple(reversed((harness(), hand_written())))
        theirs.append(pair[0])
        ours.append(pair[1])
        ratios.append(pair[1] / pair[0])
    mine, reference = statistics.median(ours), statistics.median(theirs)
    difference = statistics.median(ratios) - 1
    print(f"{args.workload} on {device}: gpuready {mine * 1e3:.3f} ms/step, hand-written loop {reference * 1e3:.3f} "
          f"ms/step (medians over {args.rounds} rounds of {args.steps} steps); "
          f"median per-round difference {difference:+.1%}")
    if abs(difference) > TOLERANCE:
        print(f"TARGET MISSED: {difference:+.1%} is outside +-{TOLERANCE:.0%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
