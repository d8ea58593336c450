"""HIPIFY's CUDA -> HIP support tables (ROCm/HIPIFY ``docs/tables/*.md``) parsed into records, and the data file.

``parse_table`` is pure (markdown text -> rows). ``render_data`` turns rows into ``scanner/data/hipify.yaml``;
``read_mirror`` reads the tables from a local git mirror at a pinned commit (``git show``, no network), and
``python -m gpuready.scanner.hipify_tables --mirror DIR --commit SHA --out FILE`` regenerates the file.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpuready.errors import ParseError
from gpuready.files import write_text

SOURCE_REPO = "https://github.com/ROCm/HIPIFY"
TABLES_DIR = "docs/tables"
TABLES: dict[str, tuple[str, ...]] = {
    "runtime": ("CUDA_Runtime_API_functions_supported_by_HIP.md",),
    "driver": ("CUDA_Driver_API_functions_supported_by_HIP.md",),
    "device": ("CUDA_Device_API_supported_by_HIP.md",),
    "rtc": ("CUDA_RTC_API_supported_by_HIP.md",),
    "cublas": ("CUBLAS_API_supported_by_HIP_and_ROC.md", "CUBLAS_API_supported_by_HIP.md"),
    "cusparse": ("CUSPARSE_API_supported_by_HIP_and_ROC.md", "CUSPARSE_API_supported_by_HIP.md"),
    "cudnn": ("CUDNN_API_supported_by_HIP_and_MIOPEN.md", "CUDNN_API_supported_by_HIP.md"),
    "cufft": ("CUFFT_API_supported_by_HIP.md",),
    "curand": ("CURAND_API_supported_by_HIP_and_ROC.md", "CURAND_API_supported_by_HIP.md"),
    "cusolver": ("CUSOLVER_API_supported_by_HIP_and_ROC.md", "CUSOLVER_API_supported_by_HIP.md"),
    "cub": ("CUB_API_supported_by_HIP.md",),
    "cucomplex": ("cuComplex_API_supported_by_HIP.md",),
}
"""Table key -> the files that hold it, preferred first (the ``_and_ROC`` forms add the rocBLAS/MIOpen/... column)."""

MARK_NAMES = {"A": "added", "D": "deprecated", "C": "changed", "R": "removed", "E": "experimental"}
"""The mark columns as the tables' own legend defines them (checked against the legend when a table has one)."""
ROC_COLUMNS = frozenset({"ROC", "MIOPEN"})

_LEGEND = re.compile(r"(?<![A-Za-z])([A-Z]) - ([A-Za-z]+)")
_SECTION = re.compile(r"^#{2,}\s*(?:\*\*)?\s*(?:\d+\.\s*)?(.*?)\s*(?:\*\*)?\s*$")
_NAME = re.compile(r"^`([^`]+)`$")
_VERSION = re.compile(r"^\d+(?:\.\d+)*$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class Marks:
    """The versions a table gives in its mark columns; ``""`` where a column is empty or absent."""

    added: str = ""
    deprecated: str = ""
    changed: str = ""
    removed: str = ""
    experimental: str = ""


@dataclass(frozen=True, slots=True)
class TableRow:
    """One API row: the CUDA name with its marks, the HIP equivalent (None: unsupported) and, in the ``_and_ROC``
    tables, the ROC library's equivalent (rocBLAS, MIOpen, ...)."""

    cuda: str
    section: str
    cuda_marks: Marks
    hip: str | None
    hip_marks: Marks
    roc: str | None = None
    roc_marks: Marks = Marks()

    @property
    def unsupported(self) -> bool:
        """The table gives no HIP equivalent."""
        return self.hip is None

    @property
    def deprecated(self) -> bool:
        """Deprecated in CUDA."""
        return bool(self.cuda_marks.deprecated)

    @property
    def removed(self) -> bool:
        """Removed from CUDA."""
        return bool(self.cuda_marks.removed)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().removeprefix("|").removesuffix("|").split("|")]


def _check_legend(text: str) -> None:
    for letter, word in _LEGEND.findall(text):
        if letter in MARK_NAMES and MARK_NAMES[letter] != word.lower():
            raise ParseError(f"the table's legend defines {letter} as {word!r}, not {MARK_NAMES[letter]!r}")


def _header(cells: list[str], number: int) -> list[tuple[str, list[str]]]:
    """``**CUDA**|**A**|...|**HIP**|**A**|...`` -> [(CUDA, [A, D, C, R]), (HIP, [A, D, C, R, E]), ...]."""
    groups: list[tuple[str, list[str]]] = []
    for cell in cells:
        name = cell.strip("*").strip()
        if name in MARK_NAMES:
            if not groups:
                raise ParseError(f"line {number}: a mark column before any name column")
            groups[-1][1].append(name)
        elif name:
            groups.append((name, []))
        else:
            raise ParseError(f"line {number}: an empty header cell")
    if not groups or groups[0][0] != "CUDA":
        raise ParseError(f"line {number}: the first column is not CUDA")
    if len(groups) > 1 and groups[1][0] != "HIP" and groups[1][0] not in ROC_COLUMNS:
        raise ParseError(f"line {number}: unknown column {groups[1][0]!r}")
    return groups


def _marks(letters: list[str], cells: list[str], number: int) -> Marks:
    values: dict[str, str] = {}
    for letter, cell in zip(letters, cells, strict=True):
        if cell and not _VERSION.match(cell):
            raise ParseError(f"line {number}: {cell!r} under {letter} is not a version")
        values[MARK_NAMES[letter]] = cell
    return Marks(**values)


def _name(cell: str, number: int) -> str | None:
    if not cell:
        return None
    match = _NAME.match(cell)
    if match is None:
        raise ParseError(f"line {number}: {cell!r} is not a `name`")
    return match.group(1)


def _row(groups: list[tuple[str, list[str]]], cells: list[str], section: str, number: int) -> TableRow:
    width = sum(1 + len(letters) for _, letters in groups)
    if len(cells) != width:
        raise ParseError(f"line {number}: {len(cells)} cells where the header has {width}")
    found: dict[str, tuple[str | None, Marks]] = {}
    at = 0
    for column, letters in groups:
        name = _name(cells[at], number)
        found["ROC" if column in ROC_COLUMNS else column] = (name, _marks(letters, cells[at + 1:at + 1 + len(letters)],
                                                                         number))
        at += 1 + len(letters)
    cuda, cuda_marks = found["CUDA"]
    if cuda is None:
        raise ParseError(f"line {number}: no CUDA name")
    hip, hip_marks = found.get("HIP", (None, Marks()))
    roc, roc_marks = found.get("ROC", (None, Marks()))
    return TableRow(cuda, section, cuda_marks, hip, hip_marks, roc, roc_marks)


def parse_table(text: str) -> tuple[TableRow, ...]:
    """Every API row of one HIPIFY table, in the table's order; ``ParseError`` when the text is not such a table."""
    _check_legend(text)
    rows: list[TableRow] = []
    groups: list[tuple[str, list[str]]] | None = None
    section = ""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("##"):
            match = _SECTION.match(stripped)
            section = match.group(1).strip("* ") if match else ""
            groups = None
        elif stripped.startswith("|**"):
            groups = _header(_cells(stripped), number)
        elif stripped.startswith("|:-") or stripped.startswith("|-"):
            continue
        elif stripped.startswith("|"):
            if groups is None:
                raise ParseError(f"line {number}: a table row before its header")
            rows.append(_row(groups, _cells(stripped), section, number))
    if not rows:
        raise ParseError("no API rows: not one of HIPIFY's support tables")
    return tuple(rows)


# --- the data file --------------------------------------------------------------------------------------------------

_MARK_PREFIX = {"cuda": "", "hip": "h", "roc": "r"}
_LETTERS = {name: letter for letter, name in MARK_NAMES.items()}


def encode_marks(row: TableRow) -> str:
    """``D=11.0 R=12.0 hA=1.6.0``: CUDA's marks in capitals, HIP's prefixed ``h``, the ROC library's ``r``."""
    tokens = []
    for side, marks in (("cuda", row.cuda_marks), ("hip", row.hip_marks), ("roc", row.roc_marks)):
        for field in ("added", "deprecated", "changed", "removed", "experimental"):
            value = getattr(marks, field)
            if value:
                tokens.append(f"{_MARK_PREFIX[side]}{_LETTERS[field]}={value}")
    return " ".join(tokens)


def _scalar(value: str | None) -> str:
    """A YAML flow scalar: identifiers plain, anything else single-quoted, None as ``~``."""
    if value is None:
        return "~"
    if _IDENTIFIER.match(value) and value.lower() not in {"null", "true", "false", "yes", "no", "on", "off", "y", "n"}:
        return value
    return "'" + value.replace("'", "''") + "'"


def render_data(tables: Mapping[str, tuple[str, Sequence[TableRow]]], commit: str, commit_date: datetime.date,
                read: datetime.date) -> str:
    """``scanner/data/hipify.yaml``: a YAML header, then one API per line (``[name, table, hip, roc, marks]``).

    ``tables`` maps a table key to (the file it was read from, its rows). The rows are YAML too, written so that
    ``cuda_apis`` can read them line by line without a YAML parser (fast to load).
    """
    lines = [
        "# HIPIFY's CUDA -> HIP support tables as data; generated, do not edit by hand. Regenerate with",
        "#   python -m gpuready.scanner.hipify_tables --mirror <git dir of ROCm/HIPIFY> --commit <sha> --out <file>",
        "# apis: one per line, [CUDA name, table, HIP name or ~ (unsupported), ROC library name or ~, marks].",
        "# marks: letter=version; A added, D deprecated, C changed, R removed, E experimental (the tables' legend);",
        "# capitals are CUDA's marks, an h prefix HIP's, an r prefix the ROC library's (rocBLAS, MIOpen, ...).",
        f"source: {SOURCE_REPO}",
        f"commit: {commit}",
        f"commit_date: {commit_date.isoformat()}",
        f"read: {read.isoformat()}",
        "tables:",
    ]
    for key, (file, _) in tables.items():
        lines.append(f"  {key}: {SOURCE_REPO}/blob/{commit}/{TABLES_DIR}/{file}")
    lines.append("apis:")
    for key, (_, rows) in tables.items():
        seen: set[str] = set()
        for row in rows:
            if row.cuda in seen:
                continue
            seen.add(row.cuda)
            lines.append(f"- [{_scalar(row.cuda)}, {key}, {_scalar(row.hip)}, {_scalar(row.roc)}, "
                         f"\"{encode_marks(row)}\"]")
    return "\n".join(lines) + "\n"


# --- reading a mirror (the one place that runs a program) -----------------------------------------------------------


def _git(git_dir: Path, *args: str) -> str:
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, timeout=60,
                          check=False)
    if done.returncode != 0:
        raise ParseError(f"git {' '.join(args)}: {done.stderr.strip() or done.returncode}")
    return done.stdout


def read_mirror(git_dir: Path, commit: str) -> tuple[datetime.date, dict[str, tuple[str, tuple[TableRow, ...]]]]:
    """The commit's date and every table of ``TABLES`` (the first file of each that exists at the commit)."""
    commit_date = datetime.date.fromisoformat(_git(git_dir, "show", "-s", "--format=%cs", commit).strip())
    present = set(_git(git_dir, "ls-tree", "--name-only", commit, f"{TABLES_DIR}/").split())
    tables: dict[str, tuple[str, tuple[TableRow, ...]]] = {}
    for key, files in TABLES.items():
        file = next((f for f in files if f"{TABLES_DIR}/{f}" in present), None)
        if file is None:
            raise ParseError(f"none of {', '.join(files)} at {commit}")
        try:
            tables[key] = (file, parse_table(_git(git_dir, "show", f"{commit}:{TABLES_DIR}/{file}")))
        except ParseError as error:
            raise ParseError(f"{file}: {error}") from error
    return commit_date, tables


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the data file from a local mirror of ROCm/HIPIFY."""
    parser = argparse.ArgumentParser(prog="python -m gpuready.scanner.hipify_tables", description=main.__doc__)
    parser.add_argument("--mirror", type=Path, required=True, help="the git directory of a ROCm/HIPIFY mirror")
    parser.add_argument("--commit", required=True, help="the commit to read the tables at")
    parser.add_argument("--out", type=Path, required=True, help="the data file to write")
    parser.add_argument("--read", type=datetime.date.fromisoformat, default=datetime.date.today(),
                        help="the date the tables were read (default: today)")
    options = parser.parse_args(argv)
    commit = _git(options.mirror, "rev-parse", "--verify", f"{options.commit}^{{commit}}").strip()
    commit_date, tables = read_mirror(options.mirror, commit)
    write_text(options.out, render_data(tables, commit, commit_date, options.read))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
