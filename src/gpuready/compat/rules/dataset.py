"""Rules about gpuready's own data: its age."""

from __future__ import annotations

from collections.abc import Iterator

from gpuready.compat.load import STALE_AFTER_DAYS, UPDATE_HINT
from gpuready.compat.rules.context import Context, finding
from gpuready.model import Finding, Severity


def stale_data(context: Context) -> Iterator[Finding]:
    """The compatibility data is older than STALE_AFTER_DAYS."""
    age = context.data.age_days(context.today)
    if age > STALE_AFTER_DAYS:
        yield finding("data.stale", Severity.WARN,
                      f"gpuready's compatibility data is {age} days old (as of {context.data.as_of}); newer releases "
                      "may be missing or judged unknown.",
                      evidence={"as of": context.data.as_of, "data": context.data.directory},
                      remedy=UPDATE_HINT)


RULES = (stale_data,)
