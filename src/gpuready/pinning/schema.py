"""JSON Schema of the lock file, from the same type hints as the Run schema.

Regenerate the committed copy with ``python -m gpuready.pinning.schema > docs/schema/lock.schema.json``.
"""

from __future__ import annotations

import json
from typing import Any

from gpuready.model.schema import _Builder
from gpuready.pinning.lockfile import LOCK_SCHEMA_VERSION, Lock


def lock_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) a lock file validates against."""
    builder = _Builder()
    root = builder.schema(Lock, {})
    builder.defs[root["$ref"].rsplit("/", 1)[1]]["properties"]["schema_version"] = {"const": LOCK_SCHEMA_VERSION}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://gpuready.dev/schema/lock.schema.json",
            "title": f"gpuready lock file (schema_version {LOCK_SCHEMA_VERSION})", **root,
            "$defs": dict(sorted(builder.defs.items()))}


def render_lock_schema() -> str:
    return json.dumps(lock_json_schema(), indent=2) + "\n"


if __name__ == "__main__":
    print(render_lock_schema(), end="")
