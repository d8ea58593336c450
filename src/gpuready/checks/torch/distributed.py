"""Distributed checks: collectives give exact results across N local processes, and a DDP step equals a
single-process step on the whole batch. Backend nccl on GPUs (RCCL on ROCm), gloo on the CPU.

Started normally, the check spawns N processes on this machine. Started under ``torchrun`` (RANK, WORLD_SIZE,
MASTER_ADDR and MASTER_PORT set), it joins torchrun's group instead (a store prefix per check), so it also covers
several nodes, and notes the world size and the number of nodes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from gpuready.checks.torch._util import device_under_test, import_torch
from gpuready.isolation.launcher_group import init_group, launched
from gpuready.isolation.ranks import RankFailure, run_ranks
from gpuready.isolation.spec import CheckContext, Fail, Skip

SIZES = (1, 1024, 1 << 18)
LAUNCHER = "launcher"
"""The init method meaning: join the group of the launcher that started this process (torchrun)."""


def _init(rank: int, world: int, init_method: str, device_type: str, what: str) -> tuple[Any, Any, Any]:
    torch = import_torch()
    import torch.distributed as dist

    if device_type == "cuda":
        local = int(os.environ.get("LOCAL_RANK", rank)) % torch.cuda.device_count()
        device = torch.device("cuda", local)
        torch.cuda.set_device(device)
        backend = "nccl"
    else:
        device, backend = torch.device("cpu"), "gloo"
    group = launched() if init_method == LAUNCHER else None
    if group is not None:
        init_group(dist, backend, f"check.{what}", group)
    else:
        dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world)
    return torch, dist, device


def _all_reduce_sum(t: Any, dist: Any, device: Any, rank: int, world: int, dtype: Any, size: int) -> bool:
    x = t.full((size,), rank + 1, dtype=dtype, device=device)
    dist.all_reduce(x, op=dist.ReduceOp.SUM)
    return bool((x == world * (world + 1) // 2).all())


def _all_reduce_max(t: Any, dist: Any, device: Any, rank: int, world: int, dtype: Any, size: int) -> bool:
    x = t.full((size,), rank, dtype=dtype, device=device)
    dist.all_reduce(x, op=dist.ReduceOp.MAX)
    return bool((x == world - 1).all())


def _all_gather(t: Any, dist: Any, device: Any, rank: int, world: int, dtype: Any, size: int) -> bool:
    parts = [t.empty(size, dtype=dtype, device=device) for _ in range(world)]
    dist.all_gather(parts, t.full((size,), rank, dtype=dtype, device=device))
    return all(bool((p == r).all()) for r, p in enumerate(parts))


def _reduce_scatter(t: Any, dist: Any, device: Any, rank: int, world: int, dtype: Any, size: int) -> bool:
    out = t.empty(size, dtype=dtype, device=device)
    dist.reduce_scatter_tensor(out, t.full((size * world,), rank + 1, dtype=dtype, device=device))
    return bool((out == world * (world + 1) // 2).all())


def _broadcast(t: Any, dist: Any, device: Any, rank: int, world: int, dtype: Any, size: int) -> bool:
    x = t.full((size,), rank + 7, dtype=dtype, device=device)
    dist.broadcast(x, src=0)
    return bool((x == 7).all())


def _all_to_all(t: Any, dist: Any, device: Any, rank: int, world: int, dtype: Any, size: int) -> bool:
    def pattern(sender: Callable[[int], int]) -> Any:
        return t.cat([t.full((size,), sender(peer), dtype=t.int64, device=device) for peer in range(world)]).to(dtype)

    send = pattern(lambda peer: rank * 100 + peer)
    received = t.empty_like(send)
    dist.all_to_all_single(received, send)
    return bool(t.equal(received, pattern(lambda peer: peer * 100 + rank)))


COLLECTIVES = {"all_reduce.sum": _all_reduce_sum, "all_reduce.max": _all_reduce_max, "all_gather": _all_gather,
               "reduce_scatter": _reduce_scatter, "broadcast": _broadcast, "all_to_all": _all_to_all}


def _collectives(torch: Any, dist: Any, device: Any, rank: int, world: int) -> dict[str, list[str]]:
    report: dict[str, list[str]] = {"ok": [], "mismatch": [], "unsupported": []}
    for dtype in (torch.float32, torch.int64, torch.bfloat16):
        for size in SIZES:
            for name, operation in COLLECTIVES.items():
                label = f"{name}.{str(dtype).removeprefix('torch.')}.{size}"
                try:
                    good = operation(torch, dist, device, rank, world, dtype, size)
                except (RuntimeError, NotImplementedError, ValueError) as error:
                    report["unsupported"].append(f"{label}: {str(error).splitlines()[0][:120]}")
                    continue
                report["ok" if good else "mismatch"].append(label)
    dist.barrier()
    report["ok"].append("barrier")
    return report


def _ddp(torch: Any, dist: Any, device: Any, rank: int, world: int) -> dict[str, Any]:
    from torch.nn.parallel import DistributedDataParallel

    from gpuready.workloads.torch_models import build_mlp

    workload = build_mlp(batch=8 * world)
    x, target = (t.to(device) for t in workload.batch(0))
    shard = slice(rank * 8, (rank + 1) * 8)
    model = workload.make_model().to(device).eval()
    ddp = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    workload.loss(ddp(x[shard]), target[shard]).backward()
    optimizer.step()
    reference = workload.make_model().to(device).eval()
    reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    workload.loss(reference(x), target).backward()
    reference_optimizer.step()
    worst = max((p - q).abs().max().item() for p, q in zip(model.parameters(), reference.parameters(), strict=True))
    return {"max_abs_diff": worst}


def rank_main(rank: int, world: int, init_method: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One rank: run the collectives or the DDP step and return this rank's report."""
    torch, dist, device = _init(rank, world, init_method, arguments["device_type"], arguments["what"])
    try:
        return _collectives(torch, dist, device, rank, world) if arguments["what"] == "collectives" else _ddp(
            torch, dist, device, rank, world)
    finally:
        dist.destroy_process_group()


def _world(context: CheckContext, device: Any) -> int:
    torch = import_torch()
    if "world_size" in context.options:
        return int(context.options["world_size"])
    return max(2, torch.cuda.device_count()) if device.type == "cuda" else 2


def _run(context: CheckContext, what: str) -> list[dict[str, Any]]:
    torch = import_torch()
    device = device_under_test(context)
    if not torch.distributed.is_available():
        raise Skip("this torch was built without torch.distributed")
    if device.type == "cuda" and torch.cuda.device_count() < 2 and "world_size" not in context.options:
        raise Skip("one GPU: the collectives need two or more (run with world_size to share one)")
    arguments = {"device_type": device.type, "what": what}
    group = launched()
    if group is not None:
        context.note("launcher", "torchrun")
        context.note("world_size", group.world)
        context.note("nodes", group.nodes)
        context.note("backend", "nccl" if device.type == "cuda" else "gloo")
        return [rank_main(group.rank, group.world, LAUNCHER, arguments)]
    world = _world(context, device)
    context.note("world_size", world)
    context.note("backend", "nccl" if device.type == "cuda" else "gloo")
    timeout = float(context.options.get("distributed_timeout_s", 240))
    try:
        return run_ranks("gpuready.checks.torch.distributed:rank_main", world, arguments, timeout_s=timeout)
    except RankFailure as error:
        raise Fail(str(error)) from None


def collectives(context: CheckContext) -> None:
    """all_reduce (sum, max), all_gather, reduce_scatter, broadcast, all_to_all, barrier; dtypes and sizes."""
    reports = _run(context, "collectives")
    mismatches = sorted({m for report in reports for m in report["mismatch"]})
    unsupported = sorted({u for report in reports for u in report["unsupported"]})
    context.record("ops_ok", len(reports[0]["ok"]))
    context.note("unsupported", unsupported)
    if mismatches:
        raise Fail(f"wrong results: {', '.join(mismatches[:10])}")
    if not reports[0]["ok"]:
        raise Fail("no collective ran")


def ddp(context: CheckContext) -> None:
    """One DistributedDataParallel step over N shards equals one step on the whole batch."""
    reports = _run(context, "ddp")
    worst = max(report["max_abs_diff"] for report in reports)
    context.record("max_abs_diff", worst)
    if worst > 1e-5:
        raise Fail(f"DDP parameters differ from the single-process step by {worst:.2e}")
