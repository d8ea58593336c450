"""Rules about the ROCm release: GPU support, OS and kernel, per-GPU OS limits, driver skew, mixed installs."""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpuready.compat.catalogue import normalise_name
from gpuready.compat.load import UPDATE_HINT
from gpuready.compat.query import parse_version
from gpuready.compat.rules.context import Accelerator, Context, finding
from gpuready.compat.support import Support, listed_siblings, os_fit, os_rows, product_support
from gpuready.model import BuildVariant, Finding, Severity, Vendor


def _amd(context: Context) -> bool:
    return Vendor.AMD in context.vendors


def unknown_release(context: Context) -> Iterator[Finding]:
    """An installed ROCm the data does not know."""
    version = context.fingerprint.stack.rocm_version.value
    if version is not None and context.rocm is None:
        known = max((r.version for r in context.data.rocm.releases), default=None)
        newer = known is not None and version > known
        yield finding("rocm.unknown_release", Severity.WARN,
                      f"ROCm {version} is not in gpuready's data" + (" (it is newer than any known release)"
                                                                      if newer else "") + "; support was not checked.",
                      evidence={"ROCm": version, "newest known": known or "none"},
                      remedy=UPDATE_HINT)


def preview_release(context: Context) -> Iterator[Finding]:
    """A ROCm technology preview (TheRock 7.9-7.13): AMD says not for production, with no upgrade path."""
    release = context.rocm
    if release is None or release.stream != "preview":
        return
    production = sorted((r for r in context.data.rocm.releases if r.stream == "core" and r.date > release.date),
                        key=lambda r: r.version)
    after = f"ROCm {production[0].version}" if production else "a production ROCm release"
    yield finding("rocm.preview_release", Severity.WARN,
                  f"ROCm {release.version} is a technology preview: AMD's release notes say it is not for production "
                  "use and that there is no upgrade path between preview and production releases.",
                  evidence={"ROCm": release.version, "stream": release.stream, "released": release.date},
                  source_url=release.source,
                  remedy=f"for production, install {after} (the Core SDK) in a fresh environment rather than upgrading")


def gpu_support(context: Context) -> Iterator[Finding]:
    """Each AMD GPU against the release's supported and deprecated targets."""
    release = context.rocm
    if release is None or not _amd(context):
        return
    for accelerator in context.accelerators:
        if accelerator.vendor is not Vendor.AMD or accelerator.arch is None:
            continue
        evidence = {"GPU": accelerator.label, "ROCm": release.version, "supported": release.targets}
        support = product_support(release, _product_name(accelerator), accelerator.arch)
        if support is Support.SAME_ISA:
            arch_of = {normalise_name(g.name): g.arch for g in context.data.gpus.gpus}
            siblings = listed_siblings(release, accelerator.arch, arch_of)
            yield finding("rocm.gpu_not_listed", Severity.INFO,
                          f"{accelerator.label} is not in AMD's list of GPUs for ROCm {release.version}; it has the "
                          f"same ISA ({accelerator.arch}) as {', '.join(siblings) or 'a listed product'}, so it works "
                          "in practice, but AMD does not validate it."
                          + ("" if release.gpus_confirmed else " (AMD's list for this release was read in a copy or "
                             "an undated revision of its page)"),
                          evidence={**evidence, "listed products": siblings}, source_url=release.gpus_source or
                          release.source, remedy="expect it to work; for a validated setup use a listed product")
        elif accelerator.arch in release.deprecated_targets:
            yield finding("rocm.gpu_deprecated", Severity.WARN,
                          f"{accelerator.label} is deprecated in ROCm {release.version}: it still works but gets no "
                          "fixes, and a later release drops it.", evidence=evidence, source_url=release.source,
                          remedy="plan a move to a supported GPU, or pin this ROCm release")
        elif accelerator.arch not in release.targets:
            yield finding("rocm.gpu_unsupported", Severity.WARN,
                          f"{accelerator.label} is not officially supported by ROCm {release.version}: the runtime may "
                          "run it, but AMD's prebuilt libraries are not validated on it and may fail.",
                          evidence=evidence, source_url=release.source,
                          remedy="use a GPU on the list, or expect to build or override (see other findings)")


def _product_name(accelerator: Accelerator) -> str:
    return accelerator.entry.name if accelerator.entry is not None else accelerator.name or ""


def _os_key(os_id: str | None) -> str:
    return {"redhat": "rhel", "oracle": "ol", "opensuse-leap": "sles"}.get(os_id or "", os_id or "")


def _lts_line(os_id: str, version: str) -> str | None:
    """An Ubuntu LTS release's line (``24.04`` of ``24.04.4``), which point releases share; None for other OSes,
    whose minor releases change more than the kernel."""
    match = re.fullmatch(r"(\d{2}\.04)(?:\.\d+)?", version) if os_id == "ubuntu" else None
    return match.group(1) if match else None


_KERNEL_FAMILIES = ((re.compile(r"\.el\d+|toss"), "rhel"), (re.compile(r"\.fc\d+"), "fedora"),
                    (re.compile(r"-(?:generic|lowlatency|aws|azure|gcp|oracle|nvidia|oem)$"), "ubuntu"),
                    (re.compile(r"-(?:amd64|cloud-amd64)$"), "debian"), (re.compile(r"-default$"), "sles"))
"""What a distribution's kernel build is named with: ``.el9_5`` (RHEL and its rebuilds), ``.fc41``, Ubuntu's
``-generic`` flavours, Debian's ``-amd64``, SUSE's ``-default``."""
_FAMILY_NAMES = {"rhel": "RHEL", "fedora": "Fedora", "ubuntu": "Ubuntu", "debian": "Debian", "sles": "SLES"}
_OS_FAMILIES = {"rocky": "rhel", "almalinux": "rhel", "centos": "rhel", "ol": "rhel", "oracle": "rhel", "rhel": "rhel",
                "opensuse": "sles", "opensuse-leap": "sles", "sles": "sles"}


def _kernel_family(kernel: str) -> str | None:
    """The distribution family a kernel release was built by, where its name says (None: it does not)."""
    return next((family for pattern, family in _KERNEL_FAMILIES if pattern.search(kernel)), None)


def operating_system(context: Context) -> Iterator[Finding]:
    """The OS and kernel against the release's list."""
    release = context.rocm
    host = context.fingerprint.host
    if release is None or not release.os or not _amd(context):
        return
    os_id, version = _os_key(host.os_id.value), host.os_version.value
    if not os_id or not version:
        return
    rows = os_rows(release, os_id, version)
    supported = rows[0] if rows else None
    listed = ", ".join(f"{o.id} {'/'.join(o.versions)}" for o in release.os)
    line = _lts_line(os_id, version)
    siblings = [row for row in release.os if row.id == os_id and any(_lts_line(os_id, v) == line for v in row.versions)
                ] if supported is None and line else []
    restricted = any(row.only_on_gpus for row in release.os if row.id == os_id) or any(
        os_id in allowed for restriction in release.gpu_restrictions for allowed in restriction.only_on_os)
    if siblings and not (host.kernel.ok and siblings[0].kernels) or restricted:
        siblings = []  # the kernel, what point releases differ in, cannot be checked; or AMD limits GPUs to releases
    if siblings:  # Ubuntu 24.04.4 where 24.04.3 is listed: the same LTS, a later (or earlier) point release
        supported = siblings[0]
        yield finding("rocm.os_point_release", Severity.INFO,
                      f"{host.os_name.value or os_id + ' ' + version} is a point release of Ubuntu {line} that ROCm "
                      f"{release.version} does not list ({'/'.join(supported.versions)} listed): the same LTS, so "
                      "its packages apply; its kernel is checked against the listed ones.",
                      evidence={"OS": f"{os_id} {version}", "listed": listed}, source_url=release.source,
                      remedy="expect it to work; the kernel is what differs between point releases")
    if supported is None:
        yield finding("rocm.os_unsupported", Severity.WARN,
                      f"{host.os_name.value or os_id + ' ' + version} is not listed for ROCm {release.version}.",
                      evidence={"OS": f"{os_id} {version}", "listed": listed}, source_url=release.source,
                      remedy="use a listed OS release for production; unlisted ones often work but are not validated")
        return
    kernel = host.kernel.value
    series = re.match(r"(\d+\.\d+)", kernel or "")
    built_for = _kernel_family(kernel or "")
    if built_for and built_for != _OS_FAMILIES.get(os_id, os_id):
        yield finding("rocm.kernel_of_host", Severity.INFO,
                      f"Kernel {kernel} is built for {_FAMILY_NAMES.get(built_for, built_for)}, "
                      f"not {host.os_name.value or os_id}: the report comes from a container whose host runs another "
                      "distribution, so the kernel was not checked against the container OS's list.",
                      evidence={"kernel": kernel, "OS": f"{os_id} {version}"}, source_url=release.source,
                      remedy="check the host's OS and kernel against the ROCm release's list (run gpuready doctor on "
                             "the host)")
        return
    if supported.kernels and series and not any(k.startswith(series.group(1)) for k in supported.kernels):
        yield finding("rocm.kernel_unlisted", Severity.WARN,
                      f"Kernel {kernel} is not a kernel series ROCm {release.version} lists for {os_id} {version} "
                      f"({', '.join(supported.kernels)}).",
                      evidence={"kernel": kernel, "listed": supported.kernels}, source_url=release.source,
                      remedy="boot a listed kernel (the distribution's GA or HWE kernel) if amdgpu-dkms fails to build")


def gpu_os_restrictions(context: Context) -> Iterator[Finding]:
    """Documented limits in both directions: an OS row only on some GPUs, a GPU row only on some OS versions."""
    release = context.rocm
    host = context.fingerprint.host
    if release is None or not (release.gpu_restrictions or any(o.only_on_gpus for o in release.os)):
        return
    os_id, version = _os_key(host.os_id.value), host.os_version.value or ""
    if not os_id or not version:
        return
    here = f"{os_id} {version}"
    for accelerator in context.accelerators:
        if accelerator.vendor is not Vendor.AMD:
            continue
        names = {accelerator.name or "", _product_name(accelerator)}
        fit = os_fit(release, os_id, version, names)
        if fit.listed and not fit.allowed:
            yield finding("rocm.gpu_os_restricted", Severity.WARN,
                          f"ROCm {release.version} does not support {accelerator.label} on {here}: {fit.why}.",
                          evidence={"GPU": accelerator.label, "OS": here, "note": fit.note},
                          source_url=release.source,
                          remedy="move to an OS version AMD lists for this GPU for a supported setup")


def driver_skew(context: Context) -> Iterator[Finding]:
    """The amdgpu kernel driver series against the user-space range it supports.

    AMD names driver series after ROCm releases (6.4) or, since 7.0, as 30.10, 31.40 ...; the module itself reports
    a kernel-style version (6.8.5, 6.12.12) that does not say which series it is. Only versions in the 30+ numbering
    are matched, so a coincidence of numbers is never judged.
    """
    driver = context.fingerprint.stack.amdgpu_driver_version.value
    user = context.fingerprint.stack.rocm_version.value
    if not driver or user is None or not re.match(r"^(3\d|[4-9]\d)\.", driver):
        return
    matches = [c for c in context.data.rocm.driver_compat if driver == c.driver or driver.startswith(c.driver + ".")]
    if not matches:
        return
    entry = max(matches, key=lambda c: len(c.driver))
    if not entry.user_space_min <= user <= entry.user_space_max:
        yield finding("rocm.driver_userspace_skew", Severity.WARN,
                      f"The amdgpu driver {driver} supports ROCm user space {entry.user_space_min} to "
                      f"{entry.user_space_max}; this machine runs ROCm {user}.",
                      evidence={"driver": driver, "ROCm": user}, source_url=entry.source,
                      remedy="install the amdgpu driver that matches the ROCm release (amdgpu-install), or the ROCm "
                             "release the driver supports")


def mixed_installs(context: Context) -> Iterator[Finding]:
    """Several ROCm trees, or LD_LIBRARY_PATH pointing at a ROCm other than the one torch was built for."""
    stack = context.fingerprint.stack
    if len(stack.rocm_installs) > 1:
        yield finding("rocm.multiple_installs", Severity.WARN,
                      f"{len(stack.rocm_installs)} ROCm installs side by side; a program can load libraries from "
                      "one and tools from another.", evidence={"installs": stack.rocm_installs,
                                                                "/opt/rocm": stack.rocm_path.value or "none"},
                      remedy="remove the releases you do not use, or point ROCM_PATH and LD_LIBRARY_PATH at one")
    torch = context.torch
    library_path = context.fingerprint.environment.get("LD_LIBRARY_PATH", "")
    if torch is None or torch.variant.value is not BuildVariant.ROCM or not library_path:
        return
    hip = parse_version(torch.backend_version.value)
    for entry in library_path.split(":"):
        match = re.search(r"rocm-(\d+)\.(\d+)", entry)
        if hip is not None and match and (int(match.group(1)), int(match.group(2))) != hip.release[:2]:
            yield finding("rocm.ld_library_path_mismatch", Severity.WARN,
                          f"LD_LIBRARY_PATH puts {entry} first, but torch {torch.version.value} was built with HIP "
                          f"{torch.backend_version.value}: mixing them causes symbol and code-object errors.",
                          evidence={"LD_LIBRARY_PATH": library_path, "torch HIP": torch.backend_version.value},
                          remedy=f"remove {entry} from LD_LIBRARY_PATH (pip wheels of torch carry their own ROCm)")


def driver_not_loaded(context: Context) -> Iterator[Finding]:
    """ROCm is installed (or a ROCm torch is) but no KFD topology exists: the amdgpu driver is not loaded."""
    fp = context.fingerprint
    if fp.origin != "probe" or fp.host.container.ok or context.accelerators:
        return
    kfd_absent = any(n.name == "kfd" and n.fact.status.value == "absent" for n in fp.probes)
    torch = context.torch
    wants_rocm = fp.stack.rocm_version.ok or (torch is not None and torch.variant.value is BuildVariant.ROCM)
    if kfd_absent and wants_rocm:
        yield finding("driver.amdgpu_not_loaded", Severity.BLOCKER,
                      "ROCm is installed but the amdgpu kernel driver exposes no GPU (/sys/class/kfd is missing).",
                      evidence={"ROCm": fp.stack.rocm_version.value or "torch ROCm build"},
                      remedy="sudo modprobe amdgpu; check `dmesg | grep -i amdgpu`; with Secure Boot, enrol the DKMS "
                             "signing key (mokutil --import) or use the distribution kernel's amdgpu",
                      source_url="https://rocm.docs.amd.com/projects/install-on-linux/en/latest/")


RULES = (unknown_release, preview_release, gpu_support, operating_system, gpu_os_restrictions, driver_skew,
         mixed_installs, driver_not_loaded)
