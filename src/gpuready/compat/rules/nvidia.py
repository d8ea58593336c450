"""Rules about the NVIDIA driver and CUDA."""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpuready.compat.query import cuda_toolkit, driver_version_key, parse_version
from gpuready.compat.rules.context import Context, finding
from gpuready.model import BuildVariant, Finding, Severity, Vendor

OPEN_MODULES_URL = "https://github.com/NVIDIA/open-gpu-kernel-modules"
MINOR_VERSION_URL = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"


def driver_too_old(context: Context) -> Iterator[Finding]:
    """The NVIDIA driver is older than the CUDA runtime of the installed torch needs."""
    torch = context.torch
    if torch is None or torch.variant.value is not BuildVariant.CUDA or Vendor.NVIDIA not in context.vendors:
        return
    cuda = torch.backend_version.value
    toolkit = cuda_toolkit(context.data, cuda) if cuda else None
    driver = context.fingerprint.stack.nvidia_driver_version.value
    if toolkit is None:
        return
    if not driver:
        if torch.accelerator_available.value is True:
            return  # torch starts CUDA on the GPU: a driver too old for its runtime makes is_available() False
        yield finding("unknown.nvidia_driver", Severity.WARN,
                      f"The NVIDIA driver version is not known, so whether it can run CUDA {cuda} was not checked.",
                      evidence={"torch CUDA": cuda}, remedy="nvidia-smi shows it")
        return
    wsl = "microsoft" in (context.fingerprint.host.kernel.value or "").lower() and bool(toolkit.min_driver_windows)
    minimum = toolkit.min_driver_windows if wsl else toolkit.min_driver_linux
    if driver_version_key(driver) < driver_version_key(minimum):
        platform = "the Windows driver WSL runs on" if wsl else "NVIDIA driver"
        yield finding("cuda.driver_too_old", Severity.BLOCKER,
                      f"{platform[0].upper()}{platform[1:]} {driver} is older than CUDA {cuda} (torch "
                      f"{torch.version.value}) needs ({minimum} or newer): \"CUDA driver version is insufficient\".",
                      evidence={"driver": driver, "torch CUDA": cuda, "minimum driver": minimum,
                                "platform": "windows (WSL)" if wsl else "linux"},
                      source_url=toolkit.source,
                      remedy=f"upgrade the {'Windows ' if wsl else ''}driver to {minimum} or newer, or install a "
                             "torch built for an older CUDA that this driver supports")
        return
    toolkit_driver = toolkit.driver_windows if wsl else toolkit.driver_linux
    if toolkit_driver and driver_version_key(driver) < driver_version_key(toolkit_driver):
        yield finding("cuda.minor_version_compatibility", Severity.WARN,
                      f"NVIDIA driver {driver} is older than the driver of CUDA {cuda} (torch {torch.version.value}), "
                      f"{toolkit_driver}: the CUDA runtime runs on it only under minor-version compatibility, with a "
                      "limited feature set; PTX built by the newer toolchain (Triton, torch.compile, JIT-compiled "
                      "extensions) fails there (\"the provided PTX was compiled with an unsupported toolchain\").",
                      evidence={"driver": driver, "torch CUDA": cuda, "toolkit driver": toolkit_driver},
                      source_url=MINOR_VERSION_URL,
                      remedy=f"upgrade the {'Windows ' if wsl else ''}driver to {toolkit_driver} or newer, or use a "
                             "torch built for the CUDA this driver ships with")


CPP_EXTENSION_URL = "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py"


def toolkit_unlike_torch(context: Context) -> Iterator[Finding]:
    """The system CUDA toolkit (nvcc) is another major release than the CUDA torch was built with: torch itself runs
    (it brings its own runtime), but extensions compiled on the machine do not build (torch's cpp_extension refuses a
    major mismatch)."""
    torch = context.torch
    toolkit = context.fingerprint.stack.cuda_toolkit_version.value
    if torch is None or torch.variant.value is not BuildVariant.CUDA or toolkit is None:
        return
    built = parse_version(str(torch.backend_version.value or ""))
    if built is None or not built.release or not toolkit.release or built.release[0] == toolkit.release[0]:
        return
    yield finding("cuda.toolkit_unlike_torch", Severity.WARN,
                  f"The CUDA toolkit on the machine ({toolkit}) is another major release than the CUDA torch "
                  f"{torch.version.value} was built with ({built}): torch runs with its own CUDA runtime, but an "
                  "extension compiled here (pip install of a package with CUDA code, a JIT-built op) stops with \"The "
                  "detected CUDA version mismatches the version that was used to compile PyTorch\".",
                  evidence={"toolkit": str(toolkit), "torch CUDA": str(built)}, source_url=CPP_EXTENSION_URL,
                  remedy=f"install the CUDA {built.release[0]}.x toolkit (and point CUDA_HOME at it), or a torch "
                         f"built for CUDA {toolkit.release[0]}.x")


def open_module_on_old_gpu(context: Context) -> Iterator[Finding]:
    """NVIDIA's open kernel modules support Turing (sm_75) and newer only."""
    if context.fingerprint.stack.nvidia_kernel_module.value != "open":
        return
    for accelerator in context.accelerators:
        match = re.fullmatch(r"sm_(\d+)", accelerator.arch or "")
        if accelerator.vendor is Vendor.NVIDIA and match and int(match.group(1)) < 75:
            yield finding("nvidia.open_module_unsupported_gpu", Severity.BLOCKER,
                          f"The open NVIDIA kernel module is loaded, but {accelerator.label} predates Turing, which "
                          "the open modules require.", evidence={"GPU": accelerator.label, "module": "open"},
                          remedy="install the proprietary kernel module flavour of the driver",
                          source_url=OPEN_MODULES_URL)


def module_unlike_userspace(context: Context) -> Iterator[Finding]:
    """The loaded kernel module is another release than the driver's user-space side (NVML, libcuda, nvidia-smi), as
    installed packages or NVML's own version show it: nothing that uses the GPU starts until they match. Not judged
    under WSL, where the Linux side is a stub of the Windows driver and carries its own version."""
    stack = context.fingerprint.stack
    module, userspace = stack.nvidia_driver_version.value, stack.nvidia_userspace_version.value
    if not module or not userspace or "microsoft" in (context.fingerprint.host.kernel.value or "").lower():
        return
    module_key, userspace_key = driver_version_key(module), driver_version_key(userspace)
    shown = min(len(module_key), len(userspace_key))
    if module_key[:shown] == userspace_key[:shown]:  # 525.85 is 525.85.12 said shorter
        return
    meaning = next((e for e in context.data.errors.errors if e.code == "nvidia_driver_library_mismatch"), None)
    yield finding("nvidia.module_unlike_userspace", Severity.BLOCKER,
                  f"The NVIDIA kernel module is {module} but the driver's user-space side is {userspace}: NVML and "
                  "libcuda refuse a module of another release (\"Driver/library version mismatch\"), so nvidia-smi "
                  "and every CUDA program fail until they match.",
                  evidence={"kernel module": module, "user space": userspace,
                            "user space from": stack.nvidia_userspace_version.source},
                  remedy=meaning.remedy if meaning else "reboot, or install one driver release for both",
                  source_url=meaning.source if meaning else "")


RULES = (driver_too_old, toolkit_unlike_torch, open_module_on_old_gpu, module_unlike_userspace)
