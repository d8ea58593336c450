"""A JAX run and a torch run of the same built-in model and size align in ``compare`` on everything but the
framework (and its compilation), say ``torch vs jax``, and never set counts of two FLOP counters against each other;
other sizes, one-framework compilation differences and ambiguous sides do not align (#17)."""

from __future__ import annotations

from typing import Any

from gpuready.comparison import Side
from gpuready.comparison import compare_sides as compare_with_catalogue
from gpuready.compat.load import load_dataset
from gpuready.model import Provenance, Run, RunKind, make_run
from gpuready.model.identity import workload_key
from gpuready.report.units import describe_settings
from gpuready.stats import measurement, rate
from gpuready.workloads.loader import builtin_identity
from tests.unit.comparison.builders import step_times

GPUS = load_dataset().gpus.gpus


def _bench(framework: str, median: float, *, size: str = "tiny", batch_size: int = 8, flops: float = 1e9,
           compile_: bool | None = None, seed: int = 1) -> Run:
    """A synthetic bench Run shaped as ``benchmark.phases`` writes it for ``framework``."""
    _, identity = builtin_identity("transformer", size, None)
    settings = {**identity, "framework": framework, "mode": "train", "precision": "fp32", "batch_size": batch_size,
                "compile": framework == "jax" if compile_ is None else compile_, "dataloader_workers": 0}
    notes = {"device": "cpu", "flops_per_step": flops,
             "flops_source": "XLA cost analysis of the compiled step" if framework == "jax" else
             "torch.utils.flop_counter"}
    steps = step_times(median, 40, seed=seed)
    tokens = batch_size * int(settings["sequence"])
    made: list[Any] = [measurement("step_time", "s", steps, "transformer", settings, notes),
                       measurement("samples_per_s", "samples/s", rate(batch_size, steps), "transformer", settings,
                                   notes),
                       measurement("tokens_per_s", "tokens/s", rate(tokens, steps), "transformer", settings, notes),
                       measurement("achieved_tflops", "TFLOP/s", rate(flops / 1e12, steps), "transformer", settings,
                                   notes)]
    if framework == "jax":
        made.append(measurement("compile_time", "s", [0.8], "transformer", settings, notes))
    return make_run(RunKind.BENCH, "test", measurements=tuple(made), provenance=Provenance.SYNTHETIC)


def _pairing(*sides: tuple[str, tuple[Run, ...]]) -> Any:
    return compare_with_catalogue([Side(name, runs) for name, runs in sides], GPUS).pairings[0]


def test_a_jax_and_a_torch_run_of_the_same_transformer_size_align() -> None:
    torch_run = _bench("torch", 0.020)
    jax_run = _bench("jax", 0.010, flops=1.3e9, seed=2)  # XLA counts element-wise work too: not the same counter
    assert workload_key(torch_run.measurements[0]) == workload_key(jax_run.measurements[0])
    pairing = _pairing(("torch", (torch_run,)), ("jax", (jax_run,)))
    rows = {row.metric: row for row in pairing.metrics}
    assert set(rows) == {"step_time", "samples_per_s", "tokens_per_s"}
    for row in rows.values():
        assert row.alignment == "torch vs jax"
        assert row.settings["framework"] == "torch vs jax" and row.settings["compile"] == "False vs True"
        assert row.settings["size"] == "tiny" and "model_config" not in row.settings
    assert 1.8 < rows["tokens_per_s"].ratio.ratio < 2.2
    assert describe_settings(rows["tokens_per_s"].settings) == ("framework=torch vs jax mode=train precision=fp32 "
                                                                 "batch_size=8 compile=False vs True")
    assert "tokens_per_s (torch vs jax)" in pairing.conclusion and "faster" in pairing.conclusion
    assert pairing.unmatched == (
        "transformer achieved_tflops (batch_size=8, compile=False, dataloader_workers=0, framework=torch, mode=train, "
        "precision=fp32, sequence=32, size=tiny): FLOPs counted by torch.utils.flop_counter against XLA cost analysis "
        "of the compiled step; not compared",
        "transformer (batch_size=8, compile=False, dataloader_workers=0, framework=torch, mode=train, precision=fp32, "
        "sequence=32, size=tiny) on torch only: achieved_tflops",
        "transformer (batch_size=8, compile=True, dataloader_workers=0, framework=jax, mode=train, precision=fp32, "
        "sequence=32, size=tiny) on jax only: achieved_tflops, compile_time")
    same = _pairing(("a", (_bench("jax", 0.01),)), ("b", (_bench("jax", 0.01, seed=4),)))
    assert "achieved_tflops" in {row.metric for row in same.metrics}, "one counter: compared"


def test_other_sizes_do_not_align_across_frameworks() -> None:
    pairing = _pairing(("torch", (_bench("torch", 0.02),)), ("jax", (_bench("jax", 0.01, size="small"),)))
    assert pairing.metrics == ()
    assert any("on torch only" in line for line in pairing.unmatched)
    assert "share no workload" in pairing.conclusion


def test_exact_settings_come_first_and_ambiguity_is_not_resolved_by_guessing() -> None:
    both = (_bench("torch", 0.02), _bench("jax", 0.01, seed=3))
    pairing = _pairing(("both", both), ("torch", (_bench("torch", 0.02, seed=4),)))
    assert {row.alignment for row in pairing.metrics} == {"same settings"}
    assert any("framework=jax" in line and "on both only" in line for line in pairing.unmatched)
    two_torch = (_bench("torch", 0.02), _bench("torch", 0.02, compile_=True, seed=5))
    pairing = _pairing(("two", two_torch), ("jax", (_bench("jax", 0.01),)))
    assert pairing.metrics == (), "two torch runs fit one jax run: no guess"


def test_one_framework_compiled_and_not_is_not_aligned() -> None:
    pairing = _pairing(("eager", (_bench("torch", 0.02),)), ("compiled", (_bench("torch", 0.01, compile_=True),)))
    assert pairing.metrics == ()


def test_best_batch_sizes_across_frameworks() -> None:
    torch_runs = (_bench("torch", 0.020, batch_size=8), _bench("torch", 0.030, batch_size=16))
    pairing = _pairing(("torch", torch_runs), ("jax", (_bench("jax", 0.020, batch_size=32),)))
    best = [row for row in pairing.metrics if row.metric == "tokens_per_s"]
    assert len(best) == 1 and best[0].alignment == "each side's best batch size, torch vs jax"
    assert best[0].settings["batch_size"] == "16 vs 32" and best[0].settings["framework"] == "torch vs jax"
    assert "at each side's best batch size (16 vs 32) (torch vs jax)" in pairing.conclusion


def test_gemm_ceilings_of_torch_and_jax_align() -> None:
    notes = {"device": "cpu"}
    torch_gemm = measurement("gemm_tflops_bf16", "TFLOP/s", [1.0, 1.1, 1.0], "micro.gemm",
                             {"dtype": "bf16", "sizes": [128, 256]}, notes)
    jax_gemm = measurement("gemm_tflops_bf16", "TFLOP/s", [2.0, 2.1, 2.0], "micro.gemm",
                           {"dtype": "bf16", "sizes": [128, 256], "framework": "jax"}, notes)
    runs = [make_run(RunKind.BENCH, "test", measurements=(m,)) for m in (torch_gemm, jax_gemm)]
    [row] = _pairing(("torch", (runs[0],)), ("jax", (runs[1],))).metrics
    assert row.alignment == "torch vs jax" and row.settings["framework"] == "torch vs jax"
