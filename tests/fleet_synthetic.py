"""A synthetic fleet (made up, never a measurement): N nodes x 20 Runs each (a doctor, a check and 18 bench Runs:
3 workloads x 3 precisions x 2 repeats, plus micro-ceilings), with planted bad nodes. Shared by the fleet tests and
benchmarks/fleet_report.py. Runs are built from real model objects once, then copied per node as JSON documents."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from gpuready.fleet.tags import Placement, with_placement
from gpuready.model import (
    CheckResult,
    CheckStatus,
    Device,
    Fact,
    Fingerprint,
    Framework,
    Host,
    Provenance,
    RunKind,
    Stack,
    Vendor,
    make_run,
)

CHECKS = ("torch.device.enumerate", "torch.ops.matmul", "torch.ops.conv2d", "torch.train.step", "torch.amp.bf16",
          "torch.checkpoint.roundtrip", "torch.distributed.all_reduce", "torch.memory.alloc_large")
WORKLOADS = ("mlp", "cnn", "transformer")
PRECISIONS = ("fp32", "bf16", "fp16")
GEMM = {"fp32": 160.0, "bf16": 900.0, "fp16": 880.0}


@dataclass(frozen=True)
class Plants:
    """Which nodes are planted bad, and how."""

    slow_gemm: tuple[str, ...] = ()
    """bf16 GEMM 12% below the others."""
    other_driver: tuple[str, ...] = ()
    failing_check: tuple[str, ...] = ()
    half_bandwidth: tuple[str, ...] = ()
    """all_reduce bus bandwidth halved."""
    missing_bench: tuple[str, ...] = ()
    """a node whose job stopped after its checks."""

    def all(self) -> set[str]:
        return {n for group in (self.slow_gemm, self.other_driver, self.failing_check, self.half_bandwidth,
                                self.missing_bench) for n in group}


@dataclass
class _Templates:
    """Each kind's Run as JSON text: parsing it is a fast deep copy."""

    doctor: str = ""
    check: str = ""
    bench: str = ""


def _templates() -> _Templates:
    from packaging.version import Version

    devices = tuple(Device(i, Vendor.AMD, name=Fact.of("AMD Instinct MI300X"), arch=Fact.of("gfx942"),
                           memory_bytes=Fact.of(192 * 2**30)) for i in range(8))
    fp = Fingerprint(host=Host(os_name=Fact.of("Ubuntu 22.04.5 LTS"), kernel=Fact.of("5.15.0-122-generic")),
                     devices=devices,
                     stack=Stack(rocm_version=Fact.of(Version("6.4.1")), amdgpu_driver_version=Fact.of("6.12.12")),
                     frameworks=(Framework("torch", version=Fact.of("2.7.1+rocm6.4")),))
    doctor = make_run(RunKind.DOCTOR, "synthetic", fingerprint=fp, provenance=Provenance.SYNTHETIC)
    check = make_run(RunKind.CHECK, "synthetic", provenance=Provenance.SYNTHETIC,
                     results=tuple(CheckResult(c, CheckStatus.PASS, device="cuda:0") for c in CHECKS))
    bench = make_run(RunKind.BENCH, "synthetic", provenance=Provenance.SYNTHETIC)
    return _Templates(json.dumps(doctor.to_dict()), json.dumps(check.to_dict()), json.dumps(bench.to_dict()))


def _measurement(metric: str, unit: str, samples: list[float], workload: str,
                 settings: dict[str, Any]) -> dict[str, Any]:
    ordered = sorted(samples)
    mean = sum(samples) / len(samples)
    stdev = (sum((x - mean) ** 2 for x in samples) / (len(samples) - 1)) ** 0.5
    summary = {"count": len(samples), "median": ordered[len(ordered) // 2], "p10": ordered[0], "p90": ordered[-1],
               "mean": mean, "stdev": stdev}  # quick figures for made-up samples (five of them, odd count)
    return {"metric": metric, "unit": unit, "samples": samples, "summary": summary, "workload": workload,
            "settings": settings, "annotations": {}}


def _bench_measurements(rng: random.Random, workload: str, precision: str, node: str, plants: Plants,
                        micro: bool) -> list[dict[str, Any]]:
    settings = {"workload": workload, "mode": "train", "precision": precision, "batch_size": 32,
                "framework": "torch", "compile": False}
    step = {"mlp": 0.004, "cnn": 0.012, "transformer": 0.030}[workload] * (1 + rng.gauss(0, 0.01))
    items = [_measurement("step_time", "s", [step * (1 + rng.gauss(0, 0.01)) for _ in range(5)], workload, settings),
             _measurement("samples_per_s", "samples/s", [32 / step * (1 + rng.gauss(0, 0.01)) for _ in range(5)],
                         workload, settings)]
    if micro:
        factor = 0.88 if node in plants.slow_gemm and precision == "bf16" else 1.0
        items.append(_measurement(f"gemm_tflops_{precision}", "TFLOP/s",
                                 [GEMM[precision] * factor * (1 + rng.gauss(0, 0.01)) for _ in range(5)],
                                 "micro.gemm", {"dtype": precision}))
        if precision == "fp32":
            bandwidth = 330.0 * (0.5 if node in plants.half_bandwidth else 1.0)
            items.append(_measurement("allreduce_busbw_gbps_268435456", "GB/s",
                                     [bandwidth * (1 + rng.gauss(0, 0.01)) for _ in range(5)], "micro.allreduce",
                                     {"bytes": 268435456, "world_size": 8}))
    return items


def fleet_documents(nodes: int, plants: Plants, fleet: str = "fsynthetic", seed: int = 7) -> list[dict[str, Any]]:
    """Run documents of a whole fleet, 20 per node (18 for a node planted as missing its benchmarks)."""
    rng = random.Random(seed)
    templates = _templates()
    documents: list[dict[str, Any]] = []
    serial = 0

    def stamp(template: str, node: str) -> dict[str, Any]:
        nonlocal serial
        serial += 1
        document: dict[str, Any] = json.loads(template)
        document["id"] = f"{fleet}-{serial:07d}"
        document["created_at"] = f"2026-12-01T10:{serial // 6000 % 60:02d}:{serial // 100 % 60:02d}+00:00"
        document["tags"] = list(with_placement(document["tags"], Placement(fleet, node, f"job{serial}", "slurm")))
        return document

    for index in range(nodes):
        node = f"node{index:04d}"
        doctor = stamp(templates.doctor, node)
        if node in plants.other_driver:
            doctor["fingerprint"]["stack"]["amdgpu_driver_version"]["value"] = "6.10.5"
        documents.append(doctor)
        check = stamp(templates.check, node)
        if node in plants.failing_check:
            check["results"][1]["status"] = "fail"
            check["outcome"]["verdict"] = "FAIL"
        documents.append(check)
        if node in plants.missing_bench:
            continue
        for _ in range(2):
            for workload in WORKLOADS:
                for precision in PRECISIONS:
                    bench = stamp(templates.bench, node)
                    bench["measurements"] = _bench_measurements(rng, workload, precision, node, plants,
                                                                micro=workload == "mlp")
                    documents.append(bench)
    return documents
