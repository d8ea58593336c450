"""Run the audited step under the recorder and summarise where everything ran."""

from __future__ import annotations

from typing import Any

from gpuready.placement.recorder import PlacementRecorder, modes
from gpuready.placement.trace import HOST, Trace
from gpuready.workloads.protocol import Workload


def run_audit(workload: Workload, device: str, *, steps: int = 1, mode: str = "train") -> Trace:
    """One or more steps of ``workload`` with every op recorded. ``device`` ``standin`` uses the CPU in place of a
    GPU; otherwise it is a torch device string (``cuda``, ``cuda:1``)."""
    import torch

    standin = device == "standin"
    target = "cuda" if standin else torch.device(device).type
    recorder = PlacementRecorder(target, standin)
    model = workload.model
    optimizer = None
    function_mode, dispatch_mode = modes(recorder)
    with function_mode, dispatch_mode:
        if not workload.placed:
            model = model.to(target)
        if mode == "train":
            make = workload.optimizer or (lambda params: torch.optim.AdamW(params, lr=1e-3))
            optimizer = make(model.parameters())
    recorder.note_model(model)
    model.train(mode == "train")
    for step in range(steps):
        # The batch is made outside the recording: preparing data on the CPU is the data loader's job.
        inputs, target_values = workload.batch(step)
        function_mode, dispatch_mode = modes(recorder)
        with function_mode, dispatch_mode:
            if not workload.placed:
                inputs, target_values = _place(inputs, target), _place(target_values, target)
            recorder.in_step = True
            if mode == "train":
                loss = workload.loss(model(inputs), target_values)
                loss.backward()
                assert optimizer is not None
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            else:
                with torch.no_grad():
                    model(inputs)
            recorder.in_step = False
    notes = {} if standin else _profile_step(workload, model, optimizer, target, mode)
    on_host = [name for name, p in model.named_parameters() if recorder.label(p) == HOST]
    total = sum(1 for _ in model.parameters())
    return Trace(target="standin" if standin else target, records=tuple(recorder.records),
                 parameters_on_target=total - len(on_host), parameters_on_host=len(on_host),
                 parameter_names_on_host=tuple(on_host[:20]), replay=tuple(recorder.replay.values()), notes=notes)


def _profile_step(workload: Workload, model: Any, optimizer: Any, target: str, mode: str) -> dict[str, str]:
    """One more step under torch.profiler: how many device kernels ran and their share of the step's time."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    inputs, target_values = workload.batch(0)
    if not workload.placed:
        inputs, target_values = _place(inputs, target), _place(target_values, target)
    try:
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as profiler:
            if mode == "train":
                workload.loss(model(inputs), target_values).backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            else:
                with torch.no_grad():
                    model(inputs)
            torch.cuda.synchronize()
    except Exception as error:  # noqa: BLE001 - a profiler that cannot run is a note, not a failed audit
        return {"profiler": f"not available: {str(error).splitlines()[0][:160]}"}
    events = profiler.events()
    device_events = [e for e in events if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA]
    device_us = sum(getattr(e, "device_time", 0) or 0 for e in device_events)
    host_us = sum(e.self_cpu_time_total for e in events)
    return {"device_kernels": str(len(device_events)), "device_time_us": f"{device_us:.0f}",
            "device_time_share": f"{device_us / (device_us + host_us):.3f}" if device_us + host_us else "0"}


def _place(value: Any, target: str) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(target)
    if isinstance(value, (list, tuple)):
        return type(value)(_place(v, target) for v in value)
    if isinstance(value, dict):
        return {k: _place(v, target) for k, v in value.items()}
    return value
