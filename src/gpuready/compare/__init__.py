"""Comparison of Runs from two or more machines: speed with confidence intervals, cost, memory headroom,
correctness parity, porting effort and the environments side by side."""

from gpuready.compare.bootstrap import RatioInterval, median_ratio
from gpuready.compare.cost import CostInputs, CostLine, parse_prices
from gpuready.compare.engine import compare_sides
from gpuready.compare.model import Comparison, MetricComparison, Side, SideSummary

__all__ = ["Comparison", "CostInputs", "CostLine", "MetricComparison", "RatioInterval", "Side", "SideSummary",
           "compare_sides", "median_ratio", "parse_prices"]
