"""A kernel sub-project (its own setup.py) is core when the package imports the extension its build makes,
unguarded; optional when the import is guarded. Seen in real projects whose csrc/ holds a CUDA-only extension
(flash-fft-conv's csrc/flashfftconv, built as monarch_cuda). The trees here are synthetic."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuready import api
from gpuready.model.config import ScanConfig

KERNEL = """#include <cuda_runtime.h>
__global__ void k(float* x) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};" : "=f"(x[0]));
}
"""
BUILD = """from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="fastops_kernels", ext_modules=[CUDAExtension("fastops_cuda", ["kernel.cu"])],
      cmdclass={"build_ext": BuildExtension})
"""


def _tree(root: Path, importer: str) -> Path:
    (root / "fastops").mkdir(parents=True)
    (root / "setup.py").write_text("from setuptools import setup\nsetup(name='fastops', packages=['fastops'])\n")
    (root / "fastops" / "__init__.py").write_text("from fastops.ops import fused\n")
    (root / "fastops" / "ops.py").write_text(importer + "\n\ndef fused(x):\n    return x\n")
    (root / "csrc" / "fastops").mkdir(parents=True)
    (root / "csrc" / "fastops" / "setup.py").write_text(BUILD)
    (root / "csrc" / "fastops" / "kernel.cu").write_text(KERNEL)
    return root


@pytest.mark.parametrize(("importer", "verdict"), [
    ("from fastops_cuda import fused_forward", "BLOCKED"),
    ("import fastops_cuda", "BLOCKED"),
    ("try:\n    import fastops_cuda\nexcept ImportError:\n    fastops_cuda = None", "PORTABLE"),
])
def test_a_kernel_subproject_is_core_when_its_extension_is_imported(tmp_path: Path, importer: str,
                                                                     verdict: str) -> None:
    run = api.scan(ScanConfig(_tree(tmp_path, importer), cache=False, jobs=1))
    assert run.outcome.verdict.value == verdict, run.outcome.summary
    assert any(f.location.startswith("csrc/fastops/kernel.cu") for f in run.findings)
