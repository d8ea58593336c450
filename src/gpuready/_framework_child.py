"""Run in a child interpreter: import one framework, print its facts as one JSON line, exit.

The parent never imports torch or jax; a framework that hangs, crashes or prints warnings cannot take gpuready
with it. Only the standard library is imported here besides the framework under test, and this module sits at the
top of the package so that starting it imports nothing else of gpuready.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

MARKER = "GPUREADY_JSON:"


def torch_facts() -> dict[str, Any]:
    """Version, build flavour, devices and compiled architectures of PyTorch."""
    import torch

    hip = getattr(torch.version, "hip", None)
    cuda = getattr(torch.version, "cuda", None)
    facts: dict[str, Any] = {"version": str(torch.__version__), "hip": hip, "cuda": cuda}
    flags = ""
    get_flags = getattr(torch._C, "_cuda_getArchFlags", None)
    if get_flags is not None:
        flags = get_flags() or ""
    facts["arch_list"] = sorted({part.split("=")[-1] for part in flags.split() if part}) if flags else []
    facts["available"] = bool(torch.cuda.is_available())
    names: list[str] = []
    archs: list[str] = []
    if facts["available"]:
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            names.append(str(props.name))
            gcn = getattr(props, "gcnArchName", None)
            archs.append(str(gcn) if hip and gcn else f"sm_{props.major}{props.minor}")
    facts["device_count"] = len(names)
    facts["device_names"] = names
    facts["device_archs"] = archs
    return facts


def jax_facts() -> dict[str, Any]:
    """Version, default backend and devices of JAX."""
    import jax

    devices = jax.devices()
    return {
        "version": str(jax.__version__),
        "default_backend": str(jax.default_backend()),
        "device_count": len(devices),
        "device_names": [str(getattr(d, "device_kind", d)) for d in devices],
        "platforms": sorted({str(d.platform) for d in devices}),
    }


PROBES = {"torch": torch_facts, "jax": jax_facts}


def main(argv: list[str]) -> int:
    """``python -m gpuready._framework_child torch``."""
    # A stray torch.py or jax.py in the working directory must not stand in for the installed framework.
    cwd = os.getcwd()
    sys.path[:] = [p for p in sys.path if p not in ("", ".", cwd)]
    if len(argv) != 1 or argv[0] not in PROBES:
        print(f"usage: framework_child {{{','.join(PROBES)}}}", file=sys.stderr)
        return 2
    try:
        payload: dict[str, Any] = {"ok": True, "facts": PROBES[argv[0]]()}
    except ImportError as error:
        payload = {"ok": False, "kind": "import", "error": f"{type(error).__name__}: {error}"}
    except Exception as error:  # noqa: BLE001 - any failure of the framework is a fact to report
        payload = {"ok": False, "kind": "error", "error": f"{type(error).__name__}: {error}",
                   "traceback": traceback.format_exc()[-2000:]}
    sys.stdout.flush()
    print(MARKER + json.dumps(payload), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
