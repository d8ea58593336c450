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


def test_the_extension_a_project_builds_is_its_own_module_not_a_dependency(tmp_path: Path) -> None:
    """Dao-AILab/causal-conv1d builds `causal_conv1d_cuda` and imports it: that is the project itself, not the
    causal-conv1d package the knowledge base knows (whose import names include the same extension)."""
    (tmp_path / "causal_conv1d").mkdir()
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
        "setup(name='causal_conv1d', packages=['causal_conv1d'],\n"
        "      ext_modules=[CUDAExtension(name='causal_conv1d_cuda', sources=['csrc/conv.cu'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n")
    (tmp_path / "causal_conv1d" / "__init__.py").write_text("")
    (tmp_path / "causal_conv1d" / "cpp_functions.py").write_text("import torch\n\nimport causal_conv1d_cuda\n")
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "conv.cu").write_text("__global__ void k(float* x) { x[0] = 1; }\n")
    elsewhere = tmp_path / "user"
    (elsewhere / "app").mkdir(parents=True)
    (elsewhere / "app" / "__init__.py").write_text("")
    (elsewhere / "app" / "model.py").write_text("import causal_conv1d_cuda\n")
    own = api.scan(ScanConfig(tmp_path / "causal_conv1d" / "..", cache=False, jobs=1))
    assert not [f for f in own.findings if f.code == "scan.package.causal-conv1d"]
    used = api.scan(ScanConfig(elsewhere, cache=False, jobs=1))
    assert [f.location for f in used.findings if f.code == "scan.package.causal-conv1d"] == ["app/model.py:1"]


def test_a_project_whose_extension_name_is_a_variable_is_still_not_its_own_dependency(tmp_path: Path) -> None:
    """turboderp/exllamav2 names its extension in a variable (`CUDAExtension(extension_name, ...)`) and imports
    `exllamav2_ext`, an import name of the exllamav2 package the knowledge base knows: scanning exllamav2 itself,
    that is no dependency. A project that only uses it still gets the finding."""
    (tmp_path / "exllamav2").mkdir()
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
        "extension_name = 'exllamav2_ext'\n"
        "setup(name='exllamav2', packages=['exllamav2'],\n"
        "      ext_modules=[CUDAExtension(extension_name, ['exllamav2/ext.cpp'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n")
    (tmp_path / "exllamav2" / "__init__.py").write_text("")
    (tmp_path / "exllamav2" / "ext.py").write_text("try:\n    import exllamav2_ext\nexcept ModuleNotFoundError:\n"
                                                   "    exllamav2_ext = None\n")
    itself = api.scan(ScanConfig(tmp_path, cache=False, jobs=1))
    assert not [f for f in itself.findings if f.code == "scan.package.exllamav2"]
    user = tmp_path / "user"
    (user / "app").mkdir(parents=True)
    (user / "app" / "__init__.py").write_text("")
    (user / "app" / "infer.py").write_text("import exllamav2_ext\n")
    used = api.scan(ScanConfig(user, cache=False, jobs=1))
    assert [f.location for f in used.findings if f.code == "scan.package.exllamav2"] == ["app/infer.py:1"]


def test_a_back_end_whose_modules_import_each_other_is_optional_when_only_a_guarded_import_loads_it(
        tmp_path: Path) -> None:
    """black-forest-labs/flux (scan corpus 19): `flux.trt` is imported only inside a function (`--trt`), and its
    engine and config modules import each other (a cycle); the whole back end is an optional feature. The same
    modules imported at the top of the CLI are core. A package inside a sub-project that imports itself by its own
    name (Vahe1994/AQLM's `inference_lib/src/aqlm`) is still core."""
    (tmp_path / "src" / "app" / "trt").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    (tmp_path / "src" / "app" / "__init__.py").write_text("")
    cli = "def main(trt=False):\n    if trt:\n        from app.trt.manager import Manager\n        Manager()\n"
    (tmp_path / "src" / "app" / "cli.py").write_text(cli)
    trt = tmp_path / "src" / "app" / "trt"
    (trt / "__init__.py").write_text("from app.trt.config import Config\nfrom app.trt.manager import Manager\n")
    (trt / "config.py").write_text("import tensorrt as trt\nfrom app.trt.engine import Engine\n\nclass Config:\n"
                                   "    pass\n")
    (trt / "engine.py").write_text("import tensorrt as trt\nfrom app.trt.config import Config\n\nclass Engine:\n"
                                   "    pass\n")
    (trt / "manager.py").write_text("from app.trt.engine import Engine\n\nclass Manager:\n    pass\n")
    guarded = api.scan(ScanConfig(tmp_path, cache=False, jobs=1))
    assert guarded.outcome.verdict.value == "PORTABLE", guarded.outcome.summary
    assert "blocker" in guarded.outcome.summary and "all of them outside the core: feature app.trt: blocked" in (
        guarded.outcome.summary)  # a new user reading "PORTABLE: 2 blockers" learns where they are
    assert {f.evidence["component"] for f in guarded.findings if f.code == "scan.package.tensorrt"} == {
        "feature app.trt"}
    (tmp_path / "src" / "app" / "cli.py").write_text("from app.trt.manager import Manager\n\n" + cli)
    assert api.scan(ScanConfig(tmp_path, cache=False, jobs=1)).outcome.verdict.value == "BLOCKED"
    from gpuready.scanner.components import optional_modules

    aqlm = {"inference_lib/src/aqlm/__init__.py": [("aqlm.inference|QuantizedLinear", False)],
            "inference_lib/src/aqlm/inference.py": [("aqlm.utils|unpack", False), ("aqlm|kernels", False)],
            "inference_lib/src/aqlm/utils.py": [("torch", False)]}
    assert optional_modules(aqlm) == {}
    guarded_self = {"lib/src/pkg/__init__.py": [("pkg.ops|fused", False)], "lib/src/pkg/ops.py": [("pkg|_C", True)]}
    assert optional_modules(guarded_self) == {}, "a guarded import of its own package from inside is no way in"
    shim = {"myproj/__init__.py": [], "myproj/utils/__init__.py": [], "main.py": [("myproj|run", False)],
            "myproj/utils/vllm/__init__.py": [("vllm|LLM", False)]}
    assert optional_modules(shim) == {"myproj/utils/vllm/__init__.py": "myproj.utils.vllm"}  # an integration
