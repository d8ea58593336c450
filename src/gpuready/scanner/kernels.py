"""Kernel sources (.cu, .cuh, and C++ that includes CUDA headers) and Triton code, matched line by line."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gpuready.scanner.hits import Hit
from gpuready.scanner.kb import PatternRule

CUDA_INCLUDE = re.compile(r'#\s*include\s*[<"](cuda\w*|cublas\w*|cudnn\w*|cub/|cutlass/|cute/|mma\.h|nvrtc|curand)')


def compile_rules(rules: Sequence[PatternRule], prefix: str) -> list[tuple[str, re.Pattern[str]]]:
    """The regular-expression rules whose id starts with ``prefix``."""
    return [(r.id, re.compile(r.pattern)) for r in rules if r.id.startswith(prefix) and r.pattern]


def includes_cuda(text: str) -> bool:
    """Whether a C/C++ file pulls in CUDA headers (so its kernel patterns matter)."""
    return bool(CUDA_INCLUDE.search(text))


def analyse_kernel(text: str, rules: list[tuple[str, re.Pattern[str]]]) -> list[Hit]:
    """One hit per rule per line."""
    hits = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("//"):
            continue
        for rule_id, pattern in rules:
            match = pattern.search(line)
            if match:
                hits.append(Hit(rule_id, number, stripped[:160]))
    return hits
