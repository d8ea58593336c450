"""gpuready's step time against a minimal hand-written loop on the same workload (target: at most 2 % slower).

Both run in this process, alternately, on the same device; each reports the median per-step time. Each round also
runs the hand-written loop a second time (an A/A control), so the output shows how much two identical loops differ on
this machine. The verdict uses a bootstrap interval of the median per-round ratio:

- MET when the interval's upper end is at most +2 %;
- MISSED when its lower end is above +2 % (exit 1);
- INCONCLUSIVE when the interval straddles +2 %: the machine is too noisy to tell (exit 0, says so);
- and exit 1 when gpuready is faster by more than 2 % beyond noise: the two loops would not be timing the same work.

    python benchmarks/harness_overhead.py [--workload transformer] [--steps 50] [--rounds 9]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

TOLERANCE = 0.02


def median_interval(ratios: list[float], resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95 % percentile-bootstrap interval of the median of paired per-round ratios (fixed seed)."""
    generator = random.Random(seed)
    medians = sorted(statistics.median(generator.choices(ratios, k=len(ratios))) for _ in range(resamples))
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def main() -> int:
    import torch

    from gpuready.benchmark.harness import StepSettings, build, time_steps

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

    ours, theirs, ratios, controls = [], [], [], []
    for index in range(args.rounds):
        # Alternate which goes first, and compare within a round: the machine's drift cancels out.
        if index % 2 == 0:
            reference, mine, again = hand_written(), harness(), hand_written()
        else:
            again, mine, reference = hand_written(), harness(), hand_written()
        theirs.append(reference)
        ours.append(mine)
        ratios.append(mine / reference)
        controls.append(again / reference)
    low, high = median_interval(ratios)
    control_low, control_high = median_interval(controls)
    difference = statistics.median(ratios) - 1
    print(f"{args.workload} on {device}: gpuready {statistics.median(ours) * 1e3:.3f} ms/step, hand-written loop "
          f"{statistics.median(theirs) * 1e3:.3f} ms/step (medians over {args.rounds} rounds of {args.steps} steps); "
          f"median per-round difference {difference:+.1%} (95% CI {low - 1:+.1%} to {high - 1:+.1%}); "
          f"A/A control (the hand-written loop against itself) {statistics.median(controls) - 1:+.1%} "
          f"(95% CI {control_low - 1:+.1%} to {control_high - 1:+.1%})")
    message, code = judge(low, high)
    print(message, file=sys.stderr if code else sys.stdout)
    return code


def judge(low: float, high: float) -> tuple[str, int]:
    """The verdict and exit code for a 95 % interval of gpuready's time over the hand-written loop's."""
    if 1 - TOLERANCE <= low and high <= 1 + TOLERANCE:
        return f"MET: within {TOLERANCE:.0%} of the hand-written loop", 0
    if low > 1 + TOLERANCE:
        return f"TARGET MISSED: the overhead is above {TOLERANCE:.0%} beyond this machine's noise", 1
    if high < 1 - TOLERANCE:
        return ("gpuready's loop is faster than the hand-written one beyond noise: they are not timing the same "
                "work"), 1
    return (f"INCONCLUSIVE: the interval reaches past +-{TOLERANCE:.0%}; this machine is too noisy to tell "
            "(compare the A/A control's interval); rerun with more --rounds or on a quieter machine"), 0


if __name__ == "__main__":
    raise SystemExit(main())
