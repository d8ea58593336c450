"""The largest batch that fits: doubling, then bisection; out-of-memory is an answer, not a crash."""

from __future__ import annotations

from collections.abc import Callable


def find_max_batch(fits: Callable[[int], bool], start: int = 1, limit: int = 1 << 16) -> int:
    """Largest ``b`` in [start, limit] with ``fits(b)``, assuming fitting is monotone; 0 when even ``start`` fails.

    ``fits`` runs one step at that batch size and returns False on out-of-memory (it must catch it itself).
    """
    if not fits(start):
        return 0
    good, bad = start, 0
    while not bad:
        candidate = min(good * 2, limit)
        if candidate == good:
            return good
        if fits(candidate):
            good = candidate
        else:
            bad = candidate
    while bad - good > 1:
        middle = (good + bad) // 2
        if fits(middle):
            good = middle
        else:
            bad = middle
    return good
