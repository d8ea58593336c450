"""A second opinion on CUDA -> HIP names: PyTorch's own hipify mapping (``torch.utils.hipify``), when torch is there.

Nothing here runs on the scanner's default path. ``torch_hipify_mapping`` imports torch only when called, and only
when ``importlib.util.find_spec`` finds it; ``read_torch_mapping`` is the pure part, over the mapping tables.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gpuready.scanner.cuda_apis import HipifyData

MAPPINGS_MODULE = "torch.utils.hipify.cuda_to_hip_mappings"


@dataclass(frozen=True, slots=True)
class TorchName:
    """What torch's hipify writes for a CUDA name, and whether torch marks it unsupported on HIP (older releases
    carry a ``HIP_UNSUPPORTED`` flag; newer ones keep only the rename)."""

    hip: str
    unsupported: bool = False


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A name on which HIPIFY's tables and torch's mapping differ."""

    name: str
    hipify: str | None
    torch: str | None
    torch_unsupported: bool


def read_torch_mapping(tables: Iterable[Mapping[Any, Any]], unsupported_flag: object = None) -> dict[str, TorchName]:
    """``CUDA_TO_HIP_MAPPINGS`` as a dict: each value is the HIP name, or a tuple whose first item is the HIP name
    and whose other items may include ``unsupported_flag``. The first table naming a CUDA name wins, as in torch."""
    found: dict[str, TorchName] = {}
    for table in tables:
        for cuda, value in table.items():
            if not isinstance(cuda, str) or cuda in found:
                continue
            if isinstance(value, str):
                found[cuda] = TorchName(value)
            elif isinstance(value, tuple) and value and isinstance(value[0], str):
                flagged = unsupported_flag is not None and any(item == unsupported_flag for item in value[1:])
                found[cuda] = TorchName(value[0], flagged)
    return found


def torch_available() -> bool:
    """Whether torch is installed (found without importing it)."""
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def torch_hipify_mapping() -> dict[str, TorchName] | None:
    """torch's CUDA -> HIP names, or None without torch. Imports torch: call it only when asked for."""
    if not torch_available():
        return None
    mappings = importlib.import_module(MAPPINGS_MODULE)
    # Releases that flag unsupported names import HIP_UNSUPPORTED from .constants into the mappings module; newer
    # ones keep constants.py only to warn that it is unused, so it is not imported here.
    return read_torch_mapping(getattr(mappings, "CUDA_TO_HIP_MAPPINGS", ()), getattr(mappings, "HIP_UNSUPPORTED", None))


def compare(data: HipifyData, torch: Mapping[str, TorchName], names: Iterable[str]) -> list[Disagreement]:
    """For each name, where HIPIFY's HIP name and torch's differ (a name only one of them knows included)."""
    found = []
    for name in names:
        rows = data.lookup(name)
        hipify = next((row.hip for row in rows if row.hip is not None), None)
        theirs = torch.get(name)
        if (hipify, False) != ((theirs.hip, theirs.unsupported) if theirs else (None, False)):
            found.append(Disagreement(name, hipify, theirs.hip if theirs else None,
                                      theirs.unsupported if theirs else False))
    return found
