"""The one list of checks: ids, suites and where their code lives. Nothing here imports a framework."""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterable, Sequence

from gpuready.errors import InputError
from gpuready.isolation.spec import CheckSpec

SUITES = ("quick", "full", "distributed")


class Registry:
    """Checks by id; duplicate ids are rejected, unknown ids answered with "did you mean"."""

    def __init__(self, specs: Iterable[CheckSpec]) -> None:
        self._specs: dict[str, CheckSpec] = {}
        for spec in specs:
            if spec.id in self._specs:
                raise ValueError(f"duplicate check id {spec.id!r}: {self._specs[spec.id].target} and {spec.target}")
            if ":" not in spec.target:
                raise ValueError(f"check {spec.id!r}: target {spec.target!r} is not 'module:function'")
            self._specs[spec.id] = spec

    def __len__(self) -> int:
        return len(self._specs)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._specs.values())

    def get(self, check_id: str) -> CheckSpec:
        """The spec with this id."""
        try:
            return self._specs[check_id]
        except KeyError:
            close = difflib.get_close_matches(check_id, list(self._specs), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InputError(f"unknown check {check_id!r}{hint}", field="checks") from None

    def select(self, suite: str | None = None, only: Sequence[str] = (), framework: str | None = None
               ) -> list[CheckSpec]:
        """Checks of a suite (a full suite includes quick), filtered by id globs and framework."""
        if suite is not None and suite not in SUITES:
            raise InputError(f"unknown suite {suite!r}; choose one of {', '.join(SUITES)}", field="suite")
        chosen = []
        for spec in self._specs.values():
            if framework and spec.framework != framework:
                continue
            if suite == "quick" and "quick" not in spec.suites:
                continue
            if suite == "full" and not {"quick", "full"} & set(spec.suites):
                continue
            if suite == "distributed" and "distributed" not in spec.suites:
                continue
            if only and not any(fnmatch.fnmatchcase(spec.id, pattern) for pattern in only):
                continue
            chosen.append(spec)
        if only and not chosen:
            pattern = only[0]
            close = difflib.get_close_matches(pattern, list(self._specs), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InputError(f"{', '.join(only)} matches no check{hint}", field="only")
        return chosen


def _torch(name: str, function: str, suites: tuple[str, ...] = ("quick",), timeout_s: float = 120.0,
           description: str = "") -> CheckSpec:
    return CheckSpec(id=f"torch.{name}", target=f"gpuready.checks.torch.{function}", suites=suites,
                     framework="torch", timeout_s=timeout_s, description=description)


def _jax(name: str, function: str, suites: tuple[str, ...] = ("quick",), timeout_s: float = 180.0,
         description: str = "") -> CheckSpec:
    return CheckSpec(id=f"jax.{name}", target=f"gpuready.checks.jax.{function}", suites=suites, framework="jax",
                     timeout_s=timeout_s, description=description)


BUILTIN = Registry([
    _torch("device.enumerate", "device:enumerate", description="devices, backend and names as torch sees them"),
    _torch("device.alloc_large", "device:alloc_large", description="allocate a large block and touch it"),
    _torch("device.copy_integrity", "device:copy_integrity", description="host<->device copies are bit-exact"),
    _torch("device.streams_events", "device:streams_events", description="stream and event synchronisation"),
    _torch("ops.matmul", "ops:matmul", description="matmul/bmm/addmm per dtype against float64 on the CPU"),
    _torch("ops.conv2d", "ops:conv2d", description="conv2d forward/backward, also channels_last"),
    _torch("ops.sdpa", "ops:sdpa", description="scaled_dot_product_attention per backend, causal"),
    _torch("ops.norms_activations", "ops:norms_activations",
           description="layer_norm, rms_norm, softmax, log_softmax, GELU, SiLU"),
    _torch("ops.embedding_ce", "ops:embedding_cross_entropy", description="embedding (+backward), cross_entropy"),
    _torch("ops.reductions", "ops:reductions", suites=("full",), description="low-precision sum/mean, cumsum"),
    _torch("ops.sort_topk", "ops:sort_topk", suites=("full",), description="sort and topk"),
    _torch("ops.scatter_gather", "ops:scatter_gather", suites=("full",),
           description="scatter_add, index_add (atomics), gather"),
    _torch("ops.fft", "ops:fft", suites=("full",), description="FFT against numpy-free float64 reference"),
    _torch("ops.random", "ops:random_reproducible", suites=("full",), description="seeded RNG reproducibility"),
    _torch("ops.casts", "ops:casts", suites=("full",), description="dtype casts round-trip"),
    _torch("ops.fp8_matmul", "ops:fp8_matmul", suites=("full",), description="fp8 scaled matmul where supported"),
    _torch("train.mlp", "train:mlp", description="MLP: K AdamW steps match the CPU fp32 trajectory"),
    _torch("train.cnn", "train:cnn", suites=("full",), description="small CNN training trajectory"),
    _torch("train.transformer", "train:transformer", description="small decoder-only transformer training"),
    _torch("amp.autocast", "amp:autocast", description="bf16/fp16 autocast with GradScaler, inf skip and recovery"),
    _torch("checkpoint.roundtrip", "checkpoint:roundtrip", timeout_s=180.0,
           description="save/load (weights_only) in a fresh process; next steps bit-identical"),
    _torch("compile.equivalence", "compile_check:equivalence", suites=("full",), timeout_s=300.0,
           description="torch.compile equals eager"),
    _torch("distributed.collectives", "distributed:collectives", suites=("distributed",), timeout_s=300.0,
           description="all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, barrier"),
    _torch("distributed.ddp", "distributed:ddp", suites=("distributed",), timeout_s=300.0,
           description="a DDP step equals a single-process step on the whole batch"),
    _jax("device.backend", "device:backend",
         description="backend, plugin loaded, jax/jaxlib/plugin/pjrt versions paired; a silent CPU fallback fails"),
    _jax("ops.matmul", "ops:matmul", description="matmul/dot_general/einsum per dtype; K=4096 GEMMs vs f32 bound"),
    _jax("ops.conv", "ops:conv", suites=("full",),
         description="conv_general_dilated forward and gradients, NCHW and NHWC"),
    _jax("ops.attention", "ops:attention", description="jax.nn.dot_product_attention per implementation, causal"),
    _jax("ops.norms_activations", "numerics:norms_activations",
         description="layer/RMS norm, softmax, log_softmax, GELU, SiLU with gradients"),
    _jax("ops.reductions", "numerics:reductions", suites=("full",),
         description="low-precision sum/mean, cumsum, argmax, logsumexp"),
    _jax("ops.scatter_gather", "numerics:scatter_gather", suites=("full",),
         description="scatter-add and segment_sum (collisions), gather"),
    _jax("ops.fft", "numerics:fft", suites=("full",), description="fft, ifft, rfft against complex128 NumPy"),
    _jax("ops.sort_topk", "numerics:sort_topk", suites=("full",), description="sort, argsort and top_k"),
    _jax("ops.random", "numerics:random", suites=("full",),
         description="same key, same numbers (eager, jit, CPU); split keys differ"),
    _jax("ops.fp8_matmul", "ops:fp8_matmul", suites=("full",),
         description="fp8 (e4m3/e5m2, fnuz on AMD) matmul with float32 accumulation"),
    _jax("train.mlp", "train:mlp", description="MLP: K optax AdamW steps match the float64 CPU trajectory"),
    _jax("train.transformer", "train:transformer", suites=("full",),
         description="small transformer: K AdamW steps match the float64 CPU trajectory"),
    _jax("train.mixed_precision", "train:mixed_precision", suites=("full",),
         description="bf16 parameters and compute with float32 master weights track the float32 run"),
    _jax("checkpoint.roundtrip", "checkpoint:roundtrip", timeout_s=240.0,
         description="orbax and flax.serialization restored in a fresh process: every array, the next steps"),
    _jax("jit.equivalence", "jit_check:equivalence", suites=("full",),
         description="jit equals eager (jax.disable_jit): the MLP's loss and gradients"),
    _jax("jit.recompilation", "jit_check:recompilation", suites=("full",),
         description="a new shape or static argument recompiles, a repeat does not"),
    _jax("distributed.local", "distributed:local", suites=("distributed",), timeout_s=300.0,
         description="psum, all_gather, ppermute, all_to_all, psum_scatter (shard_map) and pmap across devices"),
    _jax("distributed.processes", "distributed:processes", suites=("distributed",), timeout_s=300.0,
         description="jax.distributed.initialize across processes: psum, all_gather, ppermute, pmap"),
    CheckSpec(id="jax.basics", target="gpuready.checks.jax_checks:basics", suites=(), framework="jax",
              description="gpuready 0.2's single JAX check (in no suite; kept for locks that name it)"),
])
