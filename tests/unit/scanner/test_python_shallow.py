"""The Python analyser walks only the statements of code that holds no word a rule needs: it must find exactly
what walking every expression finds, on real sources (the standard library, torch's when installed, the scan
corpus snapshots when present) and on generated ones."""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuready.scanner import python_source


def _hits(text: str) -> list[tuple[str, int, str, bool]] | None:
    try:
        return [(h.rule, h.line, h.detail, h.optional) for h in python_source.analyse_python(text)]
    except (SyntaxError, ValueError):
        return None


def _deep(text: str) -> list[tuple[str, int, str, bool]] | None:
    """Every statement walked whole, as if each held a rule word (in a file that holds one)."""
    with mock.patch.object(python_source._Visitor, "_may_hit", lambda self, node: True):
        return _hits(text)


def _real_sources() -> list[str]:
    """Up to 150 real sources that hold a rule word (the others are read by statements only, whole)."""
    roots = [Path(sysconfig.get_paths()["stdlib"])]
    try:
        import importlib.util

        spec = importlib.util.find_spec("torch")
        if spec and spec.submodule_search_locations:
            roots.append(Path(next(iter(spec.submodule_search_locations))))
    except (ImportError, ValueError):
        pass
    texts = []
    for path in (path for root in roots for path in sorted(root.rglob("*.py"))):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if python_source._TRIGGERS.search(text):
            texts.append(text)
    return random.Random(7).sample(texts, min(80, len(texts)))


def test_the_shallow_walk_finds_what_the_deep_walk_finds_in_real_sources() -> None:
    texts = _real_sources()
    assert len(texts) >= 50
    assert [_hits(text) for text in texts] == [_deep(text) for text in texts]


_STATEMENTS = st.sampled_from([
    "import torch\n", "import flash_attn\n", "try:\n    import xformers\nexcept ImportError:\n    pass\n",
    "if is_available():\n    import apex\nelse:\n    x = 1\n", "if torch.version.hip:\n    y = 0\n",
    "major, minor = torch.cuda.get_device_capability()\n", "if major >= 9:\n    y = 2\n",
    "use_tf32 = major < 8\n", "from torch.utils.cpp_extension import load as L\n",
    "m = L(name='k', sources=['k.cu'])\n", "from torch.utils.cpp_extension import CUDAExtension as CE\n",
    "e = CE('pkg._D', ['d.cu'])\n", "Extension('pkg._C', sources=['a.cpp'])\n",
    "flags = ['-gencode', 'arch=compute_80']\n", "@decorator(torch.version.cuda)\ndef f():\n    return 0\n",
    "class C:\n    def g(self):\n        import apex\n        return (lambda: 1) if q else None\n",
    "def h():\n    if is_hip():\n        return None\n    v = torch.version.cuda\n",
    "subprocess.run(['nvidia-smi'])\n", "os.environ['CUDA_HOME']\n", "z = 3\n"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_STATEMENTS, max_size=12).map("".join))
def test_the_shallow_walk_finds_what_the_deep_walk_finds_in_generated_sources(text: str) -> None:
    assert _hits(text) == _deep(text)


def test_a_name_bound_to_a_capability_or_a_loader_makes_a_later_line_worth_a_deep_walk() -> None:
    """``major, _ = get_device_capability()`` then ``if major >= 9:`` (no rule word on that line); a ``load``
    imported under another name and called with ``.cu`` sources."""
    text = ("import torch\nmajor, minor = torch.cuda.get_device_capability()\nif major >= 9:\n    y = 2\n"
            "from torch.utils.cpp_extension import load as L\nm = L(name='k', sources=['k.cu'])\n")
    rules = [(rule, line) for rule, line, *_ in _hits(text) or []]
    assert ("python.capability_gate", 3) in rules
    assert ("python.cpp_extension_cuda", 6) in rules


def test_lone_carriage_returns_count_as_line_breaks_as_the_parser_counts_them() -> None:
    """A lone ``\\r`` (old Mac line ends, or one stray in a comment) is a line break to the parser: the lines that
    hold rule words are counted the same way, so no statement is walked shallow by mistake."""
    for text in ("import torch\nx = 1  # a\rb\nif x:\n    v = torch.version.cuda\n",
                 "import os\rx = 1\rif x:\r    y = os.environ['CUDA_HOME']\r"):
        assert _hits(text) == _deep(text)
        assert any(rule.startswith("python.") for rule, *_ in _hits(text) or [])
