"""Build a workload in the process that runs it: a built-in, a Hugging Face architecture, or the user's factory.

Importing the user's module runs their code: only isolated child processes call ``load_workload``. What a factory
must return is described in ``gpuready.workloads.protocol.Workload``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

from gpuready.errors import InputError
from gpuready.workloads.protocol import Workload, config_hash
from gpuready.workloads.resolve import BUILTINS, FACTORY_CONTRACT, WorkloadRef, resolve

TRANSFORMER_PRESETS = {
    "tiny": {"width": 64, "heads": 4, "layers": 2, "sequence": 32},
    "small": {"width": 256, "heads": 8, "layers": 4, "sequence": 256},
    "medium": {"width": 768, "heads": 12, "layers": 12, "sequence": 512},
    "large": {"width": 2048, "heads": 16, "layers": 20, "sequence": 1024},
}
"""The built-in transformer's sizes (large is about 1B parameters)."""


def _from_factory(spec: str, produced: Any, identity: dict[str, Any]) -> Workload:
    def get(key: str, default: Any = None) -> Any:
        if isinstance(produced, dict):
            return produced.get(key, default)
        return getattr(produced, key, default)

    missing = [k for k in ("model", "batch", "loss") if get(k) is None]
    if missing:
        raise InputError(f"the factory returned {type(produced).__name__}, which has no {', '.join(missing)} "
                         f"({FACTORY_CONTRACT})", source=spec, field="workload")
    for key in ("batch", "loss"):
        if not callable(get(key)):
            raise InputError(f"the factory's {key} is not callable ({FACTORY_CONTRACT})", source=spec,
                             field="workload")
    return Workload(spec, get("model"), get("batch"), get("loss"), get("optimizer"), bool(get("placed", False)),
                    identity)


def _import(source: str, spec: str) -> Any:
    target = spec.rpartition(":")[0]
    if target.endswith(".py") or "/" in target:
        path = Path(source)
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        if module_spec is None or module_spec.loader is None:
            raise InputError("cannot be loaded as a Python module", source=source, field="workload")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules.setdefault(path.stem, module)
        module_spec.loader.exec_module(module)
        return module
    return importlib.import_module(target)


def builtin_identity(name: str, size: str, sequence: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """A built-in's model configuration and identity (one home: the torch and the JAX model of one preset get the
    same identity, so a comparison aligns them)."""
    if name == "transformer":
        preset = dict(TRANSFORMER_PRESETS[size])
        if sequence:
            preset["sequence"] = sequence
        return preset, {"workload": name, "size": size, "sequence": preset["sequence"],
                        "model_config": config_hash(preset)}
    return {}, {"workload": name, "model_config": config_hash(name)}


def _builtin(name: str, batch_size: int | None, size: str, sequence: int | None) -> Workload:
    from gpuready.workloads.torch_models import build_cnn, build_mlp, build_transformer

    batch = {"batch": batch_size} if batch_size else {}
    preset, identity = builtin_identity(name, size, sequence)
    if name == "transformer":
        recipe = build_transformer(**preset, **batch)
    else:
        recipe = (build_mlp if name == "mlp" else build_cnn)(**batch)
    return Workload(name, recipe.make_model(), recipe.batch, recipe.loss, identity=identity)


def load_workload(spec: str, *, batch_size: int | None = None, size: str = "tiny",
                  sequence: int | None = None) -> Workload:
    """The workload ``spec`` names, built at ``batch_size`` (its own batch when None)."""
    ref = resolve(spec)
    if ref.kind == "builtin":
        return _builtin(spec, batch_size, size, sequence)
    if ref.kind == "hf":
        from gpuready.workloads.hf_models import build_hf

        return build_hf(spec.removeprefix("hf:"), size if size != "large" else "medium", batch=batch_size or 4,
                        sequence=sequence or 128)
    produced, identity = call_factory(ref, spec, batch_size)
    return _from_factory(spec, produced, identity)


def call_factory(ref: WorkloadRef, spec: str, batch_size: int | None, contract: str = FACTORY_CONTRACT
                 ) -> tuple[Any, dict[str, Any]]:
    """Import the user's module and call its factory (with ``batch_size`` when one is asked for): what it returned,
    and the workload's identity (the spec and a hash of the module's source)."""
    module = _import(ref.source, spec)
    factory = getattr(module, ref.factory, None)
    if not callable(factory):
        raise InputError(f"has no callable {ref.factory!r}", source=ref.source, field="workload")
    identity = {"workload": spec, "source_hash": ref.source_hash}
    if batch_size is not None:
        parameters = inspect.signature(factory).parameters
        if "batch_size" not in parameters and not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
            raise InputError(f"{ref.factory}() takes no batch_size argument ({contract})", source=spec,
                             field="batch_sizes")
        return factory(batch_size=batch_size), identity
    return factory(), identity


__all__ = ["BUILTINS", "TRANSFORMER_PRESETS", "builtin_identity", "call_factory", "load_workload"]
