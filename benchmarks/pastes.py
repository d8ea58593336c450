"""How well gpuready reads real pastes: share read, field accuracy against hand-checked facts, error lines found,
verdict agreement, and false READY on broken setups. ``--folder`` picks the set (default tests/fixtures/pastes;
the held-out set is measured only at the end of a piece of work), ``--all`` takes every real paste. ``--show`` lists
every miss."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from tests.paste_truth import PASTES, cases, evaluate  # noqa: E402

from gpuready.compat.load import load_dataset  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folder", type=Path, action="append",
                        help="a folder of pastes (several may be given; default tests/fixtures/pastes)")
    parser.add_argument("--all", action="store_true", help="every real paste: tests/fixtures/pastes*")
    parser.add_argument("--show", action="store_true", help="print every missed field and disagreeing verdict")
    args = parser.parse_args(argv)
    data = load_dataset()
    start = time.perf_counter()
    folders = sorted(PASTES.parent.glob("pastes*")) if args.all else (args.folder or [PASTES])
    scored = [evaluate(path, data) for folder in folders for path in cases(folder)]
    seconds = time.perf_counter() - start
    read = [s for s in scored if s.read]
    fields = [(s.case, key, ok) for s in scored for key, ok in s.fields.items()]
    errors = [(s.case, code, ok) for s in scored for code, ok in s.errors.items()]
    agree = [s for s in scored if s.agrees]
    false_ready = [s for s in scored if s.false_ready]
    if args.show:
        for case, key, ok in fields + errors:
            if not ok:
                print(f"MISS  {case}: {key}")
        for s in scored:
            if not s.agrees:
                print(f"VERDICT {s.case}: {s.verdict or 'unread'} (expected {s.expected_verdict})")
    by_key = Counter(key for _, key, ok in fields if not ok)
    print(f"pastes: {len(scored)} in {len(folders)} folder(s): {', '.join(f.name for f in folders)} ({seconds:.1f} s)")
    print(f"read: {len(read)}/{len(scored)} ({len(read) / max(1, len(scored)):.0%})")
    print(f"field accuracy: {sum(ok for *_, ok in fields)}/{len(fields)} "
          f"({sum(ok for *_, ok in fields) / max(1, len(fields)):.1%}); most missed: {dict(by_key.most_common(5))}")
    print(f"error lines found: {sum(ok for *_, ok in errors)}/{len(errors)}")
    print(f"verdict agreement: {len(agree)}/{len(scored)} ({len(agree) / max(1, len(scored)):.1%})")
    print(f"false READY (the paste shows a problem or leaves the stack unknown): {len(false_ready)} "
          f"{[s.case for s in false_ready]}")
    hidden = [s for s in scored if s.ready_on_broken and not s.false_ready]
    print(f"READY where the thread found a fault the paste does not show: {len(hidden)} {[s.case for s in hidden]}")
    return _one_megabyte(folders[0])


def _one_megabyte(folder: Path, target_s: float = 0.3) -> int:
    """The real pastes end to end until 1 MB, read as one paste: the median of 5 reads against the target."""
    from gpuready.probe.paste import read_paste

    texts = [path.read_text(encoding="utf-8", errors="replace") for path in cases(folder)]
    text = "\n".join(texts * (1_000_000 // max(1, sum(map(len, texts))) + 1))[:1_000_000]
    times = []
    for _ in range(5):
        start = time.perf_counter()
        read_paste(text, "paste: 1 MB")
        times.append(time.perf_counter() - start)
    median = sorted(times)[2]
    met = median <= target_s
    print(f"1 MB paste read in {median:.2f} s (median of 5; target {target_s} s): {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
