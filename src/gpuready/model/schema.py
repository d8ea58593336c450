"""JSON Schema of a serialised ``Run``, derived from the dataclass type hints.

The committed copy lives in ``docs/schema/run.schema.json``; a test fails when it and the model disagree.
Regenerate it with ``python -m gpuready.model.schema > docs/schema/run.schema.json``.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import re
import types
import typing
from typing import Any, TypeVar, Union

from packaging.version import Version

from gpuready.model.codec import type_hints
from gpuready.model.run import SCHEMA_VERSION, Run

SCHEMA_ID = "urn:gpuready:schema:run"


def _def_name(hint: Any) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", _readable(hint)).strip("_")


def _readable(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin is None:
        return getattr(hint, "__name__", str(hint))
    args = [a for a in typing.get_args(hint) if a is not Ellipsis]
    return f"{getattr(origin, '__name__', str(origin))}_{'_'.join(_readable(a) for a in args)}"


class _Builder:
    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}

    def schema(self, hint: Any, bindings: dict[Any, Any]) -> dict[str, Any]:
        if isinstance(hint, TypeVar):
            hint = bindings.get(hint, Any)
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if hint is Any:
            return {}
        if hint is type(None):
            return {"type": "null"}
        if origin in (Union, types.UnionType):
            return {"anyOf": [self.schema(arg, bindings) for arg in args]}
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.schema(args[0], bindings)}
            return {
                "type": "array",
                "prefixItems": [self.schema(a, bindings) for a in args],
                "minItems": len(args),
                "maxItems": len(args),
            }
        if origin is dict:
            return {"type": "object", "additionalProperties": self.schema(args[1], bindings)}
        target = origin or hint
        if dataclasses.is_dataclass(target):
            return self._dataclass(hint, target, args, bindings)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return {"enum": [member.value for member in hint]}
        if hint is Version:
            return {"type": "string", "description": "a PEP 440 version"}
        if hint is datetime.date:
            return {"type": "string", "format": "date"}
        simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
        if hint in simple:
            return {"type": simple[hint]}
        raise TypeError(f"no JSON Schema for {hint!r}")

    def _dataclass(self, hint: Any, cls: Any, args: tuple[Any, ...], bindings: dict[Any, Any]) -> dict[str, Any]:
        name = _def_name(hint)
        ref = {"$ref": f"#/$defs/{name}"}
        if name in self.defs:
            return ref
        self.defs[name] = {}  # placeholder for recursion
        local = dict(bindings)
        local.update(zip(getattr(cls, "__parameters__", ()), args, strict=False))
        hints = type_hints(cls)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for field in dataclasses.fields(cls):
            properties[field.name] = self.schema(hints[field.name], local)
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                required.append(field.name)
        definition: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
        }
        if required:
            definition["required"] = required
        doc = (cls.__doc__ or "").strip().splitlines()
        if doc:
            definition["description"] = doc[0]
        self.defs[name] = definition
        return ref


def run_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) every serialised Run validates against."""
    builder = _Builder()
    root = builder.schema(Run, {})
    run_def = builder.defs[root["$ref"].rsplit("/", 1)[1]]
    run_def["properties"]["schema_version"] = {"const": SCHEMA_VERSION}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"gpuready Run (schema_version {SCHEMA_VERSION})",
        **root,
        "$defs": dict(sorted(builder.defs.items())),
    }


def render_schema() -> str:
    """The schema as the committed file holds it."""
    return json.dumps(run_json_schema(), indent=2, sort_keys=False) + "\n"


if __name__ == "__main__":
    print(render_schema(), end="")
