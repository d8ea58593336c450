"""AMD's compatibility matrix (historical CSV, its footnotes, the current rst table) and AMD's GPU/OS tables as data."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

import yaml

from gpuready.compat.importers.facts import Fact
from gpuready.errors import ParseError

_FOOTNOTE_REF = re.compile(r"\s*\[#([\w-]+)\]_")
_FOOTNOTE = re.compile(r"^\s*\.\. \[#([\w-]+)\]\s+(.*)$", re.M)
_OS_NAMES = {"ubuntu": "ubuntu", "rhel": "rhel", "sles": "sles", "centos": "centos", "oracle linux": "ol",
             "debian": "debian", "azure linux": "azurelinux", "rocky linux": "rocky"}
_ONLY_ON = re.compile(r"(?:\*\*[^*]*\*\*\s*-?\s*)?(?P<os>.+?) (?:is|are) (?:only )?supported only on (?P<gpus>.+?)"
                      r"(?: GPUs?)?(?: for single-node functionality)?\.", re.I)


def _rows(text: str) -> list[list[str]]:
    return [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text)) if row]


def _os_cell(cell: str) -> tuple[str, list[tuple[str, str]]] | None:
    """``RHEL 10.0 [#a]_, 9.6 [#a]_, 9.4 [#b]_`` -> (rhel, [(10.0, a), (9.6, a), (9.4, b)])."""
    cell = cell.replace("|br|", " ")
    name = next((key for key in _OS_NAMES if cell.lower().startswith(key)), None)
    if name is None:
        return None
    rest = cell[len(name):]
    found = []
    for part in rest.split(","):
        refs = _FOOTNOTE_REF.findall(part)
        version = _FOOTNOTE_REF.sub("", part).strip().removeprefix("15 ").strip()
        if version.upper().startswith("SP"):
            version = "15." + version[2:]
        if version:
            found.append((version, refs[0].removesuffix("-past-60") if refs else ""))
    if found and found[-1][1] and not any(ref for _, ref in found[:-1]):  # one note after the list covers it all
        found = [(version, found[-1][1]) for version, _ in found]
    return _OS_NAMES[name], found


def footnotes(text: str) -> dict[str, str]:
    """``.. [#name] text`` lines: name (without ``-past-60``) -> text with rst markup removed."""
    return {name.removesuffix("-past-60"): re.sub(r"\*\*|:ref:`([^`<]*)[^`]*`", r"\1", body).strip()
            for name, body in _FOOTNOTE.findall(text)}


def only_on(note: str, os_version: str = "") -> tuple[str, ...]:
    """The products an OS footnote limits it to: ``... only on AMD Instinct MI300X, MI300A, and MI100 GPUs``; where
    the footnote has a sentence per OS version (``Oracle Linux 10 and 9 ... Oracle Linux 8 ...``), the one naming
    ``os_version``."""
    matches = list(_ONLY_ON.finditer(note))
    if not matches:
        return ()
    named = [m for m in matches if re.search(rf"(?<![\d.]){re.escape(os_version)}(?![\d.])", m.group("os"))]
    match = named[0] if os_version and named else matches[0]
    names = re.split(r",\s*(?:and\s+)?|\s+and\s+", match.group("gpus"))
    products: list[str] = []
    family = "AMD Instinct"
    for name in (n.strip() for n in names if n.strip()):
        if name.startswith("AMD "):
            family = " ".join(name.split()[:2])
            products.append(name)
        else:
            products.append(f"{family} {name}")
    return tuple(products)


def matrix_facts(table: str, notes: str, url: str) -> Iterator[Fact]:
    """The per-release columns of AMD's matrix (CSV rows): OS rows with their limits, targets, validated torch."""
    rows = _rows(table)
    if not rows or not rows[0] or "ROCm Version" not in rows[0][0]:
        raise ParseError("not AMD's compatibility matrix: no 'ROCm Version' header")
    texts = footnotes(notes)
    versions = [v.strip() for v in rows[0][1:]]
    section = ""
    for row in rows[1:]:
        section = _section(row, section)
        for column, cell in zip(versions, row[1:], strict=False):
            for version in column.split("/"):
                yield from _cell_facts(section, version, cell, texts, url)


def _section(row: list[str], current: str) -> str:
    """Which part of the matrix a row belongs to; an unlabelled row continues the part above it."""
    label = row[0]
    if not label:
        return "" if len(row) > 1 and row[1].startswith("..") or current == "torch" else current
    if "Operating systems" in label:
        return "os"
    if "GPU / LLVM target" in label:
        return "targets"
    return "torch" if label.startswith(":doc:`PyTorch") else ""


def _cell_facts(section: str, version: str, cell: str, texts: dict[str, str], url: str) -> Iterator[Fact]:
    if not cell or cell.startswith(".."):
        return
    if section == "os":
        parsed = _os_cell(cell)
        if parsed is None:
            return
        os_id, versions = parsed
        for os_version, ref in versions:
            yield Fact("rocm", version, f"os.{os_id}", (os_version,), url)
            limit = only_on(texts.get(ref, ""), os_version.removeprefix("15.")) if ref else ()
            if limit and not _not_this_release(texts.get(ref, ""), version):
                yield Fact("rocm", version, f"only_on_gpus.{os_id} {os_version}", limit, url)
    elif section == "targets":
        target = _FOOTNOTE_REF.sub("", cell).strip()
        if re.fullmatch(r"gfx[0-9a-f]+", target):
            yield Fact("rocm", version, "targets", (target,), url)
    elif section == "torch":
        yield Fact("rocm", version, "frameworks.torch", tuple(v.strip() for v in cell.split(",")), url)


def _not_this_release(note: str, version: str) -> bool:
    """Footnotes scoped ``For ROCm 7.0.x`` / ``Prior ROCm 7.0.0``: whether ``version`` is outside the scope."""
    scope = re.match(r"\s*(For|Prior(?: to)?|Starting(?: from)?) ROCm (\d+\.\d+\.(?:\d+|x))", note, re.I)
    if scope is None:
        return False
    word, bound = scope.group(1).lower(), scope.group(2)
    parts = [int(p) for p in version.split(".")]
    limit = [int(p) for p in bound.replace("x", "0").split(".")]
    if word == "for":
        return not (version.startswith(bound[:-1]) if bound.endswith("x") else version == bound)
    if word.startswith("prior"):
        return parts >= limit
    return parts < limit


def current_matrix_facts(text: str, url: str) -> Iterator[Fact]:
    """The current table of ``compatibility-matrix.rst`` (a csv-table with a ``:header:`` line)."""
    match = re.search(r":header: (.+)\n(?:[ \t]+:[^\n]*\n)*[ \t]*\n((?:[ \t]+[^\n]*\n)+)", text)
    if match is None:
        raise ParseError("no csv-table with a :header: line in the compatibility matrix")
    header = "ROCm Version," + ",".join(h.strip().strip('"') for h in match.group(1).split(",")[1:])
    body = "\n".join(line.strip() for line in match.group(2).splitlines())
    yield from matrix_facts(header + "\n" + body, text, url)


def docs_facts(gpus_text: str, os_text: str, gpus_url: str, os_url: str, release: str) -> Iterator[Fact]:
    """AMD's ``docs/data/gpus.yaml`` and ``os-support.yaml``: the product list and each product's OS versions."""
    gpus = yaml.safe_load(gpus_text)
    systems = yaml.safe_load(os_text)
    if not isinstance(gpus, dict) or not isinstance(systems, dict):
        raise ParseError("AMD's GPU or OS table is not a mapping")
    products = [(name, entry.get("gfx")) for group in ("AMD Instinct", "AMD Radeon")
                for name, entry in (gpus.get(group) or {}).items() if isinstance(entry, dict)]
    if not products:
        raise ParseError("no AMD Instinct or AMD Radeon products in gpus.yaml")
    yield Fact("rocm", release, "gpus", tuple(name for name, _ in products), gpus_url)
    names = {"Ubuntu": "ubuntu", "Debian": "debian", "Red Hat Enterprise Linux": "rhel", "Oracle Linux": "ol",
             "Rocky Linux": "rocky", "SUSE Linux Enterprise Server": "sles"}
    for group in ("AMD Instinct", "AMD Radeon"):
        for product, table in (systems.get(group) or {}).items():
            allowed = tuple(f"{names[os_name]} {v['version'] if isinstance(v, dict) else v}"
                            for os_name, row in (table or {}).items() if os_name in names
                            for v in row.get("versions", ()))
            yield Fact("rocm", release, f"only_on_os.{product}", allowed, os_url)
