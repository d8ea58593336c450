"""The scanner's ROCm awareness and project layout, on small sources written for the purpose: preprocessor
branches that ROCm does not compile, Python vendor branches, multi-line inline PTX, components (tests, features,
sub-projects, optional modules), version-aware pins, build/CI/container files. The real-repository numbers are in
benchmarks/scan_accuracy.py and tests/unit/scanner/test_scan_corpus.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuready.model.results import Finding, Severity
from gpuready.scanner.build_files import (
    CUDA_WHEELS,
    analyse_ci,
    analyse_cmake,
    analyse_compose,
    analyse_dockerfile,
    analyse_docs,
    analyse_gitmodules,
    installed_by,
    nvcc_flag,
)
from gpuready.scanner.cfamily import analyse_cfamily, branches, without_comments
from gpuready.scanner.components import component_of, optional_modules, requirements_component, subprojects
from gpuready.scanner.dependencies import analyse_pyproject, analyse_setup_py
from gpuready.scanner.engine import classify, component_verdicts, deciding, scan_tree, verdict
from gpuready.scanner.kb import KnowledgeBase, load_kb
from gpuready.scanner.kernels import compile_rules
from gpuready.scanner.python_source import analyse_python


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_kb()


def _rules(kb: KnowledgeBase) -> list:  # type: ignore[type-arg]
    return compile_rules(kb.patterns.rules, "kernel.")


def _rule_lines(text: str, kb: KnowledgeBase) -> list[tuple[str, int]]:
    return [(h.rule, h.line) for h in analyse_cfamily(text, _rules(kb))]


def test_cuda_only_code_next_to_a_rocm_branch_is_credited_not_reported(kb: KnowledgeBase) -> None:
    text = ("#include <cuda_runtime.h>\n#ifndef USE_ROCM\n  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(x));\n"
            "#else\n  x = __lane_id();\n#endif\n")
    assert _rule_lines(text, kb) == [("credit.rocm_branch", 3)]
    alone = text.replace("#ifndef USE_ROCM\n", "").replace("#else\n  x = __lane_id();\n#endif\n", "")
    assert ("kernel.inline_ptx", 2) in _rule_lines(alone, kb)


def test_cuda_std_mapped_to_std_in_the_rocm_branch_is_credited(kb: KnowledgeBase) -> None:
    """mamba's selective-scan headers: ``namespace cuda { namespace std = ::std; }`` under ROCm makes their
    ``cuda::std::forward`` the standard library's there; libcu++ beyond std (atomic_ref ...) is still reported."""
    shim = ("#ifndef USE_ROCM\n#include <cuda/std/type_traits>\n#else\n#include <hipcub/hipcub.hpp>\n"
            "namespace cuda {\n    namespace std = ::std;\n}\n#endif\n__device__ void f(T* p, U&& v) {\n"
            "  *p = ::cuda::std::forward<U>(v);\n}\n")
    assert not any(rule == "kernel.libcudacxx" for rule, _ in _rule_lines(shim, kb))
    atomic = shim.replace("*p = ::cuda::std::forward<U>(v);", "cuda::atomic_ref<int> r(*p);")
    assert ("kernel.libcudacxx", 10) in _rule_lines(atomic, kb)
    unshimmed = shim.replace("    namespace std = ::std;\n", "")
    assert ("kernel.libcudacxx", 9) in _rule_lines(unshimmed, kb)


def test_a_cuda_arch_branch_with_another_implementation_in_its_else_is_the_cuda_path(kb: KnowledgeBase) -> None:
    """AutoGPTQ's exllama: ``#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700`` cublasSgemmEx ``#else``
    cublasHgemm: HIP does not define __CUDA_ARCH__, so ROCm compiles the #else. Marlin's ``#else assert(0);`` is
    no alternative: its mma stays reported."""
    text = ("#include <cuda_runtime.h>\n#if defined(USE_ROCM)\n#include \"hip_compat.cuh\"\n#endif\n"
            "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700\n  cublasSgemmEx(h, a, b);\n#else\n"
            "  cublasHgemm(h, a, b);\n#endif\n")
    assert not any(rule == "kernel.unsupported_cuda_api" for rule, _ in _rule_lines(text, kb))
    trap = ("#include <cuda_runtime.h>\n#if defined(USE_ROCM)\n#include \"hip_compat.cuh\"\n#endif\n"
            "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n  wmma::mma_sync(c, a, b, c);\n#else\n"
            "  assert(0);\n#endif\n")
    assert ("kernel.mma", 6) in _rule_lines(trap, kb)


def test_an_extension_built_only_when_not_on_rocm_is_a_feature(tmp_path: Path, kb: KnowledgeBase) -> None:
    """AutoGPTQ's setup.py builds Marlin under ``if not ROCM_VERSION and COMPILE_MARLIN``: its kernels are a
    CUDA-only feature, not the core."""
    (tmp_path / "setup.py").write_text(
        "import os\nfrom torch.utils import cpp_extension\nROCM_VERSION = os.environ.get('ROCM_VERSION')\n"
        "ext = []\nif not ROCM_VERSION and COMPILE_MARLIN:\n    ext.append(cpp_extension.CUDAExtension("
        "'pkg_marlin', ['csrc/marlin/marlin.cpp', 'csrc/marlin/kernel.cu']))\n", encoding="utf-8")
    (tmp_path / "csrc" / "marlin").mkdir(parents=True)
    (tmp_path / "csrc" / "marlin" / "kernel.cu").write_text(
        "#include <cuda_runtime.h>\n__global__ void k() {\n  asm volatile(\"mma.sync.aligned.m16n8k16\");\n}\n",
        encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache_dir=tmp_path / "cache")
    kernel = [f for f in report.findings if f.location.startswith("csrc/marlin/kernel.cu")]
    assert kernel and all(f.evidence["component"] == "feature pkg_marlin" for f in kernel)
    assert report.verdict != "blocked"


def test_a_cuda_arch_guard_is_no_rocm_path(kb: KnowledgeBase) -> None:
    text = "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n  wmma::mma_sync(c, a, b, c);\n#endif\n"
    assert ("kernel.mma", 2) in _rule_lines(text, kb)


def test_branches_follow_else_elif_and_nesting() -> None:
    lines = without_comments("#if defined(USE_ROCM)\na\n#elif CUDA_VERSION > 11\nb\n#else\nc\n#endif\n"
                             "#ifdef __HIP_PLATFORM_AMD__\n#ifdef X\nd\n#endif\n#else\ne\n#endif\n")
    states = dict(zip(lines, branches(lines), strict=True))
    assert (states["a"], states["b"], states["c"], states["d"], states["e"]) == (
        "rocm", "cuda", "cuda", "rocm", "cuda")


def test_inline_ptx_whose_string_starts_on_the_next_line(kb: KnowledgeBase) -> None:
    text = "__device__ void f() {\n  asm volatile(\n      \"mma.sync.aligned.m16n8k16.row.col.f32.bf16\"\n  );\n}\n"
    assert ("kernel.inline_ptx", 2) in _rule_lines(text, kb)


def test_comments_do_not_count_and_lane_math_matters_only_with_warp_sync(kb: KnowledgeBase) -> None:
    assert _rule_lines("// asm volatile(\"mov.u32 %0, 1;\");\n/* cutlass::gemm */\nint a;\n", kb) == []
    plain = "__global__ void k() { int off = threadIdx.x % 32; out[off] = 1; }\n"
    assert _rule_lines(plain, kb) == []
    assert ("kernel.warp_size_32", 1) in _rule_lines(plain + "float v = __shfl_down_sync(0xffffffff, x, 1);\n", kb)


def test_lane_math_beside_width_bounded_shuffles_is_a_logical_32_lane_group(kb: KnowledgeBase) -> None:
    """bitsandbytes' gemm_4bit_simt.cu: ``threadIdx.x & 31`` beside shuffles that pass width 32 (and a CUDA-only
    ``__shfl_down_sync`` tree in the #else of its HIP branch) is consistent on 64-lane wavefronts."""
    lane = "__global__ void k() { int lane = threadIdx.x & 31; }\n"
    bounded = "float a = __shfl_sync(MASK, x, lane >> 4, 32);\n"
    assert "kernel.warp_size_32" not in [r for r, _ in _rule_lines(lane + bounded, kb)]
    branch = "#if BNB_HIP\nv += __shfl_xor(v, 16, 32);\n#else\nv += __shfl_down_sync(MASK, v, 1);\n#endif\n"
    assert "kernel.warp_size_32" not in [r for r, _ in _rule_lines(lane + branch, kb)]
    unbounded = "float b = __shfl_down_sync(MASK, x, 1);\n"  # the whole (64-lane) wavefront on ROCm
    assert ("kernel.warp_size_32", 1) in _rule_lines(lane + unbounded, kb)
    assert ("kernel.warp_size_32", 1) in _rule_lines(lane + bounded + "unsigned m = __ballot_sync(MASK, p);\n", kb)


def test_a_projects_own_shuffle_macro_reading_a_lane_by_number_is_warp_synchronous(kb: KnowledgeBase) -> None:
    """pytorch_sparse's spmm: ``lane_idx = thread_idx & (32 - 1)`` then ``SHFL_SYNC(FULL_MASK, v, i)`` (lanes 32-63
    read lanes 0-31 of a wavefront); pytorch_scatter's segment_coo scans with ``SHFL_UP_SYNC`` only (left alone)."""
    lane = "__global__ void k() { int lane_idx = thread_idx & (32 - 1); }\n"
    assert ("kernel.warp_size_32", 1) in _rule_lines(lane + "v = SHFL_SYNC(FULL_MASK, row, i);\n", kb)
    assert "kernel.warp_size_32" not in [r for r, _ in _rule_lines(lane + "v = SHFL_UP_SYNC(FULL_MASK, v, i);\n", kb)]


def test_a_named_warp_width_of_32_counts_without_shuffles_and_tensor_core_tiles_are_warp_synchronous(
        kb: KnowledgeBase) -> None:
    """flash-fft-conv's `#define WARP_SIZE 32` beside wmma tiles, llm.c's `#define WARP_SIZE 32U` in a header with
    no shuffle; a bare `threadIdx.x % 32` still needs warp-synchronous code (marlin's is beside mma.sync PTX)."""
    assert ("kernel.warp_size_32", 2) in _rule_lines("#include <cuda_runtime.h>\n#define WARP_SIZE 32U\n", kb)
    assert ("kernel.warp_size_32", 2) in _rule_lines("#include <cuda_runtime.h>\nconstexpr int kWarpSize = 32;\n", kb)
    lane = "__global__ void k() { int lane = threadIdx.x % 32; }\n"
    assert _rule_lines("#include <cuda_runtime.h>\n" + lane, kb) == []
    assert ("kernel.warp_size_32", 2) in _rule_lines("#include <mma.h>\n" + lane + "wmma::fragment<a> f;\n", kb)
    # curobo: the warp width redefined as `warpSize` (the CUDA built-in's own name), and lane 0 of each warp taking
    # the result of the project's own warp reduction (kinematics_backward_kernel.cuh)
    assert ("kernel.warp_size_32", 2) in _rule_lines("#include <cuda_runtime.h>\nconstexpr int warpSize = 32;\n", kb)
    reduced = ("#include <cuda_runtime.h>\n__global__ void k(float* out, float v) {\n"
               "  v = curobo::common::warp_reduce_sum(v, 32);\n  if (threadIdx.x % 32 == 0) out[0] = v;\n}\n")
    assert ("kernel.warp_size_32", 4) in _rule_lines(reduced, kb)
    assert ("kernel.warp_size_32", 4) in _rule_lines(reduced.replace("warp_reduce_sum", "warpReduceMax"), kb)
    assert _rule_lines(reduced.replace("warp_reduce_sum", "block_reduce_sum"), kb) == []


def test_an_error_only_else_is_no_other_implementation_and_more_ptx_instructions(kb: KnowledgeBase) -> None:
    """FlashMLA's sm100 kernels: `#if __CUDA_ARCH__ >= 1000 ... #else if (thread0()) { CUTE_INVALID_CONTROL_PATH(..) }`
    has no ROCm implementation, so the 32-lane code in it is reported; Liger's prefetch PTX."""
    kernel = ("#include <cuda_runtime.h>\n__device__ void f() {\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000\n"
              "  int w = __shfl_sync(0xffffffff, threadIdx.x / 128, 0);\n#else\n  if (cute::thread0()) {\n"
              "    CUTE_INVALID_CONTROL_PATH(\"sm100 only\");\n  }\n#endif\n}\n")
    assert ("kernel.full_warp_mask", 4) in _rule_lines(kernel, kb)
    fallback = kernel.replace('if (cute::thread0()) {\n    CUTE_INVALID_CONTROL_PATH(\"sm100 only\");\n  }',
                              "w = __shfl(threadIdx.x / 128, 0);")
    assert ("kernel.full_warp_mask", 4) not in _rule_lines(fallback, kb)
    assert ("kernel.inline_ptx", 2) in _rule_lines(
        '#include <cuda_runtime.h>\n  asm volatile("prefetch.global.L2 [%0];" :: "l"(ptr));\n', kb)


@pytest.mark.parametrize(("line", "rule"), [
    ("  auto s = cg::reduce(tile, v, cg::plus<float>());", "kernel.cooperative_groups_unsupported"),
    ("#include <cooperative_groups/reduce.h>", "kernel.cooperative_groups_unsupported"),
    ("#include <cuda/std/optional>", "kernel.libcudacxx"),
    ("  cuda::atomic_ref<int> ref(x);", "kernel.libcudacxx"),
    ("  k<< <grid, block >> >(x);", "kernel.launch_spaced_chevrons"),
    ("  nvrtcCompileProgram(prog, 0, nullptr);", "kernel.nvrtc"),
    ("#include <nvshmem.h>", "kernel.nvshmem"),  # DeepEP's GPU-initiated all-to-all
    ("  nvshmemx_barrier_all_on_stream(stream);", "kernel.nvshmem"),
    ('#include "NvInfer.h"', "kernel.tensorrt"),  # torch2trt's plugins, tensorrt-cpp-api's engine
    ("#include <NvOnnxParser.h>", "kernel.tensorrt"),
    ("  std::unique_ptr<nvinfer1::IBuilder> builder;", "kernel.tensorrt"),
    ("  auto g = cooperative_groups::tiled_partition<32>(block); __shfl_sync(0xffffffff, v, 0);",
     "kernel.warp_size_32"),
])
def test_kernel_classes(line: str, rule: str, kb: KnowledgeBase) -> None:
    assert rule in {r for r, _ in _rule_lines("#include <cuda_runtime.h>\n" + line + "\n", kb)}


def test_a_cpp_file_that_includes_only_tensorrt_is_read_for_kernel_patterns() -> None:
    from gpuready.scanner.cfamily import uses_cuda

    assert uses_cuda('#pragma once\n#include "NvInfer.h"\n') and not uses_cuda('#include "NvidiaLike.h"\n')
    assert uses_cuda("#include <TensorRT/NvInfer.h>\n") and uses_cuda("static nvinfer1::ILogger* logger;\n")
    assert uses_cuda("__global__ void k(float* x) {}\n") and uses_cuda('  asm volatile("ldmatrix.sync.aligned" : :);\n')
    assert not uses_cuda("#include <vector>\nint plasma_asm_count = 0;  // 'asm' inside a word\n")


def test_python_vendor_branches_and_feature_switches() -> None:
    branch = analyse_python("import torch\nif torch.version.hip:\n    pass\nelse:\n    print(torch.version.cuda)\n")
    assert [h.rule for h in branch if not h.rule.endswith("import")] == ["credit.rocm_branch"]
    switch = analyse_python("import os\nif os.getenv('MY_EXT') == '1':\n"
                            "    from torch.utils.cpp_extension import load\n    load(name='x', sources=['k.cu'])\n")
    extension = next(h for h in switch if h.rule == "python.cpp_extension_cuda")
    assert extension.optional, "an extension built only behind an environment switch is optional"


def test_a_function_chosen_only_on_the_cuda_side_of_a_vendor_if_is_the_cuda_path() -> None:
    """fla's softplus: the PTX version is bound only when IS_NVIDIA, a plain Triton one otherwise."""
    source = ("import triton.language as tl\n\ndef softplus_nv(x):\n    return tl.inline_asm_elementwise(asm='x')\n\n"
              "def softplus_triton(x):\n    return x\n\nif IS_NVIDIA:\n    softplus = softplus_nv\nelse:\n"
              "    softplus = softplus_triton\n")
    rules = [h.rule for h in analyse_python(source)]
    assert "triton.inline_asm" not in rules and "credit.rocm_branch" in rules
    no_other_side = source.replace("else:\n    softplus = softplus_triton\n", "")
    assert "triton.inline_asm" in [h.rule for h in analyse_python(no_other_side)]
    used_elsewhere = source + "y = softplus_nv(1)\n"
    assert "triton.inline_asm" in [h.rule for h in analyse_python(used_elsewhere)]


def test_code_after_a_rocm_early_return_or_a_cuda_test_in_an_and_is_the_cuda_path() -> None:
    """unsloth: ``if DEVICE_TYPE in ("xpu", "hip"): return False`` before a Hopper check, and
    ``torch.version.cuda and torch.cuda.get_device_capability() >= (9, 0)``."""
    early = ("import torch\ndef tma():\n    if DEVICE_TYPE in ('xpu', 'hip'):\n        return False\n"
             "    return torch.cuda.get_device_capability()[0] >= 9\n")
    assert "python.capability_gate" not in [h.rule for h in analyse_python(early)]
    late = early.replace("        return False\n", "        pass\n")
    assert "python.capability_gate" in [h.rule for h in analyse_python(late)]
    anded = "import torch\nok = torch.version.cuda and torch.cuda.get_device_capability() >= (9, 0)\n"
    assert "python.capability_gate" not in [h.rule for h in analyse_python(anded)]
    ored = anded.replace(" and ", " or ")
    assert "python.capability_gate" in [h.rule for h in analyse_python(ored)]


def test_a_test_of_torch_version_cuda_guarding_a_read_of_it_handles_none() -> None:
    """pytorch_cluster's __init__.py: ``if torch.version.cuda is not None and ...:`` around
    ``torch.version.cuda.split('.')`` is the None (ROCm) handling; a branch on it that does something else is not."""
    guard = ("import torch\nif torch.version.cuda is not None and v != -1:\n"
             "    major = torch.version.cuda.split('.')[0]\n")
    assert "python.version_cuda" not in [h.rule for h in analyse_python(guard)]
    chooser = "import torch\nif torch.version.cuda is not None:\n    device = 'cuda'\n"
    assert "python.version_cuda" in [h.rule for h in analyse_python(chooser)]


def test_a_cuda_version_test_whose_else_is_another_implementation_is_the_cuda_path(kb: KnowledgeBase) -> None:
    """Megatron's fused softmax: ``#if CUDA_VERSION >= 9000 __shfl_xor_sync(...) #else __shfl_xor(...) #endif``:
    HIP does not define CUDA_VERSION and compiles the #else; with nothing (or a trap) there, the test is reported."""
    shuffle = ("#if CUDA_VERSION >= 9000\n    return __shfl_xor_sync(mask, v, m, w);\n#else\n"
               "    return __shfl_xor(v, m, w);\n#endif\n")
    assert "kernel.cuda_version_macro" not in [r for r, _ in _rule_lines(shuffle, kb)]
    trap = shuffle.replace("    return __shfl_xor(v, m, w);\n", "    __trap();\n")
    assert ("kernel.cuda_version_macro", 1) in _rule_lines(trap, kb)
    below = shuffle.replace(">= 9000", "< 9000")  # ROCm takes the #if: not a CUDA-only branch
    assert ("kernel.cuda_version_macro", 1) in _rule_lines(below, kb)


def test_nvidia_only_helpers_predicates_and_lists_of_names() -> None:
    """flash-linear-attention: a helper called only in the ``elif platform == 'nvidia'`` link of a chain, and
    ``def has_usable_nvcc(): os.environ.get("CUDA_HOME")``; unsloth: a frozenset of attention names and
    ``f"cuda {torch.version.cuda}"``."""
    chain = ("import subprocess\ndef used():\n    return subprocess.run(['nvidia-smi', '-q'])\n"
             "def check():\n    if platform == 'intel':\n        m = 0\n    elif platform == 'nvidia':\n"
             "        m = used()\n")
    assert "python.nvidia_smi_call" not in [h.rule for h in analyse_python(chain)]
    assert "python.nvidia_smi_call" in [h.rule for h in analyse_python(chain.replace("m = 0", "m = used()"))]
    three = chain.replace("    elif platform == 'nvidia':", "    elif platform == 'amd':\n        m = 1\n"
                          "    elif platform == 'nvidia':")  # each link once, however long the chain
    assert "python.nvidia_smi_call" not in [h.rule for h in analyse_python(three)]
    probe = "import os\ndef has_usable_nvcc():\n    return os.environ.get('CUDA_HOME') is not None\n"
    assert "python.cuda_home" not in [h.rule for h in analyse_python(probe)]
    assert "python.cuda_home" in [h.rule for h in analyse_python(probe.replace("has_usable_nvcc", "nvcc_path"))]
    names = "IMPLS = frozenset({'flash_attention_2', 'sdpa', 'flex_attention'})\n"
    assert "python.flash_attention_2_config" not in [h.rule for h in analyse_python(names)]
    chosen = "model = load(attn_implementation='flash_attention_2')\n"
    assert "python.flash_attention_2_config" in [h.rule for h in analyse_python(chosen)]
    # 2noise/ChatTTS (scan corpus 18): chosen only where flash-attn is installed, a feature the user opts into
    probed = ("def build(self, config):\n    if self.use_flash_attn and is_flash_attn_2_available():\n"
              "        return LlamaConfig(**config, attn_implementation='flash_attention_2')\n"
              "    return LlamaConfig(**config)\n")
    hit = next(h for h in analyse_python(probed) if h.rule == "python.flash_attention_2_config")
    assert hit.optional
    unprobed = probed.replace(" and is_flash_attn_2_available()", "")
    assert not next(h for h in analyse_python(unprobed) if h.rule == "python.flash_attention_2_config").optional
    for probe in ("torch.cuda.is_available()", "is_torch_cuda_available()", "is_torch_npu_available()",
                  "not is_flash_attn_2_available()"):  # a GPU being there is no opt-in; nor is the package's absence
        other = probed.replace("is_flash_attn_2_available()", probe)
        assert not next(h for h in analyse_python(other) if h.rule == "python.flash_attention_2_config").optional
    flags = "FLAGS = ['-O3', '--expt-relaxed-constexpr']\n"  # an nvcc flag list is still read
    assert "build.nvcc_flags" in [h.rule for h in analyse_python(flags)]
    shown = "import torch\nprint(f'cuda {torch.version.cuda}')\n"
    assert "python.version_cuda" not in [h.rule for h in analyse_python(shown)]
    split = "import torch\nv = torch.version.cuda.split('.')\n"
    assert "python.version_cuda" in [h.rule for h in analyse_python(split)]


def test_torch_version_cuda_as_one_of_several_conditions_of_a_fast_path_is_the_cuda_path() -> None:
    """optimum-quanto: ``if qtype == qint4 and ... and (dev == "cuda" and torch.version.cuda) and cap >= 8 and ...``
    picks an AWQ kernel on CUDA and the generic tensor otherwise; ``"cuda" if torch.version.cuda else "cpu"`` does
    not."""
    fast = ("import torch\nif qtype == 4 and size >= 128 and (dev == 'cuda' and torch.version.cuda) and ok():\n"
            "    t = Awq()\n")
    assert "python.version_cuda" not in [h.rule for h in analyse_python(fast)]
    device = "import torch\ndevice = 'cuda' if torch.version.cuda else 'cpu'\n"
    assert "python.version_cuda" in [h.rule for h in analyse_python(device)]
    two = "import torch\nif torch.version.cuda and ok():\n    t = Awq()\n"  # two conditions: no fast path shown
    assert "python.version_cuda" in [h.rule for h in analyse_python(two)]


def test_capability_gates_that_misbranch_on_amd_only() -> None:
    def gates(expression: str) -> int:
        return sum(h.rule == "python.capability_gate" for h in analyse_python(
            f"import torch\nok = {expression}\n"))
    assert gates("torch.cuda.get_device_capability()[0] >= 8") == 0  # Ampere or newer: true on MI200/MI300 too
    assert gates("torch.cuda.get_device_capability()[0] >= 9") == 1  # Hopper: MI300X (9, 4) passes it wrongly
    assert gates("torch.cuda.get_device_capability() == (8, 0)") == 0  # no AMD GPU reports 8.x: as on an H100
    assert gates("torch.cuda.get_device_capability() == (9, 0)") == 1  # MI200 reports (9, 0): takes the Hopper path


@pytest.mark.parametrize(("path", "component"), [
    ("tests/test_x.py", "tests"), ("benchmarks/b.py", "benchmarks"), ("examples/a.py", "examples"),
    ("docs/conf.py", "docs"), (".github/workflows/ci.yml", "ci"), ("packaging/build_conda.py", "ci"),
    ("setup.py", "build"), ("docker/Dockerfile", "build"), ("pkg/model.py", "core"), ("pkg/test_model.py", "tests"),
])
def test_components_from_paths(path: str, component: str) -> None:
    assert component_of(path) == component


def test_requirements_files_name_their_feature() -> None:
    assert requirements_component("requirements/requirements-moe.txt") == "feature moe"
    assert requirements_component("requirements-dev.txt") == "tests"
    assert requirements_component("requirements.txt") is None
    assert requirements_component("requirements/base.txt") is None


def test_sub_projects_and_optional_modules() -> None:
    assert subprojects(["setup.py", "csrc/ext/setup.py", "setup_cuda.py", "pkg/__init__.py"]) == (
        "csrc/ext/", "setup_cuda.py")
    assert subprojects(["setup.py", "hqq/kernels/setup_cuda.py", "hqq/core.py"]) == ("hqq/kernels/setup_cuda.py",)
    assert subprojects(["lib_a/setup.py", "lib_b/tools/setup.py"]) == ("lib_b/tools/",)  # no root build
    imports = {
        "pkg/__init__.py": [(".core|run", False), (".backends.fast|Fast", True)],
        "pkg/core.py": [],
        "pkg/backends/__init__.py": [],
        "pkg/backends/fast.py": [(".helpers|h", False)],
        "pkg/backends/helpers.py": [],
        "tests/test_fast.py": [("pkg.backends.fast|Fast", False)],  # tests do not make it core
    }
    assert optional_modules(imports) == {"pkg/backends/__init__.py": "pkg.backends",
                                         "pkg/backends/fast.py": "pkg.backends",
                                         "pkg/backends/helpers.py": "pkg.backends"}


def test_a_package_named_after_an_extra_that_nothing_outside_imports_is_that_feature() -> None:
    """Liger-Kernel: ``ops/cutile/`` registers itself by name (``LIGER_KERNEL_IMPL=cutile``) and its dependency
    comes with ``pip install liger-kernel[cutile]``; a package named after an extra that core imports stays core."""
    imports = {
        "src/pkg/__init__.py": [(".ops|run", False)],
        "src/pkg/ops/__init__.py": [(".fast|f", False)],
        "src/pkg/ops/fast.py": [],
        "src/pkg/ops/cutile/__init__.py": [("pkg.registry|register", False)],
        "src/pkg/ops/cutile/ops/__init__.py": [(".rms|rms", False)],
        "src/pkg/ops/cutile/ops/rms.py": [("cuda.tile|", False)],
        "src/pkg/ops/cpu/__init__.py": [],
    }
    chosen = optional_modules(imports, ["cutile", "cpu", "dev"])
    assert chosen == dict.fromkeys(["src/pkg/ops/cutile/__init__.py", "src/pkg/ops/cutile/ops/__init__.py",
                                    "src/pkg/ops/cutile/ops/rms.py"], "pkg.ops.cutile") | {
        "src/pkg/ops/cpu/__init__.py": "pkg.ops.cpu"}
    imports["src/pkg/ops/__init__.py"].append((".cutile.ops|rms", False))  # core imports it: not optional
    assert set(optional_modules(imports, ["cutile"])) == set()
    assert optional_modules(imports) == {}
    helper = ("from setuptools import setup\ndef get_optional_dependencies():\n    deps = ['cuda-tile']\n"
              "    return {'cutile': deps, 'dev': ['pytest']}\n"
              "setup(name='x', extras_require=get_optional_dependencies())\n")
    assert [(h.rule, h.detail, h.line) for h in analyse_setup_py(helper) if h.rule == "extra_name"] == [
        ("extra_name", "cutile", 4), ("extra_name", "dev", 4)]
    literal = "from setuptools import setup\nsetup(name='x', extras_require={'flash': ['flash-attn']})\n"
    assert [h.detail for h in analyse_setup_py(literal) if h.rule == "extra_name"] == ["flash"]
    project = '[project]\nname = "x"\n[project.optional-dependencies]\ncutile = ["cuda-tile"]\n'
    assert [h.detail for h in analyse_pyproject(project) if h.rule == "extra_name"] == ["cutile"]


def test_kernels_inside_an_optional_package_belong_to_its_feature(tmp_path: Path, kb: KnowledgeBase) -> None:
    """optimum-quanto: ``if torch.cuda.is_available(): if torch.version.cuda: from .cuda import *`` and the .cu files
    under ``extensions/cuda/`` compiled by that package when loaded; with a root build that compiles extensions,
    the same sources are the install's."""
    files = {
        "setup.py": "from setuptools import setup\nsetup(name='q')\n",
        "q/__init__.py": "from .ext import *\n",
        "q/ext/__init__.py": "import torch\nif torch.cuda.is_available():\n    from .cuda import *\n",
        "q/ext/cuda/__init__.py": "from torch.utils.cpp_extension import load\n",
        "q/ext/cuda/awq/gemm.cu": ("__global__ void k() { int lane = threadIdx.x % 32; "
                                   "__shfl_xor_sync(0xffffffff, v, 1); }\n"),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    lanes = [f for f in report.findings if f.code == "scan.kernel.warp_size_32"]
    assert lanes and all(f.evidence["component"] == "feature q.ext.cuda" for f in lanes)
    assert verdict(report.findings) == "portable"
    (tmp_path / "setup.py").write_text("from setuptools import setup\nfrom torch.utils.cpp_extension import "
                                       "BuildExtension, CUDAExtension\nsetup(name='q', cmdclass={'build_ext': "
                                       "BuildExtension})\n")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert verdict(report.findings) == "blocked"


def test_build_ci_and_container_files() -> None:
    assert [h.rule for h in analyse_cmake("project(x LANGUAGES CXX CUDA)\nfind_package(CUDAToolkit)\n")] == [
        "build.cmake_cuda"]
    assert [h.rule for h in analyse_cmake("project(x LANGUAGES CXX CUDA HIP)\nenable_language(HIP)\n")] == [
        "credit.rocm_build"]
    assert [h.line for h in analyse_dockerfile("ARG X\nFROM nvcr.io/nvidia/pytorch:24.01-py3\nRUN pip install .\n")
            ] == [2]
    assert [h.rule for h in analyse_ci("run: pip install torch --index-url https://download.pytorch.org/whl/cu121\n"
                                       "run: pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\n")
            if h.rule.startswith("ci.")] == ["ci.cuda_wheels"]
    assert len(analyse_gitmodules('[submodule "c"]\n  url = https://github.com/NVIDIA/cutlass.git\n')) == 1
    matrix = ("matrix:\n  include:\n    - os: ubuntu-22.04\n      cuda: \"12.8\"\n"
              "    cuda-version: ['cu126', 'cu128']\n    rocm: ['6.2']\n    python: ['3.11']\n")
    assert [h.line for h in analyse_ci(matrix)] == [4, 5]  # CUDA versions as a matrix axis (gsplat, tiny-cuda-nn)


def test_cuda_builds_installed_by_shell_scripts_and_containers() -> None:
    """punica's ci/*.bash (the CUDA version in a shell variable), alpaca-lora's and alphafold's Dockerfiles (a torch
    nightly cu118 index; a jaxlib +cuda12.cudnn89 build), exllamav2's workflow (the NVIDIA conda channel)."""
    script = ('pip install torch==$V --index-url "https://download.pytorch.org/whl/cu${CUDA_MAJOR}${CUDA_MINOR}"\n'
              'VERSION="${V}+cu${CUDA_MAJOR}${CUDA_MINOR}" python -m build\n'
              "mamba install -y -c nvidia/label/cuda-$cudaVersion cuda-toolkit cuda-runtime\n"
              "conda install -y -c conda-forge numpy\n")
    assert [h.line for h in analyse_ci(script) if h.rule.startswith("ci.")] == [1, 2, 3]
    docker = ("FROM ubuntu:22.04\n"
              "RUN pip install --pre torch --index-url https://download.pytorch.org/whl/nightly/cu118\n"
              "RUN pip install jax==0.4.26 jaxlib==0.4.26+cuda12.cudnn89 \\\n"
              "      -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html\n"
              "RUN pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\n")
    assert [(h.rule, h.line) for h in analyse_dockerfile(docker)] == [
        ("ci.cuda_wheels", 2), ("ci.cuda_wheels", 3), ("ci.cuda_wheels", 4)]
    assert classify(Path("ci/run-ci-build-wheel.bash")) == "ci"


def test_a_triton_requirement_is_an_install_step_to_watch_not_a_verdict(kb: KnowledgeBase, tmp_path: Path) -> None:
    """whisper, FlagAttention, native-sparse-attention: ROCm torch brings pytorch-triton-rocm, which pip does not count
    as `triton`; the code stays portable."""
    (tmp_path / "requirements.txt").write_text("numpy\ntriton>=2.0.0;platform_machine==\"x86_64\"\n"
                                               "pytorch-triton-rocm\n", encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    install = [f for f in report.findings if f.code == "scan.install.named_otherwise_on_rocm"]
    assert [(f.location, f.severity.value) for f in install] == [("requirements.txt:2", "warn")]
    assert report.verdict == "portable"
    assert report.components == {"install": "needs alternatives"}


def test_nvrtc_in_a_file_that_branches_for_rocm_is_its_own_path(kb: KnowledgeBase) -> None:
    """tutel's custom_kernel.cpp: nvrtc* calls (hipify maps them to hipRTC) in a file that picks hipcc and hipRTC's
    options under __HIP_PLATFORM_AMD__; the same calls in a file with no ROCm branch are reported."""
    calls = "#include <nvrtc.h>\nvoid f() { nvrtcProgram p; nvrtcCreateProgram(&p, code, 0, 0, 0, 0); }\n"
    assert ("kernel.nvrtc", 1) in _rule_lines(calls, kb)
    branch = ("#if !defined(__HIP_PLATFORM_AMD__)\nconst char* cc = \"nvcc\";\n#else\nconst char* cc = \"hipcc\";\n"
              "#endif\n")
    rules = {rule for rule, _ in _rule_lines(calls + branch, kb)}
    assert "kernel.nvrtc" not in rules and "credit.rocm_branch" in rules


def test_triton_configs_of_32_warps_and_cutlass_built_by_cmake(kb: KnowledgeBase) -> None:
    """matmulfreellm's autotune lists (2,048 threads a block on 64-lane wavefronts); QuaRot's CMake that adds the
    CUTLASS submodule."""
    hits = analyse_python("import triton\nconfigs = [triton.Config({}, num_warps=16),\n"
                          "           triton.Config({}, num_warps=32)]\n")
    assert [(h.rule, h.line) for h in hits if h.rule.startswith("triton.")] == [("triton.num_warps_32", 3)]
    assert [h.rule for h in analyse_cmake("project(q LANGUAGES CXX)\nadd_subdirectory(third-party/cutlass)\n")] == [
        "build.cmake_cuda"]


def test_an_extension_built_only_under_cuda_version_is_the_cuda_path() -> None:
    """AutoAWQ_kernels' setup.py builds awq_ext only `if CUDA_VERSION:` (its PTX does not hipify), exl_ext always."""
    hits = analyse_python("import torch\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                          "CUDA_VERSION = torch.version.cuda\next = []\nif CUDA_VERSION:\n"
                          "    ext.append(CUDAExtension('awq_ext', ['a/gemm.cu']))\n"
                          "ext.append(CUDAExtension('exl_ext', ['b/q4.cu']))\n")
    assert [h.detail for h in hits if h.rule == "cuda_only_extension"] == ["awq_ext|a/gemm.cu"]


def test_tritons_matmul_performance_model_runs_nvidia_smi() -> None:
    """kernl's linear layer prunes autotune configs with triton.ops.matmul_perf_model, whose clock query runs
    nvidia-smi (ROCm/triton#515); triton.testing's other helpers do not."""
    hits = analyse_python("from triton.ops.matmul_perf_model import early_config_prune, estimate_matmul_time\n"
                          "from triton.testing import do_bench\n")
    assert [(h.rule, h.line) for h in hits if h.rule == "python.nvidia_smi_call"] == [("python.nvidia_smi_call", 1)]


def test_inline_ptx_written_from_python() -> None:
    """quack's CuTe DSL helpers (cute.arch.inline_ptx) and NVFP4 conversions (the MLIR llvm dialect's inline_asm)."""
    hits = analyse_python("import cutlass.cute as cute\nfrom cutlass._mlir.dialects import llvm\n\n\ndef f(a):\n"
                          "    cute.arch.inline_ptx('mov.b32 %0, 1;')\n    return llvm.inline_asm(t, [a], 'cvt')\n")
    assert [(h.rule, h.line) for h in hits if h.rule == "python.inline_ptx"] == [("python.inline_ptx", 6),
                                                                                  ("python.inline_ptx", 7)]


def test_a_root_pyproject_of_tool_settings_leaves_the_nested_package_the_project() -> None:
    """AQLM: the root pyproject.toml holds black/isort settings only; inference_lib/ (setup.cfg + pyproject) is what
    pip installs, so it is core; with a [project] table at the root it is a sub-project."""
    paths = ["pyproject.toml", "main.py", "inference_lib/pyproject.toml", "inference_lib/setup.cfg",
             "inference_lib/src/aqlm/__init__.py"]
    assert subprojects(paths, settings_only_root=True) == ()
    assert subprojects(paths) == ("inference_lib/",)


def test_install_commands_in_the_docs_are_read(kb: KnowledgeBase, tmp_path: Path) -> None:
    """nanotron's and LLaVA's READMEs (`pip install flash-attn --no-build-isolation`), big_vision's (jax[cuda] from
    the CUDA release page), pytorch_scatter's (PyG's wheel page for `+${CUDA}`): the docs' part, not the verdict; a
    README that installs the project itself names no dependency."""
    assert installed_by('-U "flash-attn>=2.5.0" --no-build-isolation -r requirements.txt -e . && echo ok') == [
        "flash-attn>=2.5.0"]
    assert installed_by("--no-binary :all: --config-settings editable_mode=compat xformers") == ["xformers"]
    readme = ("# x\n\n```bash\n$ pip install flash-attn --no-build-isolation\n"
              "pip install torch-scatter -f https://data.pyg.org/whl/torch-2.8.0+${CUDA}.html\n"
              "pip install myproj\n```\nWe install flash-attn for speed.\n")
    assert [(h.rule, h.line) for h in analyse_docs(readme)] == [
        ("requirement", 4), ("ci.cuda_wheels", 5), ("requirement", 5), ("requirement", 6)]
    (tmp_path / "myproj").mkdir()
    (tmp_path / "myproj" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "README.md").write_text(readme, encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert {(f.code, f.location, f.evidence["component"]) for f in report.findings} == {
        ("scan.package.flash-attn", "README.md:4", "docs"), ("scan.ci.cuda_wheels", "README.md:5", "docs"),
        ("scan.package.torch-scatter", "README.md:5", "docs")}
    assert report.verdict == "portable"
    # DeepSeek-V3's README shows its requirements file in a ```pip-requirements fence: each line is a requirement
    listed = "Install:\n```pip-requirements\ntorch==2.4.1\n# pinned\ntriton==3.0.0\n```\ntriton==3.0.0 works.\n"
    assert [(h.rule, h.line) for h in analyse_docs(listed)] == [
        ("requirement", 3), ("requirement", 5), ("install.named_otherwise_on_rocm", 5)]
    assert analyse_docs(listed.replace("pip-requirements", "text")) == []


def test_nvidia_smi_runs_in_ci_and_docs_but_not_mentions() -> None:
    """punica's ci/*.bash and nanotron's workflow steps run nvidia-smi; marlin's README locks clocks with it; a
    sentence that names it runs nothing."""
    ci = "steps:\n  - run: nvidia-smi -L\n  - name: show\n    run: |\n      nvidia-smi\n# nvidia-smi\n"
    assert [(h.rule, h.line) for h in analyse_ci(ci)] == [("ci.nvidia_smi", 2), ("ci.nvidia_smi", 5)]
    docs = ("```\nsudo nvidia-smi --lock-gpu-clocks=BASE\n"
            "docker run --rm --gpus all nvidia/cuda:11.0-base nvidia-smi\n```\nCheck that nvidia-smi lists your GPU.\n")
    assert [(h.rule, h.line) for h in analyse_docs(docs)] == [("ci.nvidia_smi", 2), ("ci.nvidia_smi", 3),
                                                              ("build.nvidia_container_runtime", 3)]


def test_containers_given_gpus_by_nvidia_runtime_and_ci_jobs_in_cuda_images(kb: KnowledgeBase, tmp_path: Path) -> None:
    """alpaca-lora's and exllama's compose files, alphafold's Docker SDK call, nanotron's and tutel's CI images:
    deployment, so the CI part; torch-ngp's and Pointnet2's nvcc-only flags."""
    compose = ("services:\n  app:\n    deploy:\n      resources:\n        reservations:\n          devices:\n"
               "            - driver: nvidia\n              capabilities: [gpu]\n    environment:\n"
               "      - NVIDIA_VISIBLE_DEVICES=all\n")
    assert [h.line for h in analyse_compose(compose)] == [7, 10]
    service = "services:\n  a:\n    image: nvidia/cuda:12.4.0-runtime-ubuntu22.04\n"
    assert [h.rule for h in analyse_compose(service)] == ["build.dockerfile_cuda_base"]
    python = analyse_python("import docker\nr = docker.types.DeviceRequest(driver='nvidia', capabilities=[['gpu']])\n")
    assert ("build.nvidia_container_runtime", 2) in [(h.rule, h.line) for h in python]
    job = "jobs:\n  t:\n    container:\n      image: runpod/pytorch:2.1.1-py3.10-cuda12.1.1-devel-ubuntu22.04\n"
    assert [(h.rule, h.line) for h in analyse_ci(job)] == [("build.dockerfile_cuda_base", 4)]
    assert classify(Path(".azure-pipelines/unit-test.yml")) == "ci"
    assert classify(Path("docker/docker-compose.yml")) == "compose"
    flags = ("-Xfatbin", "-compress-all", "-use_fast_math", "-U__CUDA_NO_HALF_OPERATORS__")
    assert all(nvcc_flag(flag) for flag in flags)
    assert not nvcc_flag("-D__CUDA_NO_HALF_OPERATORS__") and not nvcc_flag("-O3")
    (tmp_path / "docker-compose.yml").write_text(compose, encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert report.verdict == "portable" and report.components == {"ci": "needs alternatives"}


def test_review_findings_on_docs_names_pins_and_nvrtc(kb: KnowledgeBase, tmp_path: Path) -> None:
    """A list item or sentence in a README runs nothing; a vendored copy of a package is no reason to drop its
    requirement; a README's old pin does not make the project's own use a warning; NVRTC beside a ROCm branch that
    never names hipRTC or hipcc is still reported; a long hostile line is read in linear time."""
    assert analyse_docs("- nvidia-smi shows the GPU memory\npip install is all you need, then pip install x\n") == []
    assert [h.line for h in analyse_docs("    pip install flash-attn\n$ nvidia-smi\n")] == [1, 2]
    assert analyse_docs("docker run a " * 60 + "nvidia-smix\n") == [], "no backtracking blow-up"
    (tmp_path / "third_party" / "flash_attn").mkdir(parents=True)
    (tmp_path / "third_party" / "flash_attn" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "requirements.txt").write_text("flash-attn==2.5.8\n", encoding="utf-8")
    assert "scan.package.flash-attn" in {f.code for f in scan_tree(tmp_path, kb, jobs=1, cache=False).findings}
    pins = tmp_path / "pins"
    pins.mkdir()
    (pins / "README.md").write_text("```bash\npip install bitsandbytes==0.40.0\n```\n", encoding="utf-8")
    (pins / "train.py").write_text("import bitsandbytes as bnb\n", encoding="utf-8")
    assert scan_tree(pins, kb, jobs=1, cache=False).verdict == "portable"
    calls = "#include <nvrtc.h>\nvoid f() { nvrtcProgram p; nvrtcCreateProgram(&p, code, 0, 0, 0, 0); }\n"
    warp_macro = "#ifdef USE_ROCM\n#define WARP 64\n#else\n#define WARP 32\n#endif\n"
    assert "kernel.nvrtc" in {rule for rule, _ in _rule_lines(calls + warp_macro, kb)}
    assert analyse_cmake("add_subdirectory( " * 20000 + "\n") == []


def test_docs_name_cuda_builds_by_extra_and_dockerfiles_by_any_name() -> None:
    """gemma's adapter README (`pip install "jax[cuda13]"`: the CUDA build an install takes, as in a script), a +cu121
    pin reported once where its index line is; matmulfreellm's `mmfreelm_DockerFile`, sam2's `backend.Dockerfile`."""
    docs = analyse_docs('```\npip install -U "jax[cuda13]"\npip install torch==2.1.0+cu121 --index-url '
                        "https://download.pytorch.org/whl/cu121\n```\n")
    assert [(h.rule, h.line) for h in docs if h.rule != "requirement"] == [("ci.cuda_wheels", 2), ("ci.cuda_wheels", 3)]
    assert classify(Path("mmfreelm_DockerFile")) == classify(Path("backend.Dockerfile")) == "dockerfile"


def test_a_package_finding_lists_every_line_the_file_imports_it_on(kb: KnowledgeBase, tmp_path: Path) -> None:
    """nanotron's llama.py imports flash_attn at the top and again inside two functions: one finding, every line."""
    (tmp_path / "model.py").write_text("from flash_attn import bert_padding\n\n\ndef f():\n"
                                       "    from flash_attn.layers.rotary import RotaryEmbedding\n", encoding="utf-8")
    found = [f for f in scan_tree(tmp_path, kb, jobs=1, cache=False).findings if f.code == "scan.package.flash-attn"]
    assert [(f.location, f.evidence.get("lines")) for f in found] == [("model.py:1", "1, 5")]


def test_a_pin_below_the_first_rocm_release_makes_every_use_a_warning(kb: KnowledgeBase, tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("bitsandbytes==0.40.0\n", encoding="utf-8")
    (tmp_path / "train.py").write_text("import bitsandbytes as bnb\nargs = dict(optim='paged_adamw_32bit')\n",
                                       encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    severities = {f.code: f.severity.value for f in report.findings}
    assert severities == {"scan.package.bitsandbytes": "warn", "scan.python.bitsandbytes_config": "warn"}
    assert report.verdict == "needs alternatives"
    (tmp_path / "requirements.txt").write_text("bitsandbytes>=0.45\n", encoding="utf-8")
    assert scan_tree(tmp_path, kb, jobs=1, cache=False).verdict == "portable"


def test_the_project_verdict_follows_the_core_and_parts_get_their_own(kb: KnowledgeBase, tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("try:\n    import flash_attn_interface\nexcept ImportError:\n"
                                                  "    pass\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_k.py").write_text("import pycuda.driver\n", encoding="utf-8")
    (tmp_path / "Dockerfile").write_text("FROM nvidia/cuda:12.4.0-devel-ubuntu22.04\n", encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert report.verdict == "portable"
    assert report.components == {"ci": "needs alternatives", "feature flash-attn-3": "blocked", "tests": "blocked"}


def test_a_cuda_build_chosen_by_an_extra_is_a_pin_and_nvtx_runs_anywhere(tmp_path: Path, kb: KnowledgeBase) -> None:
    """Held-out scan corpus 2: alphafold's ``openmm[cuda12]`` in requirements.txt and pyproject.toml selects a CUDA
    build through an extra (as ``jax[cuda12]`` does); trident's ``nvtx`` does nothing without a profiler attached,
    so it is information, not a warning."""
    (tmp_path / "requirements.txt").write_text("jax==0.4.26\nopenmm[cuda12]==8.2.0\nnvtx\nray[default]\n",
                                              encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = [\n  "openmm[cuda12]==8.2.0",\n'
                                            ']\n', encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache_dir=tmp_path / "cache")
    pins = sorted(f.location for f in report.findings if f.code.endswith("cuda_local_version"))
    assert pins == ["pyproject.toml:4", "requirements.txt:2"]
    nvtx = [f for f in report.findings if f.location == "requirements.txt:3"]
    assert nvtx and all(f.severity.value == "info" for f in nvtx)


_HELPERS = ("#pragma once\n#include <cuda_runtime.h>\n"
            "template <typename T>\n__device__ __forceinline__ T\nreduce_unused(T* x, T val) {\n"
            "  if (threadIdx.x < 32) {\n    for (int i = 16; i > 0; i >>= 1)\n"
            "      val += __shfl_down_sync(0xffffffff, val, i);\n  }\n  return val;\n}\n"
            "template <typename T>\n__device__ T reduce_used(T val) {\n"
            "  return val + __shfl_down_sync(0xffffffff, val, 1);\n}\n")


def test_32_lane_code_in_a_device_function_nothing_calls_is_a_note(tmp_path: Path, kb: KnowledgeBase) -> None:
    """gpt-neox's type_shim.h (copied from apex) holds 32-lane block reductions no kernel calls: dead code is no
    blocker; the helper a kernel does call still is."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "shim.cuh").write_text(_HELPERS, encoding="utf-8")
    (tmp_path / "csrc" / "kernel.cu").write_text(
        "#include \"shim.cuh\"\n__global__ void k(float* y) {\n  y[0] = reduce_used(y[0]);\n}\n", encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache_dir=tmp_path / "cache")
    masks = [f for f in report.findings if f.code == "scan.kernel.full_warp_mask"]
    assert [f.location for f in masks] == ["csrc/shim.cuh:14"] and "lines" not in masks[0].evidence
    notes = [f for f in report.findings if f.code == "scan.kernel.unused_lane_helper"]
    assert [(f.location, f.severity.value, f.evidence["detail"]) for f in notes] == [
        ("csrc/shim.cuh:8", "info", "reduce_unused")]
    (tmp_path / "csrc" / "other.cu").write_text("#include \"shim.cuh\"\nfloat f(float* x) { return reduce_unused(x, "
                                                "1.f); }\n", encoding="utf-8")
    again = scan_tree(tmp_path, kb, jobs=1, cache_dir=tmp_path / "cache")
    assert not any(f.code == "scan.kernel.unused_lane_helper" for f in again.findings)


def test_the_function_around_a_line_is_the_outermost_one() -> None:
    from gpuready.scanner.cfamily import enclosing_functions

    lines = ["namespace a {", "template <typename T, int N = sizeof(T)>", "__device__ void __launch_bounds__(256)",
             "outer(T x) {", "  auto f = [&](int i) {", "    if (i) { x += i; }", "  };", "}", "struct S {",
             "  __device__ int m() const { return 1; }", "};", "}"]
    assert enclosing_functions(lines, {5, 6, 10}) == {5: ("outer", 4), 6: ("outer", 4), 10: ("m", 10)}
    kernel = ["__global__ void k(float* x) {", "  x[0] = __shfl_xor_sync(0xffffffff, x[0], 1);", "}"]
    assert enclosing_functions(kernel, {2}) == {}
    unbalanced = ["#ifdef X", "void f() {", "#else", "void g() {", "#endif", "  y();", "}"]
    assert enclosing_functions(unbalanced, {6}) == {}


def test_a_cuda_version_test_beside_a_rocm_macro_is_not_reported(kb: KnowledgeBase) -> None:
    """Held-out scan corpus 3 (torch_scatter's atomics): ``#if defined(USE_ROCM) || (... CUDA_VERSION < 10000)`` has
    its ROCm branch in the condition itself; a CUDA_VERSION test alone is still reported."""
    aware = "#include <cuda_runtime.h>\n#if defined(USE_ROCM) || (defined(__CUDA_ARCH__) && CUDA_VERSION < 10000)\n"
    assert not any(rule == "kernel.cuda_version_macro" for rule, _ in _rule_lines(aware + "#endif\n", kb))
    alone = "#include <cuda_runtime.h>\n#if defined(__CUDA_ARCH__) && CUDA_VERSION < 10000\n#endif\n"
    assert ("kernel.cuda_version_macro", 2) in _rule_lines(alone, kb)


def test_a_separate_kernel_build_and_a_cmake_build_pip_never_runs_are_parts_of_their_own(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    """Held-out scan corpus 3: hqq builds optional CUDA kernels with ``hqq/kernels/setup_cuda.py``; torch_scatter's
    root CMakeLists.txt (the C++ API build) enables CUDA while its setup.py builds the extensions itself. Neither
    decides the project verdict; a CMake build that setup.py runs still does."""
    (tmp_path / "pkg" / "kernels").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("import torch\n", encoding="utf-8")
    (tmp_path / "pkg" / "kernels" / "setup_cuda.py").write_text(
        "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
        "setup(ext_modules=[CUDAExtension('k', ['k.cu'], extra_compile_args={'nvcc': ['-gencode=arch=compute_80']})],"
        " cmdclass={'build_ext': BuildExtension})\n", encoding="utf-8")
    (tmp_path / "setup.py").write_text(
        "from torch.utils.cpp_extension import BuildExtension, CppExtension\n"
        "setup(name='pkg', ext_modules=[CppExtension('pkg._c', ['csrc/a.cpp'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n",
        encoding="utf-8")
    (tmp_path / "CMakeLists.txt").write_text("project(p)\nif(WITH_CUDA)\n  enable_language(CUDA)\nendif()\n",
                                             encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert report.verdict == "portable", [(f.code, f.location, f.evidence.get("component")) for f in report.findings]
    assert set(report.components) == {"feature CMakeLists.txt", "feature pkg/kernels/setup_cuda.py"}
    (tmp_path / "setup.py").write_text("import subprocess\nsubprocess.run(['cmake', '..'])\n"
                                       "setup(name='pkg', ext_modules=[])\n", encoding="utf-8")
    assert scan_tree(tmp_path, kb, jobs=1, cache=False).verdict == "blocked"  # setup.py runs CMake: the core build
    (tmp_path / "setup.py").write_text(
        "from torch.utils.cpp_extension import BuildExtension, CppExtension\n"
        "setup(name='pkg', ext_modules=[CppExtension('pkg._c', ['a.cpp'])], cmdclass={'build_ext': BuildExtension})\n",
        encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[build-system]\nbuild-backend = "scikit_build_core.build"\n',
                                            encoding="utf-8")
    assert scan_tree(tmp_path, kb, jobs=1, cache=False).verdict == "blocked"  # a scikit-build backend: CMake builds


def test_a_file_that_names_a_dockerfile_is_read_as_its_suffix_says() -> None:
    """`Dockerfile.md` documents a container and `dockerfile_gen.py` writes one: docs and Python, not recipes;
    `Dockerfile.rocm` and `Dockerfile` stay recipes."""
    assert classify(Path("docker/Dockerfile.md")) == "docs"
    assert classify(Path("tools/dockerfile_gen.py")) == "python"
    assert classify(Path("Dockerfile.rocm")) == classify(Path("Dockerfile")) == "dockerfile"


@pytest.mark.parametrize(("code", "component", "part"), [
    ("scan.build.dockerfile_cuda_base", "build", "ci"),
    ("scan.build.nvidia_container_runtime", "core", "ci"),
    ("scan.ci.cuda_wheels", "core", "ci"),
    ("scan.install.named_otherwise_on_rocm", "build", "install"),
    ("scan.ci.cuda_wheels", "tests", "tests"),
    ("scan.kernel.inline_ptx", "examples", "examples"),
])
def test_findings_outside_the_code_are_judged_in_their_own_part(code: str, component: str, part: str) -> None:
    """Containers, CI and install steps never decide the project verdict, and are judged as ci / install wherever
    their file lies, except in a part that is itself outside the project (tests keep theirs)."""
    found = Finding(code=code, severity=Severity.WARN, message="m", evidence={"component": component})
    assert not deciding(found)
    assert verdict([found]) == "portable"
    assert component_verdicts([found]) == {part: "needs alternatives"}
    core = Finding(code="scan.kernel.inline_ptx", severity=Severity.BLOCKER, message="m")
    assert deciding(core) and verdict([found, core]) == "blocked"


def test_a_cuda_environment_beside_a_rocm_one_is_the_install_to_watch(kb: KnowledgeBase, tmp_path: Path) -> None:
    """mlstm_kernels' envs/: conda environments pinned to CUDA wheels (`environment_pt240cu124.yaml`) beside a ROCm
    one (`environment_pt240_rocm64.txt`): a ROCm user takes the other, so the project stays portable and the CUDA
    pins are the install's; without the ROCm sibling they decide the verdict."""
    envs = tmp_path / "envs"
    envs.mkdir()
    (envs / "environment_pt240cu124.yaml").write_text(
        "name: x\ndependencies:\n  - pip\n  - pip:\n    - --extra-index-url https://download.pytorch.org/whl/cu124\n"
        "    - torch==2.4.0+cu124\n", encoding="utf-8")
    (tmp_path / "model.py").write_text("import torch\nx = torch.ones(1).cuda()\n", encoding="utf-8")
    alone = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert alone.verdict == "needs alternatives"
    (envs / "environment_pt240_rocm64.txt").write_text("torch==2.4.0\n", encoding="utf-8")
    beside = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert beside.verdict == "portable" and beside.components == {"install": "needs alternatives"}
    assert {f.evidence["component"] for f in beside.findings if f.location.startswith("envs/")} == {"install"}


def test_a_projects_own_hip_macro_opens_its_rocm_branch() -> None:
    """bitsandbytes' compat.cuh defines BNB_HIP under __HIP_PLATFORM_AMD__ and writes its branches on `#if BNB_HIP`;
    GGML_USE_HIP, WITH_HIP and NANO_HIP are such names too; DISABLE_HIP, GGML_NO_HIP and CHIP_ID are not."""
    lines = ["#if BNB_HIP", "#define BNB_WARP_SIZE 64", "#else", "#define BNB_WARP_SIZE 32", "#endif",
             "#ifdef CHIP_ID", "int a;", "#endif", "#ifndef DISABLE_HIP", "int b;", "#endif",
             "#if defined(GGML_USE_HIP) || defined(WITH_HIP)", "int c;", "#endif", "#ifdef GGML_NO_HIP", "int d;",
             "#endif", "#ifdef NANO_HIP", "int e;", "#endif"]
    assert branches(lines) == ["rocm", "rocm", "cuda", "cuda", "neutral", "neutral", "neutral", "neutral",
                               "neutral", "neutral", "neutral", "rocm", "rocm", "neutral", "neutral", "neutral",
                               "neutral", "rocm", "rocm", "neutral"]


def test_a_lane_count_chosen_in_the_rocm_branch_is_the_projects_own(kb: KnowledgeBase) -> None:
    """bitsandbytes' common.cuh: 64 on CDNA, 32 on RDNA, both inside `#if BNB_HIP`: no warp-size finding; the same
    32 outside any branch is one."""
    rocm = ("#include <cuda_runtime.h>\n#if BNB_HIP\n#if IS_CDNA\n#define BNB_WARP_SIZE 64\n#else\n"
            "#define BNB_WARP_SIZE 32\n#endif\n#else\n#define BNB_WARP_SIZE 32\n#endif\n")
    assert not [r for r, _ in _rule_lines(rocm, kb) if "warp" in r]
    assert [r for r, _ in _rule_lines("#include <cuda_runtime.h>\n#define BNB_WARP_SIZE 32\n", kb)
            if "warp" in r] == ["kernel.warp_size_32"]


def test_sources_only_a_cmake_cuda_branch_builds_are_the_cuda_path(kb: KnowledgeBase, tmp_path: Path) -> None:
    """bitsandbytes' CMakeLists.txt: `if(BUILD_CUDA)` adds the tensor-core GEMMs (sm80), `elseif(BUILD_HIP)`
    the SIMT one; the PTX in the CUDA-only source, and in a header only it includes, is an optional part's, not the
    core's. Without the HIP branch the same source is core."""
    cmake = ("cmake_minimum_required(VERSION 3.22)\nset(GPU_FILES csrc/ops.cu)\nif(BUILD_CUDA)\n"
             "  enable_language(CUDA)\n  list(APPEND SRC_FILES ${GPU_FILES} csrc/gemm_4bit_simt.cu)\n"
             "  list(APPEND SRC_FILES csrc/gemm_sm80.cu)\nelseif(BUILD_HIP)\n  enable_language(HIP)\n"
             "  list(APPEND SRC_FILES ${GPU_FILES} csrc/gemm_4bit_simt.cu)\nendif()\n")
    assert analyse_cmake(cmake)[-1].detail == "cmake|csrc/gemm_sm80.cu"
    (tmp_path / "CMakeLists.txt").write_text(cmake, encoding="utf-8")
    csrc = tmp_path / "csrc"
    csrc.mkdir()
    ptx = '__device__ void f() { asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1};"); }\n'
    (csrc / "gemm_mma.cuh").write_text("#pragma once\n#include <cuda_runtime.h>\n" + ptx, encoding="utf-8")
    (csrc / "gemm_sm80.cu").write_text('#include "gemm_mma.cuh"\n__global__ void k() { f(); }\n', encoding="utf-8")
    (csrc / "ops.cu").write_text("#include <cuda_runtime.h>\n__global__ void g() {}\n", encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    parts = {f.location.split(":")[0]: f.evidence["component"] for f in report.findings
             if f.severity is Severity.BLOCKER}
    assert parts == {"csrc/gemm_mma.cuh": "feature CUDA-only sources of CMakeLists.txt"}
    assert report.verdict == "portable" and report.components["feature CUDA-only sources of CMakeLists.txt"] == (
        "blocked")
    (tmp_path / "CMakeLists.txt").write_text(cmake.split("elseif")[0] + "endif()\n", encoding="utf-8")
    assert scan_tree(tmp_path, kb, jobs=1, cache=False).verdict == "blocked"


def test_the_text_report_groups_a_rule_per_part(kb: KnowledgeBase, tmp_path: Path) -> None:
    """The same 32-lane rule in a core kernel and in a CUDA-only source of the CMake build: two groups, the second
    tagged with its part, not one group under the first finding's part."""
    from rich.console import Console

    from gpuready import api
    from gpuready.model.config import ScanConfig
    from gpuready.report.scan_text import render_scan

    lane = ("#include <cuda_runtime.h>\n"
            "__global__ void k() { int lane = threadIdx.x & 31; __shfl_sync(0xffffffff, 1, 0); }\n")
    (tmp_path / "CMakeLists.txt").write_text(
        "if(BUILD_CUDA)\n  enable_language(CUDA)\n  list(APPEND SRC csrc/core.cu csrc/sm80.cu)\nelseif(BUILD_HIP)\n"
        "  enable_language(HIP)\n  list(APPEND SRC csrc/core.cu)\nendif()\n", encoding="utf-8")
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "core.cu").write_text(lane, encoding="utf-8")
    (tmp_path / "csrc" / "sm80.cu").write_text(lane, encoding="utf-8")
    console = Console(width=200, record=True)
    console.print(render_scan(api.scan(ScanConfig(tmp_path, cache=False, jobs=1))))
    text = console.export_text()
    heads = [line for line in text.splitlines() if line.startswith("[BLOCKER] scan.kernel.full_warp_mask")]
    assert len(heads) == 2 and "[feature CUDA-only sources of CMakeLists.txt]" in heads[1], text
    assert "csrc/sm80.cu" not in text.split(heads[1])[0].split(heads[0])[1]


def test_training_recipes_slurm_scripts_and_requirement_tables_of_the_tenth_held_out_corpus(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    """huggingface/alignment-handbook and open-r1 (scan corpus 10): YAML recipes that select flash_attention_2 or a
    bitsandbytes optimizer decide the verdict (recipes are what such a project runs, not examples); transformers'
    `_deps` table and `trl[vllm]` extras in setup.py; Slurm scripts that run nvidia-smi in a command substitution
    and load a CUDA module; a shim named after the package it imports (pkg/utils/vllm.py) that nothing imports is
    that package's feature."""
    from gpuready.scanner.build_files import analyse_config

    assert [(h.rule, h.line) for h in analyse_config(
        "model_name_or_path: x\ntorch_dtype: bfloat16\nattn_implementation: flash_attention_2\n"
        "optim: paged_adamw_8bit\noptim: adamw_torch\n# attn_implementation: flash_attention_2\n"
        "use_flash_attention_2: true\n")] == [
        ("python.flash_attention_2_config", 3), ("python.bitsandbytes_config", 4),
        ("python.flash_attention_2_config", 7)]
    assert analyse_config("attn_implementation: sdpa\nuse_flash_attention_2: false\n") == []
    assert classify(Path("recipes/zephyr/sft/config_full.yaml")) == "config"
    assert classify(Path("slurm/train.slurm")) == "ci" and component_of("recipes/zephyr/sft/config_full.yaml") == "core"
    assert [h.rule for h in analyse_ci("NUM_GPUS=$(nvidia-smi -L | wc -l)\nmodule load cuda/12.4\n"
                                       "echo see nvidia-smi for details\n")] == ["ci.nvidia_smi", "ci.cuda_wheels"]
    hits = analyse_setup_py('_deps = [\n    "accelerate==1.4.0",\n    "trl[vllm]==0.18.0",\n]\n'
                            'deps = {b: a for a, b in _deps}\nsetup(name="x", install_requires=[deps["trl"]])\n')
    assert [(h.line, h.detail.split()[0]) for h in hits if h.rule == "requirement"] == [
        (2, "accelerate==1.4.0"), (3, "trl[vllm]==0.18.0"), (3, "vllm")]
    (tmp_path / "recipes" / "sft").mkdir(parents=True)
    (tmp_path / "recipes" / "sft" / "config.yaml").write_text("attn_implementation: flash_attention_2\n",
                                                              encoding="utf-8")
    (tmp_path / "pkg" / "utils").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("import torch\n", encoding="utf-8")
    (tmp_path / "pkg" / "utils" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "utils" / "vllm.py").write_text("from vllm.model_executor import layers\n", encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert report.verdict == "needs alternatives"  # the recipe's flash_attention_2
    assert report.components.get("feature pkg.utils.vllm") == "needs alternatives"
    (tmp_path / "recipes" / "sft" / "config.yaml").write_text("attn_implementation: sdpa\n", encoding="utf-8")
    assert scan_tree(tmp_path, kb, jobs=1, cache=False).verdict == "portable"


def test_install_commands_in_scripts_makefiles_and_requirements_from_github(kb: KnowledgeBase) -> None:
    """facebookresearch/lingua (setup/create_env.sh installs xformers; apps/mamba/requirements.txt installs mamba
    and causal-conv1d from GitHub), open-r1's Makefile (chained `uv pip install` in a recipe); AMD's own forks
    (github.com/ROCm/apex) are the ROCm builds, no finding."""
    from gpuready.scanner.build_files import analyse_makefile, install_hits
    from gpuready.scanner.dependencies import analyse_requirements

    assert [(h.rule, h.detail) for h in analyse_ci("pip install torch==2.7.0 xformers\n") if "requirement" in h.rule
            ] == [("requirement", "torch==2.7.0"), ("requirement", "xformers")]
    make = "install:\n\t. venv/bin/activate && uv pip install vllm==0.8.5.post1 && \\\n\tuv pip install flash-attn\n"
    assert [(h.line, h.detail) for h in analyse_makefile(make)] == [(2, "vllm==0.8.5.post1"), (3, "flash-attn")]
    assert [(h.rule, h.detail) for h in analyse_requirements(
        "git+https://github.com/Dao-AILab/causal-conv1d.git\ngit+https://github.com/state-spaces/mamba.git@v2.2.2\n"
        "https://example.com/x.whl\n")] == [("requirement_git", "Dao-AILab/causal-conv1d"),
                                           ("requirement_git", "state-spaces/mamba")]
    assert [h.detail for h in install_hits("- run: pip install git+https://github.com/ROCm/apex.git", 1)] == [
        "ROCm/apex"]
    assert kb.by_repo("state-spaces/mamba").name == "mamba-ssm"  # type: ignore[union-attr]
    assert kb.by_repo("Dao-AILab/flash-attention").name == "flash-attn"  # type: ignore[union-attr]
    assert kb.by_repo("ROCm/apex") is None and kb.by_repo("someone/else") is None


def test_imports_of_an_extension_built_only_for_cuda_and_jit_helpers(kb: KnowledgeBase, tmp_path: Path) -> None:
    """Guangxuan-Xiao/torch-int: `from torch_int._CUDA import ...` of a CUTLASS extension built with no ROCm path is
    a blocker where it is imported; NVlabs/stylegan3: a helper given .cu sources and extra_cuda_cflags JIT-builds a
    CUDA extension. With a ROCm path in the build, the import is no finding."""
    (tmp_path / "torch_int" / "nn").mkdir(parents=True)
    (tmp_path / "torch_int" / "kernels").mkdir()
    (tmp_path / "torch_int" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "torch_int" / "nn" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "torch_int" / "nn" / "linear.py").write_text("import torch\nfrom torch_int._CUDA import linear_a8\n",
                                                            encoding="utf-8")
    (tmp_path / "torch_int" / "kernels" / "linear.cu").write_text(
        "#include <cutlass/gemm/device/gemm.h>\n__global__ void k() {}\n", encoding="utf-8")
    setup = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
             "setup(name='torch_int', ext_modules=[CUDAExtension(name='torch_int._CUDA', "
             "sources=['torch_int/kernels/linear.cu'])], cmdclass={'build_ext': BuildExtension})\n")
    (tmp_path / "setup.py").write_text(setup, encoding="utf-8")
    found = [f.location for f in scan_tree(tmp_path, kb, jobs=1, cache=False).findings
             if f.code == "scan.python.cuda_extension_import"]
    assert found == ["torch_int/nn/linear.py:2"]
    (tmp_path / "setup.py").write_text(setup.replace("setup(", "IS_ROCM = torch.version.hip is not None\nsetup("),
                                       encoding="utf-8")
    assert not [f for f in scan_tree(tmp_path, kb, jobs=1, cache=False).findings
                if f.code == "scan.python.cuda_extension_import"]
    jit = ("def _init():\n    return custom_ops.get_plugin(module_name='bias_act_plugin', sources=['bias_act.cpp', "
           "'bias_act.cu'], extra_cuda_cflags=['--use_fast_math'])\n")
    assert [h.rule for h in analyse_python(jit) if h.rule.startswith("python.")] == ["python.cpp_extension_cuda"]
    # gpt-neox's RWKV layer JIT-builds its kernel in a constructor: the nvcc flags are as lazy as the build
    assert {(h.rule, h.optional) for h in analyse_python(jit) if h.rule != "module_import"} >= {
        ("python.cpp_extension_cuda", True), ("build.nvcc_flags", True)}
    assert not [h for h in analyse_python(jit.replace("extra_cuda_cflags", "extra_cflags"))
                if h.rule == "python.cpp_extension_cuda"]


def test_what_the_eleventh_held_out_corpus_showed_is_found() -> None:
    """torchsparse (inline PTX whose first string is only '{\\n'; a CUDA index in setup.py's dependency_links),
    OpenRLHF (flash-attn chosen on a training script's command line, nvidia-container-toolkit installed), AnimateDiff
    (xformers attention switched on in code and in a YAML config), stable-baselines3 (docker run --gpus)."""
    from gpuready.scanner.build_files import analyse_config
    from gpuready.scanner.kernels import compile_rules

    kb = load_kb()
    ptx = '__device__ void f(int* p) {\n  asm volatile(\n    "{\\n"\n    "  ld.global.v4.u32 {%0}, [%1];\\n"\n' \
          '    "}\\n" : "=r"(x) : "l"(p));\n}\n'
    assert [h.rule for h in analyse_cfamily(ptx, compile_rules(kb.patterns.rules, "kernel."))] == ["kernel.inline_ptx"]
    barrier = '__device__ void g() {\n  asm volatile("" ::: "memory");\n  x = "mov.u32";\n}\n'
    assert analyse_cfamily(barrier, compile_rules(kb.patterns.rules, "kernel.")) == []
    assert [h.rule for h in analyse_python("setup(dependency_links=['https://download.pytorch.org/whl/cu118'])\n")
            if h.rule == "ci.cuda_wheels"] == ["ci.cuda_wheels"]
    script = ("deepspeed --module openrlhf.cli.train_sft \\\n   --ds.attn_implementation flash_attention_2 \\\n"
              "   --flash_attn\nsudo apt-get install -y nvidia-container-toolkit\nNVIDIA_ARG=\"--gpus all\"\n"
              "python train.py --gpus 4\n")
    assert [(h.rule, h.line) for h in analyse_ci(script) if not h.rule.startswith("requirement")] == [
        ("python.flash_attention_2_config", 2), ("python.flash_attention_2_config", 3),
        ("build.nvidia_container_runtime", 4), ("build.nvidia_container_runtime", 5)]
    assert [h.rule for h in analyse_python("if is_xformers_available():\n"
                                           "    unet.enable_xformers_memory_efficient_attention()\n")
            if "xformers" in h.rule] == ["python.xformers_attention"]
    assert [h.line for h in analyse_config("mixed_precision_training: true\n"
                                           "enable_xformers_memory_efficient_attention: True\n")] == [2]
    assert analyse_config("enable_xformers_memory_efficient_attention: False\n") == []
    assert [h.line for h in analyse_docs("```bash\ndocker run -it --gpus all image\n```\n")] == [2]


def test_what_the_twelfth_held_out_corpus_showed_is_found(kb: KnowledgeBase) -> None:
    """faster-whisper (CTranslate2, whose ROCm build came with 4.7.0 and is a source build; py3nvml), vmoe (a script
    that asks `which nvidia-smi` to choose jax[cuda]), ngp_pl (an install command in a README list item's code
    span)."""
    assert kb.by_pip_name("ctranslate2").severity is Severity.WARN  # type: ignore[union-attr]
    assert kb.by_pip_name("ctranslate2").rocm_from == "4.7.0"  # type: ignore[union-attr]
    assert kb.by_import("py3nvml.py3nvml").name == "nvidia-ml-py"  # type: ignore[union-attr]
    script = ("if ( which nvidia-smi &> /dev/null ); then\n"
              "  pip install -q 'jax[cuda]' -f https://storage.googleapis.com/jax-releases/jax_releases.html;\nfi\n")
    assert [(h.rule, h.line) for h in analyse_ci(script) if h.rule != "requirement"] == [
        ("ci.nvidia_smi", 1), ("ci.cuda_wheels", 2)]  # jax[cuda]: the CUDA build by its extra
    readme = ("* Python libraries\n    * Install pytorch by `pip install torch==1.11.0 --extra-index-url "
              "https://download.pytorch.org/whl/cu113`\nThen read `the install guide` and install it.\n")
    assert [(h.rule, h.line) for h in analyse_docs(readme) if h.rule.startswith("ci.")] == [("ci.cuda_wheels", 2)]


def test_what_the_thirteenth_held_out_corpus_showed_is_found(tmp_path: Path, kb: KnowledgeBase) -> None:
    """qserve: kernels/setup.py builds a package of CUDA-only extensions (qserve_backend.*) that the core imports
    unguarded (`from qserve_backend import activation_ops`, `import qserve_backend.fused_attention as fa`), and a
    header copied from a project with a ROCm port has a ROCm branch: that credits the header, not the build, so the
    project is blocked and the imports are where it fails. denoiser: requirements_cuda.txt beside requirements.txt is
    the CUDA variant of an install that also exists without a vendor."""
    files = {
        "setup.py": "from setuptools import setup\nsetup(name='q', packages=['q'])\n",
        "q/__init__.py": "",
        "q/layers.py": "import torch\nfrom qb import activation_ops\n",
        "q/runner.py": "import qb.fused as fused\n",
        "kernels/setup.py": ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, "
                             "CUDAExtension\nsetup(name='qb', ext_modules=[CUDAExtension(name='qb.activation_ops', "
                             "sources=['csrc/act.cu']), CUDAExtension(name='qb.fused', sources=['csrc/f.cu'])], "
                             "cmdclass={'build_ext': BuildExtension})\n"),
        "kernels/csrc/act.cu": "__global__ void k(int *x) {\n  asm volatile(\"mma.sync.aligned.m16n8k16\");\n}\n",
        "kernels/csrc/types.cuh": "#ifdef USE_ROCM\n#include <hip/hip_fp16.h>\n#else\n#include <cuda_fp16.h>\n#endif\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert verdict(report.findings) == "blocked"
    assert sorted(f.location for f in report.findings if f.code == "scan.python.cuda_extension_import") == [
        "q/layers.py:2", "q/runner.py:1"]
    (tmp_path / "kernels/setup.py").write_text(files["kernels/setup.py"].replace(
        "from setuptools", "import torch\nIS_ROCM = torch.version.hip is not None\nfrom setuptools"), encoding="utf-8")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)  # a ROCm branch in the build: it builds for ROCm too
    assert not [f for f in report.findings if f.code == "scan.python.cuda_extension_import"]

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "requirements.txt").write_text("torch>=1.5\n", encoding="utf-8")
    (plain / "requirements_cuda.txt").write_text("torch==1.5.1+cu101\n", encoding="utf-8")
    report = scan_tree(plain, kb, jobs=1, cache=False)
    assert [f.code for f in report.findings if f.severity is Severity.WARN] == ["scan.requirement.cuda_local_version"]
    assert verdict(report.findings) == "portable"
    (plain / "requirements.txt").unlink()  # the CUDA file is the only install: its pin decides
    assert verdict(scan_tree(plain, kb, jobs=1, cache=False).findings) == "needs alternatives"


def test_a_package_finding_lists_the_lines_that_use_it(tmp_path: Path, kb: KnowledgeBase) -> None:
    """Wan2.1 and AnimateDiff label where flash-attn and xformers are called, not only imported: the finding's lines
    hold the uses (not those in comments or strings, not the names of other packages)."""
    source = ("import torch\nimport flash_attn\nfrom xformers import ops as xops\n\n"
              "def attend(q, k, v):\n    # flash_attn.flash_attn_func is faster\n"
              "    print('flash_attn missing')\n    out = flash_attn.flash_attn_varlen_func(q, k, v)\n"
              "    return xops.memory_efficient_attention(q, k, v) + torch.zeros(1)\n")
    hits = analyse_python(source, watched=frozenset({"flash_attn", "xformers"}))
    assert [(h.line, h.detail) for h in hits if h.rule == "import_use"] == [(8, "flash_attn"), (9, "xformers")]
    assert not [h for h in analyse_python(source) if h.rule == "import_use"]  # nothing watched, nothing recorded
    (tmp_path / "model.py").write_text(source, encoding="utf-8")
    found = {f.code: f for f in scan_tree(tmp_path, kb, jobs=1, cache=False).findings}
    assert found["scan.package.flash-attn"].location == "model.py:2"
    assert found["scan.package.flash-attn"].evidence["lines"] == "2, 8"


def test_what_the_fourteenth_held_out_corpus_showed_is_found(kb: KnowledgeBase) -> None:
    """nvdiffrec imports nvdiffrast (CUDA and CUDA-OpenGL interop, no ROCm build: a blocker); Swin-Transformer is a
    project of scripts with no build at its root, so its kernels/window_process/setup.py is an opt-in extension, not
    the project's own build (as a root pyproject of tool settings only would make it)."""
    assert kb.by_import("nvdiffrast.torch").severity is Severity.BLOCKER  # type: ignore[union-attr]
    files = ["main.py", "models/build.py", "kernels/window_process/setup.py", "kernels/window_process/k.cu"]
    assert subprojects(files) == ("kernels/window_process/",)
    assert subprojects(["pyproject.toml", "inference_lib/setup.py", "inference_lib/src/aqlm/x.py"],
                       settings_only_root=True) == ()


def test_what_the_sixteenth_held_out_corpus_showed_is_found() -> None:
    """cuda_hgemm: a header of PTX macros (no CUDA include, no __global__) is device code, and CMake's
    CUDA_NVCC_FLAGS carry nvcc-only flags."""
    from gpuready.scanner.cfamily import uses_cuda

    header = ('#pragma once\n#define LDMATRIX_X1(R, addr) \\\n'
              '    asm volatile("ldmatrix.sync.aligned.x1.m8n8.shared.b16 {%0}, [%1];\\n" : "=r"(R) : "r"(addr))\n')
    assert uses_cuda(header) and not uses_cuda('#pragma once\nasm volatile("nop");\nint x;\n')
    cmake = ("project (h LANGUAGES C CXX CUDA)\n"
             'set (CUDA_NVCC_FLAGS "${CUDA_NVCC_FLAGS} -std=c++11 -Xcompiler -fopenmp --expt-relaxed-constexpr")\n'
             'set (CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -O3")\n')
    assert [(h.rule, h.line) for h in analyse_cmake(cmake)] == [("build.cmake_cuda", 1), ("build.nvcc_flags", 2)]


def test_where_a_build_decides_on_the_imported_cuda_home_is_reported_too() -> None:
    """Deformable-DETR's models/ops/setup.py (and detectron2's, LivePortrait's copies): CUDA_HOME imported at the top,
    then `if torch.cuda.is_available() and CUDA_HOME is not None:` picks the CUDA extension; DeepGEMM's
    f'{CUDA_HOME}/include'. Each use is a line of the finding, not only the import."""
    setup = ("import os\nimport torch\nfrom torch.utils.cpp_extension import CUDA_HOME\n\n"
             "def get_extensions():\n    if torch.cuda.is_available() and CUDA_HOME is not None:\n        pass\n"
             "    include = [f'{CUDA_HOME}/include', os.path.join(CUDA_HOME, 'lib64')]\n    return include\n")
    lines = [h.line for h in analyse_python(setup) if h.rule == "python.cuda_home"]
    assert lines == [3, 6, 8, 8]
    own = setup.replace("from torch.utils.cpp_extension import CUDA_HOME", "CUDA_HOME = os.environ.get('X')")
    assert [h.line for h in analyse_python(own) if h.rule == "python.cuda_home"] == []  # a name of its own


def test_an_nvidia_architecture_name_made_of_the_device_capability_is_a_capability_gate() -> None:
    """SageAttention and SpargeAttn: `major, minor = torch.cuda.get_device_capability(i)` then f"sm{major}{minor}",
    which the kernels are dispatched on (an MI300X makes "sm94"); x-transformers' message that says "SM{major}{minor}"
    is no such name."""
    archs = ("import torch\ndef get_cuda_arch_versions():\n    out = []\n"
             "    for i in range(torch.cuda.device_count()):\n"
             "        major, minor = torch.cuda.get_device_capability(i)\n"
             "        out.append(f\"sm{major}{minor}\")\n    return out\n")
    assert [h.line for h in analyse_python(archs) if h.rule == "python.capability_gate"] == [6]
    message = archs.replace('f"sm{major}{minor}"', 'f"your GPU has SM{major}{minor}."')
    assert [h.line for h in analyse_python(message) if h.rule == "python.capability_gate"] == []
    other = archs.replace("major, minor = torch.cuda.get_device_capability(i)", "major, minor = 1, 2")
    assert [h.line for h in analyse_python(other) if h.rule == "python.capability_gate"] == []


def test_each_line_of_an_nvcc_flag_list_is_a_line_of_the_finding(tmp_path: Path, kb: KnowledgeBase) -> None:
    """qserve's kernels/setup.py: NVCC_FLAGS one per line (-U__CUDA_NO_HALF_OPERATORS__ first, --expt-relaxed-constexpr
    and --threads=8 further down): one finding for the file, every nvcc-only flag's line in it."""
    flags = ("NVCC_FLAGS = [\n    '-O2',\n    '-U__CUDA_NO_HALF_OPERATORS__',\n    '-std=c++17',\n"
             "    '--expt-relaxed-constexpr',\n    '--use_fast_math',\n]\n")
    assert [h.line for h in analyse_python(flags) if h.rule == "build.nvcc_flags"] == [3, 5, 6]
    (tmp_path / "setup.py").write_text("from setuptools import setup\n" + flags + "setup(name='k')\n")
    found = [f for f in scan_tree(tmp_path, kb, jobs=1, cache=False).findings
             if f.code == "scan.build.nvcc_flags"]
    assert [(f.location, f.evidence.get("lines")) for f in found] == [("setup.py:4", "4, 6, 7")]


def test_onnx_runtime_cuda_providers_are_an_nvidia_only_choice() -> None:
    """LivePortrait's `["CUDAExecutionProvider"]` (core); yolov5's ONNX back end imports onnxruntime inside its branch
    of the loader, so its provider list is as optional as that import; a list naming MIGraphX handles AMD too."""
    def provider_hits(text: str) -> list[tuple[int, bool]]:
        return [(h.line, h.optional) for h in analyse_python(text) if h.rule == "python.onnx_cuda_provider"]

    core = "import onnxruntime as ort\nproviders = ['CUDAExecutionProvider']\n"
    assert provider_hits(core) == [(2, False)]
    lazy = ("def load(w, cuda):\n    if onnx:\n        import onnxruntime\n        providers = "
            "['CUDAExecutionProvider', 'CPUExecutionProvider'] if cuda else ['CPUExecutionProvider']\n")
    assert provider_hits(lazy) == [(4, True)]
    both = "import onnxruntime as ort\nproviders = ['MIGraphXExecutionProvider', 'TensorrtExecutionProvider']\n"
    assert provider_hits(both) == []
    assert provider_hits("engine = 'TensorrtExecutionProvider'\n") == [(1, False)]


def test_nvidia_warp_and_a_git_requirement_with_a_trailing_slash(tmp_path: Path, kb: KnowledgeBase) -> None:
    """curobo's `import warp as wp` (NVIDIA Warp: CPU or CUDA only) and nerfacc's examples/requirements.txt line
    `git+https://github.com/NVlabs/tiny-cuda-nn/#subdirectory=bindings/torch` (a slash before the fragment)."""
    assert kb.by_import("warp") is not None and kb.by_import("warp").name == "warp-lang"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "kernels.py").write_text("import torch\nimport warp as wp\n")
    (tmp_path / "requirements.txt").write_text(
        "torch\ngit+https://github.com/NVlabs/tiny-cuda-nn/#subdirectory=bindings/torch\n")
    found = {(f.code, f.location) for f in scan_tree(tmp_path, kb, jobs=1, cache=False).findings}
    assert ("scan.package.warp-lang", "pkg/kernels.py:2") in found
    assert ("scan.package.tiny-cuda-nn", "requirements.txt:2") in found


def test_a_folder_with_its_own_container_recipe_is_a_deployment_of_its_own(tmp_path: Path, kb: KnowledgeBase) -> None:
    """F5-TTS's src/f5_tts/runtime/triton_trtllm/: a TensorRT-LLM serving runtime with its Dockerfile and
    docker-compose, beside the installable package: optional (its own verdict), unless the package imports it."""
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='tts', packages=['tts'])\n")
    runtime = tmp_path / "tts" / "runtime" / "trtllm"
    runtime.mkdir(parents=True)
    (tmp_path / "tts" / "__init__.py").write_text("")
    (tmp_path / "tts" / "model.py").write_text("import torch\n")
    (runtime / "Dockerfile.server").write_text("FROM python:3.11\n")
    (runtime / "serve.py").write_text("import tensorrt as trt\n")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    found = [f for f in report.findings if f.code == "scan.package.tensorrt"]
    assert [f.evidence["component"] for f in found] == ["feature tts/runtime/trtllm"]
    assert verdict(report.findings) == "portable"
    (tmp_path / "tts" / "model.py").write_text("import torch\nfrom tts.runtime.trtllm import serve\n")
    assert verdict(scan_tree(tmp_path, kb, jobs=1, cache=False).findings) == "blocked"


@pytest.mark.parametrize("line", [
    "pip install https://github.com/Dao-AILab/flash-attention/releases/download/v2.5.8/flash_attn-2.5.8+cu122torch2.3"
    "cxx11abiFALSE-cp310-cp310-linux_x86_64.whl",  # qserve's README
    "pip install nerfacc -f https://nerfacc-bucket.s3.us-west-2.amazonaws.com/whl/torch-1.13.0_cu117.html",
    "pip install flute-kernel -i https://flute-ai.github.io/whl/cu118",
    "conda install pytorch torchvision pytorch-cuda=12.1 -c pytorch",
    "conda install -c conda-forge cudatoolkit=11.8.0",
])
def test_more_ways_docs_install_cuda_builds(line: str) -> None:
    """READMEs of qserve, nerfacc, flute; BigVGAN's conda line; audiocraft's cudatoolkit (each a CUDA build)."""
    assert CUDA_WHEELS.search(line)
    assert not CUDA_WHEELS.search(line.replace("cu1", "rocm6").replace("cuda=", "rocm=").replace("cudatoolkit", "rocm"))


def test_docs_that_tell_readers_to_install_the_cuda_toolkit() -> None:
    """nvdiffrec's "Install the [Cuda toolkit](https://developer.nvidia.com/cuda-toolkit)", stylegan3's "CUDA toolkit
    11.1 or later", whisperX's "install the CUDA toolkit 12.8 before WhisperX"; a sentence that only names it is not."""
    text = ("Install the [Cuda toolkit](https://developer.nvidia.com/cuda-toolkit) (required to build the extension).\n"
            "* CUDA toolkit 11.1 or later.\n"
            "To use WhisperX with GPU acceleration, install the CUDA toolkit 12.8 before WhisperX.\n"
            "The CUDA toolkit ships nvcc.\n")
    assert [h.line for h in analyse_docs(text) if h.rule == "docs.cuda_toolkit"] == [1, 2, 3]


def test_xformers_chosen_as_the_attention_backend() -> None:
    """audiocraft's set_efficient_attention_backend("xformers") and `assert cfg.efficient_attention_backend ==
    "xformers"`; a string "xformers" compared with something that is no attention setting is not a choice of it."""
    text = ("def load(cfg, name):\n    set_efficient_attention_backend(\"xformers\")\n"
            "    assert cfg.efficient_attention_backend == \"xformers\", \"v1 needs xformers\"\n"
            "    if name == \"xformers\":\n        pass\n")
    assert [h.line for h in analyse_python(text) if h.rule == "python.xformers_attention"] == [2, 3]


def test_attention_without_its_math_fallback_is_a_choice_rocm_meets_on_some_gpus_only() -> None:
    """GPTQ-for-LLaMa's quant/fused_attn.py:154 `with torch.backends.cuda.sdp_kernel(enable_math=False):` inside the
    fused attention's forward (core code, not a feature); torch.nn.attention's `sdpa_kernel(SDPBackend.FLASH_ATTENTION)`
    the same; a list that keeps MATH, or enable_math=True, leaves the fallback."""
    def sdpa_hits(text: str) -> list[tuple[int, bool]]:
        return [(h.line, h.optional) for h in analyse_python(text) if h.rule == "python.sdpa_math_disabled"]

    gptq = ("import torch\nimport torch.nn.functional as F\nclass Attn:\n    def forward(self, q, k, v):\n"
            "        with torch.backends.cuda.sdp_kernel(enable_math=False):\n"
            "            return F.scaled_dot_product_attention(q, k, v, is_causal=True)\n")
    assert sdpa_hits(gptq) == [(5, False)]
    assert sdpa_hits(gptq.replace("enable_math=False", "enable_math=True")) == []
    new = ("from torch.nn.attention import SDPBackend, sdpa_kernel\n"
           "with sdpa_kernel(SDPBackend.FLASH_ATTENTION):\n    pass\n"
           "with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):\n    pass\n"
           "with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):\n    pass\n"
           "with sdpa_kernel(backends=[SDPBackend.CUDNN_ATTENTION]):\n    pass\n")
    assert [line for line, _ in sdpa_hits(new)] == [2, 4, 8]
    assert [line for line, _ in sdpa_hits("import torch\ntorch.backends.cuda.enable_math_sdp(False)\n"
                                          "torch.backends.cuda.enable_math_sdp(True)\n")] == [2]
    variants = ("from torch.nn.attention import SDPBackend, sdpa_kernel\n"  # mlstm_kernels' baselines, lingua's probe
                "def attention_causal_pt_fa2(q, k, v):\n    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):\n"
                "        return sdpa(q, k, v)\n"
                "class AttentionSDPAFlash(AttentionSDPA):\n    def forward(self, x):\n"
                "        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):\n            return sdpa(x, x, x)\n")
    assert sdpa_hits(variants) == [], "a variant named for its kernel is chosen by name, not every caller's attention"


def test_flash_attention_csrc_extensions_have_no_rocm_build(tmp_path: Path, kb: KnowledgeBase) -> None:
    """TinyLlama's lit_gpt: `import xentropy_cuda_lib`, `import rotary_emb`, `import dropout_layer_norm` (the CUDA
    extensions in flash-attention's csrc/, not the flash_attn package, whose ROCm build does not cover them); a
    project's own top-level module of one of those names is its own code (one inside a package is not what a bare
    import finds)."""
    for name in ("rotary_emb", "dropout_layer_norm", "xentropy_cuda_lib", "fused_dense_lib"):
        entry = kb.by_import(name)
        assert entry is not None and entry.name == "flash-attn-csrc-extensions" and entry.status == "none"
    (tmp_path / "lit").mkdir()
    (tmp_path / "lit" / "__init__.py").write_text("")
    (tmp_path / "lit" / "fused_ce.py").write_text("import torch\nimport xentropy_cuda_lib\n")
    found = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert [(f.code, f.location, f.severity) for f in found.findings if f.code.startswith("scan.package")] == [
        ("scan.package.flash-attn-csrc-extensions", "lit/fused_ce.py:2", Severity.BLOCKER)]
    (tmp_path / "xentropy_cuda_lib.py").write_text("def loss(x):\n    return x\n")  # a top-level module of its own
    assert not [f for f in scan_tree(tmp_path, kb, jobs=1, cache=False).findings if f.code.startswith("scan.package")]


def test_a_key_given_twice_in_a_data_file_is_refused_not_overwritten(tmp_path: Path) -> None:
    """A rule pasted in front of another one's fields (its `- id:` line lost) made YAML give the second rule's message
    to the first and drop the second, silently: every YAML gpuready reads now refuses a key given twice, naming the
    line, and the bundled knowledge base has none."""
    from gpuready.errors import InputError, SchemaError
    from gpuready.files import loads_yaml
    from gpuready.scanner.kb import DATA

    assert loads_yaml("a: 1\nb: {a: 2}\nc: [a, a]\n", "t") == {"a": 1, "b": {"a": 2}, "c": ["a", "a"]}
    with pytest.raises(InputError, match="line 3 column 1: not valid YAML: the key 'a' is given twice"):
        loads_yaml("a: 1\nb: 2\na: 3\n", "t")
    broken = (DATA / "patterns.yaml").read_text(encoding="utf-8").replace("  - id: python.onnx_cuda_provider\n", "", 1)
    (tmp_path / "patterns.yaml").write_text(broken, encoding="utf-8")
    with pytest.raises(SchemaError, match="given twice"):
        load_kb(patterns=tmp_path / "patterns.yaml")
    assert load_kb().rule("python.onnx_cuda_provider") is not None


def test_a_model_zoo_loaded_by_a_computed_name_is_one_feature_per_model(tmp_path: Path, kb: KnowledgeBase) -> None:
    """Time-Series-Library: exp/exp_basic.py lists models/*.py and loads the one a user names with
    `importlib.import_module(module_path)`; models/Mamba.py imports mamba_ssm (a ROCm source build). Nothing imports
    the models by name, so each is a choice (feature models.Mamba), and the project stays portable; without the
    computed import the same file is core."""
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "__init__.py").write_text("")
    (tmp_path / "exp" / "exp_basic.py").write_text(
        "import importlib\n\ndef load(name):\n    return importlib.import_module(f'models.{name}')\n")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "DLinear.py").write_text("import torch\n")
    (tmp_path / "models" / "PatchTST.py").write_text("import torch\n")
    (tmp_path / "models" / "Crossformer.py").write_text("from models.PatchTST import Head\n")
    (tmp_path / "models" / "Mamba.py").write_text("import torch\nfrom mamba_ssm import Mamba\n")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    found = [(f.code, f.evidence.get("component")) for f in report.findings if f.code == "scan.package.mamba-ssm"]
    assert found == [("scan.package.mamba-ssm", "feature models.Mamba")]
    assert verdict(report.findings) == "portable"
    (tmp_path / "exp" / "exp_basic.py").write_text("from models import Mamba\n")
    static = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert [f.evidence.get("component") for f in static.findings if f.code == "scan.package.mamba-ssm"] == ["core"]
    assert verdict(static.findings) == "needs alternatives"


def test_plugins_share_the_project_machinery_and_a_package_api_is_no_plugin(tmp_path: Path, kb: KnowledgeBase) -> None:
    """pvcnn: configs loaded by name (utils/config.py's importlib.import_module(module)) each build a model from
    modules/, whose functional/__init__.py imports its kernels' wrappers and whose backend.py JIT-builds the CUDA
    sources: what two configs share is the project's own machinery (core), and modules the package's __init__
    imports are its API, not entries loaded by name."""
    (tmp_path / "utils").mkdir()
    (tmp_path / "utils" / "__init__.py").write_text("")
    (tmp_path / "utils" / "config.py").write_text("import importlib\n\ndef load(m):\n    importlib.import_module(m)\n")
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "__init__.py").write_text("")
    for name in ("pointnet", "pvcnn", "pointnet2"):
        (tmp_path / "configs" / f"{name}.py").write_text("from modules.functional import voxelize\n")
    functional = tmp_path / "modules" / "functional"
    functional.mkdir(parents=True)
    (tmp_path / "modules" / "__init__.py").write_text("")
    (functional / "__init__.py").write_text("from modules.functional.voxelization import voxelize\n"
                                            "from modules.functional.grouping import group\n"
                                            "from modules.functional.sampling import sample\n")
    for name in ("voxelization", "grouping", "sampling"):
        (functional / f"{name}.py").write_text("from modules.functional.backend import _backend\n")
    (functional / "backend.py").write_text(
        "from torch.utils.cpp_extension import load\n_backend = load(name='_b', sources=['src/a.cpp', 'src/a.cu'])\n")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    found = [(f.location, f.evidence.get("component")) for f in report.findings
             if f.code == "scan.python.cpp_extension_cuda"]
    assert found == [("modules/functional/backend.py:2", "core")]
    assert verdict(report.findings) == "needs alternatives"


def test_a_build_script_of_its_own_name_makes_the_extension_the_package_imports(tmp_path: Path,
                                                                                 kb: KnowledgeBase) -> None:
    """SqueezeLLM: squeezellm/setup_cuda.py builds quant_cuda (a plain CUDAExtension), which squeezellm/quant.py
    imports unconditionally: the build is the core's, not an optional part; and `from numba import cuda` (pvcnn's
    KITTI IoU) is numba's CUDA target, not numba's portable CPU JIT."""
    (tmp_path / "squeezellm").mkdir()
    (tmp_path / "squeezellm" / "__init__.py").write_text("")
    (tmp_path / "squeezellm" / "quant.py").write_text("import torch\nimport quant_cuda\n")
    (tmp_path / "squeezellm" / "setup_cuda.py").write_text(
        "from setuptools import setup\nfrom torch.utils import cpp_extension\n"
        "setup(name='quant_cuda', ext_modules=[cpp_extension.CUDAExtension(\n"
        "    'quant_cuda', ['quant_cuda.cpp', 'quant_cuda_kernel.cu'])],\n"
        "    cmdclass={'build_ext': cpp_extension.BuildExtension})\n")
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nsetup(name='squeezellm', packages=['squeezellm'])\n")
    report = scan_tree(tmp_path, kb, jobs=1, cache=False)
    assert [(f.code, f.evidence.get("component")) for f in report.findings
            if f.code == "scan.python.cpp_extension_cuda"] == [("scan.python.cpp_extension_cuda", "core")]
    assert verdict(report.findings) == "needs alternatives"
    (tmp_path / "squeezellm" / "iou.py").write_text("import numba\nfrom numba import cuda\nfrom numba import jit\n")
    codes = {f.code for f in scan_tree(tmp_path, kb, jobs=1, cache=False).findings if "iou.py" in (f.location or "")}
    assert codes == {"scan.package.numba-cuda", "scan.package.numba"}


def test_ci_that_installs_nvidias_cuda_toolkit_tests_no_rocm_path(tmp_path: Path, kb: KnowledgeBase) -> None:
    """OpenRLHF's workflow (`wget .../compute/cuda/repos/.../cuda-keyring_1.1-1_all.deb`, then `sudo apt-get -y
    install cuda-toolkit-${{ matrix.cuda-version }}`), fast-transformers' runfile installer from
    developer.download.nvidia.com, nerfacc's `apt-get -y install cuda`; not `apt-get install -y cuda-drivers` (a
    driver) nor `python3-pycuda`."""
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "ci.yml").write_text(
        "jobs:\n  test:\n    steps:\n      - run: |\n"
        "          wget https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/cuda-keyring.deb\n"
        "          sudo apt-get -y install cuda-toolkit-${{ matrix.cuda-version }}\n")
    (workflows / "other.yml").write_text(
        "jobs:\n  test:\n    steps:\n      - run: sudo apt-get install -y cuda-drivers python3-pycuda\n")
    found = [(f.code, f.location) for f in scan_tree(tmp_path, kb, jobs=1, cache=False).findings
             if f.code == "scan.ci.cuda_wheels"]
    assert found == [("scan.ci.cuda_wheels", ".github/workflows/ci.yml:5")]
