"""The user's model as a workload: ``--model pkg.module:factory`` or ``path/to/file.py:factory``, or a built-in.

A factory is called with no arguments and returns a mapping (or an object with these attributes):
``model`` (an nn.Module), ``batch`` (a callable ``step -> (inputs, target)``), ``loss`` (a callable
``(output, target) -> loss``), and optionally ``optimizer`` (a callable ``parameters -> optimizer``) and ``placed``
(True when the model places itself and its inputs; the audit then does not call ``.to(device)``).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuready.errors import InputError

BUILTINS = ("mlp", "cnn", "transformer")


@dataclass(frozen=True)
class UserWorkload:
    """The pieces of a training or inference step."""

    name: str
    model: Any
    batch: Callable[[int], tuple[Any, Any]]
    loss: Callable[[Any, Any], Any]
    optimizer: Callable[[Any], Any] | None = None
    placed: bool = False


def _from_factory(name: str, produced: Any) -> UserWorkload:
    def get(key: str, default: Any = None) -> Any:
        if isinstance(produced, dict):
            return produced.get(key, default)
        return getattr(produced, key, default)

    missing = [k for k in ("model", "batch", "loss") if get(k) is None]
    if missing:
        raise InputError(f"the factory returned no {', '.join(missing)} (it must return model, batch and loss)",
                         source=name)
    return UserWorkload(name, get("model"), get("batch"), get("loss"), get("optimizer"), bool(get("placed", False)))


def load_workload(spec: str) -> UserWorkload:
    """A built-in (``mlp``, ``cnn``, ``transformer``) or the user's factory. Importing the user's module runs their
    code: the audit does this only in its isolated child process."""
    if spec in BUILTINS:
        from gpuready.checks.torch.models import WORKLOADS

        built = WORKLOADS[spec]()
        return UserWorkload(spec, built.make_model(), built.batch, built.loss)
    target, _, attribute = spec.rpartition(":")
    if not target or not attribute:
        raise InputError(f"expected 'module:factory' or 'file.py:factory' or one of {', '.join(BUILTINS)}",
                         source=spec)
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise InputError("no such file", source=target)
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        if module_spec is None or module_spec.loader is None:
            raise InputError("cannot be loaded as a Python module", source=target)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise InputError(f"has no callable {attribute!r}", source=target)
    return _from_factory(spec, factory())
