"""torch's hipify mapping as a second opinion: read purely, imported only on request, compared where torch is."""

from __future__ import annotations

import collections
import subprocess
import sys

import pytest

from gpuready.scanner import hipify_torch
from gpuready.scanner.cuda_apis import load_hipify
from gpuready.scanner.hipify_torch import Disagreement, TorchName, compare, read_torch_mapping

UNSUPPORTED = 47  # stands for torch.utils.hipify.constants.HIP_UNSUPPORTED


def test_both_shapes_of_torchs_tables_are_read() -> None:
    new_style = collections.OrderedDict([("cudaMalloc", "hipMalloc"), ("cudaFree", "hipFree")])
    old_style = collections.OrderedDict([
        ("cudaMalloc", ("hipMallocOther", 1, 2)),  # a later table does not override an earlier one
        ("cudaBindSurfaceToArray", ("hipBindSurfaceToArray", 3, 4, UNSUPPORTED)),
        ("cudaOdd", ()), (42, "ignored"),
    ])
    assert read_torch_mapping([new_style, old_style], UNSUPPORTED) == {
        "cudaMalloc": TorchName("hipMalloc"), "cudaFree": TorchName("hipFree"),
        "cudaBindSurfaceToArray": TorchName("hipBindSurfaceToArray", unsupported=True)}
    assert read_torch_mapping([old_style])["cudaBindSurfaceToArray"] == TorchName("hipBindSurfaceToArray")


def test_comparison_names_the_differences() -> None:
    torch = {"cudaMalloc": TorchName("hipMalloc"), "cudaBindSurfaceToArray": TorchName("hipBindSurfaceToArray"),
             "cudaFree": TorchName("hipFree", unsupported=True)}
    assert compare(load_hipify(), torch, ["cudaMalloc", "cudaBindSurfaceToArray", "cudaFree", "cuTensorMapEncodeTiled",
                                          "cudaMemcpy"]) == [
        Disagreement("cudaBindSurfaceToArray", None, "hipBindSurfaceToArray", False),
        Disagreement("cudaFree", "hipFree", "hipFree", True),
        Disagreement("cudaMemcpy", "hipMemcpy", None, False),
    ]


def test_without_torch_nothing_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hipify_torch, "torch_available", lambda: False)
    assert hipify_torch.torch_hipify_mapping() is None


def test_the_scanner_modules_never_import_torch() -> None:
    code = ("import sys, gpuready.scanner.cuda_apis, gpuready.scanner.hipify_torch, gpuready.scanner.hipify_tables; "
            "gpuready.scanner.cuda_apis.unsupported_api_hits('cudaMalloc(&p, 1);'); "
            "gpuready.scanner.hipify_torch.torch_available(); "
            "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.torch
def test_torch_agrees_on_common_names() -> None:
    mapping = hipify_torch.torch_hipify_mapping()
    assert mapping is not None and len(mapping) > 1000
    names = ["cudaMalloc", "cudaMemcpy", "cudaFree", "cudaDeviceSynchronize", "cudaStreamSynchronize", "cublasSgemm",
             "curandCreateGenerator", "cusparseCreate",
             "cuTensorMapEncodeTiled", "cudaSharedmemCarveoutMaxShared"]  # no HIP name in either
    assert compare(load_hipify(), mapping, names) == []
