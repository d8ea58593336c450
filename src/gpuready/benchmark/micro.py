"""Micro-ceilings: GEMM throughput per dtype (best shape of a sweep), device copy and host<->device bandwidth,
and all_reduce bus bandwidth over message sizes (busbw = algbw x 2(n-1)/n, as the NCCL/RCCL tests define it), over N
local processes or, under torchrun, across the launcher's nodes (settings record world size and nodes)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuready.errors import ParseError
from gpuready.model import Measurement
from gpuready.probe.parse.infiniband import (
    Network,
    Port,
    parse_link_layer,
    parse_port_rate,
    parse_port_state,
    summarise_ports,
)
from gpuready.stats import measurement
from gpuready.workloads.torch_device import torch_device


def device_notes(torch: Any, device: Any) -> dict[str, object]:
    """What the parent needs to find this device's peaks in the catalogue: its name and compute units."""
    if device.type != "cuda":
        return {"device": "cpu"}
    return {"device": torch.cuda.get_device_name(device),
            "compute_units": torch.cuda.get_device_properties(device).multi_processor_count}


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

    device = torch_device(device_name)
    sizes = sizes or ((1024, 2048, 4096, 8192) if device.type == "cuda" else (128, 256, 512, 1024))
    dtypes = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
    if device.type == "cuda":
        dtypes["tf32"] = torch.float32
    results = []
    notes = device_notes(torch, device)
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
        results.append(measurement(f"gemm_tflops_{label}", "TFLOP/s", best[1], "micro.gemm",
                                   {"dtype": label, "sizes": list(sizes)},
                                   {"best_n": best[2], "sweep_median_tflops": sweep, **notes}))
    return results


def copy_bandwidth(device_name: str = "auto", repeat: int = 5, megabytes: int = 256) -> list[Measurement]:
    """Device-to-device copy GB/s (read + write counted), and host<->device GB/s pinned and pageable on a GPU."""
    import torch

    device = torch_device(device_name)
    count = megabytes * 2**20 // 4
    source = torch.empty(count, dtype=torch.float32, device=device).fill_(1.0)
    target = torch.empty_like(source)
    bytes_moved = source.numel() * 4
    seconds = _timed(torch, device, lambda: target.copy_(source), repeat)
    rates = [2 * bytes_moved / s / 1e9 for s in seconds]
    notes = device_notes(torch, device)
    results = [measurement("copy_gbps", "GB/s", rates, "micro.copy", {"megabytes": megabytes}, notes)]
    if device.type == "cuda":
        for label, host in (("pinned", torch.empty(count, dtype=torch.float32).pin_memory()),
                            ("pageable", torch.empty(count, dtype=torch.float32))):
            seconds = _timed(torch, device, lambda host=host: source.copy_(host, non_blocking=True), repeat)
            results.append(measurement(f"h2d_gbps_{label}", "GB/s", [bytes_moved / s / 1e9 for s in seconds],
                                       "micro.h2d", {"megabytes": megabytes}, notes))
            seconds = _timed(torch, device, lambda host=host: host.copy_(source, non_blocking=True), repeat)
            results.append(measurement(f"d2h_gbps_{label}", "GB/s", [bytes_moved / s / 1e9 for s in seconds],
                                       "micro.d2h", {"megabytes": megabytes}, notes))
    return results


LAUNCHER = "launcher"
"""The init method meaning: join the group of the launcher that started this process (torchrun)."""


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return None


def rdma_ports(sys_class: Path = Path("/sys/class")) -> list[Port]:
    """Every port under ``/sys/class/infiniband/<device>/ports/<n>`` with its link layer, state and rate; a file
    that is missing or unreadable leaves that part unknown (a port without a readable state counts as not active)."""
    ports: list[Port] = []
    try:
        devices = sorted((sys_class / "infiniband").iterdir())
    except OSError:
        return ports
    for device in devices:
        try:
            numbers = sorted((p for p in (device / "ports").iterdir() if p.name.isdigit()), key=lambda p: int(p.name))
        except OSError:
            continue
        for folder in numbers:
            texts = {name: _read(folder / name) for name in ("link_layer", "state", "rate")}
            try:
                kind = parse_link_layer(texts["link_layer"] or "InfiniBand")
                state = parse_port_state(texts["state"]) if texts["state"] is not None else "UNKNOWN"
            except ParseError:
                continue
            try:
                rate = parse_port_rate(texts["rate"]) if texts["rate"] is not None else None
            except ParseError:
                rate = None
            ports.append(Port(device.name, int(folder.name), kind, state, rate))
    return ports


def network(sys_class: Path = Path("/sys/class")) -> Network:
    """The network between nodes as far as this node shows it: the kind (``infiniband``, or ``ethernet`` for RoCE
    ports and for a node without RDMA devices), the per-port rate in Gb/s of its active ports (None when unknown) and
    how many are active."""
    return summarise_ports(rdma_ports(sys_class)) or Network("ethernet", None, 0)


def interconnect(sys_class: Path = Path("/sys/class")) -> str:
    """The kind of network between nodes (``network(...).kind``): ``infiniband`` or ``ethernet``."""
    return network(sys_class).kind


def network_notes(sys_class: Path = Path("/sys/class")) -> dict[str, object]:
    """The annotations an all_reduce across nodes carries about the network: ``interconnect`` (kind),
    ``port_rate_gbps`` (Gb/s per active port, absent when unknown), ``active_ports`` and the ports' label."""
    found = network(sys_class)
    notes: dict[str, object] = {"interconnect": found.kind, "active_ports": found.active_ports}
    if found.rate_gbits is not None:
        notes["port_rate_gbps"] = found.rate_gbits
    if found.label:
        notes["port_rate_label"] = found.label
    return notes


def allreduce_rank(rank: int, world: int, init: str, arguments: dict[str, Any]) -> dict[str, list[float]]:
    """One rank of the all_reduce sweep: per message size, the seconds of each timed repetition."""
    import torch
    import torch.distributed as dist

    from gpuready.isolation.launcher_group import init_group, launched

    device_type, sizes, repeat = arguments["device_type"], arguments["sizes"], int(arguments["repeat"])
    if device_type == "cuda":
        local = int(os.environ.get("LOCAL_RANK", rank)) if init == LAUNCHER else rank
        device = torch.device("cuda", local % torch.cuda.device_count())
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    backend = "nccl" if device_type == "cuda" else "gloo"
    group = launched() if init == LAUNCHER else None
    if group is not None:
        init_group(dist, backend, "bench.allreduce", group)
    else:
        dist.init_process_group(backend, init_method=init, rank=rank, world_size=world)
    report: dict[str, list[float]] = {}
    for size in sizes:
        tensor = torch.ones(max(1, size // 4), dtype=torch.float32, device=device)
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
    return report


def allreduce(device_name: str = "auto", world: int | None = None, repeat: int = 5,
              sizes: tuple[int, ...] = (1 << 12, 1 << 16, 1 << 20, 1 << 24)) -> list[Measurement]:
    """Bus bandwidth of all_reduce over message sizes with N local processes."""
    import torch

    from gpuready.isolation.launcher_group import launched
    from gpuready.isolation.ranks import run_ranks

    device = torch_device(device_name)
    arguments = {"device_type": device.type, "sizes": list(sizes), "repeat": repeat}
    group = launched()
    notes = device_notes(torch, device)
    nodes = 1
    if group is not None:  # under torchrun: this rank's share of the launcher's world, across its nodes
        world, nodes = group.world, group.nodes
        report = allreduce_rank(group.rank, world, LAUNCHER, arguments)
        notes.update(launcher="torchrun", rank=group.rank, local_world_size=group.local_world, interconnect="")
        if nodes > 1:
            notes.update(network_notes())
    else:
        world = world or (max(2, torch.cuda.device_count()) if device.type == "cuda" else 2)
        report = run_ranks("gpuready.benchmark.micro:allreduce_rank", world, arguments, timeout_s=600)[0]
    factor = 2 * (world - 1) / world
    results = []
    for size in sizes:
        samples = report[str(size)]
        results.append(measurement(f"allreduce_busbw_gbps_{size}", "GB/s", [size / s / 1e9 * factor for s in samples],
                                   "micro.allreduce", {"bytes": size, "world_size": world, "nodes": nodes,
                                                       "backend": "nccl" if device.type == "cuda" else "gloo"},
                                   notes))
    return results


MICRO: dict[str, Callable[..., list[Measurement]]] = {"gemm": gemm, "copy": copy_bandwidth, "allreduce": allreduce}
