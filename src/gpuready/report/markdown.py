"""Markdown for a pull request or an issue: one Run, or a comparison. Every cell is escaped."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gpuready.comparison import Comparison
from gpuready.model import Run
from gpuready.model.fields import flatten
from gpuready.report.compare_text import advantage_text
from gpuready.report.terminal import inert
from gpuready.report.units import describe_settings, format_value, provenance_note

_SPECIAL = re.compile(r"([\\`*_\[\]<>#!|~$])")


def escape(text: object) -> str:
    """Markdown-inert text: markup characters backslash-escaped, HTML brackets as entities, one line."""
    value = " ".join(inert(str(text)).split())
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", value).replace("\\&lt;", "&lt;").replace("\\&gt;", "&gt;")


_AUTOLINK = re.compile(r"https?://[^\s<>`\\\x00-\x1f\x7f]+")
"""What an autolink may hold as it is: backslash escapes do not work inside ``<...>`` (CommonMark), so a URL is
written there unescaped, and anything else is escaped text."""


def link(url: object) -> str:
    """A URL as a Markdown autolink (``<https://...>``, untouched so ``_`` and ``#`` stay), or escaped text when it
    is no plain http(s) URL."""
    text = str(url)
    return f"<{text}>" if _AUTOLINK.fullmatch(text) else escape(text)


def _table(header: Sequence[object], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(escape(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in rows]
    return lines + [""]


def render_run_markdown(run: Run) -> str:
    """Findings, checks and measurements of one Run."""
    lines = [f"### gpuready {escape(run.kind.value)} run {escape(run.id[:12])}", "",
             f"**{escape(run.outcome.summary)}**", ""]
    note = provenance_note(run.provenance)
    if note:
        lines += [f"> {escape(note)}", ""]
    flat = flatten(run.fingerprint)
    if flat.get("gpu names") or run.label:
        lines += [f"{escape(run.label) + ' · ' if run.label else ''}{escape(flat.get('gpu names', ''))} · "
                  f"{escape(run.created_at)}", ""]
    if run.findings:
        lines += _table(["severity", "code", "message", "where", "fix"],
                        [[f.severity.value, f.code, f.message, f.location, f.remedy] for f in run.findings])
    if run.results:
        lines += _table(["check", "status", "seconds"],
                        [[r.check_id, r.status.value, f"{r.duration_s:.2f}"] for r in run.results])
    if run.measurements:
        lines += _table(["workload", "metric", "settings", "median", "p10 - p90", "n"],
                        [[m.workload, m.metric, describe_settings(m.settings), format_value(m.summary.median, m.unit),
                          f"{format_value(m.summary.p10, m.unit)} - {format_value(m.summary.p90, m.unit)}"
                          if m.summary.count > 1 else "", m.summary.count] for m in run.measurements])
    return "\n".join(lines)


def render_comparison_markdown(comparison: Comparison) -> str:
    """Conclusion per pairing, then the speed table, cost, beyond speed and the environment differences."""
    lines = [f"> **{escape(side.name)}**: {escape(provenance_note(side.provenance))}" for side in comparison.sides
             if provenance_note(side.provenance)]
    lines += [""] if lines else []
    for pairing in comparison.pairings:
        lines += [f"### {escape(pairing.other)} against {escape(pairing.baseline)}", "", escape(pairing.conclusion), ""]
        lines += _table(["workload", "settings", "metric", pairing.baseline, pairing.other, "advantage (95% CI)",
                         "verdict"],
                        [[row.workload, describe_settings(row.settings), row.metric,
                          format_value(row.baseline_median, row.unit), format_value(row.other_median, row.unit),
                          *advantage_text(row)] for row in pairing.metrics])
        if pairing.cost:
            lines += _table(["side", "workload", "$/GPU-hour", "rate per GPU", "$ per 1M", "training run"],
                            [[line.side, line.workload, line.usd_per_gpu_hour,
                              f"{line.per_second_per_gpu:,.4g} {line.unit}/s",
                              f"${line.usd_per_million:,.4g}",
                              f"{line.train_hours:,.1f} h, ${line.train_usd:,.0f}" if line.train_hours is not None
                              and line.train_usd is not None else ""] for line in pairing.cost])
        if pairing.parity:
            lines += _table(["check", pairing.baseline, pairing.other], [list(p) for p in pairing.parity])
    names = [side.name for side in comparison.sides]
    lines += _table(["", *names], [
        ["checks", *(s.checks_text for s in comparison.sides)],
        ["max batch", *(f"{s.max_batch:g}" if s.max_batch else "not measured" for s in comparison.sides)],
        ["memory headroom", *(f"{s.memory_headroom:.0%}" if s.memory_headroom is not None else "unknown"
                              for s in comparison.sides)],
        ["porting blockers / warnings", *(f"{len(s.blockers)} / {len(s.warnings)}" if s.scanned else "not scanned"
                                          for s in comparison.sides)]])
    differing = [[name, *values] for name, values in comparison.environment if comparison.differs(values)]
    if differing:
        lines += ["What differs between the environments:", ""] + _table(["", *names], differing)
    lines += [f"_Assumption: {escape(a)}_" for a in comparison.assumptions]
    return "\n".join(lines).rstrip() + "\n"
