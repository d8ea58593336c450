"""HIPIFY's support tables: the parser over recorded real tables, the data file it writes, and the bundled copy."""

from __future__ import annotations

import datetime
import re
import shutil
import time
from pathlib import Path

import pytest
import yaml

from gpuready.errors import ParseError, SchemaError
from gpuready.scanner.cuda_apis import load_hipify, parse_hipify_data
from gpuready.scanner.hipify_tables import (
    SOURCE_REPO,
    TABLES,
    Marks,
    TableRow,
    encode_marks,
    main,
    parse_table,
    read_mirror,
    render_data,
)
from tests.fixture_kinds import FIXTURES
from tests.scan_truth import mirrors

TABLE_FIXTURES = FIXTURES / "hipify-tables"
SOURCE = yaml.safe_load((TABLE_FIXTURES / "SOURCE.yaml").read_text(encoding="utf-8"))
COMMIT = SOURCE["commit"]
DATA = Path(__file__).parents[3] / "src" / "gpuready" / "scanner" / "data" / "hipify.yaml"


def table(name: str) -> str:
    return (TABLE_FIXTURES / name).read_text(encoding="utf-8")


def by_name(rows: tuple[TableRow, ...]) -> dict[str, TableRow]:
    return {row.cuda: row for row in rows}


def test_every_recorded_table_names_its_source() -> None:
    assert SOURCE["repo"] == "ROCm/HIPIFY" and len(COMMIT) == 40 and SOURCE["retrieved"]
    recorded = {p.name for p in TABLE_FIXTURES.glob("*.md")}
    assert recorded == set(SOURCE["files"]) and len(recorded) >= 2
    for name, entry in SOURCE["files"].items():
        assert entry["url"] == f"https://github.com/ROCm/HIPIFY/blob/{COMMIT}/docs/tables/" + name.replace(
            ".excerpt", "")
        assert isinstance(entry["excerpt"], bool) and (not entry["excerpt"] or entry["kept"])


def test_rtc_table_whole() -> None:
    rows = parse_table(table("CUDA_RTC_API_supported_by_HIP.md"))
    assert len(rows) == 36
    found = by_name(rows)
    assert found["nvrtcCreateProgram"] == TableRow("nvrtcCreateProgram", "RTC API functions", Marks(changed="8.0"),
                                                   "hiprtcCreateProgram", Marks(added="2.6.0"))
    unsupported = found["NVRTC_ERROR_TIME_FILE_WRITE_FAILED"]
    assert unsupported.unsupported and unsupported.cuda_marks.added == "12.1"
    assert unsupported.section == "RTC Data types"
    assert unsupported.roc is None and unsupported.roc_marks == Marks()
    assert sum(row.unsupported for row in rows) == 9


def test_runtime_excerpt_marks_and_sections() -> None:
    rows = parse_table(table("CUDA_Runtime_API_functions_supported_by_HIP.excerpt.md"))
    found = by_name(rows)
    assert found["cudaDeviceSynchronize"].hip == "hipDeviceSynchronize"
    assert found["cudaDeviceFlushGPUDirectRDMAWrites"].unsupported
    thread = found["cudaThreadSynchronize"]
    assert thread.deprecated and thread.cuda_marks.deprecated == "10.0" and not thread.removed
    assert thread.section == "Thread Management [DEPRECATED]"
    bind = found["cudaBindTexture"]
    assert bind.removed and bind.cuda_marks == Marks(deprecated="11.0", removed="12.0")
    assert bind.hip == "hipBindTexture" and bind.hip_marks == Marks(added="1.6.0", deprecated="3.8.0")
    assert bind.section == "Texture Reference Management [REMOVED]"
    profiler = found["cudaProfilerInitialize"]
    assert profiler.unsupported and profiler.removed and profiler.section == "Profiler Control [REMOVED]"
    assert [row.cuda for row in rows if row.removed] == [
        "cudaConfigureCall", "cudaLaunch", "cudaSetupArgument", "cudaBindTexture", "cudaBindTexture2D",
        "cudaBindTextureToArray", "cudaBindTextureToMipmappedArray", "cudaGetTextureAlignmentOffset",
        "cudaGetTextureReference", "cudaUnbindTexture", "cudaBindSurfaceToArray", "cudaGetSurfaceReference",
        "cudaProfilerInitialize"]


def test_cublas_and_roc_excerpt_reads_the_roc_column() -> None:
    rows = parse_table(table("CUBLAS_API_supported_by_HIP_and_ROC.excerpt.md"))
    found = by_name(rows)
    atomics = found["CUBLAS_ATOMICS_ALLOWED"]
    assert (atomics.hip, atomics.roc) == ("HIPBLAS_ATOMICS_ALLOWED", "rocblas_atomics_allowed")
    assert atomics.hip_marks.added == "3.10.0" and atomics.roc_marks.added == "3.8.0"
    assert found["CUBLAS_COMPUTE_16F"].roc is None and found["CUBLAS_COMPUTE_16F"].hip == "HIPBLAS_COMPUTE_16F"
    layout = found["cublasLtMatrixLayoutInit"]
    assert layout.unsupported and layout.roc is None and layout.cuda_marks.added == "11.0"
    assert layout.section == "BLASLt Function Reference"
    assert found["cublasLtMatmulDescCreate"].cuda_marks.changed == "11.0"
    assert found["CUBLAS_GEMM_ALGO0"].unsupported


def test_marks_encode_compactly() -> None:
    rows = by_name(parse_table(table("CUBLAS_API_supported_by_HIP_and_ROC.excerpt.md")))
    assert encode_marks(rows["CUBLAS_ATOMICS_ALLOWED"]) == "hA=3.10.0 rA=3.8.0"
    runtime = by_name(parse_table(table("CUDA_Runtime_API_functions_supported_by_HIP.excerpt.md")))
    assert encode_marks(runtime["cudaBindTexture"]) == "D=11.0 R=12.0 hA=1.6.0 hD=3.8.0"


HEADER = ("|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|\n"
          "|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|\n")


@pytest.mark.parametrize(("text", "message"), [
    ("", "no API rows"),
    ("# just a title\n\nsome prose\n", "no API rows"),
    ("|`cudaFoo`| | | | | | | | | | |\n", "before its header"),
    (HEADER + "|`cudaFoo`| | | | |\n", "5 cells where the header has 11"),
    (HEADER + "|`cudaFoo`|new| | | | | | | | | |\n", "not a version"),
    (HEADER + "|cudaFoo| | | | | | | | | | |\n", "not a `name`"),
    (HEADER + "| | | | | |`hipFoo`| | | | | |\n", "no CUDA name"),
    ("|**HIP**|**A**|\n|:--|:-:|\n|`hipFoo`| |\n", "first column is not CUDA"),
    ("|**CUDA**|**A**|**XYZ**|**A**|\n|:--|:-:|:--|:-:|\n|`cudaFoo`| | | |\n", "unknown column"),
    (HEADER + "|`cudaFoo`| | | | | | | | | | |\n\n\\*A - Added; D - Dropped; R - Removed\n", "defines D as 'Dropped'"),
])
def test_what_is_not_a_table_is_refused(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=re.escape(message)):
        parse_table(text)


def test_rendered_data_reads_back_the_same_through_yaml_and_the_fast_reader() -> None:
    tables = {
        "rtc": ("CUDA_RTC_API_supported_by_HIP.md", parse_table(table("CUDA_RTC_API_supported_by_HIP.md"))),
        "runtime": ("CUDA_Runtime_API_functions_supported_by_HIP.md",
                    parse_table(table("CUDA_Runtime_API_functions_supported_by_HIP.excerpt.md"))),
        "cublas": ("CUBLAS_API_supported_by_HIP_and_ROC.md",
                   parse_table(table("CUBLAS_API_supported_by_HIP_and_ROC.excerpt.md"))),
    }
    text = render_data(tables, COMMIT, datetime.date(2024, 10, 24), datetime.date(2026, 12, 1))
    data = parse_hipify_data(text, "test")
    plain = yaml.safe_load(text)
    assert plain["source"] == data.source == SOURCE_REPO and plain["commit"] == data.commit == COMMIT
    assert plain["read"] == data.read == datetime.date(2026, 12, 1)
    assert plain["tables"]["cublas"] == data.tables["cublas"] == (
        f"https://github.com/ROCm/HIPIFY/blob/{COMMIT}/docs/tables/CUBLAS_API_supported_by_HIP_and_ROC.md")
    assert [[a.name, a.table, a.hip, a.roc, " ".join(f"{k}={v}" for k, v in a.marks)] for a in data.apis] == \
        plain["apis"]
    assert len(data.apis) == sum(len(rows) for _, rows in tables.values())
    assert "cudaProfilerInitialize" in data.unsupported and "cudaBindTexture" in data.removed
    assert "cublasLtMatrixLayoutInit" in data.unsupported and "cublasLtCreate" not in data.unsupported
    assert "CUBLAS_COMPUTE_16F" not in data.unsupported, "a HIP equivalent"


def test_names_that_are_not_plain_yaml_are_quoted() -> None:
    row = TableRow("curandStateSobol32", "s", Marks(), "hiprandStateSobol32", Marks(added="1.8.0"),
                   "rocrand_device::sobol32_engine<false>", Marks())
    odd = TableRow("CUoccupancyB2DSize", "s", Marks(), "void*", Marks())
    yes = TableRow("cudaYes", "s", Marks(), "yes", Marks())
    text = render_data({"curand": ("f.md", (row, odd, yes))}, COMMIT, datetime.date(2024, 1, 1),
                       datetime.date(2024, 1, 2))
    assert [api[2:4] for api in yaml.safe_load(text)["apis"]] == [
        ["hiprandStateSobol32", "rocrand_device::sobol32_engine<false>"], ["void*", None], ["yes", None]]
    assert [(a.hip, a.roc) for a in parse_hipify_data(text).apis] == [
        ("hiprandStateSobol32", "rocrand_device::sobol32_engine<false>"), ("void*", None), ("yes", None)]


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.replace("\napis:\n", "\nentries:\n"), "no 'apis:' list"),
    (lambda t: t.replace("source: https://", "source: http://"), "https://"),
    (lambda t: t.replace("read: 2026-12-01", "read: yesterday"), "expected a date"),
    (lambda t: t.replace(", rtc, ", ", nosuchtable, ", 1), "unknown table"),
    (lambda t: t.replace('"A=12.1"', '"A=twelve"', 1), "bad mark"),
    (lambda t: t + "- [broken\n", "expected [name"),
])
def test_a_damaged_data_file_is_refused_with_its_line(change: object, message: str) -> None:
    rows = parse_table(table("CUDA_RTC_API_supported_by_HIP.md"))
    text = render_data({"rtc": ("CUDA_RTC_API_supported_by_HIP.md", rows)}, COMMIT, datetime.date(2024, 10, 24),
                       datetime.date(2026, 12, 1))
    assert callable(change)
    with pytest.raises(SchemaError, match=re.escape(message)):
        parse_hipify_data(change(text), "hipify.yaml")


def test_the_bundled_data_file_header_and_size() -> None:
    assert DATA.stat().st_size < 1_500_000
    data = load_hipify()
    assert data.source == SOURCE_REPO and data.commit == COMMIT and data.commit_date == datetime.date(2024, 10, 24)
    assert set(data.tables) == set(TABLES)
    assert all(url.startswith(f"{SOURCE_REPO}/blob/{COMMIT}/docs/tables/") for url in data.tables.values())
    assert len(data.apis) > 8000
    assert {api.table for api in data.apis} == set(TABLES)


def test_the_bundled_data_file_is_plain_yaml_too() -> None:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    plain = yaml.load(DATA.read_text(encoding="utf-8"), Loader=loader)
    data = load_hipify()
    assert len(plain["apis"]) == len(data.apis)
    assert plain["apis"][0] == [data.apis[0].name, data.apis[0].table, data.apis[0].hip, data.apis[0].roc,
                                " ".join(f"{k}={v}" for k, v in data.apis[0].marks)]


def test_the_bundled_data_file_loads_fast() -> None:
    text = DATA.read_text(encoding="utf-8")
    started = time.perf_counter()
    parse_hipify_data(text)
    assert time.perf_counter() - started < 2.0, "a generous bound: about 0.05 s here; YAML would take over 1 s"


HIPIFY_MIRROR = mirrors() / "ROCm+HIPIFY" / "repo"


@pytest.mark.skipif(not HIPIFY_MIRROR.is_dir() or shutil.which("git") is None, reason="no local mirror of HIPIFY")
def test_regenerating_from_the_mirror_gives_the_bundled_file(tmp_path: Path) -> None:
    out = tmp_path / "hipify.yaml"
    bundled = DATA.read_text(encoding="utf-8")
    read = next(line for line in bundled.splitlines() if line.startswith("read: ")).removeprefix("read: ")
    try:
        read_mirror(HIPIFY_MIRROR, COMMIT)
    except ParseError as error:
        pytest.skip(f"the mirror lacks the pinned commit: {error}")
    assert main(["--mirror", str(HIPIFY_MIRROR), "--commit", COMMIT, "--out", str(out), "--read", read]) == 0
    assert out.read_text(encoding="utf-8") == bundled
