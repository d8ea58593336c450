"""Operator checks: each runs on the device and is compared with the same inputs in float64 on the CPU."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from gpuready.checks.torch._util import RELATIVE_TOLERANCE, Comparison, device_under_test, import_torch, is_gpu
from gpuready.isolation.spec import CheckContext, Skip


def _dtypes(torch: Any) -> dict[str, Any]:
    return {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _leaf(tensor: Any, device: Any, dtype: Any, memory_format: Any = None) -> Any:
    """A fresh leaf copy that records its gradient (never the caller's tensor itself)."""
    copy = tensor.detach().to(device, dtype).clone()
    if memory_format is not None:
        copy = copy.contiguous(memory_format=memory_format)
    return copy.requires_grad_()


def _random(torch: Any, *shape: int, seed: int = 0) -> Any:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def matmul(context: CheckContext) -> None:
    """matmul, bmm and addmm in every floating dtype (and TF32 on GPUs)."""
    torch = import_torch()
    device = device_under_test(context)
    compare = Comparison(context)
    a, b, c = _random(torch, 192, 256, seed=1), _random(torch, 256, 160, seed=2), _random(torch, 192, 160, seed=3)
    batch_a, batch_b = _random(torch, 4, 64, 96, seed=4), _random(torch, 4, 96, 80, seed=5)
    reference = {"matmul": a.double() @ b.double(), "bmm": torch.bmm(batch_a.double(), batch_b.double()),
                 "addmm": torch.addmm(c.double(), a.double(), b.double(), beta=0.5, alpha=2.0)}
    for name, dtype in _dtypes(torch).items():
        x, y, z = (t.to(device, dtype) for t in (a, b, c))
        compare.close(f"matmul.{name}", x @ y, reference["matmul"], RELATIVE_TOLERANCE[name])
        compare.close(f"bmm.{name}", torch.bmm(batch_a.to(device, dtype), batch_b.to(device, dtype)),
                      reference["bmm"], RELATIVE_TOLERANCE[name])
        compare.close(f"addmm.{name}", torch.addmm(z, x, y, beta=0.5, alpha=2.0), reference["addmm"],
                      RELATIVE_TOLERANCE[name])
    if is_gpu(device):
        previous = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            compare.close("matmul.tf32", a.to(device) @ b.to(device), reference["matmul"], RELATIVE_TOLERANCE["tf32"])
        finally:
            torch.backends.cuda.matmul.allow_tf32 = previous
    else:
        context.note("tf32", "not applicable on the CPU")
    _long_gemm(torch, device, compare)
    compare.finish()


LONG_K = 4096


def _long_gemm(torch: Any, device: Any, compare: Comparison) -> None:
    """GEMMs with a realistic reduction length, judged against the error of correct float32 accumulation: a kernel
    that accumulates in bf16/fp16, or a float32 GEMM silently computed in TF32, fails."""
    a, b = _random(torch, 128, LONG_K, seed=11), _random(torch, LONG_K, 128, seed=12)
    for name in ("float32", "bfloat16", "float16"):
        dtype = getattr(torch, name)
        x, y = a.to(dtype), b.to(dtype)
        exact = x.double() @ y.double()
        spread = ((x.double() ** 2) @ (y.double() ** 2)).sqrt()
        compare.accumulated(f"gemm_k{LONG_K}.{name}", x.to(device) @ y.to(device), exact, spread, LONG_K,
                            torch.finfo(dtype).eps)


def conv2d(context: CheckContext) -> None:
    """conv2d forward and backward, contiguous and channels_last."""
    torch = import_torch()
    device = device_under_test(context)
    compare = Comparison(context)
    x, w, bias = _random(torch, 2, 8, 16, 16, seed=1), _random(torch, 16, 8, 3, 3, seed=2), _random(torch, 16, seed=3)
    grad = _random(torch, 2, 16, 16, 16, seed=4)

    def run(dtype: Any, target: Any, memory_format: Any) -> tuple[Any, ...]:
        xi, wi = _leaf(x, target, dtype, memory_format), _leaf(w, target, dtype, memory_format)
        out = torch.nn.functional.conv2d(xi, wi, bias.to(target, dtype), padding=1)
        out.backward(grad.to(target, dtype))
        return out, xi.grad, wi.grad

    reference = run(torch.float64, "cpu", torch.contiguous_format)
    dtypes = {"float32": torch.float32}
    if is_gpu(device):
        dtypes |= {"float16": torch.float16, "bfloat16": torch.bfloat16}
    for layout_name, layout in (("nchw", torch.contiguous_format), ("channels_last", torch.channels_last)):
        for name, dtype in dtypes.items():
            for part, got, want in zip(("out", "grad_input", "grad_weight"), run(dtype, device, layout), reference,
                                       strict=True):
                compare.close(f"conv2d.{layout_name}.{name}.{part}", got, want, RELATIVE_TOLERANCE[name] * 4)
    compare.finish()


def _attention_reference(torch: Any, q: Any, k: Any, v: Any) -> Any:
    scores = (q.double() @ k.double().transpose(-1, -2)) / q.shape[-1] ** 0.5
    mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v.double()


def sdpa(context: CheckContext) -> None:
    """scaled_dot_product_attention with a causal mask, for each backend the build offers."""
    torch = import_torch()
    device = device_under_test(context)
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as error:
        raise Skip(f"this torch has no torch.nn.attention ({error})") from error
    compare = Comparison(context)
    q, k, v = (_random(torch, 2, 4, 64, 32, seed=s) for s in (1, 2, 3))
    reference = _attention_reference(torch, q, k, v)
    dtype_name = "float16" if is_gpu(device) else "float32"
    dtype = getattr(torch, dtype_name)
    ran, unavailable = [], {}
    for backend in (SDPBackend.MATH, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.FLASH_ATTENTION):
        try:
            with sdpa_kernel([backend]):
                out = torch.nn.functional.scaled_dot_product_attention(
                    q.to(device, dtype), k.to(device, dtype), v.to(device, dtype), is_causal=True)
        except RuntimeError as error:
            unavailable[backend.name] = str(error).splitlines()[0][:200]
            continue
        ran.append(backend.name)
        compare.close(f"sdpa.{backend.name.lower()}.{dtype_name}", out, reference, RELATIVE_TOLERANCE[dtype_name] * 2)
    context.note("backends_run", ran)
    context.note("backends_unavailable", unavailable)
    compare.require("sdpa", bool(ran), "no attention backend ran")
    compare.finish()


def norms_activations(context: CheckContext) -> None:
    """layer_norm, rms_norm, softmax, log_softmax, GELU and SiLU, forward and backward."""
    torch = import_torch()
    functional = torch.nn.functional
    device = device_under_test(context)
    compare = Comparison(context)
    x, weight, upstream = _random(torch, 32, 256, seed=1), _random(torch, 256, seed=2), _random(torch, 32, 256, seed=3)
    operations: dict[str, Callable[[Any, Any], Any]] = {
        "layer_norm": lambda t, w: functional.layer_norm(t, (256,), w),
        "softmax": lambda t, w: torch.softmax(t, dim=-1),
        "log_softmax": lambda t, w: torch.log_softmax(t, dim=-1),
        "gelu": lambda t, w: functional.gelu(t),
        "silu": lambda t, w: functional.silu(t),
    }
    if hasattr(functional, "rms_norm"):
        operations["rms_norm"] = lambda t, w: functional.rms_norm(t, (256,), w)
    else:
        context.note("rms_norm", "not in this torch")
    for name, operation in operations.items():
        reference_input = _leaf(x, "cpu", torch.float64)
        reference = operation(reference_input, weight.double())
        reference.backward(upstream.double())
        for dtype_name in ("float32", "bfloat16"):
            dtype = getattr(torch, dtype_name)
            tested = _leaf(x, device, dtype)
            out = operation(tested, weight.to(device, dtype))
            out.backward(upstream.to(device, dtype))
            tolerance = RELATIVE_TOLERANCE[dtype_name] * (4 if dtype_name == "bfloat16" else 1)
            compare.close(f"{name}.{dtype_name}", out, reference, tolerance)
            compare.close(f"{name}.{dtype_name}.grad", tested.grad, reference_input.grad, tolerance * 4)
    compare.finish()


def embedding_cross_entropy(context: CheckContext) -> None:
    """embedding with repeated indices (its backward accumulates) and cross_entropy, forward and backward."""
    torch = import_torch()
    functional = torch.nn.functional
    device = device_under_test(context)
    compare = Comparison(context)
    generator = torch.Generator().manual_seed(0)
    table = _random(torch, 1000, 64, seed=1)
    indices = torch.randint(0, 50, (512,), generator=generator)  # few rows, many repeats
    reference_table = _leaf(table, "cpu", torch.float64)
    functional.embedding(indices, reference_table).pow(2).sum().backward()
    tested = _leaf(table, device, torch.float32)
    out = functional.embedding(indices.to(device), tested)
    out.pow(2).sum().backward()
    compare.close("embedding.forward", out, table.double()[indices], RELATIVE_TOLERANCE["float32"])
    compare.close("embedding.backward", tested.grad, reference_table.grad, RELATIVE_TOLERANCE["float32"])
    logits, targets = _random(torch, 64, 1000, seed=3), torch.randint(0, 1000, (64,), generator=generator)
    reference_logits = _leaf(logits, "cpu", torch.float64)
    reference_loss = functional.cross_entropy(reference_logits, targets, label_smoothing=0.1)
    reference_loss.backward()
    tested_logits = _leaf(logits, device, torch.float32)
    loss = functional.cross_entropy(tested_logits, targets.to(device), label_smoothing=0.1)
    loss.backward()
    compare.close("cross_entropy.loss", loss, reference_loss, RELATIVE_TOLERANCE["float32"])
    compare.close("cross_entropy.grad", tested_logits.grad, reference_logits.grad, RELATIVE_TOLERANCE["float32"])
    compare.finish()


def reductions(context: CheckContext) -> None:
    """sum and mean in low precision over many elements, and cumsum."""
    torch = import_torch()
    device = device_under_test(context)
    compare = Comparison(context)
    x = torch.rand(1 << 20, generator=torch.Generator().manual_seed(0))
    for dtype_name in ("float32", "float16", "bfloat16"):
        dtype = getattr(torch, dtype_name)
        tested = x.to(device, dtype)
        compare.close(f"sum.{dtype_name}", tested.sum(dtype=torch.float32), x.double().sum(), 1e-3)
        compare.close(f"mean.{dtype_name}", tested.mean(dtype=torch.float32), x.double().mean(), 1e-2)
        centred = (x - 0.5).to(dtype)  # a sum that fits in fp16
        rounded = centred.double()
        compare.accumulated(f"sum_in_dtype.{dtype_name}", centred.to(device).sum(), rounded.sum(),
                            rounded.pow(2).sum().sqrt(), x.numel(), torch.finfo(dtype).eps)
    compare.close("cumsum.float32", x[:65536].to(device).cumsum(0), x[:65536].double().cumsum(0), 1e-5)
    compare.finish()


def sort_topk(context: CheckContext) -> None:
    """sort and topk return exactly the CPU's values and a consistent permutation."""
    torch = import_torch()
    device = device_under_test(context)
    compare = Comparison(context)
    x = torch.randperm(100_000, generator=torch.Generator().manual_seed(0)).float()
    values, order = x.to(device).sort(descending=True)
    compare.equal("sort.values", values, x.sort(descending=True).values)
    compare.equal("sort.indices", x[order.cpu()], values.cpu())
    top = x.to(device).topk(100)
    compare.equal("topk.values", top.values, x.topk(100).values)
    compare.finish()


def scatter_gather(context: CheckContext) -> None:
    """scatter_add and index_add with many colliding indices (atomics), and gather."""
    torch = import_torch()
    device = device_under_test(context)
    compare = Comparison(context)
    generator = torch.Generator().manual_seed(0)
    source = _random(torch, 200_000, seed=1)
    index = torch.randint(0, 64, (200_000,), generator=generator)
    reference = torch.zeros(64, dtype=torch.float64).scatter_add(0, index, source.double())
    compare.close("scatter_add", torch.zeros(64, device=device).scatter_add(0, index.to(device), source.to(device)),
                  reference, 1e-5)
    compare.close("index_add", torch.zeros(64, device=device).index_add(0, index.to(device), source.to(device)),
                  reference, 1e-5)
    table, positions = _random(torch, 128, 256, seed=2), torch.randint(0, 256, (128, 64), generator=generator)
    compare.equal("gather", table.to(device).gather(1, positions.to(device)), table.gather(1, positions))
    compare.finish()


def fft(context: CheckContext) -> None:
    """FFT and inverse FFT of complex64 against complex128 on the CPU."""
    torch = import_torch()
    device = device_under_test(context)
    compare = Comparison(context)
    signal = torch.complex(_random(torch, 16, 1024, seed=1), _random(torch, 16, 1024, seed=2))
    reference = torch.fft.fft(signal.to(torch.complex128))
    spectrum = torch.fft.fft(signal.to(device))
    compare.close("fft", spectrum, reference, 1e-5)
    compare.close("ifft", torch.fft.ifft(spectrum), signal.to(torch.complex128), 1e-5)
    compare.close("rfft", torch.fft.rfft(signal.real.to(device)), torch.fft.rfft(signal.real.double()), 1e-5)
    compare.finish()


def random_reproducible(context: CheckContext) -> None:
    """The same seed gives the same numbers; a saved generator state replays."""
    torch = import_torch()
    device = device_under_test(context)
    compare = Comparison(context)
    generator = torch.Generator(device=device)
    generator.manual_seed(1234)
    first = torch.rand(4096, device=device, generator=generator)
    state = generator.get_state()
    after = torch.randn(4096, device=device, generator=generator)
    generator.manual_seed(1234)
    compare.equal("same seed", torch.rand(4096, device=device, generator=generator), first)
    generator.set_state(state)
    compare.equal("restored state", torch.randn(4096, device=device, generator=generator), after)
    compare.require("range", bool((first >= 0).all() and (first < 1).all()), "rand outside [0, 1)")
    compare.finish()


def casts(context: CheckContext) -> None:
    """Casts between float and integer dtypes give exactly what the CPU gives."""
    torch = import_torch()
    device = device_under_test(context)
    compare = Comparison(context)
    x = _random(torch, 65536, seed=1) * 300
    for target in ("float16", "bfloat16", "int32", "int8", "uint8", "bool"):
        dtype = getattr(torch, target)
        source = x.clamp(-127, 127) if target in ("int8", "uint8") else x
        if target == "uint8":
            source = source.abs()
        compare.equal(f"float32->{target}", source.to(device).to(dtype), source.to(dtype))
    compare.equal("float16->float32", x.half().to(device).float(), x.half().float())
    compare.finish()


def fp8_matmul(context: CheckContext) -> None:
    """An fp8 (e4m3) scaled matmul, where the device has fp8 units."""
    torch = import_torch()
    device = device_under_test(context)
    if not is_gpu(device):
        raise Skip("fp8 matmul needs a GPU with fp8 support (NVIDIA sm_89+, AMD gfx942+)")
    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        raise Skip("this torch has no float8 types or _scaled_mm")
    compare = Comparison(context)
    a, b = _random(torch, 64, 128, seed=1), _random(torch, 128, 96, seed=2)
    fp8 = torch.float8_e4m3fnuz if getattr(torch.version, "hip", None) and hasattr(torch, "float8_e4m3fnuz") else (
        torch.float8_e4m3fn)
    a8, b8 = a.to(device).to(fp8), b.to(device).t().contiguous().t().to(fp8)
    one = torch.tensor(1.0, device=device)
    try:
        out = torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.float32)
    except (RuntimeError, TypeError) as error:
        raise Skip(f"fp8 matmul is not supported here: {str(error).splitlines()[0][:200]}") from error
    if isinstance(out, tuple):
        out = out[0]
    reference = a8.float().cpu().double() @ b8.float().cpu().double()
    compare.close("fp8_matmul.e4m3", out, reference, 1e-2)
    with contextlib.suppress(Exception):
        context.note("fp8_dtype", str(fp8))
    compare.finish()
