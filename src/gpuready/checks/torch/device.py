"""Device checks: what torch sees, a large allocation, copy integrity, streams and events."""

from __future__ import annotations

from gpuready.checks.torch._util import Comparison, device_under_test, import_torch, is_gpu, synchronize
from gpuready.isolation.spec import CheckContext, Fail, Skip


def enumerate(context: CheckContext) -> None:  # noqa: A001 - the check's name
    """Devices, backend and names as torch reports them."""
    torch = import_torch()
    device = device_under_test(context)
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    context.record("device_count", count)
    context.note("devices", [torch.cuda.get_device_name(i) for i in range(count)])
    if is_gpu(device):
        props = torch.cuda.get_device_properties(device)
        context.record("total_memory_bytes", props.total_memory)
        context.record("multiprocessors", props.multi_processor_count)
        context.note("arch", getattr(props, "gcnArchName", None) or f"sm_{props.major}{props.minor}")
        if count < 1:
            raise Fail("torch reports a GPU device but device_count() is 0")


def alloc_large(context: CheckContext) -> None:
    """Allocate a large block (a fraction of free memory on a GPU), write it, read it back."""
    torch = import_torch()
    device = device_under_test(context)
    fraction = float(context.options.get("alloc_fraction", 0.5))
    if is_gpu(device):
        free, total = torch.cuda.mem_get_info(device)
        size = int(free * fraction) // 4 * 4
        context.record("free_bytes", free)
        context.record("total_bytes", total)
    else:
        size = int(context.options.get("cpu_alloc_bytes", 256 * 2**20))
    elements = size // 4
    block = torch.empty(elements, dtype=torch.float32, device=device)
    block.fill_(1.0)
    block[-1] = 2.0
    synchronize(device)
    total_sum = block.sum(dtype=torch.float64).item()
    context.record("allocated_bytes", size)
    if total_sum != elements + 1:
        raise Fail(f"sum of a {size / 2**30:.2f} GiB block is {total_sum}, expected {elements + 1}")
    del block
    if is_gpu(device):
        torch.cuda.empty_cache()


def copy_integrity(context: CheckContext) -> None:
    """Host to device and back, pageable and pinned, bit for bit."""
    torch = import_torch()
    device = device_under_test(context)
    generator = torch.Generator().manual_seed(1)
    data = torch.randint(-(2**31), 2**31 - 1, (16 * 2**20 // 4,), dtype=torch.int32, generator=generator)
    compare = Comparison(context)
    back = data.to(device).to("cpu")
    compare.equal("pageable round trip", back, data)
    if is_gpu(device):
        pinned = data.pin_memory()
        on_device = pinned.to(device, non_blocking=True)
        result = torch.empty_like(pinned).pin_memory()
        result.copy_(on_device, non_blocking=True)
        synchronize(device)
        compare.equal("pinned round trip", result, data)
        compare.equal("device-to-device copy", on_device.clone().cpu(), data)
    context.record("bytes", data.numel() * 4)
    compare.finish()


def streams_events(context: CheckContext) -> None:
    """Work on two streams ordered by an event; event timing works."""
    torch = import_torch()
    device = device_under_test(context)
    if not is_gpu(device):
        raise Skip("streams and events need a GPU")
    first, second = torch.cuda.Stream(device), torch.cuda.Stream(device)
    start, done = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a = torch.ones(4096, 4096, device=device)
    with torch.cuda.stream(first):
        start.record(first)
        b = a @ a
        done.record(first)
    with torch.cuda.stream(second):
        second.wait_event(done)
        c = b.sum()
    second.synchronize()
    expected = 4096.0 * 4096 * 4096
    if abs(c.item() - expected) / expected > 1e-5:
        raise Fail(f"the second stream saw {c.item()} instead of {expected}: event ordering is broken")
    context.record("matmul_ms", start.elapsed_time(done))
