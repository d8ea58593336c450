"""Whether a ROCm release supports a GPU (three ways) and an OS for that GPU (limits in both directions). Pure."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gpuready.compat.catalogue import normalise_name
from gpuready.compat.schema import OsSupport, RocmRelease


class Support(str, enum.Enum):
    """How a release stands to a GPU product."""

    LISTED = "listed by AMD"
    SAME_ISA = "same ISA as a listed product"
    """The target is supported, the product is not in AMD's list: works in practice, not validated."""
    TARGET_LISTED = "target listed"
    """The target is supported; AMD's product list for this release was not recorded."""
    DEPRECATED = "deprecated"
    UNSUPPORTED = "not supported"


def product_support(release: RocmRelease, name: str, arch: str) -> Support:
    """The three-way answer for one product (``name`` as the catalogue or a tool spells it) on one release."""
    if arch in release.deprecated_targets:
        return Support.DEPRECATED
    if arch not in release.targets:
        return Support.UNSUPPORTED
    if not release.gpus:
        return Support.TARGET_LISTED
    return Support.LISTED if normalise_name(name) in {normalise_name(p) for p in release.gpus} else Support.SAME_ISA


def listed_siblings(release: RocmRelease, arch: str, catalogue_arch: dict[str, str]) -> list[str]:
    """Products AMD lists for this release that share ``arch`` (by the catalogue's arch of each listed name)."""
    return [p for p in release.gpus if catalogue_arch.get(normalise_name(p)) == arch]


def version_matches(version: str, listed: str) -> bool:
    """``24.04`` in a list covers ``24.04.3``; a host version without a point release (``22.04``) is covered by any
    ``22.04.x`` entry (it cannot be told apart)."""
    return version == listed or version.startswith(listed + ".") or listed.startswith(version + ".")


@dataclass(frozen=True, slots=True)
class OsFit:
    """The OS against a release for one GPU: listed, and not excluded by a limit in either direction."""

    listed: bool
    allowed: bool
    why: str = ""
    note: str = ""


def os_rows(release: RocmRelease, os_id: str, version: str) -> list[OsSupport]:
    """The release's OS rows that list this OS version."""
    return [row for row in release.os if row.id == os_id and any(version_matches(version, v) for v in row.versions)]


def os_fit(release: RocmRelease, os_id: str, version: str, gpu_names: set[str]) -> OsFit:
    """Whether ``os_id version`` is listed, and allowed for a GPU known by any of ``gpu_names``.

    Two directions, as AMD writes them: an OS row "supported only on" some GPUs (``only_on_gpus``), and a GPU row
    "supported only on" some OS versions (``gpu_restrictions[].only_on_os``).
    """
    names = {normalise_name(n) for n in gpu_names if n}
    rows = os_rows(release, os_id, version)
    if not rows:
        return OsFit(False, False, "OS not listed")
    here = f"{os_id} {version}"
    for row in rows:
        if row.only_on_gpus and not names & {normalise_name(p) for p in row.only_on_gpus}:
            return OsFit(True, False, f"{os_id} {'/'.join(row.versions)} only on {', '.join(row.only_on_gpus)}",
                         row.note)
    for restriction in release.gpu_restrictions:
        if names & {normalise_name(p) for p in restriction.products} and not any(
                version_matches(here, allowed) for allowed in restriction.only_on_os):
            return OsFit(True, False, f"this GPU only on {', '.join(restriction.only_on_os)}", restriction.note)
    return OsFit(True, True)
