"""CUDA API names in C/C++/CUDA source checked against HIPIFY's support tables (``scanner/data/hipify.yaml``).

``load_hipify`` reads the bundled data once per process; ``unsupported_api_hits`` finds the identifiers of a source
text that HIPIFY's tables list with no HIP (or ROC library) equivalent, or as removed from CUDA. One regular
expression walks the text (comments, string literals and preprocessor conditions are skipped as they are met) and
each candidate identifier is a set look-up, so the cost does not grow with the size of the tables.
"""

from __future__ import annotations

import datetime
import functools
import importlib.resources
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from gpuready.errors import SchemaError
from gpuready.files import loads_yaml
from gpuready.scanner.hits import Hit

DATA_FILE = "hipify.yaml"
MAX_DATA_BYTES = 4 * 2**20
UNSUPPORTED_RULE = "kernel.unsupported_cuda_api"
REMOVED_RULE = "kernel.removed_cuda_api"

DETECTED = re.compile(r"(?:cu|CU|Cu|nvrtc|NVRTC)\w*")
"""Which table names are looked for in source: the runtime, driver, library and RTC APIs (``cudaX``, ``cuX``,
``CU_X``, ``cublasX``, ``CUDNN_X``, ``nvrtcX``, ...). Device-side names (``__nv_*``, intrinsics) are left to the
kernel rules: HIP keeps many of them under the same name, which the tables do not always record."""

_ROW = re.compile(r"^- \[(?P<name>[^,]+), (?P<table>\w+), (?P<hip>[^,]+), (?P<roc>[^,]+), \"(?P<marks>[^\"]*)\"\]$")
_MARK = re.compile(r"^(?:[hr]?[ADCRE])=\d+(?:\.\d+)*$")
_TOKENS = re.compile(
    r"//[^\n]*"  # a line comment
    r"|/\*.*?(?:\*/|\Z)"  # a block comment (to the end of the text when unterminated: never quadratic)
    r"|R\"(?P<delim>[^()\\\s\"]{0,16})\(.*?(?:\)(?P=delim)\"|\Z)"  # a raw string literal, likewise
    r"|\"(?:\\.|[^\"\\\n])*\""  # a string literal
    r"|'(?:\\.|[^'\\\n]){1,16}'"  # a character literal (bounded: a stray quote costs little)
    r"|\#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef|include|include_next|pragma|error|warning|line|undef)\b"
    r"(?:\\\r?\n|[^\n])*"  # a preprocessor condition, include or pragma, with its continuation lines
    # A candidate name, starting an identifier. Every alternative opens with a literal character, so the regular
    # expression engine skips ahead to the next c, C, n, N, /, R, ", ' or # (about five times faster).
    r"|c(?<![\w$]c)u\w*|C(?<![\w$]C)[uU]\w*|n(?<![\w$]n)vrtc\w*|N(?<![\w$]N)VRTC\w*",
    re.S,
)
_NAME_START = frozenset("cCnN")
"""A token that starts with one of these is a name; the others (comments, literals, directives) are skipped."""
_MACRO_BEFORE = re.compile(r"[ \t]*#[ \t]*define[ \t]+")  # #define cudaFoo ...
_USING_BEFORE = re.compile(r"(?:^|[^\w$])using[ \t]+$")  # using cudaFoo = ...
_TYPE_BEFORE = re.compile(  # std::string cublasGetError( ... {
    r"(?:^|[^\w$#])(?!(?:return|else|case|throw|new|delete|sizeof|goto|do|co_return|co_await|co_yield)\b)"
    r"[A-Za-z_]\w*[ \t*&]+$")
_EQUALS_AFTER = re.compile(r"[ \t]*=(?!=)")
_CALL_AFTER = re.compile(r"[ \t]*\(")
_LOOK_BACK = 240
"""How much of the line before a name is read to tell a definition (a longer prefix is cut to this)."""
_LOOK_AHEAD = 4000
"""How far after ``Type name(`` the body's ``{`` is looked for (a parameter list is shorter)."""


@dataclass(frozen=True, slots=True)
class CudaApi:
    """One row of HIPIFY's tables, as the data file holds it."""

    name: str
    table: str
    hip: str | None
    roc: str | None
    marks: tuple[tuple[str, str], ...] = ()
    """(mark, version): ``D``/``R`` deprecated/removed in CUDA; ``hA``, ``hE``... HIP's; ``rA``... the ROC library's."""

    def mark(self, key: str) -> str:
        """The version under a mark (``R``: removed from CUDA in), ``""`` when unmarked."""
        return next((version for mark, version in self.marks if mark == key), "")

    @property
    def unsupported(self) -> bool:
        """No HIP equivalent in the table (a ROC library may still have one: ``roc``)."""
        return self.hip is None

    @property
    def no_equivalent(self) -> bool:
        """Neither HIP nor the ROC library (rocBLAS, MIOpen, ...) has an equivalent."""
        return self.hip is None and self.roc is None

    @property
    def deprecated(self) -> str:
        """The CUDA version that deprecated it, or ``""``."""
        return self.mark("D")

    @property
    def removed(self) -> str:
        """The CUDA version that removed it, or ``""``."""
        return self.mark("R")


@dataclass(frozen=True)
class HipifyData:
    """The data file: where it was read, and every API with the look-ups the detector uses."""

    source: str
    commit: str
    commit_date: datetime.date
    read: datetime.date
    tables: Mapping[str, str]
    """Table key (``runtime``, ``cublas``, ...) -> the URL of the table at the commit."""
    apis: tuple[CudaApi, ...]
    by_name: Mapping[str, tuple[CudaApi, ...]] = field(repr=False)
    unsupported: frozenset[str] = field(repr=False)
    """Names looked for in source that no table gives a HIP or ROC-library equivalent."""
    removed: frozenset[str] = field(repr=False)
    """Names looked for in source that have an equivalent but were removed from CUDA."""

    def lookup(self, name: str) -> tuple[CudaApi, ...]:
        """The rows for a CUDA name (several when two tables list it), empty when HIPIFY does not know it."""
        return self.by_name.get(name, ())


def _scalar(text: str, source: str, number: int) -> str | None:
    text = text.strip()
    if text == "~":
        return None
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'"):
            raise SchemaError("unterminated quoted name", source=source, field=f"line {number}")
        return text[1:-1].replace("''", "'")
    return text


def _api(line: str, source: str, number: int) -> CudaApi:
    match = _ROW.match(line)
    if match is None:
        raise SchemaError("expected [name, table, hip, roc, \"marks\"]", source=source, field=f"line {number}")
    marks = []
    for token in match["marks"].split():
        if not _MARK.match(token):
            raise SchemaError(f"bad mark {token!r}", source=source, field=f"line {number}")
        key, _, version = token.partition("=")
        marks.append((key, version))
    name = _scalar(match["name"], source, number)
    if name is None:
        raise SchemaError("an API without a name", source=source, field=f"line {number}")
    return CudaApi(name, match["table"], _scalar(match["hip"], source, number), _scalar(match["roc"], source, number),
                   tuple(marks))


def _header(text: str, source: str) -> tuple[str, str, datetime.date, datetime.date, dict[str, str]]:
    data = loads_yaml(text, source, SchemaError)
    if not isinstance(data, dict):
        raise SchemaError("expected a mapping at the top level", source=source, field="$")
    for key in ("source", "commit", "commit_date", "read", "tables"):
        if key not in data:
            raise SchemaError("missing", source=source, field=f"$.{key}")
    if not str(data["source"]).startswith("https://"):
        raise SchemaError("source must be an https:// URL", source=source, field="$.source")
    for key in ("commit_date", "read"):
        if not isinstance(data[key], datetime.date):
            raise SchemaError("expected a date (YYYY-MM-DD)", source=source, field=f"$.{key}")
    tables = data["tables"]
    if not isinstance(tables, dict) or not all(isinstance(url, str) and url.startswith("https://")
                                               for url in tables.values()):
        raise SchemaError("expected table -> https:// URL", source=source, field="$.tables")
    return str(data["source"]), str(data["commit"]), data["commit_date"], data["read"], {
        str(k): str(v) for k, v in tables.items()}


def parse_hipify_data(text: str, source: str = DATA_FILE) -> HipifyData:
    """The data file's text as ``HipifyData``: the header through YAML, the one-line rows by a strict line reader."""
    head, marker, body = text.partition("\napis:\n")
    if not marker:
        raise SchemaError("no 'apis:' list", source=source, field="$.apis")
    repo, commit, commit_date, read, tables = _header(head, source)
    first = head.count("\n") + 3
    apis = tuple(_api(line, source, number) for number, line in enumerate(body.splitlines(), start=first) if line)
    by_name: dict[str, list[CudaApi]] = {}
    for number, api in enumerate(apis, start=first):
        if api.table not in tables:
            raise SchemaError(f"unknown table {api.table!r}", source=source, field=f"line {number}")
        by_name.setdefault(api.name, []).append(api)
    unsupported = set()
    removed = set()
    for name, rows in by_name.items():
        if not DETECTED.fullmatch(name):
            continue
        if all(row.no_equivalent for row in rows):
            unsupported.add(name)
        elif any(row.removed for row in rows):
            removed.add(name)
    return HipifyData(repo, commit, commit_date, read, tables, apis, {k: tuple(v) for k, v in by_name.items()},
                      frozenset(unsupported), frozenset(removed))


@functools.cache
def load_hipify() -> HipifyData:
    """The bundled data (``gpuready/scanner/data/hipify.yaml``), read once per process."""
    resource = importlib.resources.files("gpuready.scanner").joinpath("data", DATA_FILE)
    raw = resource.read_bytes()
    if len(raw) > MAX_DATA_BYTES:
        raise SchemaError(f"larger than {MAX_DATA_BYTES} bytes", source=DATA_FILE, field="$")
    return parse_hipify_data(raw.decode("utf-8"), DATA_FILE)


def _detail(name: str, rows: tuple[CudaApi, ...]) -> str:
    tables = ", ".join(dict.fromkeys(row.table for row in rows))
    removed = next((row.removed for row in rows if row.removed), "")
    return f"{name} ({tables}; removed in CUDA {removed})" if removed else f"{name} ({tables})"


def _defines(text: str, start: int, end: int) -> bool:
    """Whether the name at ``text[start:end]`` is being given its own meaning here: ``#define NAME``, ``using NAME
    =``, or a function defined with a body (``Type NAME(...) {``; a declaration ending in ``;`` still uses the API,
    as code that loads the driver at run time writes). A ``#define`` whose body calls the name uses it."""
    line_start = max(text.rfind("\n", 0, start) + 1, start - _LOOK_BACK)
    before = text[line_start:start]
    if _MACRO_BEFORE.fullmatch(before):
        return True
    if before.lstrip().startswith("#"):
        return False
    if _USING_BEFORE.search(before):
        return _EQUALS_AFTER.match(text, end) is not None
    if _TYPE_BEFORE.search(before) and _CALL_AFTER.match(text, end):
        brace, semicolon = text.find("{", end, end + _LOOK_AHEAD), text.find(";", end, end + _LOOK_AHEAD)
        return brace != -1 and (semicolon == -1 or brace < semicolon)
    return False


def own_names(text: str) -> set[str]:
    """The CUDA-looking names a source text gives its own meaning (see ``_defines``): a project's own
    ``cublasGetError`` is not cuBLAS's. For a project-wide pass, feed them to ``unsupported_api_hits(own=...)``."""
    return {match[0] for match in _TOKENS.finditer(text)
            if match[0][0] in _NAME_START and _defines(text, match.start(), match.end())}


def unsupported_api_hits(text: str, data: HipifyData | None = None, own: Collection[str] = ()) -> list[Hit]:
    """Each CUDA API name that HIPIFY marks unsupported (``kernel.unsupported_cuda_api``: no HIP or ROC-library
    equivalent) or removed from CUDA (``kernel.removed_cuda_api``), once per name per line, in text order.

    Comments, string and character literals, ``#if``/``#include``/``#pragma`` lines and the names the text gives
    its own meaning (``own_names``) are not reported; ``own`` adds names defined elsewhere in the project.
    """
    data = data or load_hipify()
    unsupported, removed = data.unsupported, data.removed
    candidates = [match for match in _TOKENS.finditer(text) if match[0] in unsupported or match[0] in removed]
    if not candidates:
        return []
    skip = set(own) | {m[0] for m in candidates if _defines(text, m.start(), m.end())}
    hits: list[Hit] = []
    seen: set[tuple[int, str]] = set()
    line, counted = 1, 0
    for match in candidates:
        name = match[0]
        if name in skip:
            continue
        start = match.start()
        line += text.count("\n", counted, start)
        counted = start
        if (line, name) not in seen:
            seen.add((line, name))
            rule = UNSUPPORTED_RULE if name in unsupported else REMOVED_RULE
            hits.append(Hit(rule, line, _detail(name, data.lookup(name))))
    return hits
