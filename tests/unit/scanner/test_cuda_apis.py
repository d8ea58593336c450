"""CUDA API names checked against HIPIFY's tables, on real lines from public CUDA projects (repository and commit
named with each), plus what must not be reported: supported APIs, comments, strings, a project's own names."""

from __future__ import annotations

import subprocess
import time

import pytest

from gpuready.scanner.cuda_apis import (
    REMOVED_RULE,
    UNSUPPORTED_RULE,
    CudaApi,
    load_hipify,
    own_names,
    unsupported_api_hits,
)
from gpuready.scanner.hits import Hit
from tests.scan_truth import mirrors


def found(text: str) -> list[tuple[str, int, str]]:
    return [(hit.rule, hit.line, hit.detail.split(" ")[0]) for hit in unsupported_api_hits(text)]


# HazyResearch/ThunderKittens@0b55588d2769dde0c7a9a606ffc015b0ca7a9551 include/types/global/tma.cuh:37-58, 163
THUNDERKITTENS_TMA = """\
    constexpr CUtensorMapDataType     tma_format      = (
        std::is_same_v<dtype, bf16>  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 :
        std::is_same_v<dtype, half>  ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 :
        std::is_same_v<dtype, float> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 :
        std::is_same_v<dtype, fp8e4m3> ? CU_TENSOR_MAP_DATA_TYPE_UINT8 :
        std::is_same_v<dtype, fp8e5m2> ? CU_TENSOR_MAP_DATA_TYPE_UINT8 :
#ifdef KITTENS_BLACKWELL
        std::is_same_v<dtype, fp8e8m0> ? CU_TENSOR_MAP_DATA_TYPE_UINT8 :
        std::is_same_v<dtype, fp4e2m1_2> ? CU_TENSOR_MAP_DATA_TYPE_UINT8 :
#endif
        CUtensorMapDataType(-1)
    );
    constexpr CUtensorMapInterleave   tma_interleave  = CU_TENSOR_MAP_INTERLEAVE_NONE;

    CUresult result = cuTensorMapEncodeTiled(
        tma_map,
"""


def test_tma_descriptors_have_no_hip_equivalent() -> None:
    assert found(THUNDERKITTENS_TMA) == [
        (UNSUPPORTED_RULE, 1, "CUtensorMapDataType"),
        (UNSUPPORTED_RULE, 2, "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"),
        (UNSUPPORTED_RULE, 3, "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"),
        (UNSUPPORTED_RULE, 4, "CU_TENSOR_MAP_DATA_TYPE_FLOAT32"),
        (UNSUPPORTED_RULE, 5, "CU_TENSOR_MAP_DATA_TYPE_UINT8"),
        (UNSUPPORTED_RULE, 6, "CU_TENSOR_MAP_DATA_TYPE_UINT8"),
        (UNSUPPORTED_RULE, 8, "CU_TENSOR_MAP_DATA_TYPE_UINT8"),
        (UNSUPPORTED_RULE, 9, "CU_TENSOR_MAP_DATA_TYPE_UINT8"),
        (UNSUPPORTED_RULE, 11, "CUtensorMapDataType"),
        (UNSUPPORTED_RULE, 13, "CUtensorMapInterleave"),
        (UNSUPPORTED_RULE, 13, "CU_TENSOR_MAP_INTERLEAVE_NONE"),
        (UNSUPPORTED_RULE, 15, "cuTensorMapEncodeTiled"),  # CUresult on the same line has a HIP equivalent
    ]
    assert unsupported_api_hits(THUNDERKITTENS_TMA)[-1] == Hit(UNSUPPORTED_RULE, 15, "cuTensorMapEncodeTiled (driver)")


# Dao-AILab/flash-attention@0251105a2fb19d2957484b7f023cd8c115286ced csrc/fused_dense_lib/fused_dense_cuda.cu:170-179
FLASH_ATTENTION_CUBLASLT = """\
  status = cublasLtMatmulDescSetAttribute(&operationDesc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
  if (status != CUBLAS_STATUS_SUCCESS) {
    goto CLEANUP;
  }

  // Create matrix descriptors. Not setting any extra attributes.
  status = cublasLtMatrixLayoutInit(
    &Adesc, abcType, transa == CUBLAS_OP_N ? m : k, transa == CUBLAS_OP_N ? k : m, lda);
  if (status != CUBLAS_STATUS_SUCCESS) goto CLEANUP;
  status = cublasLtMatrixLayoutInit(
"""


def test_cublaslt_init_functions_are_unsupported_the_create_ones_are_not() -> None:
    assert unsupported_api_hits(FLASH_ATTENTION_CUBLASLT) == [
        Hit(UNSUPPORTED_RULE, 7, "cublasLtMatrixLayoutInit (cublas)"),
        Hit(UNSUPPORTED_RULE, 10, "cublasLtMatrixLayoutInit (cublas)"),
    ]


# siboehm/SGEMM_CUDA@60cba6f9b20a198116c76f18de8047f44df8c8b8 src/runner.cu:174-176
SGEMM_CARVEOUT = """\
  cudaFuncSetAttribute(sgemm_shared_mem_block<32>,
                       cudaFuncAttributePreferredSharedMemoryCarveout,
                       cudaSharedmemCarveoutMaxShared);
"""

# AutoGPTQ/AutoGPTQ@9f7d37072917ab3a7545835f23e808294a542153 autogptq_extension/exllama/util.cuh:11-15
AUTOGPTQ_ERROR = """\
#if defined(USE_ROCM)
#define cudaUnspecified hipErrorUnknown
#else
#define cudaUnspecified cudaErrorApiFailureBase
#endif
"""


def test_an_unsupported_enumerator_and_a_macro_body() -> None:
    assert found(SGEMM_CARVEOUT) == [(UNSUPPORTED_RULE, 3, "cudaSharedmemCarveoutMaxShared")]
    # The macro's own name is the project's; its body uses the runtime's error code (in the CUDA branch of a ROCm
    # guard: crediting that guard is the caller's business).
    assert found(AUTOGPTQ_ERROR) == [(UNSUPPORTED_RULE, 4, "cudaErrorApiFailureBase")]


# wme7/Matlab2CPP@b4a865fbcb006a342fb76acab12bd1a5d80a5339
# singleGPU/heatEquation2d_textureMemory/experiments/bindingTexture.cu:17-35
MATLAB2CPP_TEXTURE = """\
void call_kernel(float *buffer) {
  // bind texture to buffer
  cudaBindTexture(0, tex, buffer, N*sizeof(float));

  dim3 block(128,1,1);
  dim3 grid(N/block.x,1,1);
  kernel <<<grid, block>>>();

  // unbind texture from buffer
  cudaUnbindTexture(tex);
}

int main() {
  // declare and allocate memory
  float *buffer;
  cudaMalloc(&buffer, N*sizeof(float));
  call_kernel(buffer);
  cudaFree(buffer);
}
"""


def test_texture_references_were_removed_from_cuda() -> None:
    assert unsupported_api_hits(MATLAB2CPP_TEXTURE) == [
        Hit(REMOVED_RULE, 3, "cudaBindTexture (runtime; removed in CUDA 12.0)"),
        Hit(REMOVED_RULE, 10, "cudaUnbindTexture (runtime; removed in CUDA 12.0)"),
    ]


# siboehm/SGEMM_CUDA@60cba6f9b20a198116c76f18de8047f44df8c8b8 cuBLAS_sgemm.cu:14-16, 45-54, 84, 99-102
SGEMM_SUPPORTED = """\
  cudaError_t cudaStat;  // cudaMalloc status
  cublasStatus_t stat;   // cuBLAS functions status
  cublasHandle_t handle; // cuBLAS context
  // cudaMalloc for d_a, d_b, d_c...
  cudaMalloc((void **)&d_a, m * k * sizeof(float));
  cudaMalloc((void **)&d_b, k * n * sizeof(float));
  cudaMalloc((void **)&d_c, m * n * sizeof(float));

  stat = cublasCreate(&handle); // initialize CUBLAS context

  cudaMemcpy(d_a, a, m * k * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, k * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_c, c, m * n * sizeof(float), cudaMemcpyHostToDevice);
  stat = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, d_b, n,
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  cublasDestroy(handle); // destroy CUBLAS context
"""


def test_supported_apis_are_not_reported() -> None:
    assert unsupported_api_hits(SGEMM_SUPPORTED) == []
    data = load_hipify()
    for name in ("cudaMalloc", "cudaMemcpy", "cudaFree", "cublasSgemm", "cublasCreate", "cudaMemcpyHostToDevice",
                 "CUBLAS_OP_N", "cudaStreamSynchronize", "nvrtcCompileProgram", "cuModuleLoadData"):
        rows = data.lookup(name)
        assert rows and all(row.hip for row in rows), name
        assert name not in data.unsupported and name not in data.removed


def test_names_that_only_look_like_cuda_are_not_reported() -> None:
    text = "\n".join([
        "cudaCheck(cudaMallocAsyncNotAnApi(&p, n));",  # project helpers, not in any table
        "at::cuda::CUDAStream stream = at::cuda::getCurrentCUDAStream();",
        "int cuda_threads = cub_block * 2; auto curandy = cusolverish(1);",
        "__nv_fp8_e4m3 x; __bfloat162float(y);",  # device-side names: left to the kernel rules
        "my_cudaSharedmemCarveoutMaxShared = 1; xCUtensorMap y;",  # not whole identifiers of the tables
    ])
    assert found(text) == []


def test_comments_strings_and_preprocessor_conditions_are_ignored() -> None:
    text = "\n".join([
        "// cudaSharedmemCarveoutMaxShared in a line comment",  # 1
        "/* cuTensorMapEncodeTiled in a block comment",  # 2
        "   spanning CUtensorMap lines */ int a;",  # 3
        'printf("cuTensorMapEncodeTiled failed: %s\\" CUtensorMap", msg);',  # 4
        "auto kernel_source = R\"cuda(",  # 5
        "  cuTensorMapEncodeTiled(&map);",  # 6: inside a raw string (NVRTC source text)
        ")cuda\";",  # 7
        "char q = '\"'; CUtensorMap map;",  # 8: the quote in a character literal opens no string
        "#if defined(CU_TENSOR_MAP_NUM_QWORDS) && CUDA_VERSION >= 12000",  # 9
        "#include <cudaTypedefs.h> // cuTensorMapEncodeTiled",  # 10
        "#pragma message(\"cuTensorMapEncodeTiled\")",  # 11
        "int digits = 1'000'000; cuTensorMapEncodeTiled(&map);",  # 12
    ])
    assert found(text) == [(UNSUPPORTED_RULE, 8, "CUtensorMap"), (UNSUPPORTED_RULE, 12, "cuTensorMapEncodeTiled")]


def test_one_hit_per_name_per_line() -> None:
    text = "CUtensorMap a, b; CUtensorMap c; cuTensorMapEncodeTiled(&a); cuTensorMapEncodeTiled(&b);\nCUtensorMap d;"
    assert found(text) == [(UNSUPPORTED_RULE, 1, "CUtensorMap"), (UNSUPPORTED_RULE, 1, "cuTensorMapEncodeTiled"),
                           (UNSUPPORTED_RULE, 2, "CUtensorMap")]


# NVlabs/tiny-cuda-nn@6ee3546bda615f51abe684ce9edefeb414689135 include/tiny-cuda-nn/optimizers/shampoo.h:49-50, 68
TINY_CUDA_NN_OWN_HELPER = "\n".join([
    "inline std::string cublasGetError(cublasStatus_t error) {",
    "\tswitch (error) {",
    '\t\t\tthrow std::runtime_error(std::string("CUBLAS Error: " #x " failed with error ") + '
    'cublasGetError(_result));  \\',
]) + "\n"


def test_a_projects_own_definitions_are_not_the_api() -> None:
    assert "cublasGetError" in load_hipify().unsupported, "the legacy cuBLAS name the project reuses"
    assert found(TINY_CUDA_NN_OWN_HELPER) == []
    assert found("#define cudaSharedmemCarveoutMaxShared 100\nint x = cudaSharedmemCarveoutMaxShared;") == []
    assert found("using CUtensorMap = my::TensorMap;\nCUtensorMap m;") == []
    assert own_names(TINY_CUDA_NN_OWN_HELPER) == {"cublasGetError"}


def test_declarations_and_macro_bodies_still_use_the_api() -> None:
    text = "\n".join([
        "CUresult cuTensorMapEncodeTiled(CUtensorMap* map, int rank);",  # 1: declared to load it at run time
        "#define ENCODE cuTensorMapEncodeTiled(&m, 2)",  # 2
        "return cuTensorMapEncodeTiled(&m, 2);",  # 3
    ])
    assert own_names(text) == set()
    assert found(text) == [(UNSUPPORTED_RULE, 1, "cuTensorMapEncodeTiled"), (UNSUPPORTED_RULE, 1, "CUtensorMap"),
                           (UNSUPPORTED_RULE, 2, "cuTensorMapEncodeTiled"),
                           (UNSUPPORTED_RULE, 3, "cuTensorMapEncodeTiled")]
    assert found("x = cuTensorMapEncodeTiled(&m);", ) == [(UNSUPPORTED_RULE, 1, "cuTensorMapEncodeTiled")]
    assert unsupported_api_hits("x = cuTensorMapEncodeTiled(&m);", own={"cuTensorMapEncodeTiled"}) == []


def test_a_name_in_several_tables_is_judged_on_all_of_them() -> None:
    data = load_hipify()
    rows = data.lookup("CUstream_st")
    assert {row.table for row in rows} == {"runtime", "driver"} and all(row.hip for row in rows)
    assert "CUkern_st" in data.unsupported and {row.table for row in data.lookup("CUkern_st")} == {"runtime", "driver"}
    kern = unsupported_api_hits("CUkern_st *k;")
    assert kern == [Hit(UNSUPPORTED_RULE, 1, "CUkern_st (runtime, driver)")]


def test_a_roc_library_equivalent_counts_as_an_equivalent() -> None:
    data = load_hipify()
    miopen_only = [api for api in data.apis if api.table == "cudnn" and api.hip is None and api.roc]
    assert miopen_only and all(api.name not in data.unsupported for api in miopen_only)
    miopen = CudaApi("x", "cudnn", None, "miopenX")
    assert miopen.unsupported and not miopen.no_equivalent


def test_cusparse_legacy_api_removed_but_ported() -> None:
    data = load_hipify()
    (row,) = data.lookup("cusparseScsrmv")
    assert (row.hip, row.deprecated, row.removed) == ("hipsparseScsrmv", "10.2", "11.0")
    assert found("cusparseScsrmv(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, n, nnz, &alpha, descr, v, r, c, x, "
                 "&beta, y);") == [(REMOVED_RULE, 1, "cusparseScsrmv")]


def test_cub_namespace_is_not_in_the_tables() -> None:
    """HIPIFY's CUB table lists CUB's macros only (hipCUB mirrors the cub:: namespace), so cub:: is not judged."""
    data = load_hipify()
    assert not any("::" in api.name for api in data.apis if api.table == "cub")
    assert found("cub::DeviceReduce::Sum(tmp, bytes, in, out, n);") == []
    assert found("CubDebugExit(cudaGetLastError());") == [(UNSUPPORTED_RULE, 1, "CubDebugExit")]


def test_no_quadratic_blow_up() -> None:
    """A generous guard against something quadratic, not a benchmark (well under a second here)."""
    snippet = THUNDERKITTENS_TMA + FLASH_ATTENTION_CUBLASLT + SGEMM_SUPPORTED + MATLAB2CPP_TEXTURE
    text = snippet * (120_000 // snippet.count("\n"))
    started = time.perf_counter()
    hits = unsupported_api_hits(text)
    assert time.perf_counter() - started < 10
    assert len(hits) == len(unsupported_api_hits(snippet)) * (120_000 // snippet.count("\n"))
    hostile = "R\"x(" + "'\"/*" * 20_000 + "\n" + "'a" * 50_000 + "\n" + "\"" * 50_000  # unterminated everything
    started = time.perf_counter()
    declarations = "\nCUresult cuTensorMapEncodeTiled(CUtensorMap* m)" * 20_000  # no body: look-ahead is bounded
    unsupported_api_hits(hostile + "\nCUtensorMap m;" + " cuTensorMapEncodeTiled(" * 20_000 + declarations)
    assert time.perf_counter() - started < 10


REAL_FILES = [
    ("HazyResearch+ThunderKittens", "0b55588d2769dde0c7a9a606ffc015b0ca7a9551", "include/types/global/tma.cuh",
     {(UNSUPPORTED_RULE, 163, "cuTensorMapEncodeTiled")}, {"CUresult"}),
    ("siboehm+SGEMM_CUDA", "60cba6f9b20a198116c76f18de8047f44df8c8b8", "cuBLAS_sgemm.cu", set(), None),
    ("NVlabs+tiny-cuda-nn", "6ee3546bda615f51abe684ce9edefeb414689135", "include/tiny-cuda-nn/optimizers/shampoo.h",
     {(UNSUPPORTED_RULE, line, "CUBLAS_GEMM_DEFAULT_TENSOR_OP") for line in (738, 756, 781, 795)},
     {"cublasGetError"}),
    ("NVlabs+tiny-cuda-nn", "6ee3546bda615f51abe684ce9edefeb414689135", "src/rtc_kernel.cu",
     {(UNSUPPORTED_RULE, 329, "cuFuncSetAttribute")}, {"nvrtcCompileProgram", "cuModuleLoadData"}),
]


@pytest.mark.parametrize(("repo", "commit", "path", "expected", "not_expected"), REAL_FILES,
                         ids=[f[2] for f in REAL_FILES])
def test_whole_real_files_from_local_mirrors(repo: str, commit: str, path: str, expected: set[tuple[str, int, str]],
                                             not_expected: set[str] | None) -> None:
    """Exactly ``expected`` where ``not_expected`` is None, else at least ``expected`` and none of those names."""
    mirror = mirrors() / repo / "repo"
    shown = subprocess.run(["git", f"--git-dir={mirror}", "show", f"{commit}:{path}"], capture_output=True,
                           text=True, check=False) if mirror.is_dir() else None
    if shown is None or shown.returncode != 0:
        pytest.skip(f"no local mirror of {repo} at {commit}")
    hits = set(found(shown.stdout))
    if not_expected is None:
        assert hits == expected
    else:
        assert expected <= hits and not {name for _, _, name in hits} & not_expected
