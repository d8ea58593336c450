"""Property tests: any text given to the scan analysers is hits or a reported, skipped file, never a crash."""

from __future__ import annotations

from hypothesis import assume, given, settings
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


@given(st.lists(st.sampled_from(["a", "src", "lib", ".", "", "..", "__init__.py", "m.py", ".py", "x.y.py", "b"]),
                max_size=6), st.sampled_from(["", "/", "\\"]))
def test_module_of_splits_paths_as_purepath_does(parts: list[str], lead: str) -> None:
    """module_of splits strings (PurePosixPath cost a second on torch's tree); it must name the same module."""
    from pathlib import PurePosixPath

    from gpuready.scanner.components import module_of

    path = lead + "/".join(parts)
    assume(not path.replace("\\", "/").startswith("//"))  # POSIX keeps a '//' root: no scanned path has one
    pure = PurePosixPath(path.replace("\\", "/"))
    expected = None
    if pure.suffix == ".py":
        names = list(pure.parts)
        names = names[1:] if names[0] in ("src", "python", "lib") and len(names) > 1 else names
        names[-1] = names[-1][:-3]
        names = names[:-1] if names[-1] == "__init__" else names
        expected = ".".join(names) if names else None
    assert module_of(path) == expected
