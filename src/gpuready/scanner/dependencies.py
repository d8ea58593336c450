"""Dependency declarations: requirements files, pyproject.toml, setup.py / setup.cfg, environment.yml."""

from __future__ import annotations

import ast
import configparser
import re
import sys
from typing import Any

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

from gpuready.scanner.hits import Hit

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_CUDA_LOCAL = re.compile(r"\+cu\d{2,3}\b|^\s*[A-Za-z0-9][\w.\-]*\s*\[[^\]]*?\b(?:cuda\d*x?(?:[_\-]\w+)?|and-cuda|"
                         r"cu\d{2,3})\s*(?:,[^\]]*)?\]|"  # a CUDA build chosen by an extra: jax[cuda12], openmm[cuda12]
                         r"^\s*(pytorch-cuda|cudatoolkit|cuda-toolkit|cuda-runtime|cuda-nvcc)\b")
_CUDA_INDEX = re.compile(r"(download\.pytorch\.org/whl/cu\d+|/cu\d{2,3}(/|$)|nvidia\.com|cuda\d*)", re.IGNORECASE)


_NAMED_OTHERWISE_ON_ROCM = frozenset({"triton"})
"""Distributions that ROCm PyTorch brings under another name (``pytorch-triton-rocm``): pip does not count it as the
one required, so it installs the upstream build over it."""


def requirement_hits(text: str, line: int, optional: bool = False) -> list[Hit]:
    """One requirement's hits: the requirement, and what its form says (a CUDA build, a distribution ROCm names
    otherwise)."""
    hits = []
    match = _NAME.match(text)
    if match:
        hits.append(Hit("requirement", line, text.strip(), optional))
        if _CUDA_LOCAL.search(text):
            hits.append(Hit("requirement.cuda_local_version", line, text.strip(), optional))
        if re.sub(r"[-_.]+", "-", match.group(1)).lower() in _NAMED_OTHERWISE_ON_ROCM:
            hits.append(Hit("install.named_otherwise_on_rocm", line, text.strip(), optional))
        extras = _EXTRAS.match(text[match.end():])
        for extra in extras.group(1).split(",") if extras else ():
            if _NAME.fullmatch(extra := extra.strip()) and not _VARIANT_EXTRA.fullmatch(extra):  # "trl[vllm]": vllm too
                hits.append(Hit("requirement", line, f"{extra} (the [{extra}] extra of {text.strip()})", optional))
    return hits


GIT_REPO = re.compile(r"^git\+https?://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?/?(?:@\S*)?(?:#\S*)?$")
"""A requirement installed from a GitHub repository (``git+https://github.com/Dao-AILab/causal-conv1d.git@v1.4``)."""
_EXTRAS = re.compile(r"\s*\[([^\]]{1,200})\]")
"""A requirement's extras, right after its name: ``trl[vllm]``, ``distilabel[vllm,ray,openai]``."""
_VARIANT_EXTRA = re.compile(r"(?:cuda|cu|rocm|cpu|gpu|tpu|xpu|and-cuda)[\w.\-]*|all|dev|test|tests|docs", re.IGNORECASE)
"""Extras that choose a build or a group of tools (``jax[cuda12]``, ``[dev]``), not another package by its name."""


def _index(text: str, line: int) -> list[Hit]:
    url = text.split(None, 1)[1].strip() if len(text.split(None, 1)) > 1 else text.partition("=")[2].strip()
    return [Hit("requirement.cuda_index_url", line, url)] if _CUDA_INDEX.search(url) and "rocm" not in url else []


def analyse_requirements(text: str) -> list[Hit]:
    """requirements*.txt: one requirement per line, comments, options (-r, --index-url ...)."""
    hits: list[Hit] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("--index-url", "--extra-index-url", "-i ", "--find-links", "-f ")):
            hits += _index(line, number)
            continue
        if line.startswith("-") or "://" in line.split(";")[0] and "@" not in line.split("://")[0]:
            if found := GIT_REPO.search(line):  # git+https://github.com/state-spaces/mamba.git: that package
                hits.append(Hit("requirement_git", number, found.group(1)))
            continue
        hits += requirement_hits(line, number)
    return hits


class _Lines:
    """Line numbers of strings in a text, found in one forward pass when they come in order (a dependency list):
    linear, where a fresh search from the top for each would be quadratic."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.line = 1

    def of(self, needle: str) -> int:
        index = self.text.find(needle, self.position)
        if index < 0:
            index = self.text.find(needle)
            if index < 0:
                return 0
            return self.text.count("\n", 0, index) + 1
        self.line += self.text.count("\n", self.position, index)
        self.position = index
        return self.line


def _line_of(text: str, needle: str) -> int:
    index = text.find(needle)
    return text.count("\n", 0, index) + 1 if index >= 0 else 0


def analyse_pyproject(text: str) -> list[Hit]:
    """[project] dependencies and optional-dependencies, [tool.poetry.dependencies], uv/pip index settings."""
    data = tomllib.loads(text)
    requirements: list[tuple[str, bool]] = []
    project = data.get("project") or {}
    requirements += [(r, False) for r in project.get("dependencies") or []]
    for group in (project.get("optional-dependencies") or {}).values():
        requirements += [(r, True) for r in group or []]
    extras = [Hit("extra_name", _line_of(text, name), name) for name in project.get("optional-dependencies") or {}]
    poetry = ((data.get("tool") or {}).get("poetry") or {})
    requirements += [(name, False) for name in (poetry.get("dependencies") or {}) if name.lower() != "python"]
    hits: list[Hit] = []
    lines = _Lines(text)
    for requirement, optional in requirements:
        if isinstance(requirement, str):
            hits += requirement_hits(requirement, lines.of(requirement), optional)
    for index in ((data.get("tool") or {}).get("uv") or {}).get("index") or []:
        url = index.get("url", "") if isinstance(index, dict) else ""
        if url and _CUDA_INDEX.search(url) and "rocm" not in url:
            hits.append(Hit("requirement.cuda_index_url", _line_of(text, url), url))
    if project or poetry:
        hits.append(Hit("declares_project", 1))  # a package pip can build (not a file of tool settings only)
    return hits + extras + cmake_mentioned(text)


def _literal_strings(node: Any) -> list[str]:
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, str)]
    if isinstance(value, dict):
        return [v for group in value.values() if isinstance(group, (list, tuple)) for v in group if isinstance(v, str)]
    return []


def analyse_setup_py(text: str) -> list[Hit]:
    """install_requires / extras_require given as literals in setup(...) (nothing is executed)."""
    tree = ast.parse(text)
    hits: list[Hit] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg in ("install_requires", "extras_require", "setup_requires"):
                    for requirement in _literal_strings(keyword.value):
                        hits += requirement_hits(requirement, _line_of(text, requirement) or getattr(
                            keyword.value, "lineno", node.lineno), keyword.arg == "extras_require")
    for node in tree.body:  # REQUIRED = [...] / _deps = [...] (transformers' table): the lists setup() is given
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List | ast.Tuple) and any(
                isinstance(target, ast.Name) and _NAMES_REQUIREMENTS.match(target.id) for target in node.targets):
            hits += [hit for item in node.value.elts if isinstance(item, ast.Constant) and isinstance(item.value, str)
                     for hit in requirement_hits(item.value, item.lineno)]
    hits += cmake_mentioned(text) + _extra_names(tree)
    if (built := re.search(r"\b(?:BuildExtension|CUDAExtension|CppExtension)\b", text)) is not None:
        hits.append(Hit("builds_extensions", text.count("\n", 0, built.start()) + 1))  # with torch's builder
    return hits


def _extra_names(tree: ast.Module) -> list[Hit]:
    """The names of a setup.py's extras (``extra_name`` hits): the string keys of the dict given as
    ``extras_require=``, or of a dict literal a helper named for extras or optional dependencies returns or that a
    variable so named holds (``def get_optional_dependencies(): return {"cutile": cutile_deps}``)."""
    dicts: list[ast.Dict] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            dicts += [k.value for k in node.keywords if k.arg == "extras_require" and isinstance(k.value, ast.Dict)]
        elif isinstance(node, ast.FunctionDef) and _NAMES_EXTRAS.search(node.name):
            dicts += [n.value for n in ast.walk(node) if isinstance(n, ast.Return) and isinstance(n.value, ast.Dict)]
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and any(
                isinstance(t, ast.Name) and _NAMES_EXTRAS.search(t.id) for t in node.targets):
            dicts.append(node.value)
    return [Hit("extra_name", key.lineno, key.value) for found in dicts for key in found.keys
            if isinstance(key, ast.Constant) and isinstance(key.value, str)]


_NAMES_EXTRAS = re.compile(r"extra|optional", re.IGNORECASE)
_NAMES_REQUIREMENTS = re.compile(r"_*(?:deps|dependencies|requirements|install_requires|required|requires)$",
                                 re.IGNORECASE)
"""A module-level list of requirement strings that setup() is given by name, or picks from (``_deps``)."""


def cmake_mentioned(text: str) -> list[Hit]:
    """A ``uses_cmake`` hit where a Python build file names CMake or scikit-build anywhere (a build backend, a cmake
    call, a helper that runs it): then a CMakeLists.txt may be the build itself."""
    cmake = re.search(r"cmake|scikit[-_]build|skbuild", text, re.IGNORECASE)
    return [Hit("uses_cmake", text.count("\n", 0, cmake.start()) + 1)] if cmake is not None else []


def analyse_setup_cfg(text: str) -> list[Hit]:
    """[options] install_requires and [options.extras_require]."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    hits: list[Hit] = []
    sections = [("options", "install_requires")] + [("options.extras_require", k) for k in (
        parser["options.extras_require"] if parser.has_section("options.extras_require") else [])]
    for section, key in sections:
        if parser.has_option(section, key):
            for requirement in parser.get(section, key).splitlines():
                if requirement.strip():
                    hits += requirement_hits(requirement.strip(), _line_of(text, requirement.strip()),
                                         section != "options")
    hits += [Hit("extra_name", _line_of(text, key), key) for section, key in sections if section != "options"]
    return hits + cmake_mentioned(text)


def analyse_cog(text: str) -> list[Hit]:
    """Replicate's cog.yaml: build.python_packages are requirements."""
    data = yaml.safe_load(text) or {}
    build = data.get("build") if isinstance(data, dict) else None
    packages = build.get("python_packages") if isinstance(build, dict) else None
    hits: list[Hit] = []
    for requirement in packages or []:
        if isinstance(requirement, str):
            hits += requirement_hits(requirement, _line_of(text, requirement))
    return hits


def analyse_environment_yml(text: str) -> list[Hit]:
    """conda environment.yml: dependencies (the CUDA toolkit and pytorch-cuda too), the nvidia channel, and the
    nested pip list."""
    data = yaml.safe_load(text) or {}
    hits: list[Hit] = []
    channels = data.get("channels") if isinstance(data, dict) else None
    if isinstance(channels, list) and "nvidia" in [str(c) for c in channels]:
        hits.append(Hit("requirement.cuda_index_url", _line_of(text, "nvidia"), "conda channel nvidia"))
    for dependency in (data.get("dependencies") or []) if isinstance(data, dict) else []:
        entries = dependency.get("pip") if isinstance(dependency, dict) else [dependency]
        for entry in entries or []:
            if not isinstance(entry, str):
                continue
            if entry.startswith(("--index-url", "--extra-index-url")):
                hits += _index(entry, _line_of(text, entry))
            else:
                name = re.split(r"[=<>! ]", entry.strip(), maxsplit=1)[0]
                hits += requirement_hits(entry.replace(name, name.split("::")[-1], 1), _line_of(text, entry))
    return hits
