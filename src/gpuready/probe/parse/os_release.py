"""Parsers for ``/etc/os-release`` and ``/etc/lsb-release`` (shell-style KEY=value files)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from gpuready.errors import ParseError

_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class OsRelease:
    """The fields of os-release gpuready uses."""

    id: str
    version_id: str | None = None
    pretty_name: str | None = None
    name: str | None = None
    version: str | None = None
    id_like: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LsbRelease:
    """The fields of lsb-release; Ubuntu's DISTRIB_DESCRIPTION carries the point release."""

    distrib_id: str
    release: str | None = None
    codename: str | None = None
    description: str | None = None

    @property
    def point_release(self) -> str | None:
        """``24.04.3`` from ``Ubuntu 24.04.3 LTS``, when the description shows one."""
        match = re.search(r"\b(\d+\.\d+(?:\.\d+)?)\b", self.description or "")
        return match.group(1) if match else self.release


def parse_assignments(text: str) -> dict[str, str]:
    """KEY=value lines with shell quoting; comments and blank lines skipped."""
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not _KEY.match(key):
            raise ParseError(f"line {number} is not KEY=value: {line[:60]!r}")
        if len(value) > 4096:  # os-release values are short; shlex reads a character at a time
            raise ParseError(f"line {number}: a value of {len(value):,} characters is no os-release value")
        try:
            parts = shlex.split(value, posix=True)
        except ValueError as error:
            raise ParseError(f"line {number}: {error}") from error
        values[key] = " ".join(parts)
    return values


def parse_os_release(text: str) -> OsRelease:
    """Parse os-release(5); ``ID`` is required (the spec defaults it to ``linux``, we do too)."""
    values = parse_assignments(text)
    if not values:
        raise ParseError("no KEY=value lines")
    return OsRelease(
        id=values.get("ID", "linux"),
        version_id=values.get("VERSION_ID"),
        pretty_name=values.get("PRETTY_NAME"),
        name=values.get("NAME"),
        version=values.get("VERSION"),
        id_like=tuple(values.get("ID_LIKE", "").split()),
    )


def parse_lsb_release(text: str) -> LsbRelease:
    """Parse /etc/lsb-release."""
    values = parse_assignments(text)
    if "DISTRIB_ID" not in values:
        raise ParseError("no DISTRIB_ID line")
    return LsbRelease(
        distrib_id=values["DISTRIB_ID"],
        release=values.get("DISTRIB_RELEASE"),
        codename=values.get("DISTRIB_CODENAME"),
        description=values.get("DISTRIB_DESCRIPTION"),
    )


_OS_NAMES = {"ubuntu": "ubuntu", "rhel": "rhel", "red hat": "rhel", "redhat": "rhel", "sles": "sles",
             "suse": "sles", "debian": "debian", "oracle": "ol", "ol": "ol", "rocky": "rocky", "azure": "azurelinux",
             "azurelinux": "azurelinux", "centos": "centos", "almalinux": "almalinux", "alma": "almalinux",
             "fedora": "fedora", "arch": "arch", "opensuse": "opensuse-leap", "scientific": "scientific"}


def parse_os_name(text: str) -> tuple[str, str]:
    """A human OS name to (os-release ID, version): ``Ubuntu 22.04.4 LTS`` -> (ubuntu, 22.04.4); ``Red Hat Enterprise
    Linux 9.4`` -> (rhel, 9.4); ``SUSE Linux Enterprise Server 15 SP5`` -> (sles, 15.5)."""
    lowered = re.sub(r"\(.*?\)", " ", text.strip().lower())
    sp = re.search(r"(\d+)\s*sp(\d+)", lowered)
    number = re.search(r"\d+(?:\.\d+)*", lowered)
    version = f"{sp.group(1)}.{sp.group(2)}" if sp else (number.group(0) if number else "")
    words = re.sub(r"[\d.]+|\bsp\d+\b|\b(linux|enterprise|server|lts|release|gnu)\b", " ", lowered).split()
    os_id = _OS_NAMES.get(" ".join(words[:2])) or next((_OS_NAMES[w] for w in words if w in _OS_NAMES), None)
    if os_id is None or not version:
        raise ParseError(f"{text[:60]!r} does not name a known distribution and version")
    return os_id, version
