"""The torch device a piece of isolated work runs on: ``auto`` (the GPU when torch sees one, else the CPU),
``cpu``, ``cuda`` or ``cuda:N`` (ROCm builds of torch call their GPUs ``cuda`` too). One home for check, audit
and bench."""

from __future__ import annotations

from typing import Any

from gpuready.isolation.spec import CheckContext, Fail, Skip, import_torch


def torch_device(name: str = "auto") -> Any:
    """``name`` as a torch.device, ``auto`` resolved (no checks beyond torch's own)."""
    torch = import_torch()
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(name)


def device_under_test(context: CheckContext) -> Any:
    """The torch.device to test (``auto``: the GPU when torch sees one, else the CPU); notes backend and name."""
    torch = import_torch()
    wanted = context.device or "auto"
    device = torch_device(wanted)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise Fail(f"--device {wanted} was asked for, but torch.cuda.is_available() is False")
        index = device.index if device.index is not None else torch.cuda.current_device()
        if index >= torch.cuda.device_count():
            raise Fail(f"--device {wanted}: torch sees only {torch.cuda.device_count()} device(s)")
        device = torch.device("cuda", index)
        hip = getattr(torch.version, "hip", None)
        backend = f"HIP {hip}" if hip else f"CUDA {torch.version.cuda}"
        context.note("device", f"cuda:{index} {torch.cuda.get_device_name(index)} ({backend})")
        context.note("backend", "hip" if hip else "cuda")
    elif device.type == "cpu":
        context.note("device", "cpu")
        context.note("backend", "cpu")
    else:
        raise Skip(f"device type {device.type} is not covered by gpuready's checks")
    context.note("torch", str(torch.__version__))
    return device


def synchronize(device: Any) -> None:
    """Wait for queued device work (a no-op on the CPU)."""
    torch = import_torch()
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def is_gpu(device: Any) -> bool:
    """Whether the device under test is an accelerator."""
    return bool(device.type == "cuda")


