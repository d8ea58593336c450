"""What a pasted report shows beyond the facts, judged: each known error message is a finding with the cause the data
names and the fix; parts of the paste that disagree are an info finding (both values kept, none picked)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpuready.compat.rules.context import Context, finding
from gpuready.model import Finding, Severity


def errors_seen(context: Context) -> Iterator[Finding]:
    """One finding per known error code in the paste (the first line that shows it is the evidence)."""
    meanings = {entry.code: entry for entry in context.data.errors.errors}
    done: set[str] = set()
    for seen in context.fingerprint.errors:
        meaning = meanings.get(seen.code)
        if meaning is None or seen.code in done:
            continue
        done.add(seen.code)
        count = sum(1 for other in context.fingerprint.errors if other.code == seen.code)
        detail = f" ({seen.detail})" if seen.detail else ""
        severity = Severity.BLOCKER if meaning.severity == "blocker" else Severity.WARN
        evidence: dict[str, object] = {"line": seen.text, "where": seen.section, "times": count}
        message = f"the paste shows {meaning.message}{detail}"
        remedy = meaning.remedy
        if seen.later_success:  # fixed further down the same paste: what stays is keeping the fix
            severity = Severity.WARN
            evidence["later"] = seen.later_success
            message += f"; a later part shows the GPU working after a change ({seen.later_success})"
            remedy = ("keep the change that fixed it (make it permanent, e.g. in the service or shell profile); "
                      f"{remedy}")
        jax = context.fingerprint.framework("jax")
        if seen.code == "jax_backend_init_failed" and jax is not None and jax.accelerator_available.value is True:
            severity = Severity.WARN  # one platform failed to start; the paste shows JAX on a GPU all the same
            message += "; elsewhere in the paste JAX runs on a GPU (another platform, or another JAX_PLATFORMS)"
        yield finding(f"error.{seen.code}", severity, message, evidence=evidence, remedy=remedy,
                      source_url=meaning.source)


def conflicts_seen(context: Context) -> Iterator[Finding]:
    """Two parts of the paste that disagree (two torch versions, a container and its host): said, not resolved."""
    for conflict in context.fingerprint.conflicts:
        where = f" ({', '.join(s for s in conflict.sections if s)})" if any(conflict.sections) else ""
        slug = re.sub(r"\W+", "_", conflict.field.lower()).strip("_")
        yield finding(f"paste.conflict.{slug}", Severity.INFO,
                      f"parts of the paste disagree on {conflict.field}: {' vs '.join(conflict.values)}{where}; "
                      f"the first is used",
                      evidence={"field": conflict.field, "values": list(conflict.values),
                                "sections": [s for s in conflict.sections if s]},
                      remedy="say which output is from the machine in question (a container and its host, before "
                             "and after an upgrade) or paste them again from one shell")


RULES = (errors_seen, conflicts_seen)
