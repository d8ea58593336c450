"""Run in a child interpreter: import one framework or vendor library, print its facts as one JSON line, exit.

The parent never imports torch or jax; a framework that hangs, crashes or prints warnings cannot take gpuready
with it. Only the standard library is imported here besides the framework under test, and this module sits at the
top of the package so that starting it imports nothing else of gpuready.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
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
    """Version, default backend and its platform version (the CUDA or ROCm runtime of the plugin), devices and
    their architectures (jaxlib and the plugin / PJRT distributions come from package metadata, as torch's)."""
    import jax

    devices = jax.devices()
    platform_version = ""
    try:
        platform_version = str(devices[0].client.platform_version).strip().splitlines()[0] if devices else ""
    except Exception:  # noqa: BLE001 - an older jaxlib without it
        pass
    return {
        "version": str(jax.__version__),
        "default_backend": str(jax.default_backend()),
        "platform_version": platform_version,
        "device_count": len(devices),
        "device_names": [str(getattr(d, "device_kind", d)) for d in devices],
        "device_archs": [str(getattr(d, "compute_capability", "")) for d in devices if d.platform != "cpu"],
        "platforms": sorted({str(d.platform) for d in devices}),
    }


def _query(gpu: dict[str, Any], key: str, call: Callable[[Any], Any], handle: Any) -> None:
    """Set ``gpu[key]`` from ``call(handle)``; one unsupported query must not lose the device."""
    try:
        gpu[key] = call(handle)
    except Exception:  # noqa: BLE001
        pass


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def nvml_facts() -> dict[str, Any]:
    """Driver, CUDA driver version and GPUs from NVML (the nvidia-ml-py package, module ``pynvml``)."""
    import pynvml

    pynvml.nvmlInit()
    try:
        cuda = pynvml.nvmlSystemGetCudaDriverVersion_v2()
        gpus = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            gpu: dict[str, Any] = {"index": index, "name": _text(pynvml.nvmlDeviceGetName(handle))}
            _query(gpu, "uuid", lambda h: _text(pynvml.nvmlDeviceGetUUID(h)), handle)
            _query(gpu, "pci_bus", lambda h: _text(pynvml.nvmlDeviceGetPciInfo(h).busId), handle)
            _query(gpu, "memory_bytes", lambda h: int(pynvml.nvmlDeviceGetMemoryInfo(h).total), handle)
            _query(gpu, "arch", lambda h: "sm_{}{}".format(*pynvml.nvmlDeviceGetCudaComputeCapability(h)), handle)
            gpus.append(gpu)
        return {
            "driver_version": _text(pynvml.nvmlSystemGetDriverVersion()),
            "cuda_driver_version": f"{cuda // 1000}.{cuda % 1000 // 10}",
            "gpus": gpus,
        }
    finally:
        pynvml.nvmlShutdown()


def amdsmi_facts() -> dict[str, Any]:
    """GPUs and driver from AMD's amdsmi Python library."""
    import amdsmi

    amdsmi.amdsmi_init()
    try:
        gpus = []
        driver = None
        for index, handle in enumerate(amdsmi.amdsmi_get_processor_handles()):
            gpu: dict[str, Any] = {"index": index}
            _query(gpu, "asic", lambda h: amdsmi.amdsmi_get_gpu_asic_info(h), handle)
            asic = gpu.pop("asic", None) or {}
            gpu.update(name=asic.get("market_name"), arch=asic.get("target_graphics_version"),
                       pci_device_id=asic.get("device_id"), compute_units=asic.get("num_compute_units"))
            _query(gpu, "memory_mb", lambda h: amdsmi.amdsmi_get_gpu_vram_info(h)["vram_size"], handle)
            _query(gpu, "pci_bus", lambda h: amdsmi.amdsmi_get_gpu_device_bdf(h), handle)
            _query(gpu, "uuid", lambda h: amdsmi.amdsmi_get_gpu_device_uuid(h), handle)
            _query(gpu, "driver_version", lambda h: amdsmi.amdsmi_get_gpu_driver_info(h)["driver_version"], handle)
            driver = driver or gpu.get("driver_version")
            gpus.append(gpu)
        return {"driver_version": driver, "gpus": gpus}
    finally:
        amdsmi.amdsmi_shut_down()


PROBES = {"torch": torch_facts, "jax": jax_facts, "nvml": nvml_facts, "amdsmi": amdsmi_facts}


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
