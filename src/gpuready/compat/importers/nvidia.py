"""NVIDIA's CUDA release notes (the toolkit / driver tables) and NGC framework release notes, as facts."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from gpuready.compat.importers.facts import Fact
from gpuready.errors import ParseError

_ROW = re.compile(r"^CUDA (\d+)\.(\d+)(?:\.\d+)*(?: \(| |$)")
_DRIVER = re.compile(r">=\s*(\d+(?:\.\d+)*)")
_FAMILY = re.compile(r"^(\d+)\.x$")
_CUDA11_FLOOR = re.compile(r"Tesla Recommended Drivers (\d+(?:\.\d+)+) \(Linux\) / (\d+(?:\.\d+)+) \(Windows\)")


def table_rows(text: str) -> list[list[str]]:
    """HTML tables (the live page) as rows of cell texts, entities decoded; markup-free text gives no rows."""
    rows = []
    for row in re.findall(r"<tr\b.*?</tr>", text, re.S | re.I):
        cells = re.findall(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", row, re.S | re.I)
        rows.append([html.unescape(re.sub(r"<[^>]+>", " ", cell)).strip() for cell in cells])
    return rows


def cuda_driver_facts(text: str, url: str) -> Iterator[Fact]:
    """Table 3 (the driver each toolkit release corresponds to, Linux and Windows): per major.minor, the oldest
    row's drivers (the GA release's). Table 2 (minor-version compatibility): the oldest driver per major family;
    the CUDA 11.x floor from the footnote that names it per platform."""
    toolkit: dict[str, tuple[str, str]] = {}
    families: dict[str, str] = {}
    for cells in table_rows(text):
        if len(cells) < 3:
            continue
        family = _FAMILY.match(cells[0])
        minimum = _DRIVER.search(cells[1])
        if family is not None and minimum is not None:
            families[family.group(1)] = minimum.group(1)
            continue
        row = _ROW.match(cells[0])
        if row is None or minimum is None:
            continue
        on_windows = _DRIVER.search(cells[2])
        version = f"{row.group(1)}.{row.group(2)}"
        found = (minimum.group(1), on_windows.group(1) if on_windows else "")
        older = toolkit.get(version)
        if older is None or _numbers(found[0]) < _numbers(older[0]):
            toolkit[version] = found
    if not toolkit:
        raise ParseError("no 'CUDA X.Y ... >=driver' rows: not the CUDA release notes' driver table")
    for version, (linux_driver, windows_driver) in toolkit.items():
        yield Fact("cuda", version, "driver_linux", (linux_driver,), url)
        if windows_driver:
            yield Fact("cuda", version, "driver_windows", (windows_driver,), url)
    floor = _CUDA11_FLOOR.search(html.unescape(text))
    for major, branch in families.items():
        linux, windows = (floor.group(1), floor.group(2)) if major == "11" and floor is not None else (branch, branch)
        yield Fact("cuda-family", major, "min_driver_linux", (linux,), url)
        yield Fact("cuda-family", major, "min_driver_windows", (windows,), url)


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def ngc_pytorch_facts(text: str, url: str) -> Iterator[Fact]:
    """An NGC PyTorch release-notes page: the release, its CUDA, its PyTorch build and its Python."""
    plain = html.unescape(re.sub(r"<[^>]+>", " ", text))
    plain = re.sub(r"\s+", " ", plain)
    base = re.search(r"Release (\d\d\.\d\d) is based on (?:NVIDIA )?CUDA (\d+\.\d+(?:\.\d+)?)", plain)
    torch = re.search(r"PyTorch container image version (\d\d\.\d\d) is based on (?:PyTorch )?([0-9][\w.+]*\w)",
                      plain)
    if base is None or torch is None or base.group(1) != torch.group(1):
        raise ParseError("no 'Release YY.MM is based on CUDA' and 'container image version ... is based on' lines")
    reference = f"nvcr.io/nvidia/pytorch:{base.group(1)}-py3"
    yield Fact("container", reference, "platform_version", (base.group(2),), url)
    yield Fact("container", reference, "framework_version", (torch.group(2),), url)
    python = re.search(r"/python(3\.\d+)/(?:dist|site)-packages", plain)
    if python is not None:
        yield Fact("container", reference, "python", (python.group(1),), url)
    driver = re.search(r"requires NVIDIA Driver release (\d+)", plain, re.I)
    if driver is not None:
        yield Fact("container", reference, "min_driver", (driver.group(1),), url)
