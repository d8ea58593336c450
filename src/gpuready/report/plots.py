"""SVG plots for the HTML report, drawn with matplotlib (the ``report`` extra); ``None`` when it is missing.

Text in the plots is drawn as glyph outlines, and every label is made inert before it reaches matplotlib,
so nothing from the environment or the user's code can become markup inside the SVG.
"""

from __future__ import annotations

import io
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from gpuready.comparison.model import MetricComparison
from gpuready.model import CheckResult, Measurement

_UNSAFE = str.maketrans({"<": "\u2039", ">": "\u203a", "&": "+", "\"": "'", "-": "\u2010"})
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def inert(text: str, limit: int = 48) -> str:
    """A label that cannot close an SVG comment or open a tag (angle brackets become look-alikes)."""
    text = text.translate(_UNSAFE)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(width: float = 7.0, height: float = 3.2) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    plt.rcParams.update({"svg.fonttype": "path", "svg.hashsalt": "gpuready", "font.size": 9})
    return plt.subplots(figsize=(width, height))


def _svg(figure: Any) -> str:
    from matplotlib import pyplot as plt

    buffer = io.StringIO()
    figure.tight_layout()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(figure)
    text = buffer.getvalue()
    text = text[text.index("<svg"):]  # drop the XML declaration and doctype: the SVG is inlined in HTML
    return _COMMENT.sub("", text)


def step_time_distribution(measurements: Sequence[Measurement], prefixes: Sequence[str] = ()) -> str | None:
    """Box plots of step time (ms) per workload and batch size; ``prefixes`` name the side of each measurement."""
    chosen = [(m, prefixes[i] if i < len(prefixes) else "") for i, m in enumerate(measurements)
              if m.metric == "step_time" and len(m.samples) > 1]
    steps = [m for m, _ in chosen]
    if not steps or not available():
        return None
    figure, axes = _figure(7.0, 0.5 + 0.45 * len(steps) + 1.2)
    axes.boxplot([[s * 1e3 for s in m.samples] for m in steps], orientation="horizontal", showfliers=True)
    axes.set_yticks(range(1, len(steps) + 1),
                    [inert(f"{prefix + ': ' if prefix else ''}{m.workload} b={m.settings.get('batch_size', '?')} "
                           f"{m.settings.get('precision', '')}") for m, prefix in chosen])
    axes.set_xlabel("step time (ms)")
    axes.set_title("Step-time distribution (every measured step)")
    return _svg(figure)


def throughput_by_batch(measurements: Sequence[Measurement]) -> str | None:
    """Median throughput against batch size, one line per workload, with the p10-p90 band."""
    series: dict[str, list[Measurement]] = defaultdict(list)
    with_tokens = {m.workload for m in measurements if m.metric == "tokens_per_s"}
    for m in measurements:
        if m.metric == "samples_per_s" and m.workload in with_tokens:
            continue  # one unit per workload: tokens when the workload has them
        if m.metric in ("tokens_per_s", "samples_per_s") and isinstance(m.settings.get("batch_size"), int | float):
            series[f"{m.workload} {m.settings.get('precision', '')} ({m.unit})"].append(m)
    series = {name: sorted(ms, key=lambda m: m.settings["batch_size"]) for name, ms in series.items()
              if len({m.settings["batch_size"] for m in ms}) > 1}
    if not series or not available():
        return None
    figure, axes = _figure()
    for name, ms in series.items():
        x = [m.settings["batch_size"] for m in ms]
        axes.plot(x, [m.summary.median for m in ms], marker="o", label=inert(name))
        axes.fill_between(x, [m.summary.p10 for m in ms], [m.summary.p90 for m in ms], alpha=0.2)
    axes.set_xscale("log", base=2)
    axes.set_xlabel("batch size")
    axes.set_ylabel("throughput (median, p10-p90)")
    axes.legend()
    axes.set_title("Throughput against batch size")
    return _svg(figure)


def check_results(results: Sequence[CheckResult]) -> str | None:
    """Counts of check outcomes."""
    if not results or not available():
        return None
    counts: dict[str, int] = defaultdict(int)
    for result in results:
        counts[result.status.value] += 1
    order = [s for s in ("pass", "fail", "error", "crash", "timeout", "skip") if counts.get(s)]
    colours = {"pass": "#2e7d32", "fail": "#c62828", "error": "#ad1457", "crash": "#6a1b9a", "timeout": "#ef6c00",
               "skip": "#9e9e9e"}
    figure, axes = _figure(7.0, 2.2)
    axes.barh(order, [counts[s] for s in order], color=[colours[s] for s in order])
    for index, status in enumerate(order):
        axes.text(counts[status], index, f" {counts[status]}", va="center")
    axes.set_xlabel("checks")
    axes.set_title("Check results")
    return _svg(figure)


def comparison_bars(rows: Sequence[MetricComparison], baseline: str, other: str) -> str | None:
    """Advantage of the other side per metric with its 95% interval; 1.0 marks parity."""
    shown = [row for row in rows if row.metric in ("step_time", "samples_per_s", "tokens_per_s", "achieved_tflops",
                                                   "peak_memory", "joules_per_token")]
    if not shown or not available():
        return None
    figure, axes = _figure(7.0, 0.6 + 0.4 * len(shown) + 1.0)
    labels = [inert(f"{row.workload} b={row.settings.get('batch_size', '?')} {row.metric}") for row in shown]
    values = [row.advantage.ratio for row in shown]
    low = [row.advantage.ratio - (row.advantage.low if row.advantage.low is not None else row.advantage.ratio)
           for row in shown]
    high = [(row.advantage.high if row.advantage.high is not None else row.advantage.ratio) - row.advantage.ratio
            for row in shown]
    colours = ["#9e9e9e" if row.advantage.within_noise
               or row.advantage.within_noise is None and row.advantage.ratio == 1
               else "#90a4ae" if row.advantage.within_noise is None
               else "#2e7d32" if row.advantage.ratio > 1 else "#c62828" for row in shown]
    axes.barh(labels, values, xerr=[low, high], color=colours, capsize=3)
    axes.axvline(1.0, color="black", linewidth=0.8)
    axes.set_xlabel(inert(f"advantage of {other} over {baseline} (>1 better; grey: within noise)", 90))
    axes.set_title("Comparison with 95% bootstrap intervals")
    return _svg(figure)
