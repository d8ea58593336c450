"""How right `gpuready scan` is on real repositories labelled by reading their code (tests/fixtures/scan-corpus):
verdict accuracy, recall and precision of blocker/warning places, false blockers on portable projects.

Snapshots are taken from local git mirrors (GPUREADY_SCAN_MIRRORS, default /work/.mirror); a repository without one
is skipped and said so. Nothing is fetched. ``--show`` lists every miss; ``--folder`` picks another label set (the
held-out one is measured only at the end of a piece of work)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from tests.scan_truth import CORPUS, labels, score, snapshot  # noqa: E402

from gpuready import api  # noqa: E402
from gpuready.model.config import ScanConfig  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folder", type=Path, default=CORPUS)
    parser.add_argument("--show", action="store_true", help="list every missed or wrong place and verdict")
    parser.add_argument("--only", default="", help="only repositories whose name contains this")
    args = parser.parse_args(argv)
    scored, missing = [], []
    for label in labels(args.folder):
        if args.only and args.only not in label.repo:
            continue
        tree = snapshot(label)
        if tree is None:
            missing.append(label.repo)
            continue
        run = api.scan(ScanConfig(tree, cache=False, jobs=1))
        verdict = run.outcome.verdict.value.lower()
        result = score(label, run.findings, verdict)
        scored.append(result)
        if args.show:
            mark = "ok " if result.agrees else "BAD"
            print(f"{mark} {label.repo}: {verdict} (labelled {label.verdict})")
            for key, found in result.found.items():
                if not found:
                    print(f"      missed   {key}")
            in_labelled = {key for key, _ in result.on_labelled_files}
            for key, right in result.reported:
                if not right:  # "extra!" counts against the precision in the files the labels name
                    print(f"      extra{'!' if key in in_labelled else ' '}   {key}")
    if missing:
        print(f"no snapshot (skipped): {', '.join(missing)}")
    if not scored:
        print("nothing scored")
        return 1
    found = [ok for s in scored for ok in s.found.values()]
    reported = [ok for s in scored for _, ok in s.reported]
    portable = [s for s in scored if s.expected == "portable"]
    print(f"repositories: {len(scored)} scored of {len(scored) + len(missing)}")
    print(f"verdict accuracy: {sum(s.agrees for s in scored)}/{len(scored)} "
          f"({sum(s.agrees for s in scored) / len(scored):.0%})")
    print(f"blocker/warning recall: {sum(found)}/{len(found)} ({sum(found) / max(1, len(found)):.0%})")
    labelled = [ok for s in scored for _, ok in s.on_labelled_files]
    print(f"blocker/warning precision in the files the labels name: {sum(labelled)}/{len(labelled)} "
          f"({sum(labelled) / max(1, len(labelled)):.0%}); over every report: {sum(reported)}/{len(reported)} "
          f"({sum(reported) / max(1, len(reported)):.0%}, a floor: the labels name the decisive places, not every "
          "file)")
    print(f"false blockers on portable projects: {sum(len(s.false_blockers) for s in portable)} in "
          f"{sum(1 for s in portable if s.false_blockers)} of {len(portable)} projects")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
