"""Rules about reaching the devices: permissions, containers, and whether any GPU is there at all."""

from __future__ import annotations

from collections.abc import Iterator

from gpuready.compat.rules.context import Context, finding
from gpuready.model import FactStatus, Finding, Severity, Vendor

GROUPS_URL = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html"
DOCKER_URL = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"
AMD_DOCKER_FLAGS = ("--device=/dev/kfd --device=/dev/dri --group-add video --group-add render "
                    "--security-opt seccomp=unconfined")


def device_permissions(context: Context) -> Iterator[Finding]:
    """/dev/kfd or a render node this user cannot open, naming the group that owns it."""
    user = context.fingerprint.access.user.value or "$USER"
    kfd_judged = False
    for node in context.fingerprint.access.nodes:
        if not node.exists or node.accessible.value is not False:
            continue
        group = node.group.value or "render"
        kfd_judged = kfd_judged or node.path == "/dev/kfd"
        code = "access.kfd_denied" if node.path == "/dev/kfd" else (
            "access.render_node_denied" if "/dri/" in node.path else "access.nvidia_node_denied")
        yield finding(code, Severity.BLOCKER, f"{node.path} is not readable and writable by {user} (owned by group "
                      f"{group}, mode {node.mode.value or '?'}).",
                      evidence={"node": node.path, "group": group,
                                "user groups": context.fingerprint.access.groups.value or ()},
                      remedy=f"sudo usermod -aG {group} {user}  (then log out and in again)", source_url=GROUPS_URL)
    for note in context.fingerprint.probes:
        if note.name != "rocminfo" or note.fact.status is not FactStatus.ERROR:
            continue
        detail = note.fact.detail
        if "Permission denied" in detail and not kfd_judged:
            yield finding("access.kfd_denied", Severity.BLOCKER, "rocminfo could not open /dev/kfd: permission denied.",
                          evidence={"rocminfo": detail}, source_url=GROUPS_URL,
                          remedy="sudo usermod -aG render,video $USER  (then log out and in again)")
        elif "/dev/kfd" in detail or "HSA_STATUS" in detail:
            yield finding("access.kfd_open_failed", Severity.BLOCKER, f"rocminfo failed: {detail}",
                          evidence={"rocminfo": detail},
                          remedy="check dmesg for amdgpu errors; an old or mismatched amdgpu driver, too little memory "
                                 "for the HSA queues, or a GPU the driver does not support can cause this")


def container_devices(context: Context) -> Iterator[Finding]:
    """Inside a container that was started without the GPU device nodes."""
    fp = context.fingerprint
    if not fp.host.container.ok:
        return
    nodes = {n.path: n for n in fp.access.nodes}
    kfd = nodes.get("/dev/kfd")
    kfd_gpus = any(n.name == "kfd" and n.fact.ok and not str(n.fact.value).startswith("0 ") for n in fp.probes)
    has_render = any("/dev/dri/renderD" in path and node.exists for path, node in nodes.items())
    if (kfd_gpus or Vendor.AMD in context.vendors) and (kfd is None or not kfd.exists or not has_render):
        yield finding("access.container_without_devices", Severity.BLOCKER,
                      f"This {fp.host.container.value} container sees AMD GPUs in sysfs but has no "
                      f"{'/dev/kfd' if kfd is None or not kfd.exists else '/dev/dri render node'}.",
                      evidence={"container": fp.host.container.value}, source_url=DOCKER_URL,
                      remedy=f"start it with {AMD_DOCKER_FLAGS} (podman: the same --device flags; Kubernetes: the "
                             "AMD GPU device plugin)")
    nvidia_loaded = fp.stack.nvidia_driver_version.ok
    if nvidia_loaded and not any(path.startswith("/dev/nvidia") and node.exists for path, node in nodes.items()):
        yield finding("access.container_without_devices", Severity.BLOCKER,
                      f"The NVIDIA driver is loaded but this {fp.host.container.value} container has no /dev/nvidia* "
                      "device.", evidence={"container": fp.host.container.value},
                      remedy="start it with --gpus all (NVIDIA Container Toolkit), or --device=nvidia.com/gpu=all "
                             "with CDI", source_url="https://docs.nvidia.com/datacenter/cloud-native/")


LISTING_KINDS = frozenset({"rocminfo", "amd-smi-list", "amd-smi-static", "amd-smi-text", "rocm-smi", "rocm-smi-text",
                           "nvidia-smi-table", "nvidia-smi-csv", "nvidia-smi-q", "collect-env"})
"""Sections of a paste that list every GPU the machine sees: when one of them shows none, there is none."""
_TABLE_HEAD = 6
"""Lines of nvidia-smi's table before its first GPU row (banner, version line, rules, two heading rows): a section
shorter than that is cut before the GPUs."""


def no_gpu(context: Context) -> Iterator[Finding]:
    """No accelerator at all, or none could be listed."""
    if context.accelerators:
        return
    fp = context.fingerprint
    unlisted = next((n for n in fp.probes if n.name == "devices" and n.fact.status is FactStatus.UNSUPPORTED), None)
    if unlisted is not None:
        yield finding("unknown.devices", Severity.WARN, f"{unlisted.fact.detail}: whether there is a usable GPU is "
                      "unknown.", evidence={"source": fp.origin}, remedy="run `gpuready doctor` on the machine itself")
        return
    failed = sorted({n.name for n in fp.probes if n.fact.status is FactStatus.ERROR and not n.name.endswith("warning")})
    if failed:
        yield finding("unknown.devices", Severity.WARN, f"No GPU could be listed because {', '.join(failed)} failed; "
                      "there may still be one.", evidence={"failed": failed},
                      remedy="fix the failures above, then run gpuready doctor again")
        return
    working = next((f.name for f in fp.frameworks if f.accelerator_available.value is True), None)
    if fp.sections and working:
        listing = next((n.kind for n in fp.sections if n.kind in LISTING_KINDS), None)
        message = (f"{working} reports a GPU, but the paste's {listing} output shows none: the two come from "
                   "different machines, containers or times, or the listing is cut off; whether this machine has a "
                   "usable GPU is unknown." if listing else
                   f"{working} reports a GPU, but the paste does not name it: which GPU it is, and whether the stack "
                   "supports it, is unknown.")
        yield finding("unknown.devices", Severity.WARN, message,
                      evidence={"source": fp.origin, "framework": working, "listing": listing or ""},
                      remedy="ask for `rocminfo` (AMD) or `nvidia-smi` (NVIDIA) output from the same machine and "
                             "environment as the framework's, or `gpuready doctor` on the machine")
        return
    listings = [n for n in fp.sections if n.kind in LISTING_KINDS]
    if listings and all(n.kind == "nvidia-smi-table" and n.last_line - n.first_line < _TABLE_HEAD for n in listings):
        yield finding("unknown.devices", Severity.WARN, "The paste's nvidia-smi output stops at its header, before the "
                      "table's GPU rows: whether the GPU is seen is unknown.",
                      evidence={"source": fp.origin,
                                "lines": ", ".join(f"{n.first_line}-{n.last_line}" for n in listings)},
                      remedy="ask for the whole `nvidia-smi` output")
        return
    if fp.sections and not listings:
        yield finding("unknown.devices", Severity.WARN, "The paste does not list the GPUs (no rocminfo, amd-smi, "
                      "rocm-smi, nvidia-smi or collect_env output): whether the GPU is seen is unknown.",
                      evidence={"source": fp.origin, "sections": [n.kind for n in fp.sections][:12]},
                      remedy="ask for `rocminfo` (AMD) or `nvidia-smi` (NVIDIA) output, or `gpuready doctor` on the "
                             "machine")
        return
    torch = context.torch
    evidence: dict[str, object] = {"source": fp.origin}
    if torch is not None:
        evidence["torch"] = torch.version.value or ""
    yield finding("gpu.none", Severity.BLOCKER,
                  "No GPU was found: no AMD GPU (KFD, amd-smi, rocm-smi, rocminfo) and no NVIDIA GPU (nvidia-smi, "
                  "NVML)." if fp.origin == "probe" else f"The report ({fp.origin}) shows no GPU.",
                  evidence=evidence,
                  remedy="check that the GPU is seated and the kernel driver is loaded (lspci, dmesg); in a "
                         "container or VM, that the GPU is passed through")


def access_unknown(context: Context) -> Iterator[Finding]:
    """A pasted report that does not show whether the devices can be opened (unless a framework proved it)."""
    fp = context.fingerprint
    if fp.origin == "probe" or not context.accelerators:
        return
    if any(f.accelerator_available.value is True for f in fp.frameworks):
        return  # torch or JAX used the GPU, so its device nodes open
    if fp.access.user.status is FactStatus.OK:
        return
    if any(n.name == "rocminfo" and n.fact.status is FactStatus.ERROR and ("/dev/kfd" in n.fact.detail or "HSA_STATUS"
                                                                          in n.fact.detail) for n in fp.probes):
        return  # the paste shows opening /dev/kfd failing: access.kfd_denied / kfd_open_failed say so
    yield finding("unknown.device_access", Severity.WARN,
                  f"The report ({fp.origin}) does not show whether the GPU device nodes can be opened, and no "
                  "framework showed it works.", evidence={"source": fp.origin},
                  remedy="run `gpuready doctor` on the machine itself")


def framework_unknown(context: Context) -> Iterator[Finding]:
    """A pasted report that does not show the installed framework build."""
    fp = context.fingerprint
    if fp.origin == "probe" or fp.frameworks or not context.accelerators:
        return
    yield finding("unknown.framework", Severity.WARN,
                  f"The report ({fp.origin}) does not show which framework build is installed, so whether it has "
                  "kernels for these GPUs was not checked.", evidence={"source": fp.origin},
                  remedy="add `python -m torch.utils.collect_env` output, or run `gpuready doctor` on the machine")


WSL_URL = "https://rocm.docs.amd.com/projects/radeon/en/docs-6.3/docs/limitations.html"
WSL_CUDA_URL = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"


def wsl(context: Context) -> Iterator[Finding]:
    """Running under WSL, where ROCm is a limited preview that reaches the GPU through the Windows driver."""
    kernel = context.fingerprint.host.kernel.value or ""
    torch = context.torch
    amd = Vendor.AMD in context.vendors or (torch is not None and torch.variant.value is not None
                                             and torch.variant.value.value == "rocm")
    if "microsoft" in kernel.lower() and amd:
        yield finding("host.wsl", Severity.WARN,
                      "This is WSL: ROCm there supports only the Radeon GPUs on AMD's WSL list, needs a matching "
                      "Windows Adrenalin driver and ROCm's WSL runtime, and has known limitations.",
                      evidence={"kernel": kernel}, source_url=WSL_URL,
                      remedy="check the GPU against AMD's ROCm-on-WSL support list and install ROCm with the WSL "
                             "instructions (not the Linux amdgpu-dkms ones)")
    elif "microsoft" in kernel.lower() and (Vendor.NVIDIA in context.vendors or (
            torch is not None and torch.variant.value is not None and torch.variant.value.value == "cuda")):
        yield finding("host.wsl_cuda", Severity.WARN,
                      "This is WSL 2: CUDA runs through the Windows driver, with NVIDIA's documented limits (pinned "
                      "and unified memory, multi-GPU peer access and NCCL, parts of NVML and nvidia-smi); results "
                      "and speed there may differ from a native Linux machine.",
                      evidence={"kernel": kernel}, source_url=WSL_CUDA_URL,
                      remedy="read NVIDIA's 'known limitations' for CUDA on WSL before relying on it for multi-GPU "
                             "or memory-heavy work; keep the Windows driver current (no Linux driver in WSL)")


RULES = (device_permissions, container_devices, no_gpu, access_unknown, framework_unknown, wsl)
