"""PyTorch's release build matrix (test-infra), its wheel build scripts' arch lists, and the PyPI JSON API."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator

from gpuready.compat.importers.facts import Fact
from gpuready.errors import ParseError


def _literals(text: str) -> dict[str, object]:
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise ParseError(f"not Python: {error.msg} (line {error.lineno})") from None
    found: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return found


def matrix_facts(text: str, release: str, url: str) -> Iterator[Fact]:
    """``generate_binary_build_matrix.py`` at ``release/X.Y``: its ``test`` channel is release X.Y's wheel variants;
    its ``release`` channel, on the next branch, is the previous release's (so ``release/2.1`` also tells 2.0)."""
    values = _literals(text)
    cuda, rocm = values.get("CUDA_ARCHES_DICT"), values.get("ROCM_ARCHES_DICT")
    if not isinstance(cuda, dict) or not isinstance(rocm, dict) or "test" not in cuda or "test" not in rocm:
        raise ParseError("no CUDA_ARCHES_DICT / ROCM_ARCHES_DICT with a 'test' channel")
    yield Fact("torch", release, "variants", _variants(cuda["test"], rocm["test"]), url)
    stable = values.get("STABLE_CUDA_VERSIONS")
    if isinstance(stable, dict) and "test" in stable:
        yield Fact("torch", release, "pypi_default", (f"cu{str(stable['test']).replace('.', '')}",), url)


def _variants(cuda: object, rocm: object) -> tuple[str, ...]:
    if not isinstance(cuda, list) or not isinstance(rocm, list):
        raise ParseError("a channel is not a list of versions")
    return (*(f"rocm{v}" for v in rocm), *(f"cu{str(v).replace('.', '')}" for v in cuda), "cpu")


def rocm_arch_facts(text: str, url: str) -> Iterator[Fact]:
    """``.ci/docker/manywheel/build.sh``: the common PYTORCH_ROCM_ARCH (TheRock 7.14 builds) and the legacy list
    (gfx900/gfx906 prepended, ROCm 7.2 and older)."""
    common = re.search(r'^\s*PYTORCH_ROCM_ARCH="(gfx[^"$]+)"', text, re.M)
    if common is None:
        raise ParseError("no PYTORCH_ROCM_ARCH list in the ROCm builder script")
    targets = tuple(common.group(1).split(";"))
    if "7.14" in text:
        yield Fact("torch-arch", "rocm7.14", "arch_list", targets, url)
    legacy = re.search(r'PYTORCH_ROCM_ARCH="((?:gfx\w+;)+)\$\{PYTORCH_ROCM_ARCH\}"', text)
    if legacy is not None:
        yield Fact("torch-arch", "rocm-legacy", "arch_list", tuple(legacy.group(1).rstrip(";").split(";")) + targets,
                   url)


def cuda_arch_facts(text: str, url: str) -> Iterator[Fact]:
    """``.ci/manywheel/build_cuda.sh``: TORCH_CUDA_ARCH_LIST per CUDA version, as sm_ names (+PTX dropped)."""
    found = re.findall(r'^\s*(\d+\.\d+)\)\s*\n\s*TORCH_CUDA_ARCH_LIST="([^"]+)"', text, re.M)
    if not found:
        raise ParseError("no TORCH_CUDA_ARCH_LIST cases in the CUDA build script")
    for version, arches in found:
        names = tuple("sm_" + a.replace("+PTX", "").replace(".", "") for a in arches.split(";"))
        yield Fact("torch-arch", f"cu{version.replace('.', '')}", "arch_list", names, url)


def pypi_facts(text: str, url: str) -> Iterator[Fact]:
    """The PyPI JSON API: each non-yanked release of the package and the day its first file was uploaded."""
    try:
        document = json.loads(text)
        name, releases = document["info"]["name"], document["releases"]
    except (ValueError, KeyError, TypeError):
        raise ParseError("not a PyPI JSON API response") from None
    for version, files in releases.items():
        if files and not files[0].get("yanked"):
            yield Fact("pypi", name, version, (str(files[0].get("upload_time", ""))[:10],), url)
