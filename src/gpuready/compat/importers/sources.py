"""Where each importer reads: the primary sources, their URLs, and the one network seam (used only by data update)."""

from __future__ import annotations

import functools
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from gpuready.compat.importers import amd, containers, nvidia, torch
from gpuready.compat.importers.facts import Fact
from gpuready.errors import InputError

Fetch = Callable[[str], str]
MAX_SOURCE_BYTES = 8 * 2**20
RAW = "https://raw.githubusercontent.com"
AMD_HISTORICAL = f"{RAW}/ROCm/ROCm/develop/docs/compatibility/compatibility-matrix-historical-6.0.csv"
AMD_MATRIX = f"{RAW}/ROCm/ROCm/develop/docs/compatibility/compatibility-matrix.rst"
AMD_CURRENT = f"{RAW}/ROCm/legacy-rocm-build/develop/docs/compatibility/compatibility-matrix.rst"
AMD_GPUS = f"{RAW}/ROCm/rocm-docs/develop/docs/data/gpus.yaml"
AMD_OS = f"{RAW}/ROCm/rocm-docs/develop/docs/data/os-support.yaml"
TORCH_ROCM_BUILD = f"{RAW}/pytorch/pytorch/main/.ci/docker/manywheel/build.sh"
TORCH_CUDA_BUILD = f"{RAW}/pytorch/pytorch/main/.ci/manywheel/build_cuda.sh"
PYPI = "https://pypi.org/pypi/{}/json"
MATRIX = f"{RAW}/pytorch/test-infra/release/{{}}/tools/scripts/generate_binary_build_matrix.py"
CUDA_NOTES = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"
AMD_PYTORCH_PAGE = f"{RAW}/ROCm/rocm-install-on-linux/develop/docs/install/3rd-party/pytorch-install.rst"
AMD_JAX_PAGE = f"{RAW}/ROCm/rocm-install-on-linux/develop/docs/install/3rd-party/jax-install.rst"
AMD_VLLM = f"{RAW}/ROCm/legacy-rocm-build/develop/docs/data/how-to/rocm-for-ai/inference/vllm-benchmark-models.yaml"
NGC_PYTORCH = "https://docs.nvidia.com/deeplearning/frameworks/pytorch-release-notes/rel-{}.html"


def fetch_url(url: str, timeout: float = 20.0) -> str:
    """The network seam: one GET with a timeout and a size cap. Only ``gpuready data update`` calls it."""
    request = urllib.request.Request(url, headers={"User-Agent": "gpuready-data-update"})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - https URLs from this module
        body: bytes = response.read(MAX_SOURCE_BYTES + 1)
    if len(body) > MAX_SOURCE_BYTES:
        raise ValueError(f"{url}: larger than {MAX_SOURCE_BYTES} bytes")
    return body.decode("utf-8")


def recorded(directory: Path) -> Fetch:
    """A fetch that serves recorded copies: each ``*.source.yaml`` names the URL it stands for (``fetch``) and the
    file holding the text (``file``). A URL with no recording raises, as an unreachable one would."""
    if not directory.is_dir():
        raise InputError("not a directory of recorded sources", source=str(directory), field="sources")
    served: dict[str, Path] = {}
    for sidecar in sorted(directory.glob("*.source.yaml")):
        meta = yaml.safe_load(sidecar.read_text(encoding="utf-8")) or {}
        if isinstance(meta, dict) and meta.get("fetch") and meta.get("file"):
            served[str(meta["fetch"])] = directory / str(meta["file"])

    def fetch(url: str) -> str:
        if url not in served:
            raise FileNotFoundError(f"no recorded copy of {url}")
        return served[url].read_text(encoding="utf-8")

    return fetch


@dataclass(frozen=True)
class Source:
    """One importer run: a name, the URLs it reads, and the parser over their texts."""

    name: str
    urls: tuple[str, ...]
    parse: Callable[[tuple[str, ...]], Iterator[Fact]]


def _first_text(parse: Callable[[str, str], Iterator[Fact]], url: str, texts: tuple[str, ...]) -> Iterator[Fact]:
    return parse(texts[0], url)


def _matrix(line: str, url: str, texts: tuple[str, ...]) -> Iterator[Fact]:
    return torch.matrix_facts(texts[0], line, url)


def ngc_source(release: str) -> Source:
    """NVIDIA's release notes of one NGC PyTorch release (``25.12``)."""
    url = NGC_PYTORCH.format(release.replace(".", "-"))
    parse = functools.partial(_first_text, nvidia.ngc_pytorch_facts, url)
    return Source(f"NGC PyTorch {release} release notes", (url,), parse)


def sources(torch_lines: list[str], newest_core: str, ngc_releases: list[str] | None = None) -> list[Source]:
    """Every source ``data update`` reads, for these PyTorch release lines, the newest Core SDK release and these
    NGC PyTorch releases (``25.12``)."""
    found = [
        Source("AMD compatibility matrix (historical, with footnotes)", (AMD_HISTORICAL, AMD_MATRIX),
               lambda t: amd.matrix_facts(t[0], t[1], AMD_HISTORICAL)),
        Source("AMD compatibility matrix (current)", (AMD_CURRENT,),
               lambda t: amd.current_matrix_facts(t[0], AMD_CURRENT)),
        Source("AMD supported GPUs and OS tables", (AMD_GPUS, AMD_OS),
               lambda t: amd.docs_facts(t[0], t[1], AMD_GPUS, AMD_OS, newest_core)),
        Source("PyTorch ROCm wheel arch list", (TORCH_ROCM_BUILD,),
               lambda t: torch.rocm_arch_facts(t[0], TORCH_ROCM_BUILD)),
        Source("PyTorch CUDA wheel arch lists", (TORCH_CUDA_BUILD,),
               lambda t: torch.cuda_arch_facts(t[0], TORCH_CUDA_BUILD)),
    ]
    for name, url, parse in (("NVIDIA CUDA release notes (driver tables)", CUDA_NOTES, nvidia.cuda_driver_facts),
                             ("AMD PyTorch install page (rocm/pytorch images)", AMD_PYTORCH_PAGE,
                              containers.install_page_facts),
                             ("AMD JAX install page (rocm/jax images)", AMD_JAX_PAGE, containers.install_page_facts),
                             ("AMD vLLM benchmark data (rocm/vllm image)", AMD_VLLM, containers.vllm_facts)):
        found.append(Source(name, (url,), functools.partial(_first_text, parse, url)))
    found += [ngc_source(release) for release in ngc_releases or []]
    for package in ("torch", "jax-rocm7-plugin"):
        url = PYPI.format(package)
        found.append(Source(f"PyPI {package}", (url,), functools.partial(_first_text, torch.pypi_facts, url)))
    for line in torch_lines:
        url = MATRIX.format(line)
        found.append(Source(f"PyTorch {line} build matrix", (url,),
                            functools.partial(_matrix, line, url)))
    return found
