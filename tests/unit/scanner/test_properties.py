"""Property tests: any text given to the scan analysers is hits or a reported, skipped file, never a crash."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuready.scanner.engine import _analyse_batch
from gpuready.scanner.kb import load_kb

KB = load_kb()
RULES = tuple((r.id, r.pattern) for r in KB.patterns.rules if r.pattern)
KINDS = ["python", "setup_py", "requirements", "pyproject", "setup_cfg", "environment", "kernel", "cpp"]
PIECES = st.sampled_from(["import flash_attn\n", "try:\n", "except ImportError:\n", "    pass\n", "[project]\n",
                          "dependencies = [\"torch\"]\n", "torch==2.1+cu121\n", "--index-url https://x/cu121\n",
                          "- pip:\n", "  - cupy\n", "[options]\n", "install_requires =\n",
                          "asm volatile(\"mov.u32\");\n",
                          "#include <cuda.h>\n", "__shfl_down_sync(0xffffffff, v, 1);\n", "setup(install_requires=[\n",
                          "'\n", "\"\n", "{\n", "(\n", "\t", "\x00"])
TEXT = st.one_of(st.text(max_size=300), st.lists(st.one_of(PIECES, st.text(max_size=5)), max_size=30).map("".join))


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(KINDS), text=TEXT)
def test_analysers_never_crash(kind: str, text: str) -> None:
    [(digest, hits, error)] = _analyse_batch([("d", kind, text)], RULES)
    assert digest == "d"
    assert isinstance(hits, list) and isinstance(error, str)
    assert not (hits and error)
    for rule, line, detail, optional in hits:
        assert isinstance(rule, str) and line >= 0 and isinstance(detail, str) and isinstance(optional, bool)
