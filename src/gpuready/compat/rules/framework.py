"""Rules about the installed frameworks: flavour, availability, compiled architectures, JAX plugin pairing."""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpuready.compat.load import UPDATE_HINT
from gpuready.compat.query import (
    arch_in_list,
    install_command,
    newest_torch,
    parse_version,
    rocm_release,
    wheels_for_arch,
)
from gpuready.compat.rules.access import LISTING_KINDS
from gpuready.compat.rules.context import Accelerator, Context, finding
from gpuready.compat.schema import Backend, RocmRelease
from gpuready.model import BuildVariant, FactStatus, Finding, Severity, Vendor
from gpuready.model.build import build_label, variant_of
from gpuready.probe.parse.kfd import normalise_gfx_name

_BACKEND = {Vendor.AMD: Backend.ROCM, Vendor.NVIDIA: Backend.CUDA}
_FAMILY_FALLBACK = {"gfx103": "gfx1030", "gfx110": "gfx1100", "gfx90": "gfx900"}
"""Community-known (unsupported) HSA_OVERRIDE_GFX_VERSION stand-ins: a sibling ISA the wheel does contain."""

THEROCK_INSTALL = "https://rocm.docs.amd.com/en/7.13.0-preview/frameworks/pytorch/install.html"
TORCH_HIP_ARCH_DEFAULT = ("https://github.com/pytorch/pytorch/blob/dbd090ee941dde8749bd7c2e8114d77f03fd8b8c/cmake/"
                          "public/utils.cmake")
"""torch_hip_get_arch_list: PYTORCH_ROCM_ARCH, else the installed GPUs' targets (rocm_agent_enumerator)."""


def override_value(arch: str) -> str:
    """``gfx1030`` -> ``10.3.0``, ``gfx90a`` -> ``9.0.10``: the HSA_OVERRIDE_GFX_VERSION spelling of a target."""
    digits = arch.removeprefix("gfx")
    major, minor, stepping = digits[:-2], digits[-2], digits[-1]
    return f"{int(major)}.{int(minor, 16)}.{int(stepping, 16)}"


def parse_override(value: str) -> str | None:
    """``10.3.0`` -> ``gfx1030``; ``9.0.10`` -> ``gfx90a``; None when it is not major.minor.stepping."""
    match = re.fullmatch(r"\s*(\d+)\.(\d+)\.(\d+)\s*", value)
    if not match:
        return None
    major, minor, stepping = (int(g) for g in match.groups())
    if minor > 15 or stepping > 15:
        return None
    return f"gfx{major}{minor:x}{stepping:x}"


def override_fallback(arch: str, arch_list: tuple[str, ...]) -> str | None:
    """A sibling target in the wheel that people use through HSA_OVERRIDE_GFX_VERSION, if there is one."""
    for prefix, stand_in in _FAMILY_FALLBACK.items():
        if arch.startswith(prefix) and arch != stand_in and stand_in in arch_list:
            return stand_in
    return None


def _best_wheel(context: Context, accelerator: Accelerator) -> str:
    backend = _BACKEND.get(accelerator.vendor)
    if backend is None or accelerator.arch is None:
        return ""
    wheels = wheels_for_arch(context.data, accelerator.arch, backend)
    if not wheels:
        return ""
    release, variant = wheels[0]
    return install_command(context.data, release, variant)


def torch_variant(context: Context) -> BuildVariant:
    """The build flavour: as torch reported it, else from its version's local label, else unknown."""
    torch = context.torch
    if torch is None:
        return BuildVariant.UNKNOWN
    if torch.variant.value is not None:
        return torch.variant.value
    return variant_of(torch.version.value) if torch.version.value else BuildVariant.UNKNOWN


def wrong_flavour(context: Context) -> Iterator[Finding]:
    """A CPU build on a GPU host, a CUDA build on an AMD host, a ROCm build on an NVIDIA host."""
    torch = context.torch
    if torch is None or not context.accelerators:
        return
    variant = torch_variant(context)
    first = context.accelerators[0]
    evidence = {"torch": torch.version.value, "build": variant.value, "GPU": first.label}
    remedy = _best_wheel(context, first)
    remedy = (f"{remedy}  (uninstall the current torch first: pip uninstall torch)" if remedy else
              "install torch from the index of your GPU's platform (https://pytorch.org/get-started/locally/)")
    if variant is BuildVariant.CPU:
        yield finding("torch.cpu_build", Severity.BLOCKER,
                      f"torch {torch.version.value} is a CPU-only build, but this machine has {first.label}: "
                      "nothing will run on the GPU.", evidence=evidence, remedy=remedy,
                      source_url="https://pytorch.org/get-started/locally/")
    elif variant is BuildVariant.CUDA and context.vendors == {Vendor.AMD}:
        yield finding("torch.cuda_build_on_amd", Severity.BLOCKER,
                      f"torch {torch.version.value} is a CUDA build, but the GPU is AMD ({first.label}).",
                      evidence=evidence, remedy=remedy, source_url="https://pytorch.org/get-started/locally/")
    elif variant is BuildVariant.ROCM and context.vendors == {Vendor.NVIDIA}:
        yield finding("torch.rocm_build_on_nvidia", Severity.BLOCKER,
                      f"torch {torch.version.value} is a ROCm build, but the GPU is NVIDIA ({first.label}).",
                      evidence=evidence, remedy=remedy, source_url="https://pytorch.org/get-started/locally/")
    elif variant is BuildVariant.UNKNOWN and not torch.accelerator_available.value:
        yield finding("unknown.torch_flavour", Severity.WARN,
                      f"Could not tell whether {_named(torch.version.value)} is a ROCm, CUDA or CPU build.",
                      evidence=evidence, remedy="run `gpuready env` on the machine itself (it asks torch directly)")


def _named(version: str | None, build: str = "") -> str:
    """``torch 2.4.1+rocm6.1`` (``(rocm build)`` after it with ``build``), or "torch (version not shown)" where a
    report does not give it."""
    if version:
        return f"torch {version} ({build} build)" if build else f"torch {version}"
    return f"torch ({build} build, version not shown)" if build else "torch (version not shown)"


def import_failed(context: Context) -> Iterator[Finding]:
    """torch is installed but importing it in a child process failed, crashed or hung."""
    torch = context.torch
    if torch is None or torch.accelerator_available.status is not FactStatus.ERROR:
        return
    detail = torch.accelerator_available.detail
    yield finding("torch.import_failed", Severity.BLOCKER, f"torch {torch.version.value or ''} is installed but "
                  f"could not be queried: {detail}", evidence={"torch": torch.version.value or "", "error": detail},
                  remedy="run `python -c 'import torch; print(torch.cuda.is_available())'` to see the full error; a "
                         "missing libamdhip64/libcudart usually means a broken or mixed install: reinstall torch from "
                         "one index")


def not_available(context: Context) -> Iterator[Finding]:
    """The build matches the GPU, yet torch sees no device; or a report shows torch seeing none and lists no GPU."""
    torch = context.torch
    if torch is None or torch.accelerator_available.value is not False:
        return
    fp = context.fingerprint
    if not context.accelerators and fp.origin != "probe" and not any(n.kind in LISTING_KINDS for n in fp.sections):
        yield finding("torch.gpu_not_available", Severity.BLOCKER,
                      f"{_named(torch.version.value)} reports no usable GPU (torch.cuda.is_available() is False), and "
                      "the report does not list the GPUs: either there is none, or torch cannot use it.",
                      evidence={"torch": torch.version.value or ""},
                      remedy="check that the torch build matches the GPU (a +rocm build for AMD, a +cu build for "
                             "NVIDIA, not +cpu), then device access and the driver; paste `rocminfo` or `nvidia-smi` "
                             "to tell which")
        return
    if not context.accelerators:
        return
    variant = torch_variant(context)
    matches = (variant is BuildVariant.ROCM and Vendor.AMD in context.vendors) or (
        variant is BuildVariant.CUDA and Vendor.NVIDIA in context.vendors) or variant is BuildVariant.UNKNOWN
    if not matches:
        return
    yield finding("torch.gpu_not_available", Severity.BLOCKER,
                  f"{_named(torch.version.value, variant.value)} cannot see the GPU that is present: "
                  "torch.cuda.is_available() is False.",
                  evidence={"torch": torch.version.value, "GPUs": [a.label for a in context.accelerators]},
                  remedy="check device access (/dev/kfd and /dev/dri for AMD, /dev/nvidia* for NVIDIA), "
                         "*_VISIBLE_DEVICES, and that the kernel driver is loaded; see the other findings")


def arch_not_in_wheel(context: Context) -> Iterator[Finding]:
    """The GPU's target is not among the architectures compiled into the installed build."""
    torch = context.torch
    variant = torch_variant(context)
    if torch is not None and variant is BuildVariant.UNKNOWN and torch.accelerator_available.value is True and (
            context.accelerators):
        first = context.accelerators[0]
        if (builds := _every_build_covers(context, first)) is not None:
            yield finding("torch.arch_in_every_build", Severity.INFO,
                          f"Which torch {torch.version.value} build is installed does not show, but torch sees "
                          f"{first.label}, so it is a {builds[0]} build, and every {builds[0]} build of that release "
                          f"has kernels for {first.arch}.", evidence={"GPU": first.label, "builds": builds[1]})
            return
        yield finding("unknown.torch_build", Severity.WARN,
                      f"torch sees {first.label}, but which torch build it is does not show, so whether it has "
                      "kernels for this GPU was not checked (a GPU the build has no kernels for is still listed as "
                      "available; the first kernel fails).", evidence={"GPU": first.label},
                      remedy="add `python -c \"import torch; print(torch.__version__, torch.cuda.get_arch_list())\"` "
                             "or `python -m torch.utils.collect_env` output")
        return
    if torch is None or variant not in (BuildVariant.ROCM, BuildVariant.CUDA):
        return
    backend_vendor = Vendor.AMD if variant is BuildVariant.ROCM else Vendor.NVIDIA
    accelerators = [a for a in context.accelerators if a.vendor is backend_vendor]
    seen_by_torch = [normalise_gfx_name(a) for a in (torch.device_archs.value or ())]
    if seen_by_torch:
        # torch reported the devices it can see (after *_VISIBLE_DEVICES): judge those, not hidden ones.
        visible = [a for a in accelerators if a.arch in seen_by_torch]
        accelerators = visible or [Accelerator(i, backend_vendor, None, arch, None)
                                   for i, arch in enumerate(seen_by_torch)]
    if not accelerators:
        return
    override = parse_override(context.fingerprint.environment.get("HSA_OVERRIDE_GFX_VERSION", ""))
    arch_list = context.torch_arch_list
    release, _ = context.torch_wheel
    for accelerator in accelerators:
        if accelerator.arch is None:
            yield finding("unknown.gpu_arch", Severity.WARN,
                          f"The architecture of {accelerator.label} is not known, so whether torch has kernels for it "
                          "was not checked.", evidence={"GPU": accelerator.label},
                          remedy="run `gpuready env` on the machine (rocminfo / KFD / nvidia-smi report it)")
            continue
        if not arch_list.ok or not arch_list.value:
            if (backend_vendor is Vendor.AMD and "git" in str(torch.version.value or "")
                    and context.fingerprint.host.os_id.value != "windows"
                    and (built_for := _torch_rocm_release(context)) is not None
                    and all(a.arch in built_for.targets for a in accelerators)):
                archs = sorted({str(a.arch) for a in accelerators})
                yield finding("torch.arch_list_unshown", Severity.INFO,
                              f"The architectures compiled into torch {torch.version.value} are not shown; it is a "
                              f"source build for ROCm {built_for.version}, which supports {', '.join(archs)}. A source "
                              "build of torch compiles for the GPUs of the machine it is built on unless "
                              "PYTORCH_ROCM_ARCH names others, and AMD's images name their release's supported "
                              "targets, so the kernels are expected to be there.",
                              evidence={"torch": torch.version.value, "ROCm": built_for.version, "GPU": archs},
                              remedy="to confirm, `python -c \"import torch; print(torch.cuda.get_arch_list())\"` "
                                     f"must list {', '.join(archs)}",
                              source_url=TORCH_HIP_ARCH_DEFAULT)
                return
            remedy = ("on that machine, `python -c \"import torch; print(torch.cuda.get_arch_list())\"` lists them "
                      f"(`gpuready env` records them); {accelerator.arch} must be among them")
            source = ""
            if build_label(str(torch.version.value or "")).preview:
                remedy += ("; its dated ROCm tag marks a TheRock build, and AMD builds those wheels per GPU family "
                           f"(repo.amd.com/rocm/whl/<family>/): it must come from the index of {accelerator.arch}'s "
                           "family")
                source = THEROCK_INSTALL
            yield finding("unknown.torch_arch_list", Severity.WARN,
                          f"The architectures compiled into torch {torch.version.value} are not known, so whether it "
                          f"has kernels for {accelerator.arch} was not checked.",
                          evidence={"torch": torch.version.value, "GPU": accelerator.label}, remedy=remedy,
                          source_url=source)
            return
        if arch_in_list(accelerator.arch, arch_list.value):
            continue
        if backend_vendor is Vendor.AMD and override and arch_in_list(override, arch_list.value):
            continue  # HSA_OVERRIDE_GFX_VERSION presents it as a target the build has: env.hsa_override_* judge that
        fallback = override_fallback(accelerator.arch, arch_list.value) if backend_vendor is Vendor.AMD else None
        remedy = _best_wheel(context, accelerator)
        remedy = f"install a wheel built for {accelerator.arch}: {remedy}" if remedy else (
            f"no upstream PyTorch wheel in the data is built for {accelerator.arch}; build from source with "
            f"{'PYTORCH_ROCM_ARCH' if backend_vendor is Vendor.AMD else 'TORCH_CUDA_ARCH_LIST'}={accelerator.arch}")
        if fallback:
            remedy += (f"; or, unsupported: HSA_OVERRIDE_GFX_VERSION={override_value(fallback)} makes the runtime "
                       f"use the wheel's {fallback} kernels")
        yield finding("torch.arch_not_in_wheel", Severity.BLOCKER,
                      f"torch {torch.version.value} has no kernels for {accelerator.label}: the first GPU kernel will "
                      "fail (\"invalid device function\" / \"no kernel image is available\").",
                      evidence={"GPU arch": accelerator.arch, "compiled archs": arch_list.value,
                                "arch list from": arch_list.source},
                      remedy=remedy, source_url=release.source if release else "")


def _torch_rocm_release(context: Context) -> RocmRelease | None:
    """The data's entry for the ROCm release torch was built with (its version's label, else its HIP version), else
    for the installed ROCm."""
    torch = context.torch
    label = build_label(str(torch.version.value or "")).backend if torch is not None else ""
    backend = parse_version(label or str(torch.backend_version.value or "")) if torch is not None else None
    release = parse_version(".".join(str(p) for p in backend.release[:2])) if backend is not None else None
    return rocm_release(context.data, release) if release is not None else context.rocm


def _every_build_covers(context: Context, accelerator: Accelerator) -> tuple[str, list[str]] | None:
    """For a torch release without its build tag (``pip list`` prints ``2.2.1``) that sees ``accelerator``: the
    backend its build must be (the GPU's vendor's) and that backend's builds of the release in the data, when every
    one of them has kernels for the GPU; None otherwise (a pre-release or source build, a release or an arch list the
    data lacks, or a build without them)."""
    version = parse_version(str(context.torch.version.value or "")) if context.torch else None
    backend = {Vendor.NVIDIA: Backend.CUDA, Vendor.AMD: Backend.ROCM}.get(accelerator.vendor)
    if version is None or version.local or version.is_prerelease or version.is_postrelease or backend is None or (
            not accelerator.arch):
        return None
    release = next((r for r in context.data.torch.releases if r.version == version), None)
    builds = [v for v in release.variants if v.backend is backend] if release else []
    if builds and all(v.arch_list and arch_in_list(accelerator.arch, v.arch_list) for v in builds):
        return backend.value.upper() if backend is Backend.CUDA else "ROCm", [v.name for v in builds]
    return None


def framework_newer_than_data(context: Context) -> Iterator[Finding]:
    """The installed torch is newer than every release the data knows."""
    torch = context.torch
    newest = newest_torch(context.data)
    installed = parse_version(torch.version.value) if torch is not None else None
    if installed is None or newest is None:
        return
    if installed.release[:2] > newest.release[:2]:
        yield finding("data.framework_newer", Severity.WARN,
                      f"torch {torch.version.value if torch else ''} is newer than anything in gpuready's data "
                      f"(newest known: {newest}); judgements about it are incomplete.",
                      evidence={"installed": installed, "newest known": newest},
                      remedy=UPDATE_HINT)


def jax_plugin_mismatch(context: Context) -> Iterator[Finding]:
    """A JAX GPU plugin whose version differs from jaxlib's."""
    packages = {p.name: p.version for p in context.fingerprint.packages}
    jaxlib = packages.get("jaxlib")
    if jaxlib is None:
        return
    for name, version in packages.items():
        if name.startswith("jax-") and name.endswith(("-plugin", "-pjrt")) and parse_version(version) != parse_version(
                jaxlib):
            yield finding("jax.plugin_mismatch", Severity.BLOCKER,
                          f"{name} {version} does not match jaxlib {jaxlib}: JAX will not load the GPU plugin.",
                          evidence={name: version, "jaxlib": jaxlib},
                          remedy=f"pip install {name}=={jaxlib}  (or install jax, jaxlib and the plugin together)",
                          source_url="https://docs.jax.dev/en/latest/installation.html")


def no_framework(context: Context) -> Iterator[Finding]:
    """GPUs but no ML framework installed on this machine."""
    fp = context.fingerprint
    if fp.origin != "probe" or not context.accelerators:
        return
    installed = [f.name for f in fp.frameworks if f.installed]
    if not installed:
        first = context.accelerators[0]
        remedy = _best_wheel(context, first)
        yield finding("framework.none", Severity.WARN,
                      "No ML framework (torch, jax) is installed in this Python environment, so nothing checked that "
                      "a framework can use the GPU.", evidence={"python": fp.host.python.value or ""},
                      remedy=remedy or f"see `gpuready plan --gpu \"{first.name or first.arch}\"`")


RULES = (no_framework, wrong_flavour, import_failed, not_available, arch_not_in_wheel, framework_newer_than_data,
         jax_plugin_mismatch)
