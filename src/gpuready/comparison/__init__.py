"""Comparison of Runs from two or more machines: speed with confidence intervals, cost, memory headroom,
correctness parity, porting effort and the environments side by side."""

from gpuready.comparison.cost import CostInputs, CostLine, parse_prices
from gpuready.comparison.engine import compare_sides
from gpuready.comparison.model import Comparison, MetricComparison, Side, SideSummary
from gpuready.stats import RatioInterval, median_ratio

__all__ = ["Comparison", "CostInputs", "CostLine", "MetricComparison", "RatioInterval", "Side", "SideSummary",
           "compare_sides", "median_ratio", "parse_prices"]
