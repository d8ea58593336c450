"""Lossless conversion between gpuready's frozen dataclasses and plain JSON data.

``to_dict`` needs no type information; ``from_dict`` is driven by the dataclass type hints and names the exact
field path and the expected type when the data does not fit, so a hand-edited or truncated document gives a
clear error instead of a stack trace.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar, Union

from packaging.version import InvalidVersion, Version

from gpuready.errors import SchemaError

T = TypeVar("T")

JSONValue = Any
"""A value made only of dict, list, str, int, float, bool and None."""


def to_dict(obj: Any) -> Any:
    """Convert a dataclass (or any value inside one) to plain JSON data."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, Version):
        return str(obj)
    if isinstance(obj, datetime.date):
        return obj.isoformat()
    if isinstance(obj, (tuple, list)):
        return [to_dict(item) for item in obj]
    if isinstance(obj, Mapping):
        return {str(key): to_dict(value) for key, value in obj.items()}
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise TypeError(f"cannot convert {type(obj).__name__} to JSON data")


@functools.cache
def type_hints(cls: type) -> dict[str, Any]:
    """The resolved type hints of a dataclass (cached)."""
    return typing.get_type_hints(cls)


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def _expected_name(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if hint is type(None):
        return "null"
    if hint is Any or hint is object:
        return "any JSON value"
    if origin in (Union, types.UnionType):
        return " or ".join(_expected_name(arg) for arg in typing.get_args(hint))
    if origin is tuple:
        return "a list"
    if origin in (dict, Mapping):
        return "an object"
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return "one of " + ", ".join(repr(m.value) for m in hint)
    if isinstance(hint, type) and issubclass(hint, Version):
        return "a version string (quote it in YAML: \"6.10\", not 6.10)"
    if hint is datetime.date:
        return "a date (YYYY-MM-DD)"
    target = origin or hint
    if dataclasses.is_dataclass(target):
        return f"an object ({getattr(target, '__name__', target)})"
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false"}.get(hint, str(hint))


def from_dict(cls: type[T], data: Any, *, path: str = "$", source: str | None = None) -> T:
    """Build ``cls`` from JSON data; raise ``SchemaError`` naming the field path and what was expected."""
    result: T = _decode(cls, data, path, {}, source)
    return result


def _fail(hint: Any, data: Any, path: str, source: str | None) -> typing.NoReturn:
    raise SchemaError(f"expected {_expected_name(hint)}, got {_describe(data)}", source=source, field=path)


_LARGEST = 2**64
"""No count, size or measurement gpuready records needs more: a larger integer is a damaged or hostile file."""


def _decode(hint: Any, data: Any, path: str, bindings: dict[Any, Any], source: str | None) -> Any:
    if isinstance(hint, TypeVar):
        hint = bindings.get(hint, Any)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any or hint is object:
        return data
    if hint is type(None):
        if data is None:
            return None
        _fail(hint, data, path, source)
    if origin in (Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        candidates = [arg for arg in args if arg is not type(None)]
        errors: list[SchemaError] = []
        for candidate in candidates:
            try:
                return _decode(candidate, data, path, bindings, source)
            except SchemaError as error:
                errors.append(error)
        if len(errors) == 1:
            raise errors[0]
        _fail(hint, data, path, source)
    if origin is tuple:
        if not isinstance(data, list):
            _fail(hint, data, path, source)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], item, f"{path}[{i}]", bindings, source) for i, item in enumerate(data))
        if len(args) != len(data):
            raise SchemaError(f"expected a list of {len(args)} items, got {len(data)}", source=source, field=path)
        pairs = enumerate(zip(args, data, strict=True))
        return tuple(_decode(arg, item, f"{path}[{i}]", bindings, source) for i, (arg, item) in pairs)
    if origin in (dict, Mapping):
        if not isinstance(data, dict):
            _fail(hint, data, path, source)
        value_hint = args[1] if args else Any
        return {
            key: _decode(value_hint, value, f"{path}.{key}", bindings, source) for key, value in data.items()
        }
    target = origin or hint
    if dataclasses.is_dataclass(target):
        return _decode_dataclass(target, args, data, path, bindings, source)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(data)
        except ValueError:
            _fail(hint, data, path, source)
    if hint is Version:
        if not isinstance(data, str):
            _fail(hint, data, path, source)
        try:
            return Version(data)
        except InvalidVersion:
            _fail(hint, data, path, source)
    if hint is datetime.date:
        if isinstance(data, datetime.date) and not isinstance(data, datetime.datetime):
            return data
        if isinstance(data, str):
            try:
                return datetime.date.fromisoformat(data)
            except ValueError:
                pass
        _fail(hint, data, path, source)
    if hint is bool:
        if isinstance(data, bool):
            return data
        _fail(hint, data, path, source)
    if hint is int:
        if isinstance(data, int) and not isinstance(data, bool):
            if abs(data) > _LARGEST:
                raise SchemaError("expected an integer of at most 64 bits, got one of "
                                  f"{len(str(abs(data))) if abs(data) < 10**4000 else 'over 4,000'} digits",
                                  source=source, field=path)
            return data
        _fail(hint, data, path, source)
    if hint is float:
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            if isinstance(data, int) and abs(data) > _LARGEST:
                raise SchemaError("expected a number, got an integer beyond 64 bits", source=source, field=path)
            return float(data)
        _fail(hint, data, path, source)
    if hint is str:
        if isinstance(data, str):
            return data
        _fail(hint, data, path, source)
    raise TypeError(f"{path}: no decoder for type {hint!r}")


def _decode_dataclass(
    cls: Any, args: tuple[Any, ...], data: Any, path: str, bindings: dict[Any, Any], source: str | None
) -> Any:
    if not isinstance(data, dict):
        _fail(cls, data, path, source)
    params = getattr(cls, "__parameters__", ())
    local = dict(bindings)
    local.update(zip(params, args, strict=False))
    hints = type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise SchemaError(f"unknown field {unknown[0]!r} in {cls.__name__}", source=source, field=path)
    values: dict[str, Any] = {}
    for name, field in fields.items():
        if name not in data:
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise SchemaError(f"missing required field {name!r}", source=source, field=path)
            continue
        values[name] = _decode(hints[name], data[name], f"{path}.{name}", local, source)
    try:
        return cls(**values)
    except (ValueError, TypeError) as error:  # a dataclass's own consistency check (a Fact's status and value)
        raise SchemaError(str(error), source=source, field=path) from error
