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


SHOWN_SETTINGS = ("mode", "precision", "batch_size", "compile")
"""The workload settings a comparison row shows (the rest are in the Run)."""


def describe_settings(settings: dict[str, object], keys: tuple[str, ...] | None = SHOWN_SETTINGS) -> str:
    """``mode=train precision=bf16 ...`` for the chosen keys (``None``: every key but device and workload); a
    setting on which two aligned sides differ (``framework=torch vs jax``) is always shown, first."""
    if keys is None:
        return ", ".join(f"{k}={v}" for k, v in settings.items() if k not in ("device", "workload"))
    differing = [k for k, v in settings.items() if k not in keys and isinstance(v, str) and " vs " in v]
    return " ".join(f"{k}={settings[k]}" for k in (*differing, *keys) if k in settings)


PROVENANCE_NOTE = {
    "measured": "",
    "pasted": "Judged from a report pasted from another machine: nothing was measured here.",
    "synthetic": "SYNTHETIC: these numbers were made up (a test or an example); they are not measurements.",
}


def provenance_note(provenance: object) -> str:
    """What a report's header says about where a Run's numbers came from ('' for a measurement made here)."""
    return PROVENANCE_NOTE.get(str(getattr(provenance, "value", provenance)), "")
