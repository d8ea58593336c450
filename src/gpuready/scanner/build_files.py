"""Build, container, CI and documentation files: CMake and Makefiles that build only with nvcc, Dockerfiles on NVIDIA
base images, CI that installs CUDA wheels or the CUDA toolkit, submodules of NVIDIA-only libraries, install commands
a README tells its readers to run. Line rules, pure.

A file that also names a HIP/ROCm path (``enable_language(HIP)``, ``hipcc``, ``USE_ROCM``, a ``rocm`` index) gets a
credit for it instead of a finding for the CUDA half.
"""

from __future__ import annotations

import dataclasses
import re

from gpuready.scanner.dependencies import GIT_REPO, analyse_requirements, requirement_hits
from gpuready.scanner.hits import Hit

_ROCM = re.compile(r"\b(hipcc|HIP|hip|ROCM|ROCm|rocm|USE_ROCM|amdgpu|gfx\d{3,4}|offload-arch)\b")
_CMAKE = re.compile(r"enable_language\s*\(\s*CUDA\b|project\s*\([^)]*\bLANGUAGES\b[^)]*\bCUDA\b|"
                    r"find_package\s*\(\s*CUDA(Toolkit)?\b|\bCUDA_ARCHITECTURES\b|\bCUDA::(cublas|cublasLt|cudart|"
                    r"cufft|curand|cusparse|cusolver|nvrtc|cuda_driver|nvToolsExt|nvtx3)\b|\bcuda_add_(library|executable)\b|"
                    r"\badd_subdirectory\s*\([^)]*\b(cutlass|cccl|nvbench)\b",
                    re.IGNORECASE)
_NVCC_FLAG = re.compile(r"(-gencode\b|--generate-code\b|--expt-relaxed-constexpr|--expt-extended-lambda|"
                        r"--ptxas-options|-Xptxas\b|-Xcompiler\b|-diag-suppress|--diag-suppress|--use_fast_math|"
                        r"-arch=sm_\d+|-arch=compute_\d+|--gpu-architecture|-code=sm_\d+|-lcublasLt\b|-lcudnn\b|"
                        r"-lcuda\b|-lnvrtc\b|-lcublas\b|-lcurand\b|-lcusparse\b|-Xfatbin\b|-compress-all\b|"
                        r"(?<!-)-use_fast_math\b|-U__CUDA_NO_HALF\w*)")
_NVCC = re.compile(r"\bnvcc\b|NVCC\b|CUDA_HOME|CUDA_PATH|/usr/local/cuda")
_DOCKER_BASE = re.compile(r"^\s*(FROM|From:)\s+(--platform=\S+\s+)?(docker://)?(nvidia/cuda|nvcr\.io/|"
                          r"pytorch/pytorch:\S*cuda|\S*/cuda:\d)", re.IGNORECASE)
_NGC = re.compile(r"\bnvcr\.io/nvidia/|^\s*-?\s*image:\s*['\"]?\S*(?:nvidia/cuda|pytorch/pytorch:\S*cuda|"
                  r"[-:_]cuda\d+(?:\.\d+)*)")
"""NVIDIA's NGC images, and a CI job's container image built on CUDA (``image: runpod/pytorch:...-cuda12.1.1-...``)."""
CUDA_WHEELS = re.compile(r"download\.pytorch\.org/whl/(nightly/)?cu(\d{2,3}\b|\$)|\+cu(\d{2,3}\b|\$\{?\w*CUDA)|"
                          r"\+cu\d{2,3}torch\d|"  # prebuilt extension wheels: flash_attn-2.5.8+cu122torch2.3cxx11abi...
                          r"(?:-i|--extra-index-url|-f|--find-links)\s+\S*/cu\d{3}(?:\b|\.html)|_cu\d{3}\.html\b|"
                          r"\bpytorch-cuda[=<>]{1,2}\d|\bcudatoolkit[=<>]{1,2}\d|"
                          r"\+\$\{?CUDA\b|"
                          r"Jimver/cuda-toolkit|"
                          r"cuda-toolkit@|\bnvidia-(cublas|cudnn|cuda-runtime|cuda-nvrtc|nccl|cusparse)-cu\d+|"
                          r"--index-url\s+\S*/cu\d{3}\b|"
                          r"\bapt(?:-get)?\s+(?:-\S+\s+)*install\b[^\n]*"
                          r"\b(?:nvidia-)?cuda(?:-(?:toolkit|nvcc|libraries)\S*)?(?=\s|$)|"
                          r"developer\.download\.nvidia\.com/compute/cuda/|"
                          r"\b(conda|mamba|micromamba)\s+install\b[^\n]*(-c|--channel)\s+nvidia\b|"
                          r"jax_cuda_releases\.html|\+cuda\d+\.cudnn\d+|"
                          r"^\s*module\s+(?:load|add)\s+(?:cuda|cudatoolkit|nvhpc)/\d")
"""CUDA builds installed: NVIDIA's CUDA toolkit (its apt or conda packages, its installers and repositories on
developer.download.nvidia.com), PyTorch's CUDA wheel indexes (also with the CUDA version in a shell variable),
``+cu121`` pins, the NVIDIA conda channel's toolkit, NVIDIA's library wheels, JAX's CUDA release page and
``+cuda12.cudnn89`` jaxlib builds, a cluster's CUDA toolkit module loaded (``module load cuda/12.4``), prebuilt
extension wheels named for a CUDA and torch (``+cu122torch2.3``), a project's own CUDA wheel index or find-links page
(``-i .../whl/cu118``, ``-f .../torch-1.13.0_cu117.html``), and conda's ``pytorch-cuda=12.1`` or
``cudatoolkit=11.8``."""
_SUBMODULE = re.compile(r"url\s*=\s*\S*(NVIDIA/cutlass|NVIDIA/cccl|NVIDIA/cub|NVlabs/cub|NVIDIA/thrust|"
                        r"NVIDIA/TensorRT|NVIDIA/nvbench|NVIDIA/cudnn-frontend|NVIDIA/nccl\b|flashinfer-ai/flashinfer)",
                        re.IGNORECASE)


MAX_LINE = 4000
"""Characters of a line the rules read (generated or minified files: linear on any input)."""


def _lines(text: str) -> list[tuple[int, str]]:
    return [(n, line[:MAX_LINE]) for n, line in enumerate(text.splitlines(), start=1)
            if line.strip() and not line.lstrip().startswith("#")]


_CMAKE_IF = re.compile(r"^\s*(if|elseif|else|endif)\s*\((.*)", re.IGNORECASE)
_CMAKE_CUDA_CONDITION = re.compile(r"\bBUILD_CUDA\b|\bUSE_CUDA\b|\bWITH_CUDA\b|\bCMAKE_CUDA_COMPILER\b|"
                                   r"STREQUAL\s+\"?cuda\"?", re.IGNORECASE)
_CMAKE_HIP_CONDITION = re.compile(r"\bBUILD_HIP\b|\bUSE_HIP\b|\bUSE_ROCM\b|\bWITH_HIP\b|\bWITH_ROCM\b|"
                                  r"\bCMAKE_HIP_COMPILER\b|STREQUAL\s+\"?(?:hip|rocm)\"?", re.IGNORECASE)
_CMAKE_SOURCE = re.compile(r"(?<![\w$/{.\-])([\w./\-]+\.(?:cu|cuh|cpp|cc|cxx|hip))(?![\w.])")


def cmake_cuda_only_sources(text: str) -> list[str]:
    """The sources a CMake build names only in its CUDA branches (``if(BUILD_CUDA)`` ...), where it also has a HIP
    branch that names sources of its own: the CUDA path's files next to the build's ROCm path (bitsandbytes'
    tensor-core GEMMs). Paths as written, relative to the CMake file."""
    stack: list[str] = []  # per open if(): "cuda", "hip" or ""
    named: dict[str, set[str]] = {"cuda": set(), "hip": set(), "": set()}
    for _, line in _lines(text):
        opened = _CMAKE_IF.match(line)
        if opened:
            word, condition = opened.group(1).lower(), opened.group(2)
            kind = ("" if re.search(r"\bNOT\b", condition) else "cuda" if _CMAKE_CUDA_CONDITION.search(condition)
                    else "hip" if _CMAKE_HIP_CONDITION.search(condition) else "")
            if word == "if":
                stack.append(kind)
            elif word == "elseif" and stack:
                stack[-1] = kind
            elif word == "else" and stack:
                stack[-1] = ""
            elif word == "endif" and stack:
                stack.pop()
            continue
        where = "cuda" if "cuda" in stack else "hip" if "hip" in stack else ""
        named[where].update(_CMAKE_SOURCE.findall(line))
    if not named["hip"]:
        return []
    return sorted(named["cuda"] - named["hip"] - named[""])


def analyse_cmake(text: str) -> list[Hit]:
    """CMakeLists.txt / *.cmake: a CUDA-language build with no HIP path; where it has one, the sources only its CUDA
    branches build (hit ``cuda_only_sources``: ``cmake|path,path``)."""
    has_hip = bool(re.search(r"enable_language\s*\(\s*HIP|find_package\s*\(\s*(hip|HIP|ROCM)|USE_ROCM|hipcc|"
                             r"LANGUAGES[^)]*\bHIP\b", text))
    hits = [Hit("build.cmake_cuda", n, line.strip()[:160]) for n, line in _lines(text) if _CMAKE.search(line)]
    if has_hip:
        only = cmake_cuda_only_sources(text)
        return ([Hit("credit.rocm_build", hits[0].line, "the CMake build also has a HIP path")] if hits else []) + (
            [Hit("cuda_only_sources", 1, "cmake|" + ",".join(only))] if only else [])
    flags = [Hit("build.nvcc_flags", n, line.strip()[:160]) for n, line in _lines(text)
             if "NVCC" in line.upper() or "CUDA_FLAGS" in line.upper() if _NVCC_FLAG.search(line)]  # CUDA_NVCC_FLAGS
    return hits[:1] + [h for h in hits[1:] if "CUDA::" in h.detail or "enable_language" in h.detail] + flags


def analyse_makefile(text: str) -> list[Hit]:
    """Makefile / *.mk: nvcc with nvcc-only flags and no hipcc path."""
    installs = [hit for n, line in _lines(text) if "install" in line for hit in install_hits(line, n)]
    if not _NVCC.search(text):
        return installs
    hits = [Hit("build.nvcc_only_makefile", n, line.strip()[:160]) for n, line in _lines(text)
            if _NVCC_FLAG.search(line)]
    if _ROCM.search(text):
        return installs + ([Hit("credit.rocm_build", hits[0].line, "the Makefile also builds with hipcc")] if hits
                           else [])
    return installs + hits


def analyse_dockerfile(text: str) -> list[Hit]:
    """Dockerfile / Apptainer definition on an NVIDIA CUDA base image, and the CUDA builds its commands install."""
    hits = []
    for number, line in _lines(text):
        if _DOCKER_BASE.search(line):
            hits.append(Hit("build.dockerfile_cuda_base", number, line.strip()[:160]))
        elif CUDA_WHEELS.search(line) and "rocm" not in line.lower():
            hits.append(Hit("ci.cuda_wheels", number, line.strip()[:160]))
    return hits


_CUDA_MATRIX = re.compile(r"^\s*-?\s*['\"]?cuda(?:[-_]?(?:version|ver|toolkit))?['\"]?\s*:\s*\[?\s*['\"]?"
                          r"(?:cu\d{2,3}\b|\d{2}\.\d+\b)", re.IGNORECASE)
"""A CI matrix axis of CUDA versions: ``cuda: "12.8"``, ``cuda-version: ['cu126', 'cu128']``."""


_NVIDIA_SMI_RUN = re.compile(r"^\s*(?:-\s+|run:\s*|[$>]\s+|sudo\s+)*(?:docker\s+run\b.*\s)?nvidia-smi\b|"
                             r".*(?:\$\(|`)\s*nvidia-smi\b|.*\b(?:which|command\s+-v|type\s+-p)\s+nvidia-smi\b")
"""A step or a command line that runs nvidia-smi (``- nvidia-smi``, ``run: nvidia-smi -L``, ``$ sudo nvidia-smi``, a
container started to run it, a command substitution: ``NUM_GPUS=$(nvidia-smi -L | wc -l)``) or looks for it to decide
whether there is a GPU (``if which nvidia-smi``: an AMD machine takes the no-GPU path), not a mention of it."""


_FLASH_FLAG = re.compile(r"attn_implementation[\"']?\s*[=:\s]\s*[\"']?flash_attention_2\b|"
                         r"--(?:use[_-])?flash[_-]attn\b|\buse_flash_attention_2\s*=\s*True\b")
"""flash-attn chosen on a command line or in code a README shows: ``--attn_implementation flash_attention_2``,
``--flash_attn``, ``attn_implementation="flash_attention_2"``."""


_NVIDIA_DOCKER = re.compile(r"\b(?:docker|podman)\b.*\s--gpus[= ]\S|[\"']--gpus[= ](?:all|\d)|--runtime[= ]nvidia\b|"
                            r"\bnvidia-docker2?\b|\bnvidia-container-toolkit\b")
"""A container given the GPU by NVIDIA's runtime on a command line (``docker run --gpus all``, ``--runtime=nvidia``),
or that runtime installed; AMD's containers get /dev/kfd and /dev/dri instead."""


def analyse_ci(text: str) -> list[Hit]:
    """CI workflows and shell scripts: CUDA wheel indexes, +cu121-style pins, a matrix of CUDA versions, the CUDA
    toolkit, NGC images, nvidia-smi runs."""
    hits = []
    for number, line in _lines(text):
        if (CUDA_WHEELS.search(line) or _CUDA_MATRIX.search(line)) and "rocm" not in line.lower():
            hits.append(Hit("ci.cuda_wheels", number, line.strip()[:160]))
        elif _NGC.search(line) or _DOCKER_BASE.search(line):
            hits.append(Hit("build.dockerfile_cuda_base", number, line.strip()[:160]))
        elif "nvidia-smi" in line and _NVIDIA_SMI_RUN.match(line):
            hits.append(Hit("ci.nvidia_smi", number, line.strip()[:160]))
        elif "flash" in line and _FLASH_FLAG.search(line):
            hits.append(Hit("python.flash_attention_2_config", number, line.strip()[:160]))
        elif ("--gpus" in line or "nvidia" in line.lower()) and _NVIDIA_DOCKER.search(line):
            hits.append(Hit("build.nvidia_container_runtime", number, line.strip()[:160]))
        if "install" in line:
            hits += _installs(line, number, any(h.rule == "ci.cuda_wheels" and h.line == number for h in hits))
    return hits


def _installs(line: str, number: int, wheels_reported: bool) -> list[Hit]:
    """The requirements an install command in a script, a CI step or a README names; a CUDA build it installs
    ('pip install jax[cuda]', a +cu121 pin) is deployment: CUDA wheels, reported once per line."""
    hits: list[Hit] = []
    for hit in install_hits(line, number):
        if hit.rule != "requirement.cuda_local_version":
            hits.append(hit)
        elif not wheels_reported:
            hits.append(Hit("ci.cuda_wheels", number, line.strip()[:160]))
            wheels_reported = True
    return hits


_NVIDIA_RUNTIME = re.compile(r"^\s*-?\s*(?:driver|runtime):\s*['\"]?nvidia\b|\bNVIDIA_VISIBLE_DEVICES\b|"
                             r"\bDeviceRequest\([^)]*driver\s*=\s*['\"]nvidia['\"]")
"""A container given its GPU through NVIDIA's container runtime: a compose file's device reservation or runtime, the
variable that runtime reads, Docker's Python SDK asking for the nvidia driver."""


def analyse_compose(text: str) -> list[Hit]:
    """docker-compose files: GPUs reserved through NVIDIA's container runtime (AMD passes /dev/kfd and /dev/dri), and
    services on NVIDIA CUDA images."""
    hits = []
    for number, line in _lines(text):
        if "nvidia" in line.lower() and _NVIDIA_RUNTIME.search(line):
            hits.append(Hit("build.nvidia_container_runtime", number, line.strip()[:160]))
        elif "image" in line and _NGC.search(line):
            hits.append(Hit("build.dockerfile_cuda_base", number, line.strip()[:160]))
    return hits


APEX_CONFIGS = frozenset({"adamw_apex_fused", "apex_fused_adam"})
BNB_CONFIGS = frozenset({"paged_adamw_32bit", "paged_adamw_8bit", "adamw_bnb_8bit", "adamw_8bit", "paged_lion_8bit",
                          "paged_lion_32bit", "lion_8bit", "paged_adam_32bit"})
"""Optimizer names that select NVIDIA Apex's fused kernels and bitsandbytes' 8-bit/paged optimizers (TrainingArguments'
``optim``), read in Python strings and in YAML recipes alike."""
_CONFIG_VALUE = re.compile(r"^\s*-?\s*['\"]?(attn_implementation|optim|optimizer|use_flash_attention_2|"
                           r"use_flash_attn|enable_xformers_memory_efficient_attention)['\"]?\s*:\s*['\"]?([\w.]+)"
                           r"['\"]?\s*(?:#.*)?$")
"""A training recipe's key and value (YAML): an attention implementation, an optimizer by name, a flash-attn switch."""
_FLASH_ON = frozenset({"true", "yes", "on"})


def analyse_config(text: str) -> list[Hit]:
    """Training recipes and run configs in YAML (Hugging Face TRL/accelerate recipes, axolotl-style configs): values
    that select an NVIDIA-only path, as the same strings do in Python (``attn_implementation: flash_attention_2``,
    ``optim: paged_adamw_8bit``, ``optim: adamw_apex_fused``)."""
    hits = []
    for number, line in _lines(text):
        if ":" not in line or (found := _CONFIG_VALUE.match(line)) is None:
            continue
        key, value = found.group(1), found.group(2)
        if key == "enable_xformers_memory_efficient_attention":
            if value.lower() in _FLASH_ON:
                hits.append(Hit("python.xformers_attention", number, line.strip()[:160]))
        elif value == "flash_attention_2" or key.startswith("use_flash") and value.lower() in _FLASH_ON:
            hits.append(Hit("python.flash_attention_2_config", number, line.strip()[:160]))
        elif value in APEX_CONFIGS:
            hits.append(Hit("python.apex_config", number, line.strip()[:160]))
        elif value in BNB_CONFIGS:
            hits.append(Hit("python.bitsandbytes_config", number, line.strip()[:160]))
    return hits


def analyse_gitmodules(text: str) -> list[Hit]:
    """.gitmodules: submodules of NVIDIA-only libraries (CUTLASS, CCCL/CUB, TensorRT ...)."""
    return [Hit("build.gitmodules_cuda", n, line.strip()[:160]) for n, line in _lines(text) if _SUBMODULE.search(line)]


def nvcc_flag(text: str) -> bool:
    """Whether a string (a compiler argument in setup.py) is an nvcc-only flag."""
    return bool(_NVCC_FLAG.search(text))


_INSTALL = re.compile(r"^\s*(?:[$>]\s+)?(?:sudo\s+)?(?:!\s*)?(?:python3?\s+-m\s+pip|pip3?|uv\s+pip|conda|mamba)\s+"
                      r"install\s+(.+)$")
"""An install command as a README writes it (a prompt, ``sudo`` or a notebook's ``!`` before it)."""
_WITH_ARGUMENT = frozenset({"-r", "-c", "-e", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
                            "--target", "--prefix", "--requirement", "--constraint", "--editable", "-t", "--channel",
                            "--no-binary", "--only-binary", "--config-settings", "-C", "--platform", "--python-version",
                            "--implementation", "--abi", "--root", "--src", "--upgrade-strategy", "--trusted-host",
                            "--cache-dir", "--log", "--progress-bar", "--python", "-p", "-n", "--name"})
"""pip and conda options whose next word is their value, not a package."""


def installed_by(command: str) -> list[str]:
    """The packages an install command's arguments name (``pip install -U "flash-attn>=2.5" --no-build-isolation``
    -> ``flash-attn>=2.5``); paths, URLs, files and options are not packages."""
    words = [w.strip("'\"") for w in command.split()]
    packages = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in _WITH_ARGUMENT:
            skip = True
            continue
        if not word or word.startswith(("-", ".", "/", "~", "$", "<", "&", "|", ";", "#")) or "://" in word or (
                word.endswith((".txt", ".whl", ".yml", ".yaml"))):
            if word.startswith(("&", "|", ";", "#")):
                break  # the next command, or a comment
            continue
        packages.append(word)
    return packages


_TOOLKIT_SAID = re.compile(r"(?i)\b(?:install|installed|installing|requires?|required|need|needs)\b[^.\n]{0,60}?"
                           r"\bCUDA[- ]?toolkit\b|\bCUDA[- ]?toolkit\b[^.\n]{0,20}?(?:\d+\.\d+|>=)[^.\n]{0,40}?"
                           r"\b(?:or later|or newer|required|installed|install)\b|"
                           r"developer\.nvidia\.com/cuda-(?:toolkit|downloads)")
"""A sentence that tells the reader to install NVIDIA's CUDA toolkit: "Install the [Cuda toolkit](https://developer.
nvidia.com/cuda-toolkit)", "CUDA toolkit 11.1 or later", "install the CUDA toolkit 12.8 before WhisperX"."""


_REQUIREMENTS_FENCE = frozenset({"pip-requirements", "requirements", "requirements.txt"})
"""The info strings of a fence that shows a requirements file (DeepSeek-V3's README: ```pip-requirements)."""


def analyse_docs(text: str) -> list[Hit]:
    """Markdown and reStructuredText: the install commands their code blocks (fenced or indented, or after a prompt)
    tell a reader to run (CUDA wheels and toolkits, and the packages they install, as a requirement each), and
    nvidia-smi runs."""
    hits = []
    fenced = listing = False
    for number, line in enumerate(text.splitlines(), start=1):
        line = line[:MAX_LINE]
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            listing = fenced and line.strip().strip("`~").strip().lower() in _REQUIREMENTS_FENCE
            continue
        if listing:  # a requirements file shown in a fence: one requirement per line
            hits += [dataclasses.replace(hit, line=number) for hit in analyse_requirements(line)]
            continue
        for span in re.findall(r"`([^`\n]{8,300})`", line) if "install" in line and "`" in line else ():
            if _INSTALL.match(span):  # "* Install pytorch by `pip install torch==1.11.0 --extra-index-url .../cu113`"
                hits += _documented_install(span, number)
        if not fenced and ("oolkit" in line or "nvidia.com/cuda" in line) and _TOOLKIT_SAID.search(line):
            hits.append(Hit("docs.cuda_toolkit", number, line.strip()[:160]))  # a sentence telling to install it
        if not (fenced or line.startswith(("    ", "\t")) or re.match(r"\s*[$>]\s", line)):
            continue  # a sentence, a list item: only code blocks, prompted commands and code spans are run
        if "nvidia-smi" in line and _NVIDIA_SMI_RUN.match(line):
            hits.append(Hit("ci.nvidia_smi", number, line.strip()[:160]))
        if "flash" in line and _FLASH_FLAG.search(line):
            hits.append(Hit("python.flash_attention_2_config", number, line.strip()[:160]))
        if ("--gpus" in line or "nvidia" in line.lower()) and _NVIDIA_DOCKER.search(line):
            hits.append(Hit("build.nvidia_container_runtime", number, line.strip()[:160]))
        if "install" not in line or _INSTALL.match(line) is None:
            continue
        hits += _documented_install(line, number)
    return hits


def _documented_install(command: str, number: int) -> list[Hit]:
    """An install command a README shows: CUDA wheels where it takes them (a cu121-style index, a CUDA build), and the
    requirements it names."""
    wheels = bool(CUDA_WHEELS.search(command)) and "rocm" not in command.lower()
    return ([Hit("ci.cuda_wheels", number, command.strip()[:160])] if wheels else []) + _installs(command, number,
                                                                                                  wheels)


def install_hits(line: str, number: int) -> list[Hit]:
    """The requirements of each install command on a line (``make`` recipes and CI steps chain them: ``. venv/bin/
    activate && uv pip install vllm==0.8.5``), a package from a GitHub repository included."""
    hits: list[Hit] = []
    for part in re.split(r"&&|;|\|\|", line):
        command = _INSTALL.match(re.sub(r"^\s*(?:-\s+)?(?:run:\s*)?", "", part))
        if command is None:
            continue
        for package in installed_by(command.group(1)):
            hits.extend(requirement_hits(package, number))
        hits += [Hit("requirement_git", number, found.group(1)) for word in command.group(1).split()
                 if (found := GIT_REPO.match(word.strip("'\"")))]
    return hits

