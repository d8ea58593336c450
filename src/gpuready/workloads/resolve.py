"""Check a workload name before anything runs or is stored, without importing or running the user's code.

``resolve("transfomer")`` fails at once with a suggestion; ``resolve("train.py:make")`` reads ``train.py`` as text,
finds ``make`` in its syntax tree and notes whether it takes a ``batch_size`` argument; ``pkg.module:make`` finds the
module's file on the path the way the import system would, without importing it.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import importlib.machinery
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from gpuready.errors import InputError

BUILTINS = ("mlp", "cnn", "transformer")
HF_FAMILIES = ("llama", "mistral", "qwen2", "gpt2")
MAX_SOURCE_BYTES = 16 * 2**20
FACTORY_CONTRACT = ("a factory is called with no arguments (or with batch_size=N when it accepts one) and returns "
                    "model, batch and loss (optionally optimizer and placed)")
JAX_BUILTINS = ("mlp", "transformer")
JAX_FACTORY_CONTRACT = ("a JAX factory is called with no arguments (or with batch_size=N when it accepts one) and "
                        "returns step ((params, batch) -> new params), params and batch (step -> batch); optionally "
                        "tokens_per_step")


@dataclass(frozen=True)
class WorkloadRef:
    """A workload that exists: built-in, Hugging Face architecture, or the user's factory (found, not run)."""

    spec: str
    kind: str
    """``builtin``, ``hf`` or ``user``."""
    source: str = ""
    """The user's file (``user`` only)."""
    factory: str = ""
    accepts_batch_size: bool = True
    """Whether a batch size can be given: always for built-ins, for a factory only when it takes ``batch_size``."""
    source_hash: str = ""
    """sha256 of the factory's module source (first 16 hex digits): a changed source is a different workload."""


def _fail(spec: str, message: str) -> InputError:
    return InputError(message, field="workload", source=spec)


def _module_file(module: str) -> Path | None:
    """The source file of ``module`` on the current directory and ``sys.path``, found without importing."""
    search: list[str] | None = [os.getcwd(), *sys.path]
    found = None
    for part in module.split("."):
        found = importlib.machinery.PathFinder.find_spec(part, search)
        if found is None:
            return None
        search = list(found.submodule_search_locations or [])
    origin = getattr(found, "origin", None)
    return Path(origin) if origin and origin.endswith(".py") else None


def _factory_signature(spec: str, path: Path, factory: str) -> tuple[bool, str]:
    """(accepts batch_size, source hash) from the file's syntax tree; InputError when it has no such factory."""
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            raise _fail(spec, f"{path} is larger than {MAX_SOURCE_BYTES // 2**20} MiB")
        data = path.read_bytes()
        tree = ast.parse(data, filename=str(path))
    except SyntaxError as error:
        raise _fail(spec, f"{path}:{error.lineno}: syntax error: {error.msg}") from error
    except (OSError, ValueError) as error:
        raise _fail(spec, f"{path}: cannot be read: {error}") from error
    digest = hashlib.sha256(data).hexdigest()[:16]
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == factory:
            arguments = node.args
            names = {a.arg for a in arguments.args + arguments.kwonlyargs}
            return "batch_size" in names or arguments.kwarg is not None, digest
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        if isinstance(node, (ast.ClassDef, ast.Import, ast.ImportFrom)):
            names_here = {node.name} if isinstance(node, ast.ClassDef) else {
                (alias.asname or alias.name).split(".")[0] for alias in node.names}
            if factory in names_here:
                return False, digest
        if any(isinstance(t, ast.Name) and t.id == factory for t in targets):
            return False, digest
    defined = sorted(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    hint = difflib.get_close_matches(factory, defined, n=1)
    raise _fail(spec, f"{path} defines no {factory!r}" + (f"; did you mean {hint[0]!r}?" if hint else (
        f" (functions: {', '.join(defined[:8])})" if defined else "")))


def resolve(spec: str) -> WorkloadRef:
    """The workload ``spec`` names, checked statically; InputError (field ``workload``) when it cannot exist."""
    if spec in BUILTINS:
        return WorkloadRef(spec, "builtin")
    if spec.startswith("hf:"):
        family = spec.removeprefix("hf:")
        if family not in HF_FAMILIES:
            raise _fail(spec, f"unknown Hugging Face architecture; choose from {', '.join(HF_FAMILIES)}")
        return WorkloadRef(spec, "hf")
    target, _, factory = spec.rpartition(":")
    if not target or not factory:
        close = difflib.get_close_matches(spec, BUILTINS, n=1)
        raise _fail(spec, "unknown workload" + (f"; did you mean {close[0]!r}?" if close else "") +
                    f" (built-ins: {', '.join(BUILTINS)}; or your own as file.py:factory or module:factory)")
    if not factory.isidentifier():
        raise _fail(spec, f"{factory!r} is not a Python name")
    if target.endswith(".py") or os.sep in target or "/" in target:
        path = Path(target)
        if not path.is_file():
            raise _fail(spec, f"{target}: no such file")
    else:
        if not all(part.isidentifier() for part in target.split(".")):
            raise _fail(spec, f"{target!r} is neither a file.py nor a dotted module name")
        located = _module_file(target)
        if located is None:
            raise _fail(spec, f"no module named {target!r} on the Python path (or it has no Python source)")
        path = located
    accepts, digest = _factory_signature(spec, path, factory)
    return WorkloadRef(spec, "user", str(path), factory, accepts, digest)


def require_batch_size(ref: WorkloadRef, option: str) -> None:
    """InputError when a batch size is asked of a factory that cannot take one."""
    if not ref.accepts_batch_size:
        raise InputError(f"{ref.factory}() in {ref.source} takes no batch_size argument, so {option} cannot be "
                         f"honoured; add a batch_size parameter to the factory ({FACTORY_CONTRACT})",
                         field="batch_sizes", source=ref.spec)


def require_framework(ref: WorkloadRef, framework: str) -> None:
    """InputError when the workload has no implementation in ``framework`` (JAX: mlp, transformer, or a factory)."""
    if framework != "jax":
        return
    if ref.kind == "hf" or (ref.kind == "builtin" and ref.spec not in JAX_BUILTINS):
        raise InputError(f"there is no JAX {ref.spec} built in; with --framework jax choose from "
                         f"{', '.join(JAX_BUILTINS)} or your own file.py:factory ({JAX_FACTORY_CONTRACT})",
                         field="workload", source=ref.spec)
