"""Draw a reproducible random sample of facts from the shipped compatibility data, for re-checking by hand against the
primary sources (docs/data-sample-2026-12.md records the tally).

A fact is one field of one entry with the URL the entry cites: a GPU's target or memory, a ROCm release's date,
targets or OS versions, a wheel variant's arch list, a CUDA toolkit's driver floor, an image's digest ... Run
``python benchmarks/data_sample.py [--seed N] [--count N]``; the same seed and data give the same sample.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator
from dataclasses import dataclass

from gpuready.compat.load import Dataset, load_dataset

SEED = 202612
COUNT = 30


@dataclass(frozen=True)
class Fact:
    """One checkable statement of the data set."""

    file: str
    entry: str
    field: str
    value: str
    source: str


def _gpus(data: Dataset) -> Iterator[Fact]:
    for gpu in data.gpus.gpus:
        yield Fact("gpus.yaml", gpu.name, "arch", gpu.arch, gpu.source)
        if gpu.memory_gib is not None:
            yield Fact("gpus.yaml", gpu.name, "memory_gib", f"{gpu.memory_gib:g}", gpu.source)
        if gpu.memory_bandwidth_gbps is not None:
            yield Fact("gpus.yaml", gpu.name, "memory_bandwidth_gbps", f"{gpu.memory_bandwidth_gbps:g}",
                       gpu.peak_source)
        for dtype, rate in gpu.peak_tflops.items():
            yield Fact("gpus.yaml", gpu.name, f"peak_tflops.{dtype}", f"{rate:g}", gpu.peak_source)


def _rocm(data: Dataset) -> Iterator[Fact]:
    for release in data.rocm.releases:
        name = f"ROCm {release.version}"
        yield Fact("rocm.yaml", name, "date", release.date.isoformat(), release.source)
        yield Fact("rocm.yaml", name, "targets", ", ".join(release.targets), release.source)
        for row in release.os:
            yield Fact("rocm.yaml", name, f"os.{row.id}", ", ".join(row.versions), release.source)
        for framework, versions in release.frameworks.items():
            yield Fact("rocm.yaml", name, f"frameworks.{framework}", ", ".join(versions), release.source)


def _torch(data: Dataset) -> Iterator[Fact]:
    for release in data.torch.releases:
        name = f"torch {release.version}"
        yield Fact("torch.yaml", name, "variants", ", ".join(v.name for v in release.variants), release.source)
        for variant in release.variants:
            if variant.arch_list:
                yield Fact("torch.yaml", name, f"{variant.name}.arch_list", ", ".join(variant.arch_list),
                           variant.source or release.source)


def _cuda(data: Dataset) -> Iterator[Fact]:
    for toolkit in data.cuda.toolkits:
        name = f"CUDA {toolkit.version}"
        for field in ("min_driver_linux", "min_driver_windows", "driver_linux", "driver_windows"):
            if getattr(toolkit, field):
                yield Fact("cuda.yaml", name, field, getattr(toolkit, field), toolkit.source)
    for support in data.cuda.arch_support:
        yield Fact("cuda.yaml", f"CUDA {support.cuda_major}.x", "min_arch", support.min_arch, support.source)


def _other(data: Dataset) -> Iterator[Fact]:
    for pairing in data.jax.rocm:
        yield Fact("jax.yaml", f"jax {pairing.jax}", "plugin", pairing.plugin, pairing.source)
        if pairing.rocm:
            yield Fact("jax.yaml", f"jax {pairing.jax}", "rocm", ", ".join(pairing.rocm), pairing.source)
    for link in data.links.links:
        yield Fact("links.yaml", f"{link.kind} {link.generation}", "per_gpu_gbps", f"{link.per_gpu_gbps:g}",
                   link.source)
    for image in data.containers.images:
        for field in ("digest", "platform_version", "framework_version"):
            if getattr(image, field):
                yield Fact("containers.yaml", image.reference, field, getattr(image, field), image.source)


def all_facts(data: Dataset) -> list[Fact]:
    """Every sampled kind of fact, in file order."""
    return [*_gpus(data), *_rocm(data), *_torch(data), *_cuda(data), *_other(data)]


def sample(data: Dataset, seed: int = SEED, count: int = COUNT) -> list[Fact]:
    """``count`` facts drawn without replacement with ``seed``."""
    facts = all_facts(data)
    return random.Random(seed).sample(facts, min(count, len(facts)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--count", type=int, default=COUNT)
    args = parser.parse_args()
    data = load_dataset()
    facts = all_facts(data)
    print(f"# {len(facts)} facts in the data set as of {data.as_of}; seed {args.seed}, {args.count} drawn")
    for number, fact in enumerate(sample(data, args.seed, args.count), 1):
        print(f"{number:2d}. {fact.file} | {fact.entry} | {fact.field} = {fact.value} | {fact.source}")


if __name__ == "__main__":
    main()
