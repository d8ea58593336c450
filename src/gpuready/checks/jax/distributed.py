"""JAX collectives: psum, pmax, all_gather, ppermute, all_to_all and psum_scatter under ``shard_map``, and ``pmap``,
with exact integer-valued results, across the local devices and across processes (``jax.distributed.initialize``).
Where there is no GPU, the CPU's devices stand in (``--xla_force_host_platform_device_count``), as the PyTorch checks
use gloo."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from gpuready.isolation.ranks import RankFailure, run_ranks
from gpuready.isolation.spec import CheckContext, Fail, Skip
from gpuready.workloads.jax_device import HOST_DEVICES_FLAG, device_under_test, import_jax, is_gpu, prepare, shard_map

SIZES = (1, 1024, 1 << 16)
DTYPES = ("float32", "int32", "bfloat16")
OPS = ("psum", "pmax", "all_gather", "ppermute", "all_to_all", "psum_scatter")
"""Values stay small integers (at most 10 n + n), exact in every dtype tested, bfloat16 included."""


def _expected(n: int, size: int) -> dict[str, Callable[[int], Any]]:
    """Per collective: device g's block of the result (device g contributes g + 1; for all_to_all row p of its
    block is 10 g + p)."""
    total = n * (n + 1) // 2
    return {"psum": lambda g: np.full((1, size), total), "pmax": lambda g: np.full((1, size), n),
            "all_gather": lambda g: np.repeat(np.arange(1, n + 1)[:, None], size, axis=1),
            "ppermute": lambda g: np.full((1, size), (g - 1) % n + 1),
            "all_to_all": lambda g: np.repeat((10 * np.arange(n) + g)[:, None], size, axis=1),
            "psum_scatter": lambda g: np.full((1, size), total)}


def _program(jax: Any, mesh: Any, n: int) -> Any:
    """Every collective over mesh axis ``i`` in one compiled program."""
    lax, spec = jax.lax, jax.sharding.PartitionSpec("i")

    def body(x: Any, y: Any) -> tuple[Any, ...]:
        return (lax.psum(x, "i"), lax.pmax(x, "i"), lax.all_gather(x, "i", tiled=True),
                lax.ppermute(x, "i", [(j, (j + 1) % n) for j in range(n)]),
                lax.all_to_all(y, "i", 0, 0, tiled=True),
                lax.psum_scatter(jax.numpy.broadcast_to(x, (n, x.shape[1])), "i", scatter_dimension=0, tiled=True))

    return jax.jit(shard_map()(body, mesh=mesh, in_specs=(spec, spec), out_specs=(spec,) * len(OPS)))


def run_collectives(devices: list[Any], local: list[Any]) -> dict[str, list[str]]:
    """Run the collectives over ``devices`` (a mesh, maybe spanning processes), feeding and checking the ``local``
    ones (this process's); every (op, dtype, size) is ``ok`` or a ``mismatch``, plus pmap's psum."""
    jax = import_jax()
    n, where = len(devices), {device: index for index, device in enumerate(devices)}
    mesh = jax.sharding.Mesh(np.array(devices), ("i",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("i"))
    program = _program(jax, mesh, n)
    report: dict[str, list[str]] = {"ok": [], "mismatch": []}
    for dtype in DTYPES:
        for size in SIZES:
            x = np.concatenate([np.full((1, size), where[d] + 1) for d in local]).astype(jax.numpy.dtype(dtype))
            y = np.concatenate([np.repeat((10 * where[d] + np.arange(n))[:, None], size, axis=1) for d in local])
            outputs = program(jax.make_array_from_process_local_data(sharding, x),
                              jax.make_array_from_process_local_data(sharding, y.astype(x.dtype)))
            for name, output in zip(OPS, outputs, strict=True):
                want = _expected(n, size)[name]
                good = all(np.array_equal(np.asarray(s.data, np.float64), want(where[s.device]))
                           for s in output.addressable_shards)
                report["ok" if good else "mismatch"].append(f"{name}.{dtype}.{size}")
    summed = jax.pmap(lambda v: jax.lax.psum(v, "i"), axis_name="i", devices=local if len(local) == n else None)(
        np.asarray([where[d] + 1 for d in local], np.float32))
    report["ok" if bool((np.asarray(summed) == n * (n + 1) // 2).all()) else "mismatch"].append("pmap.psum")
    return report


def local(context: CheckContext) -> None:
    """Collectives across this process's devices (the CPU's host devices where there is no GPU)."""
    device = device_under_test(context)
    jax = import_jax()
    devices = [d for d in jax.local_devices() if d.platform == device.platform]
    if len(devices) < 2:
        raise Skip(f"{len(devices)} {device.platform} device: the collectives need two or more (on the CPU, JAX must "
                   "start with XLA_FLAGS=--xla_force_host_platform_device_count=N)")
    context.note("devices", len(devices))
    _judge(context, [run_collectives(devices, devices)])


def _judge(context: CheckContext, reports: list[dict[str, Any]]) -> None:
    mismatches = sorted({m for report in reports for m in report["mismatch"]})
    context.record("ops_ok", len(reports[0]["ok"]))
    if mismatches:
        raise Fail(f"wrong results: {', '.join(mismatches[:10])}" + (" ..." if len(mismatches) > 10 else ""))
    if not reports[0]["ok"]:
        raise Fail("no collective ran")


def rank_main(rank: int, world: int, init_method: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One process: join the others through ``jax.distributed.initialize``, run the collectives over every
    process's devices, and return this process's report."""
    prepare(arguments["device"], int(arguments.get("host_devices", 0)))
    jax = import_jax()
    gpu = arguments["device"] != "cpu"
    jax.distributed.initialize(coordinator_address=init_method.removeprefix("tcp://"), num_processes=world,
                               process_id=rank, local_device_ids=[rank] if gpu else None)
    try:
        report = run_collectives(jax.devices(), jax.local_devices())
        report["devices"] = jax.device_count()
        report["process_count"] = jax.process_count()
        return report
    finally:
        jax.distributed.shutdown()


def processes(context: CheckContext) -> None:
    """N processes on this machine (one per GPU; 2 on the CPU, each with 2 host devices) as one JAX cluster."""
    device = device_under_test(context)
    jax = import_jax()
    gpu = is_gpu(device)
    gpus = len([d for d in jax.local_devices() if is_gpu(d)])
    if gpu and gpus < 2:
        raise Skip("one GPU: the processes need one GPU each, two or more")
    world = int(context.options.get("world_size", gpus if gpu else 2))
    context.note("world_size", world)
    arguments = {"device": "cuda" if gpu else "cpu", "host_devices": 0 if gpu else 2}
    try:
        reports = run_ranks("gpuready.checks.jax.distributed:rank_main", world, arguments,
                            timeout_s=float(context.options.get("distributed_timeout_s", 240)),
                            env=None if gpu else {"XLA_FLAGS": " ".join(
                                flag for flag in os.environ.get("XLA_FLAGS", "").split()
                                if not flag.startswith(HOST_DEVICES_FLAG))})
    except RankFailure as error:
        raise Fail(str(error)) from None
    context.note("devices", reports[0]["devices"])
    context.note("process_count", reports[0]["process_count"])
    _judge(context, reports)
