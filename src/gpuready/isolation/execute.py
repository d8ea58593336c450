"""Run one check in the current process and turn whatever happens into a ``CheckResult``."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from typing import Any

from gpuready.errors import InputError
from gpuready.isolation.spec import INPUT_ERROR, CheckContext, CheckSpec, Fail, Skip
from gpuready.model import CheckResult, CheckStatus


def run_one(spec: CheckSpec, device: str = "auto", options: dict[str, Any] | None = None,
            reporter: Callable[[str], None] | None = None) -> CheckResult:
    """Call the check; Skip, Fail and any other exception (MemoryError included) become its status."""
    context = CheckContext(device=device, options=dict(options or {}), reporter=reporter)
    start = time.perf_counter()
    status = CheckStatus.PASS
    try:
        spec.load()(context)
    except Skip as reason:
        status = CheckStatus.SKIP
        context.note("reason", str(reason))
    except Fail as reason:
        status = CheckStatus.FAIL
        context.note("reason", str(reason))
    except KeyboardInterrupt:
        raise
    except InputError as error:
        status = CheckStatus.ERROR
        context.note("reason", str(error))
        context.note(INPUT_ERROR, {"message": error.reason, "source": error.source, "field": error.field})
    except BaseException as error:  # noqa: BLE001 - a check's own failure is its result
        status = CheckStatus.ERROR
        context.note("reason", f"{type(error).__name__}: {error}")
        context.note("traceback", traceback.format_exc()[-4000:])
    duration = time.perf_counter() - start
    return CheckResult(check_id=spec.id, status=status, duration_s=round(duration, 6),
                       device=str(context.details.pop("device", device)), metrics=dict(context.metrics),
                       details=_jsonable(context.details))


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
