"""Every real fixture judged as ``gpuready doctor --from`` would, against what its source thread established.

Prints fixture -> verdict -> expected verdict, the problems the thread confirmed and whether gpuready caught them,
then counts of agreement. Exit 1 when any fixture disagrees with tests/fixtures/verdicts.yaml.

    python benchmarks/verdicts.py [--json-out verdicts.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.ground_truth import expectations, judge_fixture, judged_fixtures  # noqa: E402

from gpuready.compat.load import load_dataset  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    data = load_dataset()
    expected = expectations()
    cases = [judge_fixture(f, data, expected) for f in judged_fixtures()]
    rows = []
    print(f"{'fixture':<62} {'verdict':<20} {'expected':<20} {'thread says':<40} ok")
    for case in cases:
        name = f"{case.fixture.kind}/{case.fixture.case}"
        problems = ", ".join(case.problems) or "-"
        print(f"{name:<62} {case.verdict.value:<20} {case.expected_verdict or '?':<20} {problems[:40]:<40} "
              f"{'yes' if case.caught else 'NO'}")
        rows.append({"fixture": name, "verdict": case.verdict.value, "expected": case.expected_verdict,
                     "problems": list(case.problems), "codes": list(case.codes), "caught": case.caught,
                     "not_visible": case.not_visible})
    visible = [(c, p) for c in cases for p in c.visible_problems]
    caught = [(c, p) for c, p in visible if p not in c.missed]
    agree = [c for c in cases if c.verdict.value == c.expected_verdict]
    print(f"\nverdict as expected: {len(agree)}/{len(cases)}")
    print(f"problems the threads confirmed that the output shows, caught: {len(caught)}/{len(visible)}")
    print(f"problems not visible in the output alone (reasons in verdicts.yaml): "
          f"{sum(len(c.not_visible) for c in cases)}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"cases": rows, "agree": len(agree), "total": len(cases)}, indent=2))
    return 0 if len(agree) == len(cases) and len(caught) == len(visible) else 1


if __name__ == "__main__":
    raise SystemExit(main())
