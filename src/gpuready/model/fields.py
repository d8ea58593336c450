"""A fingerprint as named text fields, each in a group (one home for ``diff``/``verify`` drift and ``compare``'s
side-by-side environments)."""

from __future__ import annotations

from gpuready.model.build import is_gpu_package
from gpuready.model.fingerprint import Fingerprint

GROUPS = ("gpu", "kernel-driver", "rocm-cuda", "framework", "environment-variables", "os-kernel", "python-packages")
"""In the order most likely to explain a change in GPU behaviour."""


def _text(fact: object) -> str:
    value = getattr(fact, "value", None)
    if value is None:
        return ""
    return str(getattr(value, "value", value))


def fingerprint_fields(fingerprint: Fingerprint | None) -> dict[str, tuple[str, str]]:
    """field name -> (group, value as text; '' when unknown)."""
    if fingerprint is None:
        return {}
    host, stack, devices = fingerprint.host, fingerprint.stack, fingerprint.devices
    memory = sorted({f"{int(d.memory_bytes.value) / 2**30:.0f}" for d in devices if d.memory_bytes.value})
    fields = {
        "gpu count": ("gpu", str(len(devices))),
        "gpu names": ("gpu", ", ".join(sorted({_text(d.name) for d in devices} - {""}))),
        "gpu archs": ("gpu", ", ".join(sorted({_text(d.arch) for d in devices} - {""}))),
        "gpu memory (GiB)": ("gpu", ", ".join(memory)),
        "amdgpu driver": ("kernel-driver", _text(stack.amdgpu_driver_version)),
        "nvidia driver": ("kernel-driver", _text(stack.nvidia_driver_version)),
        "nvidia kernel module": ("kernel-driver", _text(stack.nvidia_kernel_module)),
        "nvidia user-space driver": ("kernel-driver", _text(stack.nvidia_userspace_version)),
        "cuda driver api": ("kernel-driver", _text(stack.cuda_driver_version)),
        "rocm": ("rocm-cuda", _text(stack.rocm_version)),
        "cuda toolkit": ("rocm-cuda", _text(stack.cuda_toolkit_version)),
        "os": ("os-kernel", _text(host.os_name)),
        "kernel": ("os-kernel", _text(host.kernel)),
        "libc": ("os-kernel", _text(host.libc)),
        "python": ("os-kernel", _text(host.python)),
        "container": ("os-kernel", _text(host.container)),
        "cpu": ("os-kernel", _text(host.cpu_model)),
    }
    for framework in fingerprint.frameworks:
        for name, fact in (("version", framework.version), ("build", framework.variant),
                           ("backend", framework.backend_version)):
            fields[f"{framework.name} {name}"] = ("framework", _text(fact))
    for package in fingerprint.packages:
        group = "framework" if is_gpu_package(package.name) else "python-packages"
        fields[f"package {package.name.lower()}"] = (group, package.version)
    for name, value in fingerprint.environment.items():
        fields[f"env {name}"] = ("environment-variables", value)
    return fields


def flatten(fingerprint: Fingerprint | None, groups: tuple[str, ...] = GROUPS[:4] + ("os-kernel",)) -> dict[str, str]:
    """The fields people compare across machines (these groups only), as text ('' when unknown)."""
    return {name: value for name, (group, value) in fingerprint_fields(fingerprint).items() if group in groups}
