"""The fleet report as text (rich), JSON, Markdown and self-contained HTML (a node x metric heatmap), and a
Prometheus textfile per node for node-exporter. Renderers only render: the judgement is in ``analysis``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gpuready.fleet.analysis import FleetReport, MetricSpread, NodeSummary

MAX_ROWS = 200
"""Per-node rows a terminal or Markdown table shows (defective nodes first); JSON and HTML keep every node."""


def provenance_line(report: FleetReport) -> str:
    """A warning when the report's numbers were not all measured ("" when they were)."""
    if "synthetic" in report.provenance:
        return "SYNTHETIC: these numbers were made up (a test or an example), never measured"
    if "pasted" in report.provenance:
        return "Some Runs were judged from pasted reports, not measured on the nodes"
    return ""


def _verdict_line(report: FleetReport) -> str:
    nodes = len(report.nodes)
    if report.healthy:
        return f"HEALTHY: {nodes} nodes, none defective"
    return f"DEFECTIVE NODES: {len(report.defective)} of {nodes}"


def _ordered_nodes(report: FleetReport) -> list[NodeSummary]:
    bad = {node for node, _ in report.defective}
    return sorted(report.nodes, key=lambda n: (n.node not in bad, n.node))


def _value(value: float, unit: str) -> str:
    return f"{value:.4g} {unit}".strip()


def to_document(report: FleetReport) -> dict[str, Any]:
    """Plain JSON data of the report."""
    from gpuready.model import to_dict

    document: dict[str, Any] = {"fleet_run": report.fleet, "verdict": _verdict_line(report),
                                "provenance": list(report.provenance),
                                "healthy": report.healthy, "baseline": report.baseline,
                                "mad_threshold": report.mad_threshold, "min_relative": report.min_relative}
    document["fleet_wide"] = [{"kind": r.kind, "text": r.text} for r in report.fleet_wide]
    document["defective"] = [{"node": node, "reasons": [{"kind": r.kind, "text": r.text} for r in reasons]}
                             for node, reasons in report.defective]
    document["consistency"] = [to_dict(s) for s in report.consistency]
    document["failures"] = [to_dict(f) for f in report.failures]
    document["metrics"] = [to_dict(m) for m in report.metrics]
    document["nodes"] = [{"node": n.node, "jobs": list(n.jobs), "engine": n.engine, "runs": n.runs,
                          "verdicts": dict(n.verdicts), "failed_checks": dict(n.failed_checks),
                          "metrics": dict(n.metrics)} for n in report.nodes]
    document["unreadable"] = [to_dict(u) for u in report.unreadable]
    plain: dict[str, Any] = json.loads(json.dumps(document, default=str))
    return plain


def render_json(report: FleetReport) -> str:
    return json.dumps(to_document(report), indent=2) + "\n"


def render_text(report: FleetReport) -> Any:
    """A rich renderable: verdict, defective nodes with reasons, differing fields, failing checks, outliers."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = [Text(f"gpuready fleet report · {report.fleet} · {len(report.nodes)} nodes", style="bold")]
    if provenance_line(report):
        parts.append(Text(provenance_line(report), style="bold yellow"))
    if report.baseline:
        parts.append(Text(f"judged against the {report.baseline}"))
    if report.fleet_wide:
        parts.append(Text("On every node (a problem of the whole fleet, not an odd node out): "
                          + "; ".join(f"[{r.kind}] {r.text}" for r in report.fleet_wide), style="bold red"))
    if report.defective:
        table = Table(title="Defective nodes", title_justify="left")
        table.add_column("node")
        table.add_column("reasons")
        for node, reasons in report.defective[:MAX_ROWS]:
            table.add_row(Text(node), Text("\n".join(f"[{r.kind}] {r.text}" for r in reasons)))
        parts.append(table)
        if len(report.defective) > MAX_ROWS:
            parts.append(Text(f"... and {len(report.defective) - MAX_ROWS} more defective nodes (--json has all)"))
    if report.consistency:
        table = Table(title="Fields that differ across nodes", title_justify="left")
        for column in ("field", "values (nodes)"):
            table.add_column(column)
        for spread in report.consistency:
            values = "\n".join(f"{value!r}: {count}" + (f" ({', '.join(nodes)}{', ...' if count > len(nodes) else ''})"
                                                       if spread.majority != value else "")
                               for value, count, nodes in spread.values)
            table.add_row(Text(spread.field + (" (ignored)" if spread.ignored else "")), Text(values))
        parts.append(table)
    if report.failures:
        table = Table(title="Checks failing on some nodes", title_justify="left")
        for column in ("check", "failed on", "of nodes that ran it"):
            table.add_column(column)
        for failure in report.failures:
            names = ", ".join(f"{n} ({s})" for n, s in failure.failed_on[:8])
            more = f", ... {len(failure.failed_on) - 8} more" if len(failure.failed_on) > 8 else ""
            table.add_row(Text(failure.check_id), Text(names + more), f"{len(failure.failed_on)}/{failure.ran_on}")
        parts.append(table)
    parts.append(_metrics_table(report.metrics))
    if report.unreadable:
        parts.append(Text(f"{len(report.unreadable)} Runs could not be read: " + "; ".join(
            f"{u.source}: {u.reason}" for u in report.unreadable[:5]) + (" ..." if len(report.unreadable) > 5 else "")))
    parts.append(Text(_verdict_line(report), style="bold green" if report.healthy else "bold red"))
    return Group(*parts)


def _metrics_table(metrics: Sequence[MetricSpread]) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title="Metrics across the fleet (median, spread, outliers)", title_justify="left")
    for column in ("metric", "nodes", "median", "min", "max", "outliers"):
        table.add_column(column, justify="right" if column in ("nodes", "median", "min", "max") else "left")
    for m in metrics:
        outliers = ", ".join(f"{o.node} {o.relative:+.1%}" for o in m.outliers[:5])
        if len(m.outliers) > 5:
            outliers += f", ... {len(m.outliers) - 5} more"
        table.add_row(Text(m.label), str(m.nodes), _value(m.median, m.unit), _value(m.minimum, m.unit),
                      _value(m.maximum, m.unit), outliers or "-")
    return table


def render_markdown(report: FleetReport) -> str:
    """Markdown for a ticket or a wiki page (every cell escaped)."""
    from gpuready.report.markdown import escape

    def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
        lines = ["| " + " | ".join(escape(h) for h in header) + " |", "|" + "---|" * len(header)]
        return lines + ["| " + " | ".join(escape(c) for c in row) + " |" for row in rows] + [""]

    lines = [f"## gpuready fleet report: {escape(report.fleet)}", "", f"**{escape(_verdict_line(report))}**", ""]
    if provenance_line(report):
        lines += [f"> {escape(provenance_line(report))}", ""]
    if report.baseline:
        lines += [f"Judged against the {escape(report.baseline)}.", ""]
    if report.fleet_wide:
        lines += ["On every node (a problem of the whole fleet, not an odd node out): "
                  + escape("; ".join(f"[{r.kind}] {r.text}" for r in report.fleet_wide)), ""]
    if report.defective:
        lines += ["### Defective nodes", ""]
        lines += table(("node", "reasons"), [(node, "; ".join(f"[{r.kind}] {r.text}" for r in reasons))
                                             for node, reasons in report.defective[:MAX_ROWS]])
    if report.consistency:
        lines += ["### Fields that differ across nodes", ""]
        lines += table(("field", "values (nodes)"), [(s.field, "; ".join(f"{v}: {c}" for v, c, _ in s.values))
                                                     for s in report.consistency])
    if report.failures:
        lines += ["### Checks failing on some nodes", ""]
        lines += table(("check", "failed on", "count"),
                       [(f.check_id, ", ".join(n for n, _ in f.failed_on[:8]), f"{len(f.failed_on)}/{f.ran_on}")
                        for f in report.failures])
    lines += ["### Metrics", ""]
    lines += table(("metric", "nodes", "median", "min", "max", "outliers"),
                   [(m.label, m.nodes, _value(m.median, m.unit), _value(m.minimum, m.unit), _value(m.maximum, m.unit),
                     ", ".join(f"{o.node} {o.relative:+.1%}" for o in m.outliers[:8]) or "-") for m in report.metrics])
    return "\n".join(lines)


def _cell(node: NodeSummary, metric: MetricSpread, flagged: set[tuple[str, str]]) -> dict[str, Any]:
    value = dict(node.metrics).get(metric.key)
    if value is None:
        return {"text": "", "style": "background:#eee", "title": "not measured"}
    relative = (value - metric.median) / abs(metric.median) if metric.median else 0.0
    worse = -relative if metric.higher_is_better else relative
    # colour by how much worse than the median: white at 0, red at 20% or more worse, green when better
    strength = max(-1.0, min(1.0, worse / 0.2))
    if strength > 0:
        colour = f"rgb(255,{int(255 * (1 - strength * 0.75))},{int(255 * (1 - strength * 0.75))})"
    else:
        colour = f"rgb({int(255 * (1 + strength * 0.3))},255,{int(255 * (1 + strength * 0.3))})"
    bold = "font-weight:700;outline:2px solid #c62828;" if (node.node, metric.key) in flagged else ""
    return {"text": f"{relative:+.1%}", "style": f"background:{colour};{bold}",
            "title": f"{node.node} · {metric.label}: {value:.4g} {metric.unit} ({relative:+.1%} vs median)"}


def render_html(report: FleetReport) -> str:
    """A self-contained page: verdict, defective nodes, differing fields, failing checks, and a node x metric heatmap
    (each cell the node's deviation from the fleet median; red is worse, outlined cells are flagged outliers)."""
    from gpuready import __version__
    from gpuready.report.html import _environment

    flagged = {(o.node, m.key) for m in report.metrics for o in m.outliers}
    nodes = _ordered_nodes(report)
    heatmap = [{"node": n.node, "defective": any(n.node == d for d, _ in report.defective),
                "cells": [_cell(n, m, flagged) for m in report.metrics]} for n in nodes]
    template = _environment().get_template("fleet.html.j2")
    return str(template.render(title=f"gpuready fleet report · {report.fleet}", report=report,
                               verdict=_verdict_line(report), heatmap=heatmap, value=_value,
                               provenance_warning=provenance_line(report),
                               tool_version=__version__))


def node_textfiles(report: FleetReport) -> dict[str, str]:
    """A Prometheus textfile per node (for node-exporter's textfile collector): whether the node is defective, its
    reasons by kind, failed checks, and each metric's median with its deviation from the fleet median."""
    from prometheus_client import CollectorRegistry, Gauge, generate_latest

    reasons = dict(report.defective)
    medians = {m.key: m for m in report.metrics}
    files = {}
    for node in report.nodes:
        registry = CollectorRegistry()
        base = {"fleet_run": report.fleet, "node": node.node}
        Gauge("gpuready_fleet_node_defective", "1 when the fleet report names this node defective.", list(base),
              registry=registry).labels(**base).set(1 if node.node in reasons else 0)
        by_kind = Gauge("gpuready_fleet_node_reasons", "Reasons the node is defective, by kind.", [*base, "kind"],
                        registry=registry)
        for kind in ("check", "outlier", "consistency", "baseline", "verdict", "missing"):
            by_kind.labels(**base, kind=kind).set(sum(1 for r in reasons.get(node.node, ()) if r.kind == kind))
        failed = Gauge("gpuready_fleet_node_checks_failed", "Checks that failed on this node.", list(base),
                       registry=registry)
        failed.labels(**base).set(len(node.failed_checks))
        value = Gauge("gpuready_fleet_node_metric_median", "The node's median of a metric.",
                      [*base, "metric", "unit"], registry=registry)
        deviation = Gauge("gpuready_fleet_node_metric_relative", "(node median - fleet median) / fleet median.",
                          [*base, "metric"], registry=registry)
        for key, median in node.metrics:
            spread = medians.get(key)
            value.labels(**base, metric=key, unit=spread.unit if spread else "").set(median)
            if spread is not None and spread.median:
                deviation.labels(**base, metric=key).set((median - spread.median) / abs(spread.median))
        files[node.node] = generate_latest(registry).decode("utf-8")
    return files
