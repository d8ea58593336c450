"""The shape of the house (shared/DESIGN.md): imports point down the layers, no package imports a sibling, no
import cycles between packages at module level, the CLI's commands are thin, and ``import gpuready`` is cheap."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).parents[2] / "src" / "gpuready"

LAYERS: dict[str, int] = {
    "__init__": 0, "errors": 0,
    "files": 1, "_framework_child": 1,
    "model": 2,
    "stats": 3,
    "probe": 4, "isolation": 4,
    "compat": 5, "workloads": 5,
    "checks": 6, "placement": 6, "benchmark": 6, "scanner": 6,
    "store": 7,
    "comparison": 8, "pinning": 8,
    "report": 9, "guard": 9,
    "api": 10,
    "fleet": 11, "cli": 12,
    "__main__": 13,
}
"""Lower numbers are lower layers. A module may import its own package and packages of strictly lower layers."""


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports() -> list[tuple[str, str, bool, int]]:
    """(importing module, imported module, at module level, line) for every import of gpuready."""
    found = []
    for path in SRC.rglob("*.py"):
        module = ("gpuready." + ".".join(path.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(node) for node in tree.body}
        type_only = {id(n) for node in tree.body if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test)
                     for n in ast.walk(node)}
        for node in ast.walk(tree):
            if id(node) in type_only:
                continue
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else [
                alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                if name.startswith("gpuready"):
                    found.append((module, name, id(node) in top, node.lineno))
    return found


def test_every_package_has_a_layer() -> None:
    packages = {p.stem if p.is_file() else p.name for p in SRC.iterdir() if p.suffix == ".py" or (
        p.is_dir() and (p / "__init__.py").exists())}
    assert packages - set(LAYERS) == set(), "give new packages a place in LAYERS (and in shared/DESIGN.md)"


def test_imports_point_down_the_layers_and_never_to_a_sibling() -> None:
    wrong = []
    for module, imported, _, line in _imports():
        source, target = _package(module), _package(imported)
        if source == target or target == "__init__" and imported == "gpuready":
            continue
        if LAYERS[target] >= LAYERS[source]:
            wrong.append(f"{module}:{line} imports {imported} ({source} layer {LAYERS[source]} -> {target} layer "
                         f"{LAYERS[target]})")
    assert wrong == []


def test_no_import_cycles_between_packages() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, imported, top_level, _ in _imports():
        if top_level and _package(module) != _package(imported) and imported != "gpuready":
            graph[_package(module)].add(_package(imported))

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})) for nxt in graph[start])

    assert [p for p in list(graph) if reaches(p, p, {p})] == []


def test_cli_commands_are_thin() -> None:
    tree = ast.parse((SRC / "cli.py").read_text(encoding="utf-8"))
    fat = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "command"
                for d in node.decorator_list):
            body = node.body[1:] if isinstance(node.body[0], ast.Expr) else node.body  # the docstring
            lines = (body[-1].end_lineno or 0) - body[0].lineno + 1
            if lines > 30:
                fat.append(f"{node.name}: {lines} lines")
    assert fat == []


def test_import_gpuready_is_cheap_and_the_front_door_is_complete() -> None:
    code = ("import sys, gpuready; names = sorted(gpuready.__all__); "
            "heavy = [m for m in ('torch', 'jax', 'rich', 'sqlalchemy', 'numpy', 'gpuready.api') if m in sys.modules]; "
            "print(heavy, names)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("[] ")
    for name in ("fingerprint", "doctor", "plan", "check", "audit", "scan", "bench", "compare", "lock", "verify",
                 "DoctorConfig", "BenchConfig", "Run", "Outcome", "Verdict"):
        assert f"'{name}'" in done.stdout
