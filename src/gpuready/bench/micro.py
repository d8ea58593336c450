"""Micro-ceilings: GEMM throughput per dtype (best shape of a sweep), device copy and host<->device bandwidth,
and all_reduce bus bandwidth over message sizes (busbw = algbw x 2(n-1)/n, as the NCCL/RCCL tests define it)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuready.bench.stats import measurement
from gpuready.model import Measurement

if TYPE_CHECKING:
    from gpuready.compat.catalogue import Peak


def _device(torch: Any, name: str) -> Any:
    return torch.device("cuda" if name == "auto" and torch.cuda.is_available() else ("cpu" if name == "auto" else name))


def _timed(torch: Any, device: Any, run: Any, repeat: int) -> list[float]:
    run()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        samples = []
        for _ in range(repeat):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / 1e3)
        return samples
    samples = []
    for _ in range(repeat):
        begin = time.perf_counter()
        run()
        samples.append(time.perf_counter() - begin)
    return samples


def gemm(device_name: str = "auto", repeat: int = 5, sizes: tuple[int, ...] | None = None) -> list[Measurement]:
    """TFLOP/s of square matmuls per dtype; the measurement is the best shape's samples, the sweep in settings."""
    import torch

    device = _device(torch, device_name)
    sizes = sizes or ((1024, 2048, 4096, 8192) if device.type == "cuda" else (128, 256, 512, 1024))
    dtypes = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
    if device.type == "cuda":
        dtypes["tf32"] = torch.float32
    results = []
    peaks = catalogue_peaks(torch, device)
    for label, dtype in dtypes.items():
        sweep: dict[str, float] = {}
        best: tuple[float, list[float], int] | None = None
        for n in sizes:
            a = torch.randn(n, n, device=device, dtype=dtype)
            b = torch.randn(n, n, device=device, dtype=dtype)
            previous = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = label == "tf32"
            try:
                seconds = _timed(torch, device, lambda a=a, b=b: torch.matmul(a, b), repeat)
            finally:
                torch.backends.cuda.matmul.allow_tf32 = previous
            tflops = [2 * n**3 / s / 1e12 for s in seconds]
            sweep[str(n)] = sorted(tflops)[len(tflops) // 2]
            if best is None or sweep[str(n)] > best[0]:
                best = (sweep[str(n)], tflops, n)
        assert best is not None
        settings: dict[str, object] = {"best_n": best[2], "sweep_median_tflops": sweep, "device": str(device)}
        found = peaks(label)
        if found:
            settings |= {"peak": found.value, "fraction_of_peak": best[0] / found.value, **found.settings()}
        results.append(measurement(f"gemm_tflops_{label}", "TFLOP/s", best[1], "micro.gemm", settings))
    return results


def catalogue_peaks(torch: Any, device: Any) -> Callable[[str], Peak | None]:
    """A look-up of this device's catalogue peaks by key (a dtype, or ``bandwidth``); the catalogue is read once."""
    if device.type != "cuda":
        return lambda key: None
    from gpuready.compat.catalogue import peak_of
    from gpuready.compat.load import load_dataset

    gpus = load_dataset().gpus.gpus
    name = torch.cuda.get_device_name(device)
    compute_units = torch.cuda.get_device_properties(device).multi_processor_count
    return lambda key: peak_of(gpus, name, key, compute_units)


def copy_bandwidth(device_name: str = "auto", repeat: int = 5, megabytes: int = 256) -> list[Measurement]:
    """Device-to-device copy GB/s (read + write counted), and host<->device GB/s pinned and pageable on a GPU."""
    import torch

    device = _device(torch, device_name)
    count = megabytes * 2**20 // 4
    source = torch.empty(count, dtype=torch.float32, device=device).fill_(1.0)
    target = torch.empty_like(source)
    bytes_moved = source.numel() * 4
    seconds = _timed(torch, device, lambda: target.copy_(source), repeat)
    rates = [2 * bytes_moved / s / 1e9 for s in seconds]
    settings: dict[str, object] = {"megabytes": megabytes, "device": str(device)}
    found = catalogue_peaks(torch, device)("bandwidth")
    if found:
        median = sorted(rates)[len(rates) // 2]
        settings |= {"peak": found.value, "fraction_of_peak": median / found.value, **found.settings()}
    results = [measurement("copy_gbps", "GB/s", rates, "micro.copy", settings)]
    if device.type == "cuda":
        for label, host in (("pinned", torch.empty(count, dtype=torch.float32).pin_memory()),
                            ("pageable", torch.empty(count, dtype=torch.float32))):
            seconds = _timed(torch, device, lambda host=host: source.copy_(host, non_blocking=True), repeat)
            results.append(measurement(f"h2d_gbps_{label}", "GB/s", [bytes_moved / s / 1e9 for s in seconds],
                                       "micro.h2d", {"megabytes": megabytes}))
            seconds = _timed(torch, device, lambda host=host: host.copy_(source, non_blocking=True), repeat)
            results.append(measurement(f"d2h_gbps_{label}", "GB/s", [bytes_moved / s / 1e9 for s in seconds],
                                       "micro.d2h", {"megabytes": megabytes}))
    return results


def _rank(rank: int, world: int, init: str, device_type: str, sizes: list[int], repeat: int, out: str) -> None:
    import torch
    import torch.distributed as dist

    if device_type == "cuda":
        device = torch.device("cuda", rank % torch.cuda.device_count())
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    dist.init_process_group("nccl" if device_type == "cuda" else "gloo", init_method=init, rank=rank, world_size=world)
    report: dict[str, list[float]] = {}
    for size in sizes:
        tensor = torch.ones(size // 4, dtype=torch.float32, device=device)
        dist.all_reduce(tensor)
        samples = []
        for _ in range(repeat):
            dist.barrier()
            if device_type == "cuda":
                torch.cuda.synchronize(device)
            begin = time.perf_counter()
            dist.all_reduce(tensor)
            if device_type == "cuda":
                torch.cuda.synchronize(device)
            samples.append(time.perf_counter() - begin)
        report[str(size)] = samples
    dist.destroy_process_group()
    Path(out).write_text(json.dumps(report))


def allreduce(device_name: str = "auto", world: int | None = None, repeat: int = 5,
              sizes: tuple[int, ...] = (1 << 12, 1 << 16, 1 << 20, 1 << 24)) -> list[Measurement]:
    """Bus bandwidth of all_reduce over message sizes with N local processes."""
    import torch

    device = _device(torch, device_name)
    world = world or (max(2, torch.cuda.device_count()) if device.type == "cuda" else 2)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        init = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    with tempfile.TemporaryDirectory() as folder:
        outs = [os.path.join(folder, f"r{r}.json") for r in range(world)]
        code = ("import sys, json; from gpuready.bench.micro import _rank; _rank(int(sys.argv[1]), int(sys.argv[2]), "
                "sys.argv[3], sys.argv[4], json.loads(sys.argv[5]), int(sys.argv[6]), sys.argv[7])")
        processes = [subprocess.Popen([sys.executable, "-c", code, str(r), str(world), init, device.type,
                                       json.dumps(list(sizes)), str(repeat), outs[r]],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for r in range(world)]
        for process in processes:
            _, error = process.communicate(timeout=600)
            if process.returncode != 0:
                raise RuntimeError(f"an all_reduce rank failed: {error.decode(errors='replace')[-300:]}")
        report = json.loads(Path(outs[0]).read_text())
    factor = 2 * (world - 1) / world
    results = []
    for size in sizes:
        samples = report[str(size)]
        results.append(measurement(f"allreduce_busbw_gbps_{size}", "GB/s", [size / s / 1e9 * factor for s in samples],
                                   "micro.allreduce", {"bytes": size, "world_size": world,
                                                       "backend": "nccl" if device.type == "cuda" else "gloo"}))
    return results


MICRO: dict[str, Callable[..., list[Measurement]]] = {"gemm": gemm, "copy": copy_bandwidth, "allreduce": allreduce}
