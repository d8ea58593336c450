"""Numbers in the units people read (ms, GiB, %), shared by every renderer."""

from __future__ import annotations


def format_value(value: float, unit: str) -> str:
    """A median or bound with its unit: seconds as ms, bytes as GiB, fractions as percent."""
    if unit == "bytes":
        return f"{value / 2**30:.2f} GiB"
    if unit == "s":
        return f"{value * 1e3:.2f} ms"
    if unit == "fraction":
        return f"{value:.1%}"
    return f"{value:,.4g} {unit}"
