"""Time the user's (or a built-in) training or inference step: warm-up, device-accurate per-step times, FLOPs
counted by torch, peak memory, data-loading share."""

from __future__ import annotations

import contextlib
import resource
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gpuready.model.config import BenchConfig
from gpuready.workloads.loader import load_workload
from gpuready.workloads.protocol import Workload
from gpuready.workloads.torch_device import torch_device


@dataclass(frozen=True)
class StepSettings:
    """What is being timed: the benchmark's configuration at one batch size of its sweep."""

    config: BenchConfig
    batch_size: int | None = None


@dataclass
class StepReport:
    """Per-step samples and what was counted."""

    step_seconds: list[float]
    data_seconds: list[float]
    items_per_step: int
    tokens_per_step: int
    flops_per_step: float
    peak_memory_bytes: int
    memory_kind: str
    device: str
    identity: dict[str, Any] = field(default_factory=dict)
    """The workload's identity (id, model configuration hash, source hash) for the Measurements' settings."""
    extra: dict[str, Any] = field(default_factory=dict)


def build(settings: StepSettings) -> Workload:
    """The workload at the requested batch size (built-ins, ``hf:FAMILY`` architectures, or the user's factory)."""
    config = settings.config
    return load_workload(config.workload, batch_size=settings.batch_size, size=config.size, sequence=config.sequence)


def _autocast(torch: Any, device: Any, precision: str) -> Any:
    if precision in ("bf16", "fp16", "amp"):
        dtype = torch.bfloat16 if precision == "bf16" or (precision == "amp" and device.type == "cpu") else (
            torch.float16)
        return torch.autocast(device_type=device.type, dtype=dtype)
    return contextlib.nullcontext()


class DeviceTimer:
    """Times a region: CUDA/HIP events on a GPU (device time), perf_counter on the CPU."""

    def __init__(self, torch: Any, device: Any) -> None:
        self.torch, self.device = torch, device
        self.pairs: list[tuple[Any, Any]] = []
        self.host: list[float] = []

    @contextlib.contextmanager
    def region(self) -> Iterator[None]:
        if self.device.type == "cuda":
            start, end = (self.torch.cuda.Event(enable_timing=True) for _ in range(2))
            start.record()
            yield
            end.record()
            self.pairs.append((start, end))
        else:
            begin = time.perf_counter()
            yield
            self.host.append(time.perf_counter() - begin)

    def seconds(self) -> list[float]:
        if self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)
            return [start.elapsed_time(end) / 1e3 for start, end in self.pairs]
        return list(self.host)


def _batches(workload: Workload, workers: int, count: int) -> Iterator[tuple[Any, Any]]:
    if workers <= 0:
        for step in range(count):
            yield workload.batch(step)
        return
    import torch

    class Synthetic(torch.utils.data.Dataset):  # type: ignore[misc]
        def __len__(self) -> int:
            return count

        def __getitem__(self, index: int) -> Any:
            return workload.batch(index)

    loader = torch.utils.data.DataLoader(Synthetic(), batch_size=None, num_workers=workers, persistent_workers=False)
    yield from loader


def count_flops(torch: Any, step: Callable[[], None]) -> float:
    """FLOPs of one step, counted by torch.utils.flop_counter (no hand-written formulas)."""
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with counter:
        step()
    return float(counter.get_total_flops())


def time_steps(settings: StepSettings, device_name: str = "auto") -> StepReport:
    """Warm up, then time ``config.steps`` steps one by one."""
    import torch

    config = settings.config

    device = torch_device(device_name)
    if config.precision == "tf32" and device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    workload = build(settings)
    model = workload.model.to(device)
    if config.compile:
        model = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4) if config.mode == "train" else None
    scaler = torch.amp.GradScaler(device.type) if config.precision in ("fp16", "amp") and device.type == "cuda" \
        else None
    model.train(config.mode == "train")
    probe_inputs, probe_target = workload.batch(0)
    items = int(probe_inputs.shape[0]) if hasattr(probe_inputs, "shape") else 1
    tokens = int(probe_inputs.numel()) if config.workload in ("transformer",) or (
        hasattr(probe_inputs, "dtype") and not probe_inputs.is_floating_point()) else 0

    mixed = config.precision in ("bf16", "fp16", "amp")

    def step(inputs: Any, target: Any) -> None:
        inputs, target = inputs.to(device, non_blocking=True), target.to(device, non_blocking=True)
        if optimizer is None:
            with torch.no_grad(), _autocast(torch, device, config.precision):
                model(inputs)
            return
        if mixed:
            with _autocast(torch, device, config.precision):
                loss = workload.loss(model(inputs).float(), target)
        else:
            loss = workload.loss(model(inputs).float(), target)
        optimizer.zero_grad(set_to_none=True)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()

    warmup_used = warmup_until_settled(lambda index: step(*workload.batch(index)), config.warmup,
                                       lambda: torch.cuda.synchronize(device) if device.type == "cuda" else None)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
    flops = count_flops(torch, lambda: step(probe_inputs, probe_target))
    meter = None
    if device.type == "cuda":
        from gpuready.benchmark.energy import EnergyMeter

        props = torch.cuda.get_device_properties(device)
        bus = getattr(props, "pci_bus_id", None)
        domain = getattr(props, "pci_domain_id", 0)
        meter = EnergyMeter(f"{domain:08x}:{bus:02x}:{getattr(props, 'pci_device_id', 0):02x}.0"
                            if bus is not None else None, device.index or 0)
        torch.cuda.synchronize(device)
    energy_start = meter.joules() if meter is not None and meter.available else None
    timer = DeviceTimer(torch, device)
    data_seconds = []
    host_seconds = []
    iterator = _batches(workload, config.dataloader_workers, config.steps)
    for _ in range(config.steps):
        wait = time.perf_counter()
        batch = next(iterator)
        data_seconds.append(time.perf_counter() - wait)
        if device.type == "cuda":
            with timer.region():
                step(*batch)
        else:  # the CPU is synchronous: a bare perf_counter pair is the lightest honest timer
            begin = time.perf_counter()
            step(*batch)
            host_seconds.append(time.perf_counter() - begin)
    seconds = timer.seconds() if device.type == "cuda" else host_seconds
    energy_per_step = (meter.joules() - energy_start) / config.steps if meter is not None and \
        energy_start is not None else None
    if device.type == "cuda":
        peak, kind = int(torch.cuda.max_memory_allocated(device)), "device max_memory_allocated"
        name = torch.cuda.get_device_name(device)
        compute_units: int | None = torch.cuda.get_device_properties(device).multi_processor_count
    else:
        compute_units = None
        peak, kind = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "process peak RSS"
        name = "cpu"
    return StepReport(step_seconds=seconds, data_seconds=data_seconds, items_per_step=items, tokens_per_step=tokens,
                      flops_per_step=flops, peak_memory_bytes=peak, memory_kind=kind, device=name,
                      identity=dict(workload.identity),
                      extra={"torch": str(torch.__version__), "compiled": config.compile,
                             "warmup_steps": warmup_used, "energy_per_step_j": energy_per_step,
                             "compute_units": compute_units})


def warmup_until_settled(run: Callable[[int], None], limit: int, synchronize: Callable[[], None],
                         window: int = 3, tolerance: float = 0.05,
                         clock: Callable[[], float] = time.perf_counter) -> int:
    """Run warm-up steps until the last ``window`` step times agree within ``tolerance`` of their median (caches
    filled, kernels picked, allocator warm), or ``limit`` steps; returns how many ran (at least 2 when limit >= 2)."""
    times: list[float] = []
    for index in range(limit):
        begin = clock()
        run(index)
        synchronize()
        times.append(clock() - begin)
        recent = times[-window:]
        if index >= 1 and len(recent) == window:
            middle = sorted(recent)[window // 2]
            if middle and max(abs(t - middle) for t in recent) / middle <= tolerance:
                return index + 1
    return limit
