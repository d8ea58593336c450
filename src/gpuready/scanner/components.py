"""Which part of a project a file belongs to, and which import names are the project's own. From paths alone.

A finding in tests, benchmarks, examples, docs or CI does not decide whether the project itself runs on ROCm; the
project verdict follows the core code and the build. Optional features (guarded or lazy imports, extras) get their
own verdicts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath

CORE, BUILD, OPTIONAL = "core", "build", "optional"
TESTS, BENCHMARKS, EXAMPLES, DOCS, CI = "tests", "benchmarks", "examples", "docs", "ci"
INSTALL = "install"
"""The part a step of installing belongs to when it is to be watched but leaves the code portable (its verdict is
shown beside the project's, as CI's is)."""
DECIDING = frozenset({CORE, BUILD})
"""Components whose findings decide the project verdict."""
AROUND = frozenset({TESTS, BENCHMARKS, EXAMPLES, DOCS, CI})
"""Components around the project, not what its users install: their pins are not the install's."""

_PARTS = (
    (TESTS, {"tests", "test", "testing", "unittests", "unit_tests", "integration_tests", "test_utils"}),
    (BENCHMARKS, {"benchmarks", "benchmark", "bench", "benchmarking", "perf", "profiling"}),
    (EXAMPLES, {"examples", "example", "demo", "demos", "notebooks", "tutorials", "tutorial", "samples", "sample",
                "playground", "sandbox"}),
    (DOCS, {"docs", "doc", "documentation", "website"}),
    (CI, {".github", ".gitlab", ".circleci", ".buildkite", "ci", ".ci", ".jenkins", ".azure-pipelines", "packaging",
          "release", "conda-recipe", "conda.recipe"}),
)
_BUILD_NAMES = re.compile(r"^(setup\.py|setup\.cfg|pyproject\.toml|cmakelists\.txt|.*\.cmake|makefile|.*\.mk|"
                          r"dockerfile.*|.*\.dockerfile|.*\.def|build\.py|build_.*\.py|\.gitmodules|cog\.yaml|"
                          r"requirements.*\.txt|environment\.ya?ml|install.*\.sh|build.*\.sh)$")


def component_of(path: str) -> str:
    """``tests``, ``benchmarks``, ``examples``, ``docs``, ``ci``, ``build`` or ``core`` for a path relative to the
    project root."""
    pure = PurePosixPath(path.replace("\\", "/"))
    name = pure.name.lower()
    folders = [part.lower() for part in pure.parts[:-1]]
    for component, words in _PARTS:
        if any(folder in words for folder in folders):
            return component
    if name.startswith("test_") or name.endswith(("_test.py", "_tests.py")) or name == "conftest.py":
        return TESTS
    if name.startswith(("bench_", "benchmark")):
        return BENCHMARKS
    if name.endswith((".md", ".rst")):
        return DOCS
    if name in (".gitlab-ci.yml", "jenkinsfile", "azure-pipelines.yml", ".travis.yml"):
        return CI
    if _BUILD_NAMES.match(name):
        return BUILD
    return CORE


_FEATURE_REQUIREMENTS = re.compile(r"^requirements[-_.](?P<feature>[\w\-]+)\.txt$|^(?P<feature2>[\w\-]+)\.txt$")
_BASE_REQUIREMENTS = {"base", "main", "core", "requirements", "runtime", "install", "common", "prod", "default", "cpu",
                      "gpu", "cuda"}
_TEST_REQUIREMENTS = {"dev", "test", "tests", "testing", "ci", "lint", "style", "develop"}


def requirements_component(path: str) -> str | None:
    """``requirements-moe.txt`` is the feature ``moe``, ``requirements-dev.txt`` the tests, ``requirements-docs.txt``
    the docs; ``requirements.txt`` (and ``requirements/base.txt``) the core. None when the file is no requirements
    file of that shape."""
    pure = PurePosixPath(path.replace("\\", "/"))
    name = pure.name.lower()
    if name == "requirements.txt":
        return None
    in_folder = len(pure.parts) > 1 and pure.parts[-2].lower() == "requirements"
    match = _FEATURE_REQUIREMENTS.match(name)
    if match is None or (match.group("feature2") and not in_folder):
        return None
    feature = (match.group("feature") or match.group("feature2") or "").lower().removeprefix("requirements-")
    if feature in _BASE_REQUIREMENTS:
        return None
    if feature in _TEST_REQUIREMENTS:
        return TESTS
    if feature in ("docs", "doc", "documentation"):
        return DOCS
    return f"feature {feature}"


_CUDA_TAG = re.compile(r"(?<![a-z])(?:cu\d{2,3}(?!\d)|cuda)")
_ROCM_TAG = re.compile(r"(?<![a-z])(?:rocm|hip(?![a-z])|amd(?![a-z]))")
_INSTALL_SUFFIXES = (".txt", ".yml", ".yaml", ".lock", ".in")


def cuda_variants(paths: Iterable[str]) -> frozenset[str]:
    """Install files that are a project's CUDA variant of an install it also ships for ROCm: a requirements or
    environment file whose name carries a CUDA tag (``environment_pt240cu124.yaml``, ``requirements-cuda.txt``) in a
    folder that holds one with a ROCm tag (``environment_pt240_rocm64.txt``). A ROCm user takes the other one, so
    the CUDA pins in these are the install's to watch, not the project's. So is a CUDA-tagged file beside an untagged
    one of its family (``requirements_cuda.txt`` beside ``requirements.txt``): the plain one installs on any vendor."""
    by_folder: dict[PurePosixPath, list[str]] = {}
    for path in paths:
        if not path.lower().endswith(tuple(_INSTALL_SUFFIXES)):
            continue  # most files: no install file (a plain string test spares making a path of each)
        pure = PurePosixPath(path.replace("\\", "/"))
        if pure.suffix.lower() in _INSTALL_SUFFIXES:
            by_folder.setdefault(pure.parent, []).append(path)
    found: set[str] = set()
    for files in by_folder.values():
        names = {path: PurePosixPath(path.replace("\\", "/")).name.lower() for path in files}
        tagged = {path: name for path, name in names.items() if _CUDA_TAG.search(name) and not _ROCM_TAG.search(name)}
        if any(_ROCM_TAG.search(name) for name in names.values()):
            found.update(tagged)
        for path, name in tagged.items():  # requirements_cuda.txt beside requirements.txt: the plain one is the
            family = _CUDA_TAG.split(name)[0].rstrip("-_.")  # vendor-neutral install, this one the CUDA variant
            if family and any(other.startswith(family) and not _CUDA_TAG.search(other) and not _ROCM_TAG.search(other)
                              for other in names.values()):
                found.add(path)
    return frozenset(found)


BUILD_SCRIPT = re.compile(r"setup_\w+\.py")
"""A build script of its own name (``setup_cuda.py``): a sub-project of its own, whose extensions are the project's."""


def subprojects(paths: Iterable[str], settings_only_root: bool = False) -> tuple[str, ...]:
    """Folders below the root that are projects of their own (their own setup.py or pyproject.toml): installed
    separately, so optional for the project. A build script of its own name (``setup_cuda.py``, at the root or in a
    folder such as ``pkg/kernels/``) counts as one too: it builds something the package's own install does not. A
    root ``pyproject.toml`` that holds only tool settings (``settings_only_root``: no ``[project]``, no setup.py
    beside it) is no build at the root: then the shallowest nested project is the project itself (AQLM's
    ``inference_lib/``)."""
    paths = list(paths)
    nested: set[PurePosixPath] = set()
    found = set()
    root_build = False
    for path in paths:
        if not path.endswith((".py", "pyproject.toml")) or "setup" not in path and "pyproject" not in path:
            continue  # no build script (a plain string test spares making a path of each file)
        pure = PurePosixPath(path.replace("\\", "/"))
        if pure.name in ("setup.py", "pyproject.toml"):
            if len(pure.parts) == 1:
                root_build = root_build or pure.name == "setup.py" or not settings_only_root
            else:
                nested.add(pure.parent)
        elif BUILD_SCRIPT.fullmatch(pure.name):
            found.add(str(pure))
    if not root_build and nested and (settings_only_root or not _code_outside(paths, nested)):
        # no build at the root: the shallowest nested one is the project itself, unless Python code stands outside
        # every nested build (a project of scripts, main.py and its packages, with an opt-in extension below it:
        # Swin-Transformer's kernels/window_process/)
        shallowest = min(len(folder.parts) for folder in nested)
        nested = {folder for folder in nested if len(folder.parts) > shallowest}
    return tuple(sorted(found | {f"{folder}/" for folder in nested}))


def _code_outside(paths: Iterable[str], folders: set[PurePosixPath]) -> bool:
    """Whether a Python file stands outside every one of ``folders``."""
    return any(path.endswith(".py") and not any(PurePosixPath(path).is_relative_to(folder) for folder in folders)
               for path in paths)


def other_cmake_build(paths: Iterable[str], setup_builds_extensions: bool, build_names_cmake: bool) -> tuple[str, ...]:
    """A CMake build at the root next to a ``setup.py`` that builds the project's extensions with torch's builder
    (``CUDAExtension``/``BuildExtension``) while no Python build file (setup.py, pyproject.toml, setup.cfg) names
    CMake: ``pip install`` does not use it (it serves C++ users, as torch_scatter's ``CMakeLists.txt``), so the CMake
    files are an optional part of their own. Nothing when CMake may be the build."""
    if not setup_builds_extensions or build_names_cmake:
        return ()
    listed = [PurePosixPath(path.replace("\\", "/")) for path in paths]
    if PurePosixPath("CMakeLists.txt") not in listed:
        return ()
    return ("CMakeLists.txt", *(("cmake/",) if any(p.parts[0] == "cmake" and len(p.parts) > 1 for p in listed) else ()))


_CONTAINER_FILE = re.compile(r"(?i)^(?:dockerfile(?:\.\w+)?|\w+\.dockerfile|docker-compose\.ya?ml|compose\.ya?ml)$")


def deployments(paths: Iterable[str], root_builds: bool) -> tuple[str, ...]:
    """Folders below the root that are deployments of their own: a container recipe (Dockerfile, docker-compose)
    beside Python code, in a project whose root builds an installable package (F5-TTS's
    ``src/f5_tts/runtime/triton_trtllm/``: a TensorRT-LLM serving runtime with its own image). The package's install
    does not take them, so they are optional, unless the rest of the project imports them (``core_subprojects``).
    Nothing for a project without a root build (its folders may be the product) or a top-level folder that is a
    package itself."""
    if not root_builds:
        return ()
    listed = [PurePosixPath(path.replace("\\", "/")) for path in paths if path.endswith(".py") or (
        "ocker" in path.lower() or "ompose" in path.lower())]  # Python files and container recipes: all it reads
    packages = {p.parent for p in listed if p.name == "__init__.py"}
    found = set()
    for folder in {p.parent for p in listed if _CONTAINER_FILE.match(p.name) and len(p.parts) > 1}:
        if len(folder.parts) == 1 and folder in packages:
            continue  # the package itself (its own Dockerfile builds an image of it)
        if any(p.suffix == ".py" and p.parts[:len(folder.parts)] == folder.parts for p in listed):
            found.add(f"{folder}/")
    return tuple(sorted(found))


def own_packages(paths: Iterable[str]) -> frozenset[str]:
    """Import names the project itself provides: every package folder (one with ``__init__.py``) whose parent is
    not a package, and the modules next to ``setup.py``/``pyproject.toml`` at the root or under ``src/`` (so
    importing them is never a dependency finding)."""
    packages: set[PurePosixPath] = set()
    modules: set[str] = set()
    for path in paths:
        if not path.endswith(".py"):
            continue
        pure = PurePosixPath(path.replace("\\", "/"))
        if pure.name == "__init__.py":
            packages.add(pure.parent)
        elif pure.suffix == ".py" and pure.name != "setup.py" and (
                len(pure.parts) == 1 or len(pure.parts) == 2 and pure.parts[0] in ("src", "python", "lib")):
            modules.add(pure.stem)
    top = {folder.name for folder in packages if folder.parent not in packages and folder.name}
    return frozenset(top | modules)


def _parts(path: str) -> list[str]:
    """A path's parts as ``PurePosixPath(path).parts`` gives them, by splitting the string (several times faster)."""
    parts = [part for part in path.replace("\\", "/").split("/") if part and part != "."]
    return ["/", *parts] if path.startswith(("/", "\\")) else parts


def module_of(path: str) -> str | None:
    """``src/pkg/sub/mod.py`` -> ``pkg.sub.mod``; ``pkg/__init__.py`` -> ``pkg`` (None for a non-Python file)."""
    parts = _parts(path)
    if not parts or not parts[-1].endswith(".py") or parts[-1] == ".py":
        return None
    if parts[0] in ("src", "python", "lib") and len(parts) > 1:
        parts = parts[1:]
    parts[-1] = parts[-1][:-3]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if parts else None


def _absolute(detail: str, module: str, is_package: bool) -> list[str]:
    """The modules an import names, made absolute: ``..ops|a,b`` in ``pkg.x.y`` -> ``pkg.ops``, ``pkg.ops.a`` ..."""
    target, _, names = detail.partition("|")
    level = len(target) - len(target.lstrip("."))
    target = target.lstrip(".")
    if level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (level - 1)] if level > 1 else base
        target = ".".join([*base, target] if target else base)
    return [target] + [f"{target}.{name}" for name in names.split(",") if name]


def extension_imports(imports: dict[str, list[tuple[int, str]]], extensions: Iterable[str]
                      ) -> Iterator[tuple[str, int, str]]:
    """Each (file, line, extension) where a file imports one of the compiled ``extensions`` a build makes
    (``torch_int._CUDA``, or ``_C`` imported relatively inside its package); ``imports`` maps each Python file to its
    unguarded (line, import detail) pairs."""
    names = set(extensions)
    for path, pairs in imports.items():
        module = module_of(path) or ""
        for line, detail in pairs:
            for name in _absolute(detail, module, path.endswith("__init__.py")):
                if name in names:
                    yield path, line, name
                    break


ImportGraph = tuple[dict[str, str], dict[str, list[tuple[str, bool]]]]
"""Each Python file's module name, and for each file who imports it (importer, optional)."""


def import_graph(imports: dict[str, list[tuple[str, bool]]]) -> ImportGraph:
    """The project's import graph, made once for the questions below that read it."""
    return _edges(imports)


def _edges(imports: dict[str, list[tuple[str, bool]]]) -> ImportGraph:
    """Each Python file's module name, and for each file who imports it (importer, optional)."""
    modules = {path: module for path in imports if (module := module_of(path))}
    by_name: dict[str, str] = {}
    for path, module in sorted(modules.items(), key=lambda item: len(item[0])):
        by_name.setdefault(module, path)
    for path in modules:  # a sub-project's package is imported by its own name, not its folder's
        pieces = _parts(path)
        for start in range(1, len(pieces) - 1):
            inner = module_of("/".join(pieces[start:]))
            if inner:
                by_name.setdefault(inner, path)
    edges: dict[str, list[tuple[str, bool]]] = {path: [] for path in modules}
    for source, pairs in imports.items():
        if component_of(source) not in DECIDING:
            continue  # what tests, examples and benchmarks import says nothing about what the project needs
        module = modules.get(source, "")
        for detail, optional in pairs:
            for name in _absolute(detail, module, source.endswith("__init__.py")):
                parts = name.split(".")
                for end in range(len(parts), 0, -1):  # importing a.b.c runs a/__init__ and a/b/__init__ too
                    prefix = ".".join(parts[:end])
                    if end < len(parts) and module.startswith(prefix + "."):
                        break  # a package the importer is inside of is loaded already: no edge
                    target = by_name.get(prefix)
                    if target is not None and target.endswith("__init__.py") and source.startswith(
                            target[:-len("__init__.py")]):
                        break  # the same, for a sub-project's package imported by its own name from inside it
                    if target is not None and target != source:
                        edges[target].append((source, optional))
    return modules, edges


def optional_package_sources(paths: Iterable[str], optional: dict[str, str]) -> dict[str, str]:
    """Kernel and C++ sources inside an optional Python package (``pkg/extensions/cuda/awq/gemm.cu`` under an
    optional ``pkg.extensions.cuda``): the package compiles them when it is loaded, so they belong to its feature.
    For projects whose install builds no extension (what the install compiles is the install's, whatever folder
    it stands in)."""
    packages = {path.rsplit("/", 1)[0]: feature for path, feature in optional.items() if path.endswith("/__init__.py")}
    if not packages:
        return {}
    found: dict[str, str] = {}
    for path in paths:
        if path.endswith(".py"):
            continue
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        while folder:
            if folder in packages:
                found[path] = packages[folder]
                break
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
    return found


_NOT_FEATURES = frozenset({"all", "full", "complete", "dev", "develop", "test", "tests", "testing", "doc", "docs",
                           "lint", "style", "quality", "build", "default", "core", "extra", "extras"})
"""Extra names that are groups of tools or of everything, never one feature's package."""


def _integrations(modules: dict[str, str], edges: dict[str, list[tuple[str, bool]]],
                  imports: dict[str, list[tuple[str, bool]]]) -> set[str]:
    """Modules named after the other package they import (``pkg/utils/vllm.py`` importing ``vllm``) that no module
    of the project imports: a shim for using the project inside that package, loaded by those who use both."""
    own = {module.split(".")[0] for module in modules.values()}
    found = set()
    for path, module in modules.items():
        stem = module.rsplit(".", 1)[-1]
        if edges.get(path) or stem in own or stem in _NOT_FEATURES or component_of(path) not in DECIDING or (
                path.endswith(f"{stem}/__init__.py") and path.rsplit("/", 2)[0] + "/__init__.py" not in modules):
            continue  # (the last: a sub-project's top-level package importing itself by its own name)
        if any(detail.split("|")[0].split(".")[0] == stem for detail, _ in imports.get(path, ())):
            found.add(path)
    return found


def _extra_packages(modules: dict[str, str], edges: dict[str, list[tuple[str, bool]]],
                    extras: Iterable[str]) -> set[str]:
    """The files of sub-packages named after an extra (``pkg/ops/cutile/`` for ``pkg[cutile]``) that no module
    outside the sub-package imports."""
    names = {name.lower().replace("-", "_") for name in extras} - _NOT_FEATURES
    packages = {".".join(parts[:end]) for parts in (m.split(".") for m in modules.values())
                for end in range(2, len(parts) + 1) if parts[end - 1] in names}
    chosen: set[str] = set()
    for package in packages:
        inside = {p for p, m in modules.items() if m == package or m.startswith(package + ".")}
        if not any(source not in inside for p in inside for source, _ in edges.get(p, ())):
            chosen |= inside
    return chosen


def core_subprojects(imports: dict[str, list[tuple[str, bool]]], prefixes: Iterable[str],
                     extensions: dict[str, str] | None = None, graph: ImportGraph | None = None) -> tuple[str, ...]:
    """The sub-projects the rest of the project imports unguarded (installed with it: core, not optional): one of
    their Python modules, or a compiled extension their build script makes (``extensions``: module name -> the
    build script's path), imported by a deciding part of the project outside the sub-project."""
    _, edges = graph or _edges(imports)
    made: dict[str, list[str]] = {}
    for module, script in (extensions or {}).items():
        made.setdefault(script, []).append(module)
    found = []
    for prefix in prefixes:
        if any(target.startswith(prefix) and not source.startswith(prefix) and not optional
               for target, incoming in edges.items() for source, optional in incoming):
            found.append(prefix)
            continue
        names = {m for script, modules in made.items() if script.startswith(prefix) for m in modules}
        if names and any(not source.startswith(prefix) and not optional and component_of(source) in DECIDING
                         and not detail.startswith(".") and _names_one(detail, names)
                         for source, pairs in imports.items() for detail, optional in pairs):
            found.append(prefix)
    return tuple(found)


def _names_one(detail: str, extensions: set[str]) -> bool:
    """Whether an absolute import names one of the compiled ``extensions``: ``import torch_int._CUDA``, the top-level
    name of ``_ext`` alone, or a module of a package of extensions (``from qserve_backend import activation_ops``,
    ``import qserve_backend.fused_attention``)."""
    named = _absolute(detail, "", False)
    return any(name in extensions or name.split(".")[0] in extensions for name in named)


def _plugin_modules(modules: dict[str, str], edges: dict[str, list[tuple[str, bool]]]) -> set[str]:
    """Modules of a package folder none of whose modules anything outside it imports, in a project that imports
    modules by a name it computes (``importlib.import_module(f"models.{name}")``): a model zoo whose entries are
    loaded by the name a user picks, each one a choice (at least three of them, in a package with an ``__init__.py``,
    not a folder of scripts)."""
    folders: dict[str, list[str]] = {}
    for path in modules:
        folder, _, name = path.rpartition("/")
        if folder and name != "__init__.py":
            folders.setdefault(folder, []).append(path)
    chosen: set[str] = set()
    for folder, paths in folders.items():
        if len(paths) >= 3 and f"{folder}/__init__.py" in modules and (
                folder.rsplit("/", 1)[-1] not in _NOT_PLUGINS and component_of(paths[0]) in DECIDING) and not any(
                    source.rpartition("/")[0] != folder or source.endswith("/__init__.py")
                    for path in paths for source, _ in edges.get(path, ())):
            chosen.update(paths)  # (one entry may import another, Crossformer PatchTST's head; the package's own
            # __init__ importing them makes them its API, not entries loaded by name)
    return chosen


def _shared_by_plugins(plugins: set[str], imported: dict[str, set[str]]) -> list[str]:
    """The modules that two or more ``plugins`` load, each through unguarded imports (other plugins not passed)."""
    users: dict[str, set[str]] = {}
    for plugin in plugins:
        seen: set[str] = set()
        waiting = list(imported.get(plugin, ()))
        while waiting:
            path = waiting.pop()
            if path in seen or path in plugins:
                continue
            seen.add(path)
            waiting.extend(imported.get(path, ()))
        for path in seen:
            users.setdefault(path, set()).add(plugin)
    return sorted(path for path, by in users.items() if len(by) >= 2)


_NOT_PLUGINS = frozenset({"scripts", "tools", "bin", "cli", "commands", "utils", "examples", "tests", "benchmarks"})
"""Folders whose modules nothing imports for another reason: each is run as a program, or tried alone."""


def optional_modules(imports: dict[str, list[tuple[str, bool]]], extras: Iterable[str] = (),
                     graph: ImportGraph | None = None, loads_by_name: bool = False) -> dict[str, str]:
    """The project's own modules that are optional: core code reaches them only through an import that may fail
    (try/except ImportError, behind a flag, inside a function), however their own modules import each other.
    ``imports`` maps each Python file to its (import detail, optional) pairs. Returns file path -> the feature's name
    (its outermost optional module). A module nothing imports (an entry point, a plugin loaded by name) stays core,
    unless it is in a sub-package named after one of the project's ``extras`` that no module outside it imports (an
    opt-in back end loaded by name, whose dependencies come with ``pip install project[extra]``), or
    ``loads_by_name`` (the project imports modules by a computed name) and it is one of a folder of such plugins."""
    modules, edges = graph or _edges(imports)
    forced = _extra_packages(modules, edges, extras) | _integrations(modules, edges, imports)
    imported: dict[str, set[str]] = {}  # importer -> what it imports unguarded
    for target, incoming in edges.items():
        for source, optional in incoming:
            if not optional:
                imported.setdefault(source, set()).add(target)
    plugins = _plugin_modules(modules, edges) if loads_by_name else set()
    forced |= plugins
    # core: what nothing imports (an entry point, a plugin loaded by name), and what core code imports unguarded; the
    # rest is loaded only behind a guard (reached from core code, a cycle among its own modules included); what two
    # plugins loaded by name both use is the project's own machinery (pvcnn's modules/, which every config's model
    # builds on), core as well
    core: set[str] = set()
    waiting = [path for path, incoming in edges.items() if not incoming and path not in forced]
    waiting += _shared_by_plugins(plugins, imported)
    while waiting:
        path = waiting.pop()
        if path in core:
            continue
        core.add(path)
        waiting.extend(target for target in imported.get(path, ()) if target not in core and target not in forced)
    unreached = {path for path in edges if path not in core}
    # of the rest, what a guarded import loads and all it imports; a cycle that nothing loads at all stays core
    optional_files: set[str] = set()
    waiting = [path for path in unreached if path in forced or any(optional for _, optional in edges[path])]
    while waiting:
        path = waiting.pop()
        if path in optional_files:
            continue
        optional_files.add(path)
        waiting.extend(target for target in imported.get(path, ()) if target in unreached)
    optional_files |= forced
    names = {modules[path] for path in optional_files}
    features = {}
    for path in optional_files:
        parts = modules[path].split(".")
        outer = next(".".join(parts[:end]) for end in range(1, len(parts) + 1) if ".".join(parts[:end]) in names)
        features[path] = outer
    return features
