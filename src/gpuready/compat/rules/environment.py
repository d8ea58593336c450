"""Rules about environment variables: HSA_OVERRIDE_GFX_VERSION, *_VISIBLE_DEVICES, an iGPU ahead of the dGPU."""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpuready.compat.query import arch_in_list
from gpuready.compat.rules.context import Context, finding
from gpuready.compat.rules.framework import override_value, parse_override
from gpuready.model import Finding, Severity, Vendor

OVERRIDE_URL = "https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html"
VISIBLE = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")


def _dotted_remedy(value: str) -> str:
    """What to do with an override that is not major.minor.stepping: a gfx name (``gfx1102``) written dotted."""
    if re.fullmatch(r"gfx\d{1,2}[0-9a-f]{2}", value.strip().lower()):
        return f"write the target dotted, HSA_OVERRIDE_GFX_VERSION={override_value(value.strip().lower())}, or unset it"
    return "unset HSA_OVERRIDE_GFX_VERSION"


def hsa_override(context: Context) -> Iterator[Finding]:
    """HSA_OVERRIDE_GFX_VERSION: harmful when the native target is in the wheel; otherwise unsupported territory."""
    value = context.fingerprint.environment.get("HSA_OVERRIDE_GFX_VERSION")
    if value is None:
        return
    target = parse_override(value)
    if target is None:
        yield finding("env.hsa_override_invalid", Severity.BLOCKER,
                      f"HSA_OVERRIDE_GFX_VERSION={value!r} is not major.minor.stepping (e.g. 10.3.0).",
                      evidence={"HSA_OVERRIDE_GFX_VERSION": value}, remedy=_dotted_remedy(value))
        return
    arch_list = context.torch_arch_list.value or ()
    for accelerator in context.accelerators:
        if accelerator.vendor is not Vendor.AMD or accelerator.arch is None:
            continue
        evidence = {"HSA_OVERRIDE_GFX_VERSION": value, "presents the GPU as": target, "GPU": accelerator.label,
                    "compiled archs": arch_list or "unknown"}
        if accelerator.arch == target:
            continue
        if arch_list and arch_in_list(accelerator.arch, arch_list):
            yield finding("env.hsa_override_harmful", Severity.WARN,
                          f"HSA_OVERRIDE_GFX_VERSION={value} makes {accelerator.label} run {target} code, but torch "
                          f"has native {accelerator.arch} kernels: the override can only make things worse.",
                          evidence=evidence, remedy="unset HSA_OVERRIDE_GFX_VERSION")
        elif arch_list and target not in arch_list:
            yield finding("env.hsa_override_no_match", Severity.BLOCKER,
                          f"HSA_OVERRIDE_GFX_VERSION={value} presents {accelerator.label} as {target}, which torch "
                          "has no kernels for either.", evidence=evidence,
                          remedy=f"use a value the wheel contains (e.g. {override_value(arch_list[-1])} for "
                                 f"{arch_list[-1]}, only if it is the same GPU family), or unset it")
        else:
            yield finding("env.hsa_override_active", Severity.WARN,
                          f"HSA_OVERRIDE_GFX_VERSION={value} runs {target} code on {accelerator.label}: this works "
                          "for many same-family GPUs but is not supported by AMD; wrong results or hangs are possible.",
                          evidence=evidence, source_url=OVERRIDE_URL,
                          remedy="prefer a build with native kernels for the GPU when one exists")


def visible_devices(context: Context) -> Iterator[Finding]:
    """A *_VISIBLE_DEVICES value that hides every GPU."""
    env = context.fingerprint.environment
    count = len(context.accelerators)
    if not count:
        return
    for name in VISIBLE:
        if name not in env:
            continue
        value = env[name].strip()
        entries = [e.strip() for e in value.split(",") if e.strip()]
        indexes = [int(e) for e in entries if re.fullmatch(r"-?\d+", e)]
        hides_all = not entries or (indexes and len(indexes) == len(entries) and all(i < 0 or i >= count
                                                                                    for i in indexes))
        if hides_all:
            yield finding("env.visible_devices_hide_all", Severity.BLOCKER,
                          f"{name}={value!r} hides every GPU ({count} present): frameworks will see none.",
                          evidence={name: value, "GPUs": count}, remedy=f"unset {name}, or list valid indexes "
                                                                          f"(0..{count - 1})")


def integrated_first(context: Context) -> Iterator[Finding]:
    """An integrated GPU enumerated ahead of the discrete one, so device 0 is the slow one."""
    env = context.fingerprint.environment
    if any(name in env for name in VISIBLE):
        return
    amd = [a for a in context.accelerators if a.vendor is Vendor.AMD]
    discrete = [a for a in amd if not a.integrated]
    if len(amd) > 1 and amd[0].integrated and discrete:
        indexes = ",".join(str(i) for i, a in enumerate(amd) if not a.integrated)
        release = context.rocm
        unsupported = (release is not None and amd[0].arch is not None and amd[0].arch not in release.targets
                       and "HSA_OVERRIDE_GFX_VERSION" not in env)
        yield finding("devices.igpu_first", Severity.BLOCKER if unsupported else Severity.WARN,
                      f"Device 0 is the integrated {amd[0].label}; the discrete {discrete[0].label} comes after it, so "
                      "code that uses the default device runs on the iGPU " + (
                          f"({amd[0].arch}, which ROCm {release.version} does not support: its kernels are missing "
                          "and the work fails)." if unsupported and release is not None else
                          "(and its kernels may be missing)."),
                      evidence={"devices": [a.label for a in amd]},
                      remedy=f"export HIP_VISIBLE_DEVICES={indexes}  (or disable the iGPU in the BIOS)")


CUDA_VISIBLE_URL = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables"


def mixed_architectures(context: Context) -> Iterator[Finding]:
    """NVIDIA GPUs of different architectures side by side (two RTX 3090s and two GTX 1080 Tis): all of them
    visible, a job spread over them runs at the older one's pace, and kernels only the newer one has (FlashAttention
    2 needs sm_80 or newer) fail on it."""
    if any(name in context.fingerprint.environment for name in VISIBLE):
        return
    by_arch: dict[str, list[str]] = {}
    for accelerator in context.accelerators:
        if accelerator.vendor is Vendor.NVIDIA and accelerator.arch:
            by_arch.setdefault(accelerator.arch, []).append(accelerator.label)
    if len(by_arch) < 2:
        return
    newest = max(by_arch, key=lambda arch: int(re.sub(r"\D", "", arch) or 0))
    keep = ",".join(str(i) for i, a in enumerate(a for a in context.accelerators if a.vendor is Vendor.NVIDIA)
                    if a.arch == newest)
    yield finding("devices.mixed_architectures", Severity.WARN,
                  "The GPUs are of different architectures (" + "; ".join(
                      f"{arch}: {len(labels)}" for arch, labels in sorted(by_arch.items())) + "): with all of them "
                  "visible, a job spread over them runs at the slowest one's pace, and kernels built only for the "
                  "newer one (FlashAttention 2 needs sm_80 or newer) fail on the older ones.",
                  evidence={arch: labels for arch, labels in sorted(by_arch.items())},
                  remedy=f"export CUDA_VISIBLE_DEVICES={keep}  (one kind of GPU per job)", source_url=CUDA_VISIBLE_URL)


RULES = (hsa_override, visible_devices, integrated_first, mixed_architectures)
