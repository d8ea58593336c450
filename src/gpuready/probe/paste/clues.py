"""Facts read from single lines, wherever they stand in a paste: the lines of outputs that are pasted in part
(``rocminfo | grep``, a ``pip list`` fragment, the first lines of ``nvidia-smi``, an app's start-up log, a Python
print). Each rule is a pattern and the field it fills; a value is taken as printed. Pure and linear.

The structured parsers (collect_env, rocminfo, amd-smi ...) read whole outputs; these clues fill what they leave,
and read the outputs they cannot. Every clue has a rank, how much it is worth: a tool's output line (``TOOL``) over
a labelled line a person typed (``LABELLED``: ``OS: Ubuntu 22.04``, an issue form's ``### GPU`` heading and its
answer) over a line that is nothing but a fact (``SHORT``: ``RX 580``) over a mention in a sentence (``PROSE``: "on
Ubuntu 24.04 with 4x MI210"). The reader takes the best-ranked value of each field, the earliest on a tie.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from gpuready.probe.parse.kfd import normalise_gfx_name
from gpuready.probe.paste.prefilter import LINE_CUT, Caseless, JoinedLines, cut_lines, required_word, word_trie

_VERSION = r"\d+\.\d+(?:\.\d+)*(?:[.+\-~][\w.+\-]*)?"


@dataclass(frozen=True)
class Clue:
    """One fact from one line: ``field`` (``torch.version``, ``gpu.name``, ``env.HSA_OVERRIDE_GFX_VERSION`` ...)."""

    field: str
    value: str
    line: int
    """1-based line number in the paste."""
    rank: int = 0
    """``TOOL`` (0) .. ``PROSE`` (3): lower is worth more."""
    count: int = 1
    """How many devices a GPU clue stands for (``4x MI210``)."""


TOOL, LABELLED, SHORT, PROSE = 0, 1, 2, 3


Found = tuple[str, str] | tuple[str, str, int]
"""What a rule finds: (field, value) or, for GPUs, (field, value, how many)."""
Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], Iterator[Found]]]


def _one(field: str, group: str | int = 1) -> Callable[[re.Match[str]], Iterator[tuple[str, str]]]:
    def take(match: re.Match[str]) -> Iterator[tuple[str, str]]:
        value = (match.group(group) or "").strip().strip("'\"")
        if value:
            yield field, value
    return take


def _toolkit(match: re.Match[str]) -> Iterator[Found]:
    """The CUDA toolkit's release (nvcc's, also what collect_env's "CUDA runtime version" reports): the CUDA version
    a paste shows, and the toolkit's own fact."""
    yield "stack.cuda", match.group(1)
    yield "stack.cuda_toolkit", match.group(1)


def _many(*pairs: tuple[str, str | int]) -> Callable[[re.Match[str]], Iterator[tuple[str, str]]]:
    def take(match: re.Match[str]) -> Iterator[tuple[str, str]]:
        for field, group in pairs:
            value = (match.group(group) or "").strip().strip("'\"") if match.group(group) is not None else ""
            if value:
                yield field, value
    return take


def _torch_variant(match: re.Match[str]) -> Iterator[tuple[str, str]]:
    yield "torch.version", match.group("version")
    if match.group("available"):
        yield "torch.available", match.group("available")


_PRINTED: tuple[tuple[re.Pattern[str], str, str], ...] = tuple((re.compile(p), f, shape) for p, f, shape in (
    (r"^torch\.__version__$", "torch.version", "version"),
    (r"^torch\.version\.hip$", "torch.hip", "version"),
    (r"^torch\.version\.cuda$", "torch.cuda", "version"),
    (r"^torch\.cuda\.is_available\(\)$", "torch.available", "bool"),
    (r"^torch\.cuda\.get_device_name\((?:\s*\w*\s*|torch\.cuda\.current_device\(\))\)$", "gpu.name", "gpu"),
    (r"^jax\.__version__$", "jax.version", "version"),
    (r"^tf\.__version__$", "tf.version", "version"),
    (r"^jaxlib\.__version__$", "jaxlib.version", "version"),
    (r"^(?:sys\.version|platform\.python_version\(\))$", "host.python", "version"),
))
"""Python expressions people print, with the field each shows and the shape its value has."""
_SHAPES = {"version": re.compile(r"^'?(\d+\.\d+[\w.+\-]*)'?"), "bool": re.compile(r"^(?i:(true|false))$")}
"""A person retyping a REPL's answer may write it in lower case (``false``)."""


def printed_field(expression: str) -> tuple[str, str] | None:
    """The field a printed expression shows and its value's shape (``torch.__version__`` -> torch.version, a
    version), or None."""
    expression = re.sub(r"\s+", "", expression)
    return next(((field, shape) for pattern, field, shape in _PRINTED if pattern.match(expression)), None)


def fitted(value: str, shape: str) -> str | None:
    """A printed value when it has the shape its expression promises (a traceback printed instead is none)."""
    if shape == "gpu":
        value = value.strip().strip("'\"")  # a REPL shows a string with its quotes
        return value if looks_like_gpu(value) else None
    match = _SHAPES[shape].match(value)
    return (match.group(1).capitalize() if shape == "bool" else match.group(1)) if match else None


def _printed_label(match: re.Match[str]) -> Iterator[Found]:
    """A script's own labels are the expressions it prints: ``torch.__version__: 2.6.0+cu124``,
    ``torch.cuda.get_device_name(0) = 'AMD Radeon VII'``; a value is taken where its shape fits."""
    known = printed_field(match.group("expr"))
    value = fitted(match.group("value").strip(), known[1]) if known else None
    if known and value is not None:
        yield known[0], value


def _lspci(match: re.Match[str]) -> Iterator[Found]:
    """A display controller lspci lists: one GPU each (``Navi 31 [Radeon RX 7900 XT/7900 XTX]``); a bare PCI id
    (``Device 7550``) names none."""
    name = re.sub(r"(?:\s+\[[0-9a-f]{4}:[0-9a-f]{4}\])?(?:\s+\(rev [0-9a-f]{2}\))?\s*$", "", match.group(1))
    if not re.fullmatch(r"Device [0-9a-f]{4}", name):
        yield "gpu.pci", name


def _jax_device(match: re.Match[str]) -> Iterator[Found]:
    """A JAX device as printed: ``CudaDevice(id=0)``, or newer JAX's ``cuda(id=0)`` / ``rocm(id=1)``."""
    platform = match.group(1)
    yield "jax.device", f"{platform[0].upper()}{platform[1:].lower()}Device(id={match.group(2)})"


def _jax_device_info(match: re.Match[str]) -> Iterator[Found]:
    """``jax.print_environment_info()``'s ``device info: NVIDIA GeForce RTX 3090-1, 1 local devices`` (the first
    device's kind, the device count): a JAX device, and for a GPU its name and count."""
    kind, count = match.group("kind").strip(), int(match.group("count"))
    if kind.lower() == "cpu":
        yield "jax.device", "CpuDevice(id=0)"
        return
    yield "jax.device", f"GpuDevice({kind})"
    yield "gpu.named", kind, count


def _packages(match: re.Match[str]) -> Iterator[tuple[str, str]]:
    name, version = match.group("name").lower().replace("_", "-"), match.group("version")
    if name == "pytorch":
        name = "torch"
    yield f"package.{name}", version
    if name in ("torch", "jax", "jaxlib"):
        yield f"{name}.version", version
    if re.fullmatch(r"jax-(rocm|cuda)\d*-(plugin|pjrt)", name):
        yield "jax.plugin", f"{name} {version}"


def _invoke_devices(match: re.Match[str]) -> Iterator[tuple[str, str]]:
    """InvokeAI's devices (``NAME (cuda:0), NAME (cuda:1)``): each a GPU torch uses; ``cpu`` is none."""
    names = [name.strip() for name in re.findall(r"([^,()]+?)\s*\((?:cuda|mps|xpu):\d+\)", match.group(1))]
    if not names and looks_like_gpu(match.group(1).strip()):
        names = [match.group(1).strip()]
    for name in names:
        yield "gpu.name", name
    if names:
        yield "torch.available", "True"


def _device_properties(match: re.Match[str]) -> Iterator[tuple[str, str]]:
    """``_CudaDeviceProperties(name='NVIDIA A100-SXM4-80GB', major=8, minor=0, ...)`` without a gcnArchName: the GPU,
    torch using it, and on NVIDIA the compute capability as the sm_ target."""
    name = match.group(1)
    yield "gpu.name", name
    yield "torch.available", "True"
    yield from _capability_target(name, match.group(2), match.group(3))


def _capability_target(name: str, major: str | None, minor: str | None) -> Iterator[tuple[str, str]]:
    """torch's (major, minor) of a device as its sm_ target: only for an NVIDIA name (ROCm reports gfx-derived
    numbers, (11, 0) for every gfx110x, and an old ROCm build's name may be 'Device 73bf')."""
    if major and re.search(r"NVIDIA|GeForce|Tesla|Quadro|TITAN|\bRTX\b|\bGTX\b|\b[ABHLTV]\d{2,3}\b", name,
                           re.IGNORECASE):
        yield "gpu.arch", f"sm_{major}{minor}"


def _torch_detected(match: re.Match[str]) -> Iterator[tuple[str, str]]:
    """``Torch detected GPU: NVIDIA GeForce RTX 4060 Laptop GPU VRAM 8188 Arch (8, 9) Cores 24``: the GPU, torch using
    it, and on NVIDIA the compute capability as the sm_ target (ROCm reports (11, 0) for every gfx110x)."""
    name = match.group(1).strip()
    yield "gpu.name", name
    yield "torch.available", "True"
    yield from _capability_target(name, match.group(2), match.group(3))


def _gpu_line(match: re.Match[str]) -> Iterator[tuple[str, str]]:
    for part in re.split(r"\s+\|\s*GPU \d+\s*[:：]\s*", match.group(1)):  # "GPU 0: A | GPU 1: B" typed on one line
        yield from _gpu_text(part)


def _gpu_text(text: str) -> Iterator[tuple[str, str]]:
    """``AMD Radeon RX 7900 XTX (gfx1100)`` or ``NVIDIA H100 80GB HBM3``: the name, and the target when shown."""
    text = text.strip()
    found = re.match(r"^(.+?)\s*\((gfx[0-9a-f]{3,4})[^)]*\)$", text)
    if found:
        yield "gpu.name", found.group(1)
        yield "gpu.arch", normalise_gfx_name(found.group(2))
    elif looks_like_gpu(text):
        yield "gpu.name", text


_GPU_WORDS = re.compile(r"\b(Radeon|Instinct|MI-?\d{2,3}[A-Z]?|RX\s?\d{3,4}|Vega|Navi|FirePro|GeForce|RTX|GTX|Quadro|"
                        r"Tesla|TITAN|A100|A10G?|A30|A40|H100|H200|H800|B200|GH200|GB200|B300|L4|L40S?|V100|P100|T4|"
                        r"W\d{4}|Orin|Xavier|"
                        r"\d{4}\s?XTX?|\d{3}M Graphics|Arc A\d{3}|AMD (?:Raven|Picasso|Renoir|Cezanne|Rembrandt))\b",
                        re.IGNORECASE)
"""Words that make a short text a GPU's name (AMD APUs also go by their code names: ``AMD Raven``)."""


_GPU_WORDS_FOUND = Caseless.of(_GPU_WORDS)


def looks_like_gpu(text: str) -> bool:
    """Whether a short text names a GPU (not a CPU)."""
    return len(text) <= 80 and _GPU_WORDS_FOUND.found(text) and not re.search(
        r"\b(Ryzen|EPYC|Xeon|Core\(TM\)|Threadripper|Athlon)\b", text)


_LABELS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), f) for p, f in (
    (r"os|operating systems?|distro|distribution|linux distribution|os platform and distribution|os version|"
     r"system|platform|what operating system are you seeing the problem on\??", "host.os"),
    (r"kernel|linux kernel|kernel version|linux kernel version", "host.kernel"),
    (r"rocm|rocm version|rocm-dkms|amdgpu-install|rocm release|rocm version number", "stack.rocm"),
    (r"gpu|gpus|gpu model|gpu models?|graphics card|graphics|card|hardware|device|video card|gpu model and memory|"
     r"accelerator|gpu name|gpu type|gpu models and configuration|device name|gpu device name|nvidia_gpu_models|"
     r"my gpu|my gpus|my graphics card|my card|my video card",
     "gpu.name"),
    (r"gpu architecture|gpu arch|gfx version|gfx target|architecture", "gpu.arch"),
    (r"cpu|processor|cpu model|cpu/apu|apu", "host.cpu"),
    (r"python|python version|python_version", "host.python"),
    (r"pytorch|torch|pytorch version|torch version|torch_version", "torch.version"),
    (r"torch hip version|hip version used to build pytorch", "torch.hip"),
    (r"torch cuda version", "torch.cuda"),
    (r"cuda|cuda version|cuda toolkit|cuda/cudnn version|cuda/cudnn", "stack.cuda"),
    (r"nvidia driver|nvidia driver version|driver version|nvidia_driver_version", "stack.nvidia_driver"),
    (r"amdgpu|amdgpu driver|amdgpu version", "stack.amdgpu_driver"),
    (r"jax|jax version", "jax.version"),
    (r"tensorflow version|tensorflow version \(use command below\)|tf version", "tf.version"),
    (r"jaxlib|jaxlib version", "jaxlib.version"),
    (r"cuda available|cuda disponible|cuda disponível|cuda verfügbar|gpu available|rocm available|"
     r"torch cuda available|cuda is available|is_cuda_available", "torch.available"),
))
_QUESTIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), f) for p, f in (
    (r"\b(?:GPUs?|graphics card|video card|accelerator)\b", "gpu.name"),
    (r"\b(?:operating system|OS|distribution|distro)\b", "host.os"),
    (r"\bROCm\b", "stack.rocm"),
    (r"\bPython\b", "host.python"),
    (r"\b(?:PyTorch|torch)\b", "torch.version"),
))
"""An issue form's question, where no label matches it whole: ``What GPU / hardware type are you using?``."""
_ANY_LABEL = re.compile("|".join([
    r"(?P<plugin>jax[-_](?:rocm|cuda)\d*[-_](?:plugin|pjrt))", r"(?P<numbered>gpu\s*#?\d{1,2})",
    *(f"(?P<label{i}>{pattern.pattern})" for i, (pattern, _) in enumerate(_LABELS))]), re.IGNORECASE)
"""Every label :func:`labelled` reads, one named group each: a JAX plugin's, a numbered GPU's, then ``_LABELS`` in
their order (the first that matches whole wins)."""
_ASKS_NOW = re.compile(r"(?i)^(?:what|which)\b(?!.*\b(?:before|previous|previously|upgraded?|from|old|last|"
                       r"other|else|also|tried|expect\w*)\b).*\b(?:using|use|have|run|running|installed|is|are|"
                       r"version)\b.*\?$")
"""A question about the setup as it is (``Which GPU are you using?``), not another one (``What ROCm version did
you upgrade from?``)."""
_DISTRO = re.compile(r"\b(Ubuntu|Kubuntu|Xubuntu|Lubuntu|Debian|Fedora|RHEL|Red Hat|Rocky|AlmaLinux|CentOS|openSUSE|"
                     r"SLES|SUSE|Arch|Manjaro|"
                     r"Mint|Pop!_OS|Gentoo|NixOS|Windows|WSL2?|Oracle Linux|Azure Linux|Kali|EndeavourOS|CachyOS|"
                     r"macOS|Linux)\b", re.IGNORECASE)
_GPU_PREFIX = r"(?:(?:AMD|NVIDIA|ASUS|GIGABYTE|MSI|Sapphire|XFX|PowerColor|Zotac|EVGA)\s+)*"
"""Vendor and board-maker words before a GPU's name; each spelled once (the pattern ignores case: two spellings of
one word made every repeated word a choice of two, exponential on "AMD AMD AMD ...")."""
_GPU_FAMILY = (r"(?:(?:Radeon(?:\(TM\))?|Instinct|FirePro|GeForce|Tesla|Quadro|TITAN)\s*(?:(?:AI\s+)?PRO\s+)?"
               r"(?:RX\s*|RTX\s*|GTX\s*|VII\b)?)")
_GPU_MODEL = (r"(?:RX\s?\d{3,4}M?(?:\s?(?:XTX|XT|GRE|S))?|MI-?\d{2,3}[A-Z]?|W\d{4}|\d{3,4}\s?(?:XTX|XT)|"
              r"RTX\s?\d{4}D?(?:\s?(?:Ti|SUPER))?|GTX\s?\d{3,4}|[AHBLVPT]\d{2,3}[A-Z]?(?:-\w+)?|M\d{2}|\d{3}M|"
              r"[A-Z]?\d{3,4}(?:\s?(?:Ti|XTX|XT|SUPER))?)")
_GPU_MENTION = re.compile(
    r"(?:\b(?P<count>[1-9]\d?)\s*[x×]\s*|\bwith\s*(?P<with>[2-9]|1[0-6])\s+)?"
    rf"(?P<name>\b(?:{_GPU_PREFIX}{_GPU_FAMILY}{_GPU_MODEL}|(?:AMD|NVIDIA)\s+{_GPU_MODEL}|"
    r"RX\s?\d{3,4}M?(?:\s?(?:XTX|XT|GRE|S))?|RTX\s?\d{4}D?(?:\s?(?:Ti|SUPER))?|GTX\s?\d{3,4}(?:\s?Ti)?|"
    r"MI-?\d{2,3}[A-Z]?|\d{4}\s?XTX?|W\d{4}|[AHV]100(?:-(?:SXM\d?|PCIE)(?:-\d{2,3}GB)?)?|[AH]800|H200|B200|L40S?|"
    r"Vega\s?\d{1,2}(?:\s?XTX?)?)(?=\b|[x×]\d))"
    r"(?:\s*[x×]\s*(?P<after>[1-9]\d?)\b)?", re.IGNORECASE)
"""A GPU named in running text, and how many (``4x MI210``, ``MI210x4``, ``with 4 MI250X cards``)."""


_MAYBE_MENTION = Caseless.of(re.compile(r"radeon|instinct|firepro|geforce|tesla|quadro|titan|amd|nvidia|rx\s?\d|"
                                         r"rtx\s?\d|gtx\s?\d|mi-?\d|\d\s?xt|w\d|[ahv]100|[ah]800|h200|b200|l40|vega",
                                         re.IGNORECASE))
"""What each name ``_GPU_MENTION`` reads holds (a family word, a vendor, or a model's letters and digit): a sentence
without any is passed over at once."""


def gpu_mentions(text: str) -> Iterator[tuple[str, int]]:
    """GPU names in a sentence with their counts (``(MI210, 4)``); a vendor prefix alone is no name."""
    if not _MAYBE_MENTION.found(text):
        return
    for match in _GPU_MENTION.finditer(text):
        name = match.group("name").strip()
        if not re.search(r"\d", name) or re.fullmatch(r"(?i)(AMD|NVIDIA)\s+\d{1,2}", name):
            continue
        count = match.group("count") or match.group("with") or match.group("after") or "1"
        yield name, int(count)


_GEFORCE_NUMBER = re.compile(r"(?:[1-5]0[5-9]0)(?: ?(?:Ti|SUPER))?")
"""A GeForce model number given alone after a GPU label (``GPU: 3090``): what people call the card."""


def _named_gpu(value: str, explicit: bool) -> Iterator[Found]:
    """A GPU as someone typed it: ``AMD Radeon 780M (amdgcn-amd-amdhsa--gfx1103, ...)``, ``MI210x4 with infinity
    fabric``, ``GIGABYTE AMD Radeon RX 6650 XT (Driver Version 23.10.2)``, ``gfx1010 (AMD Radeon RX 5700)``."""
    targets = re.findall(r"gfx[0-9a-f]{3,4}\b", value)
    for target in targets[:1]:
        yield "gpu.arch", normalise_gfx_name(target)
    inside = re.match(r"^gfx[0-9a-f]{3,4}\s*\((.+)\)\s*$", value)
    name = inside.group(1) if inside else re.sub(r"\s*\([^)]*\)?\s*$", "", value).strip()
    name = re.sub(r"(?<=\w)\s+gfx[0-9a-f]{3,4}$", "", name)  # "AMD Radeon RX 9060 XT gfx1200": the target said after
    count = re.search(r"(?:^|\s)(?:(\d{1,2})\s*[x×]\s*\S|\S+?[x×](\d{1,2})\b)", name)
    if count:
        name = re.sub(r"^\d{1,2}\s*[x×]\s*|(?<=\w)[x×]\d{1,2}\b.*$", "", name).strip()
    if looks_like_gpu(name) or (explicit and re.search(r"[A-Za-z]", name) and re.search(r"\d", name)
                                and len(name) <= 60 and not looks_like_cpu(name)) or (
            explicit and _GEFORCE_NUMBER.fullmatch(name)):  # "GPU: 3090"
        if not looks_like_gpu(name) or len(name) > 40:
            mention = next(gpu_mentions(name), None)
            if mention is not None and not explicit:
                name = mention[0]
        yield "gpu.named", name, int(count.group(1) or count.group(2)) if count else 1


_CPU_WORDS = re.compile(r"\b(Ryzen|EPYC|Xeon|Core i\d|Threadripper|Athlon|E[357][- ]?\d{4}\s?v?\d?|"
                        r"\d+-Core Processor)\b|\bCore\(TM\)", re.IGNORECASE)


_CPU_WORDS_FOUND = Caseless.of(_CPU_WORDS)


def looks_like_cpu(text: str) -> bool:
    """Whether a short text names a CPU."""
    return _CPU_WORDS_FOUND.found(text)


_LTS = re.compile(r"\b\d{2}\.\d{2}(?:\.\d+)? LTS\b")
"""An Ubuntu release without the word Ubuntu: ``24.04.2 LTS (Noble Numbat)``."""
_KERNEL_FIRST = re.compile(r"^(\d+\.\d+\.\d+(?:[.\-][\w+~]+)*-[A-Za-z][\w.\-+~]*)\s+(\S.*)$")
"""A kernel release (with a flavour: ``-generic``, ``-microsoft-standard-WSL2``) before the distribution's name."""
_TRIPLE = re.compile(r"^\W*(?:x86_64|aarch64|i686|arm64)[-_]")
"""A platform (``x86_64-linux``), not an OS release."""


def is_read_label(label: str) -> bool:
    """Whether :func:`labelled` can read anything under ``label`` (a known label, or a question about the setup as it
    is that names what it asks)."""
    label = label.strip(" *_`-•\"'#").strip()
    return bool(_ANY_LABEL.fullmatch(label)) or bool(_ASKS_NOW.match(label)) and any(
        pattern.search(label) for pattern, _ in _QUESTIONS)


_MEMORY_AFTER = re.compile(r"\s*,\s*\d{1,3}\s?[GM]i?B\b(?:\s*(?:of\s+)?(?:VRAM|memory|RAM|HBM\w*|GDDR\w*))?\s*$",
                           re.IGNORECASE)
"""A GPU's memory written after its name (``, 12GB VRAM``, ``, 24 GB``)."""
_OS_THEN_KERNEL = re.compile(r"^(\S.*?)[\s,;]+kernel(?: version)?\s*[:=]?\s*(\d+\.\d+\.\d+\S*)\s*$", re.IGNORECASE)
"""An OS answer that names the kernel after it (``Fedora Linux 43 kernel version: 6.19.11-200.fc43.x86_64``)."""
_PLATFORM = re.compile(r"^Linux-(\d+\.\d+\.\d+\S*?)-(?:x86_64|aarch64|ppc64le|s390x)-with-")
"""Python's ``platform.platform()`` (``Linux-6.6.13-200.fc39.x86_64-x86_64-with-glibc2.38``): the kernel's release."""
_OS_TRIED = re.compile(r"^(?:(?:tested|tried|running|installed)\s+(?:on|with)\s+|on\s+)(?=\S)", re.IGNORECASE)
_OS_OTHERS = re.compile(r"(?<=\d)\s*(?:,|/|\band\b|&|\bor\b)\s*\d+(?:\.\d+)+\b.*$")


def _first_os(value: str) -> str:
    """``Tested on Ubuntu 24.04.3 and 24.04.4`` -> ``Ubuntu 24.04.3``: the first of the releases named, without the
    words before it."""
    return _OS_OTHERS.sub("", _OS_TRIED.sub("", value)).strip() or value


_OWN_LABEL = re.compile(r"^[-*•]?\s*\**([A-Za-z][\w .()/-]{0,30}?)\**\s*:\s+(\S.*)$")
"""A line that is a ``Label: value`` of its own (a bullet's included) where it stands under another label."""


_TOOL_PREFIX = re.compile(r"^(?:(?:VERSION|PRETTY_NAME|NAME)=\"?|(?:Marketing Name|Model name)\s*:\s+)(.+)$")
"""A tool's own label in front of the value an issue form's answer pastes (os-release, rocminfo, lscpu)."""


def labelled(label: str, value: str) -> Iterator[Found]:
    """``OS: Ubuntu 22.04``, ``**GPU**: RX 6800``, ``ROCm version = 6.2``, ``"torch": "2.4.1+cu121"``: a known
    label with a value of the right shape (a distribution for the OS, a version for versions, a GPU for the GPU)."""
    label = label.strip(" *_`-•\"'#").strip()
    value = value.strip(" *_`").strip().rstrip(",").strip("\"'").strip()
    if label and value[:len(label) + 1].lower() == label.lower() + ":":  # "### CPU" answered "CPU: Ryzen 7 7840HS"
        value = value[len(label) + 1:].strip()
    elif quoted := _TOOL_PREFIX.match(value):  # answered with a tool's line: 'VERSION="22.04.4 LTS (Jammy ...)"',
        value = quoted.group(1).strip().strip("\"'")  # rocminfo's "Marketing Name:          AMD Ryzen 9 3950X"
    elif (own := _OWN_LABEL.match(value)) and own.group(1).strip().lower() != label.lower() and is_read_label(
            own.group(1)):  # "**Hardware:**" answered "- GPU: Radeon RX 7900 XTX (24GB, gfx1100)": the line's own
        yield from labelled(own.group(1), own.group(2))
        return
    if not value or len(value) > 120 or value.lower() in ("n/a", "none", "no", "yes", "null", "-", "?"):
        return
    known = _ANY_LABEL.fullmatch(label)  # one test for every label this reads; most labels are none of them
    kind = next((name for name, text in known.groupdict().items() if text is not None), "") if known else ""
    if kind == "plugin":  # "jax-rocm7-plugin: 0.9.1"
        version = re.match(r"^v?(\d+\.\d+(?:\.\d+)?[\w.+\-]*)$", value)
        if version:
            yield f"package.{label.lower().replace('_', '-')}", version.group(1)
        return
    if kind == "numbered":  # "GPU 0: AMD Radeon VII (gfx906)": one line per device, as a tool lists
        if looks_like_gpu(value):
            yield from _gpu_text(value)
        return
    if kind:
        field = _LABELS[int(kind.removeprefix("label"))][1]
    elif _ASKS_NOW.match(label):
        asked = next((field for pattern, field in _QUESTIONS if pattern.search(label)), None)
        if asked is None:
            return
        field = asked
    else:
        return
    if field == "host.os" and (platform := _PLATFORM.match(value)):  # Python's platform.platform(): the kernel
        yield "host.kernel", platform.group(1)
    elif field == "host.os" and (both := _OS_THEN_KERNEL.match(value)):  # "Fedora Linux 43 kernel version: 6.19.11-..."
        yield from labelled(label, both.group(1))
        yield "host.kernel", both.group(2)
    elif field == "host.os":
        kernel = re.match(r"^Linux\s+(\d+\.\d+\.\d+-\S+)$", value)
        leading = _KERNEL_FIRST.match(value)
        if kernel:  # "OS: Linux 6.8.0-87-generic" names the kernel only
            yield "host.kernel", kernel.group(1)
        elif leading:  # "5.15.167.4-microsoft-standard-WSL2 Ubuntu 24.04.2 LTS": the kernel, then the distribution
            yield "host.kernel", leading.group(1)
            yield from labelled(label, leading.group(2))
        elif (_DISTRO.search(value) or _LTS.search(value)) and len(value) <= 60 and not _TRIPLE.match(value):
            yield field, _first_os(re.sub(r"^(?:GNU/)?Linux\s+(?=[A-Z])", "", value))  # "Linux Ubuntu 22.04.4 LTS"
    elif field == "gpu.name":
        value = _MEMORY_AFTER.sub("", value)  # "AMD Radeon RX 6700 XT, 12GB VRAM": the memory is no part of the name
        parts = re.split(r"\s+\+\s+", value)  # "Radeon 8060S + R9700 Pro (eGPU)": two GPUs ("MI300X + 7 others": one)
        listed = re.split(r"\s*,\s+", value)  # "GPU: 7900xtx, 7800xt": two GPUs ("RTX 3090, 24GB": one)
        if len(parts) == 1 and len(listed) > 1 and all(looks_like_gpu(p) for p in listed):
            parts = listed
        for part in parts if all(re.search(r"[A-Za-z]\s?\d|\d[A-Za-z]", p) and not re.match(r"\d+\s+[a-z]", p)
                                 for p in parts) else [value]:
            if not looks_like_cpu(part) or looks_like_gpu(part):
                yield from _named_gpu(part, explicit=label.lower() not in ("device", "hardware", "card"))
    elif field == "gpu.arch":
        for target in re.findall(r"gfx[0-9a-f]{3,4}\b", value)[:1]:
            yield field, normalise_gfx_name(target)
        inside = re.match(r"^gfx[0-9a-f]{3,4}\s*\((.+)\)\s*$", value)
        if inside and looks_like_gpu(inside.group(1)):
            yield "gpu.named", inside.group(1).strip()
    elif field == "torch.available":  # "CUDA disponible: True" (a one-line summary in the user's language)
        if value in ("True", "False"):
            yield field, value
    elif field == "host.cpu":
        value = re.sub(r"^(?i:model name)\s*:\s*", "", value)  # "CPU: model name : AMD Ryzen ..." (/proc/cpuinfo's)
        value = re.sub(r"^\d{1,2}\s*[x×]\s+(?=\S)", "", value)  # "2x Intel(R) Xeon(R) ...": the model, not the count
        if not looks_like_gpu(value) or looks_like_cpu(value):
            yield field, re.sub(r"\s*\(\d+\s*(?:cores?|threads?|CPUs?)\b[^)]*\)$", "", value, flags=re.IGNORECASE)
    else:
        if field.startswith("stack.") and re.match(r"(?i)rocm\b", value):
            field = "stack.rocm"
        elif field == "stack.rocm" and re.match(r"(?i)cuda\b", value):
            field = "stack.cuda"
        version = re.match(r"^v?(\d+\.\d+(?:\.\d+)?[\w.+\-]*)", re.sub(
            r"^(?i:rocm|cuda|python|torch|linux)\s*(?:==|=|v|-)?\s*", "", value))  # "torch==2.3.0+rocm6.0"
        # (hostnamectl's "Kernel: Linux 5.15.0-25-generic")
        if version and not (field == "stack.nvidia_driver" and not re.match(r"\d{3}\.", version.group(1))):
            yield field, version.group(1)


def _label_line(match: re.Match[str]) -> Iterator[Found]:
    yield from labelled(match.group("label"), match.group("value"))


def _table_line(match: re.Match[str]) -> Iterator[Found]:
    """A two-column Markdown table row, where tables also hold timings and counts (``| GPU | 14.2 s |``): a version
    only when the cell is one, a GPU only when the cell names one."""
    value = match.group("value").strip(" *`")
    for found in labelled(match.group("label"), value):
        if found[0].startswith("gpu.") and not looks_like_gpu(value):
            continue
        if found[0] not in ("host.os", "host.cpu", "host.kernel") and not found[0].startswith("gpu.") and not (
                re.fullmatch(r"(?i)(?:rocm|cuda|python|torch)?\s*v?\d+(?:\.\d+)+[\w.+\-]*", value)):
            continue
        yield found


_OS_NAMES = (r"Ubuntu|Debian|Fedora|RHEL|Red Hat Enterprise Linux|Rocky Linux|AlmaLinux|CentOS|openSUSE|SLES|"
             r"Arch Linux|Manjaro|Linux Mint|Pop!_OS|Gentoo|NixOS|Windows|WSL2?")
_OS_LINE = re.compile(rf"^(?:Linux\s+)?({_OS_NAMES})\b[\w .()\-]*$", re.IGNORECASE)


_SHORT_FACT_WORDS = Caseless.of(re.compile("|".join((
    _OS_NAMES, "kernel", "rocm", "torch", r"\(gfx", *(p.pattern.replace(r"\b", "") for p in (_CPU_WORDS, _GPU_WORDS)))),
    re.IGNORECASE))
"""What every branch of :func:`_short_fact` needs, its patterns' words without the boundaries around them (each
alternative begins with a character, so the engine looks only where one stands): most short lines hold none of it,
and are passed at once."""


def _short_fact(match: re.Match[str]) -> Iterator[Found]:
    """A line that is nothing but a fact: ``Ubuntu 19.10``, ``Kernel 5.3.0-46-generic``, ``RX 580``, ``E5 2680v2``."""
    line = match.group(0).strip(" *-•`")
    if len(line) > 60 or not _SHORT_FACT_WORDS.found(line):
        return
    if _OS_LINE.match(line) and (re.search(r"\d", line) or len(line.split()) <= 2) and not line.endswith("."):
        # what follows a remark in parentheses is the rest of the machine: "Windows 10 (up to date) i7-4770 16GB ram"
        after = re.search(r"\([^)]*\)\s*(\S.*)$", line)
        machine = after is not None and (looks_like_cpu(after.group(1)) or bool(re.search(r"(?i)\d\s?GB\b|\bRAM\b",
                                                                                       after.group(1))))
        yield "host.os", line[:line.index("(")].strip() if machine else line
    elif found := re.match(r"^(?:Linux )?kernel\s+v?(\d+\.\d+\.\d+\S*)$", line, re.IGNORECASE):
        yield "host.kernel", found.group(1)
    elif found := re.match(r"^(?:ROCm|rocm-dkms|rocm)\s+v?(\d+\.\d+(?:\.\d+)?[\w.\-]*)(?:\s*\(.*\))?$", line,
                           re.IGNORECASE):
        yield "stack.rocm", found.group(1)
    elif found := re.match(r"^(?:torch|pytorch)[-=\s]+(\d+\.\d+\.\d+\S*)$", line, re.IGNORECASE):
        yield "torch.version", found.group(1)
    elif looks_like_cpu(line) and not looks_like_gpu(line):
        yield "host.cpu", line
    elif found := re.match(r"^(.+?)\s*\((gfx[0-9a-f]{3,4})\)$", line):
        yield "gpu.arch", found.group(2)
        if looks_like_gpu(found.group(1)):
            sentence = re.search(r"\b(is|are|was|with|my|the|I|have|using|on)\b", found.group(1), re.IGNORECASE)
            counted = re.match(r"^(\d{1,2})\s*[x×]\s*(.+)$", found.group(1))  # "2x AMD MI210 (gfx90a)"
            mention = next(gpu_mentions(found.group(1)), None) if sentence else (
                (counted.group(2), int(counted.group(1))) if counted else (found.group(1), 1))
            if mention is not None:
                yield "gpu.named", mention[0], mention[1]
    elif looks_like_gpu(line) and len(line) <= 40 and not re.search(r"[.!?:;,]\s|\b(is|are|was|with|my|the|I|if)\b",
                                                                       line, re.IGNORECASE):
        yield from _named_gpu(line, explicit=False)


def _gfx(match: re.Match[str]) -> Iterator[tuple[str, str]]:
    for target in re.findall(r"gfx[0-9a-f]{3,4}", match.group(0)):
        yield "gpu.arch", normalise_gfx_name(target)


def _ollama(match: re.Match[str]) -> Iterator[tuple[str, str]]:
    line = match.group(0)
    for field, key in (("gpu.arch", "compute"), ("gpu.name", "name"), ("gpu.driver", "driver"),
                       ("gpu.library", "library")):
        found = re.search(rf'\b{key}=(?:"([^"]*)"|(\S+))', line)
        value = (found.group(1) if found.group(1) is not None else found.group(2)) if found else None
        if field == "gpu.arch" and value and (capability := re.fullmatch(r"(\d{1,2})\.(\d)", value)):
            value = f"sm_{capability.group(1)}{capability.group(2)}"  # CUDA's compute=7.5 is the sm_75 target
        if value and not (field == "gpu.name" and re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{4}", value)):
            yield field, value  # a name of 1002:687f is the PCI id ollama falls back to, no name
    cuda = re.search(r'\blibrary=cuda\b.*\bdriver=(\d+\.\d+)\b', line)
    if cuda:  # the CUDA version the NVIDIA driver supports (nvidia-smi's "CUDA Version")
        yield "stack.cuda", cuda.group(1)


def _ollama_env(match: re.Match[str]) -> Iterator[Found]:
    """ollama's ``server config env="map[CUDA_VISIBLE_DEVICES:1 HIP_VISIBLE_DEVICES: ...]"``: the variables set."""
    for name, value in re.findall(r"\b([A-Z][A-Z0-9_]+):(\S*?)(?=\s+[A-Z][A-Z0-9_]+:|\]|$)", match.group(1)):
        if value and name in ENV_NAMES:
            yield f"env.{name}", value


_DIGIT_DASH = re.compile(r"-(?<=\d-)\d")
"""What a version with a build number (``6.2.4-120``, a kernel's ``6.8.0-45-generic``) cannot do without: a digit, a
dash and a digit, written to begin with the dash (a plain character is searched for several times faster)."""

_TABLE: tuple[tuple[Any, ...], ...] = (
    # collect_env lines (also when the report itself does not parse)
    (r"^\s*(?:\*\*)?PyTorch version\s*[:：]?\s+(\d[^\s*]*)", _one("torch.version")),  # a line made bold, too
    (r"^\s*(?:\*\*)?ROCM used to build PyTorch\s*[:：]\s*(\d[^\s*]*)", _one("torch.hip")),
    (r"^\s*(?:\*\*)?CUDA used to build PyTorch\s*[:：]\s*(\d[^\s*]*)", _one("torch.cuda")),
    (r"^\s*(?:\*\*)?Is CUDA available\s*[:：]\s*(True|False|Yes|No)", _one("torch.available")),
    (r"^\s*(?i:OS)\s*[:：]\s*(.+?)\s*(?:\((?:x86_64|aarch64|AMD64|ppc64le)\))?$", _one("host.os"),
     re.compile(r"os\s*[:：]")),
    (r"^\s*Python version\s*[:：]\s*(\d+\.\d+(?:\.\d+)?)", _one("host.python")),
    (r"^\s*(?:GPU models and configuration\s*[:：]\s*)?GPU \d+\s*[:：]\s*(.+?)\s*(?:\(UUID[^)]*\))?$", _gpu_line,
     "gpu "),
    (r"^\s*GPU models and configuration\s*[:：]\s*(?!\s*GPU \d)(.+?)\s*$", _gpu_line),
    (r"^Python (\d+\.\d+\.\d+)(?:\+)? \(", _one("host.python"), "python "),
    (r"^\s*Python platform\s*:\s*(?:Linux|linux)-(\d+\.\d+[\w.\-+~]*?)-(?:x86_64|aarch64|ppc64le)",
     _one("host.kernel")),
    (r"^\s*Python platform\s*:\s*(?:Linux|linux)-\d[\w.\-+~]*?-(?:x86_64|aarch64|ppc64le)-([^-]\S*?)-with",
     lambda m: iter([("host.cpu", m.group(1))] if looks_like_cpu(m.group(1).replace("_", " ")) else [])),
    (r"^\s*Nvidia driver version\s*:\s*(\d+\.\d+(?:\.\d+)?)", _one("stack.nvidia_driver")),
    (r"^\s*CUDA runtime version\s*:\s*(\d+\.\d+(?:\.\d+)?)", _toolkit),  # collect_env runs nvcc for it
    (r"^\s*HIP runtime version\s*:\s*(\d\S*)", _one("torch.hip_runtime")),
    (r"^\s*(?:Model name|model name)\s*:\s*(.+)$", _one("host.cpu"), "model name"),  # lscpu; /proc/cpuinfo
    # collect_env on Windows lists the CPU as wmic prints it
    (r"^Name=(.+?)\s*$", lambda m: iter([("host.cpu", m.group(1))] if looks_like_cpu(m.group(1)) else []), "name="),
    # rocminfo, also grep'ed
    (r"^\s*Marketing Name\s*:\s*(.+?)\s*$", _one("agent.marketing")),
    (r"^\s*Name\s*:\s*(gfx[0-9a-f]{3,4})\b", _one("gpu.arch")),
    (r"^\s*ROCk module version\s+(\S+)\s+is loaded", _one("stack.amdgpu_driver")),
    # nvidia-smi table, -q and failures
    (r"NVIDIA-SMI\s+(\d+\.\d+(?:\.\d+)?)\s+Driver Version:\s*(\d+\.\d+(?:\.\d+)?)(?:\s+CUDA Version:\s*(\d+\.\d+))?",
     _many(("stack.nvidia_driver", 2), ("stack.cuda", 3))),
    (r"^\s*Driver Version\s*:\s*(\d{3}\.\d+(?:\.\d+)?)\s*$", _one("stack.nvidia_driver")),
    (r"^\s*CUDA Version\s*:\s*(\d+\.\d+)\s*$", _one("stack.cuda")),
    (r"^\s*Product Name\s*:\s*(.+?)\s*$", _one("gpu.name")),
    (r"^\s*\|\s+\d+\s+((?:NVIDIA|Tesla|Quadro|GeForce|TITAN)[^|]*?)\s+(?:On|Off|WDDM|TCC)\s+\|", _one("gpu.name"),
     ("nvidia", "tesla", "quadro", "geforce", "titan")),
    (r"Cuda compilation tools, release (\d+\.\d+)", _toolkit),
    # nvidia-smi's header quoted in a sentence: "I have NVIDIA-SMI Driver Version: 550.54.15 and CUDA Version: 12.4"
    (r"\bDriver Version:\s*(\d{3}\.\d+(?:\.\d+)?)\b", _one("stack.nvidia_driver"), "driver version:"),
    (r"\bCUDA Version:\s*(\d+\.\d+)\b", _one("stack.cuda"), "cuda version:"),
    # XLA's diagnosis: "kernel version 535.129.3 does not match DSO version 545.23.8" (the loaded kernel module's)
    (r"\bkernel version (\d{3}\.\d+(?:\.\d+)?) does not match DSO version (\d{3}\.\d+(?:\.\d+)?)",
     _many(("stack.nvidia_driver", 1), ("stack.nvidia_userspace", 2)), "dso version"),
    # the driver's user-space packages, installed ("ii" in dpkg -l, "[installed" in apt list): NVML, nvidia-smi and
    # libcuda come from them, and they must be the loaded kernel module's release
    (r"^(?:ii|hi)\s+(?:nvidia-smi|nvidia-utils-\d+|libnvidia-compute-\d+)(?:-server)?(?::\w+)?\s+"
     r"(\d{3}\.\d+(?:\.\d+)?)[-~]", _one("stack.nvidia_userspace"), ("nvidia-smi", "nvidia-utils-",
                                                                    "libnvidia-compute-")),
    (r"^(?:nvidia-utils-\d+|libnvidia-compute-\d+)(?:-server)?/\S+\s+(\d{3}\.\d+(?:\.\d+)?)[-~].*\[installed",
     _one("stack.nvidia_userspace"), ("nvidia-utils-", "libnvidia-compute-")),
    # PyTorch's warning names the GPU and its target: "NVIDIA GeForce RTX 5080 with CUDA capability sm_120 is not
    # compatible with the current PyTorch installation"
    # (older torch names it without the vendor: "UserWarning: A100-SXM4-40GB with CUDA capability sm_80 ...")
    (r"(?:\b((?:NVIDIA|Tesla|Quadro|GeForce|TITAN)\b[\w .\-]*?)|(?<=UserWarning: )([A-Z][\w\-]*(?: [\w\-]+){0,3}?))"
     r" with CUDA capability (sm_\d+) is not compatible",
     lambda m: iter([("gpu.name", m.group(1) or m.group(2)), ("gpu.arch", m.group(3))]), "with cuda capability"),
    # rocm-smi and amd-smi text
    (r"^GPU\[\d+\]\s*:\s*Card (?:Series|series)\s*:\s*(.+?)\s*$", _one("gpu.name")),
    # amd-smi's default table (ROCm 7.0+): "| 0000:0c:00.0    AMD Instinct MI300X | 13 %     60 °C ..." (the device
    # row under "BDF  GPU-Name"; a card pci.ids does not name shows its device id, "0x1586", which is not read)
    (r"^\s*\|\s*[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\s+((?:AMD|Radeon|Instinct)\b[^|]*?)\s*\|",
     _one("gpu.name"), ("amd", "radeon", "instinct")),
    # SGLang's check_env: "GPU 0,1,2,3,4,5,6,7: AMD Instinct MI300X" (one line for identical GPUs) and its driver line
    (r"^GPU ((?:\d+,)+\d+)\s*:\s*(\S.*?)\s*$", lambda m: iter([("gpu.named", m.group(2), m.group(1).count(",") + 1)]),
     "gpu "),
    (r"^\s*ROCM Driver Version\s*:\s*(\d+\.\d+(?:\.\d+)*)\s*$", _one("stack.amdgpu_driver"), "rocm driver version"),
    # an issue's environment list: "- Driver: amdgpu 6.16.6" (the DKMS driver's own release)
    (r"^[\s>*\-•]*(?:\*\*)?(?:GPU |Kernel )?Driver(?:\*\*)?\s*:\s*(?:\*\*)?amdgpu(?:-dkms)?\s+"
     r"v?(\d+\.\d+\.\d+(?:[.-]\d+)*)\b", _one("stack.amdgpu_driver"), "amdgpu"),
    # TensorFlow's device line on ROCm: "pciBusID: 0000:05:00.0 name: Vega 20     ROCm AMD GPU ISA: gfx906"
    (r"\bname: (\S.*?)\s+ROCm AMD GPU ISA: (gfx[0-9a-f]{3,4})\b", _many(("gpu.name", 1), ("gpu.arch", 2)),
     "rocm amd gpu isa"),
    (r"^GPU\[\d+\]\s*:\s*Device Name\s*:(?!\s*0x[0-9a-fA-F]+\s*$)\s*(.+?)\s*$", _one("gpu.name"), "device name"),
    # rocm-smi 6: "GPU[0] : Device Name: AMD Instinct MI300X OAM" (a bare PCI id where pci.ids lacks the card)
    (r"^GPU\[\d+\]\s*:\s*Card (?:Model|model)\s*:\s*(.+?)\s*$", _one("gpu.model")),
    (r"^GPU\[\d+\]\s*:\s*GFX Version\s*:\s*(gfx[0-9a-f]+)", _one("gpu.arch")),
    (r"^\s*Driver version\s*:\s*(\d+\.\d+(?:\.\d+)*)\s*$", _one("stack.amdgpu_driver")),
    (r"\bROCm version:\s*(\d+\.\d+(?:\.\d+)?)", _one("stack.rocm")),
    (r"\bamdgpu version:\s*(\d+\.\d+(?:\.\d+)*)", _one("stack.amdgpu_driver")),
    # the kernel's own amdgpu has no version: amd-smi prints /proc/version with its spaces taken out
    (r"\bamdgpu version:\s*Linuxversion(\d+\.\d+\.\d+-\d+[\w.\-+~]*?)\(", _one("host.kernel")),
    (r"^\s*MARKET_NAME\s*:\s*(.+?)\s*$", _one("gpu.name")),
    (r"^\s*TARGET_GRAPHICS_VERSION\s*:\s*(gfx[0-9a-f]+)", _one("gpu.arch")),
    # ROCm install
    # hipconfig's, and SGLang check_env's "HIPCC: HIP version: 6.3.42131-fa1d09cbd"
    (r"^\s*(?:HIPCC:\s*)?HIP version\s*:\s*(\d\S*)", _one("stack.hip")),
    (r"^(?:ii|hi)\s+rocm-core\S*\s+(\d+\.\d+\.\d+)", _one("stack.rocm"), "rocm-core"),
    # dkms status: "amdgpu/6.2.4-1652687.el9, 5.14.0-373.el9.x86_64, x86_64: installed"
    (r"^amdgpu[/,]\s*(\d[\w.\-~]*),\s*(\d+\.\d+\.\d+[\w.\-+~]*),\s*\w+:\s*installed",
     _many(("stack.amdgpu_driver", 1), ("host.kernel", 2))),
    (r"^rocm-core\S*/\S+\s+(\d+\.\d+\.\d+)", _one("stack.rocm"), "rocm-core"),
    (r"^rocm-core-(\d+\.\d+\.\d+)", _one("stack.rocm"), "rocm-core"),
    (r"^\s*_?rocm-core\s+(\d+\.\d+\.\d+)(?:[-.]\d+)*_?\s*$", _one("stack.rocm"), "rocm-core"),  # pacman -Q (Arch)
    (r"\bamdgpu-install_(\d+\.\d+\.\d+[\d.\-]*?)_all\.deb", _one("stack.rocm")),
    (r"/opt/rocm-(\d+\.\d+\.\d+)\b", _one("stack.rocm_path"), "/opt/rocm-"),
    (r"/usr/local/cuda-(\d+\.\d+)\b", _one("stack.cuda_path"), "/usr/local/cuda-"),
    # rpm/dnf package names: "nvidia-driver-latest-dkms-cuda-465.19.01-1.el7", "cuda-drivers-465.19.01-1", and the
    # CUDA runtime "cuda-runtime-11-3-11.3.0-1"
    (r"^(?:nvidia-driver(?:-latest)?(?:-dkms)?(?:-cuda)?|cuda-drivers)-(\d{3}\.\d+(?:\.\d+)?)-\d",
     _one("stack.nvidia_driver"), ("nvidia-driver", "cuda-drivers")),
    (r"^cuda-runtime-\d+-\d+-(\d+\.\d+)\.\d", _one("stack.cuda"), "cuda-runtime-"),
    (r"^\s*(\d+\.\d+\.\d+)-\d+\s*$", _one("stack.rocm_file"), _DIGIT_DASH),
    # OS and kernel
    (r"^PRETTY_NAME=\"?([^\"]+)\"?", _one("host.os")),
    # os-release's NAME= and VERSION= (ROCm's issue form asks for these two): joined where no PRETTY_NAME is shown
    (r"^NAME=\"?([^\"]+?)\"?\s*$", _one("os.name"), "name="),
    (r"^VERSION=\"?([^\"]+?)\"?\s*$", _one("os.version"), "version="),
    # lsb_release -a pasted into a one-line form field: "... Description: Fedora Linux 43 (KDE ...) Release: 43 ..."
    (r"\bDescription:\s+(\S.*?)\s+Release:\s", lambda m: labelled("OS", m.group(1)), "release:"),
    (r"^Description:\s+(.+?)\s*$", lambda m: labelled("OS", m.group(1))),  # lsb_release's, when it names an OS
    (r"^Linux (?:\S+ )?(\d+\.\d+\.\d+[\w.\-+~]*) #", _one("host.kernel"), "linux "),
    (r"^(\d+\.\d+\.\d+-\d+[\w.\-+~]*(?:generic|amd64|x86_64|azure|aws|gcp|lowlatency|WSL2|rt\d*)\S*)\s*$",
     _one("host.kernel"), _DIGIT_DASH),
    (r"release='(\d+\.\d+\.\d+[\w.\-+~]*)'", _one("host.kernel")),
    (r"/lib/modules/(\d+\.\d+\.\d+[\w.\-+~]*)/", _one("host.kernel")),
    (r"\bTainted: .*?\s(\d+\.\d+\.\d+-\d+[\w.\-+~]*) #", _one("host.kernel")),
    # packages: pip list / pip freeze / conda list / [pip3] lines / uv's " + jax==0.6.1" (installed by uv add, uv sync)
    (r"^(?:\[(?:pip\d?|conda)\]\s+| \+ )?(?P<name>torch|pytorch|torchvision|torchaudio|jax|jaxlib|"
     r"jax[-_](?:rocm|cuda)\d*[-_](?:plugin|pjrt)|triton|pytorch[-_]triton[-_]rocm|flash[-_]attn|xformers|vllm|bitsandbytes|transformers|"
     r"deepspeed|onnxruntime[-_]\w+|tensorflow(?:[-_]rocm)?|rocm|rocm[-_]sdk[-_]core)(?:\s*==\s*|\s+)"
     r"(?P<version>\d+\.\d+(?:\.\d+)?[\w.+\-]*)",
     _packages, ("torch", "jax", "triton", "flash", "xformers", "vllm", "bitsandbytes", "transformers", "deepspeed",
                 "onnxruntime", "tensorflow", "rocm")),
    (r"^Using CPython (\d+\.\d+\.\d+)\b", _one("host.python"), "using cpython"),  # uv's interpreter line
    # a traceback's or a warning's path into the interpreter's packages: the Python that runs them
    (r"/lib/python(3\.\d{1,2})/(?:site|dist)-packages/", _one("host.python"), "/lib/python3"),
    (r"^AMD arch: (gfx[0-9a-f]{3,4})\b", _one("gpu.arch"), "amd arch: "),  # ComfyUI's start-up log on ROCm
    # SD.Next's (and the amdgpu forks of A1111 and Forge) start-up log on ROCm or ZLUDA: "ROCm: agents=['gfx1030',
    # 'gfx1036']", "ROCm: version=6.2, using agent gfx1030"
    (r"^\s*ROCm: agents=\[([^\]]*gfx[^\]]*)\]", _gfx, "rocm: agents="),
    (r"^\s*ROCm: version=(\d+\.\d+(?:\.\d+)?)\b", _one("stack.rocm"), "rocm: version="),
    # Python prints and reprs
    (r"^'?(?P<version>\d+\.\d+\.\d+\+(?:rocm|cu|cpu)[\w.]*)'?(?:\s+'?[\d.\-\w]+'?)?(?:\s+(?P<available>True|False))?\s*$",
     _torch_variant, ("+rocm", "+cu", "+cpu")),
    (r"name='([^']+)'.*?gcnArchName='(gfx[0-9a-f]+)", _many(("gpu.name", 1), ("gpu.arch", 2))),
    # torch.cuda.get_device_properties(0) on a CUDA build: major/minor are the compute capability (the sm_ target);
    # on a ROCm build they are not (its gcnArchName, read above, is the target; without it, an AMD GPU's 10.3 does not
    # say which gfx103x). Either way torch reached the GPU to print them.
    (r"_CudaDeviceProperties\(name='([^']+)', major=(\d+), minor=(\d)\b(?!.*gcnArchName)", _device_properties,
     "_cudadeviceproperties("),
    (r"\b(Cuda|Rocm|Gpu|Cpu|cuda|rocm|gpu|cpu)(?:Device)?\(id=(\d+)\)", _jax_device, "(id="),
    # `torch.cuda.is_available() == True  # True`: a comparison its writer marked as holding
    (r"^\s*(?P<expr>(?:torch|jax)\.[\w.]+(?:\((?:[^()]|\([^()]*\))*\))?)\s*==\s*(?P<value>\S.*?)\s*#\s*True\s*$",
     _printed_label, ("torch.", "jax")),
    (r"^\s*(?P<print>print\(\s*)?(?P<expr>(?:torch|jax|jaxlib)\.[\w.]+(?:\(\s*\w*\s*\))?)(?(print)\s*\))\s*[:=]\s*"
     r"(?P<value>\S.*)", _printed_label, ("torch.", "jax")),  # also `print(torch.__version__): 2.0.1+cu117`
    # a print of it in a script, with what it printed in a comment: `print(f"CUDA: {torch.cuda.is_available()}")  #
    # Returns False`
    (r"\btorch\.cuda\.is_available\(\)[^#\n]*#\s*(?i:->|=>|returns?|gives|prints|outputs?|is)?\s*:?\s*`?(True|False)`?"
     r"\W*$", _one("torch.available"), "is_available()"),
    # what it gave, said in the sentence after the command: `python -c "import torch;
    # print(torch.cuda.is_available())" I do get True as a return`
    # (a bare "returns 'False'" right after it is read by the quoted-print rule)
    (r"\btorch\.cuda\.is_available\(\)\)?[`'\"]*[^.!?#]{0,30}?\b(?i:I\s+(?:do\s+|still\s+|only\s+)?(?:get|got)|it\s+"
     r"(?:returns|returned|prints|printed|gives|gave|says|said))\s+[`'\"]?(True|False)\b", _one("torch.available"),
     "is_available()"),
    # the driver named after the CUDA version on its line: "**CUDA Version**: 12.8 (Driver 570.181)", "CUDA toolkit:
    # 12.4 (driver 570.124.06 from NVIDIA)"
    (r"\bCUDA(?: [Vv]ersion| toolkit)?\W{0,6}(\d{2}\.\d)\b[^\n]{0,40}?\b[Dd]river:?\s*v?(\d{3}\.\d{2,3}(?:\.\d{2})?)\b",
     _many(("stack.cuda", 1), ("stack.nvidia_driver", 2)), "driver"),
    (r"^jax:\s+(\d\S*)", _one("jax.version"), "jax:"),
    (r"^device info:\s*(?P<kind>.+?)-(?P<count>\d+),\s*\d+ local devices", _jax_device_info, "device info:"),
    (r"^jaxlib:\s+(\d\S*)", _one("jaxlib.version")),
    (r"^python:\s+(\d+\.\d+\.\d+)", _one("host.python"), "python:"),
    (r"^python\s+(\d+\.\d+(?:\.\d+)?)\s*$", _one("host.python")),
    (r"^\s*(?i:cuda version)\s{2,}(\d+\.\d+)\s*$", _one("stack.cuda"), "cuda version"),  # a two-column table
    (r"\b(?:No HIP GPUs are available|No CUDA GPUs are available)", lambda m: iter([("torch.available", "False")]),
     "gpus are available"),
    # web UIs and trainers saying what torch.cuda.is_available() answered
    (r"\bTorch (?:is not able to use GPU|reports GPU not available)", lambda m: iter([("torch.available", "False")]),
     "torch "),
    (r"Available backends are \[([^\]]*)\]", _one("jax.backends")),
    # Hugging Face env printers
    (r"^- PyTorch version \(GPU\??\)\s*:\s*(\S+)\s*\((True|False)\)",
     _many(("torch.version", 1), ("torch.available", 2))),
    (r"^- Platform\s*:\s*Linux-(\d+\.\d+[\w.\-+~]*?)-(?:x86_64|aarch64)", _one("host.kernel")),
    (r"^- Platform\s*:\s*((?:Windows|macOS)-\S+)", _one("host.os")),
    (r"^- Python version\s*:\s*(\d+\.\d+\.\d+)", _one("host.python")),
    # test-script prints: "torch version = 2.2.1+rocm5.7", "cuda available = True", "name = AMD Radeon RX 6600 XT"
    (r"^\s*(?:torch|pytorch) version\s*[=:]\s*(\d\S*)", _one("torch.version"), "torch version"),
    (r"^(?:\s*|(?!.*(?i:expect|should)).*`)(?i:cuda|gpu|rocm)(?:/(?i:cuda|rocm|hip))? available\s*[=:]\s*(True|False)",
     _one("torch.available"), "available"),  # "CUDA available: True"; "`CUDA/ROCm available: False`" quoted as
    # what a command printed (not as what was expected)
    # "name: Radeon RX 7900 XTX"; a quoted value ends at its quote ('name="NVIDIA GeForce GTX 1650" total=...')
    (r"^\s*(?:device )?name\s*[=:]\s*(?:\"([^\"]+)\"(?=\s|$).*|(.+?))\s*$", lambda m: iter(
        [("gpu.name", m.group(1) or m.group(2))] if looks_like_gpu(m.group(1) or m.group(2)) else [])),
    (r"^\s*--->\s+(gfx[0-9a-f]{3,4})\s*$", _one("gpu.arch"), "--->"),
    (r"^\s*--->\s+(.+?)\s*$", lambda m: iter([("host.cpu", m.group(1))] if looks_like_cpu(m.group(1)) else []), "--->"),
    # DeepSpeed's ds_report: "torch version .................... 1.10.0a0+git539d476"
    (r"^\s*torch version\s*\.{3,}\s*(\d\S*)", _one("torch.version")),
    (r"^\s*torch hip version\s*\.{3,}\s*(\d\S*)", _one("torch.hip")),
    (r"^\s*torch cuda version\s*\.{3,}\s*(\d\S*)", _one("torch.cuda")),
    # app logs: ComfyUI, SD.Next, llama.cpp, ollama, TensorFlow
    (r"^pytorch version:\s*(\S+)", _one("torch.version")),
    (r"^Device: cuda:\d+ (.+?)(?: : \w+)?$", lambda m: iter([("gpu.name", m.group(1)), ("torch.available", "True")]),
     "device: cuda:"),
    # ComfyUI's "System Information" (Markdown): "- **Name:** cuda:0 NVIDIA GeForce RTX 5090 : cudaMallocAsync"
    (r"^\s*-\s*\*\*Name:\*\*\s*cuda:\d+ (.+?)(?: : \w+)?\s*$",
     lambda m: iter([("gpu.name", m.group(1)), ("torch.available", "True")]), "**name:**"),
    # rocm-smi's per-GPU lines in any of its forms ("GPU[1]          : Successfully set fan speed to level 255"):
    # the GPUs it reached, unnamed where the form names none
    (r"^GPU\[(\d{1,3})\]\s+:", _one("gpu.smi_index"), "gpu["),
    # a row of rocm-smi's default table, which names no GPU: "1    25.0c  10.0W   852Mhz  167Mhz  14.9%  auto ..." (ROCm
    # 3-5, "GPU Temp AvgPwr SCLK ...") or "0  1  0x74a1,  28851  35.0°C  143.0W  NPS1, SPX, 0  132Mhz ..." (ROCm 6-7)
    (r"^\s*(\d{1,3})\s+(?:\S+\s+){0,3}?\d+(?:\.\d+)?\s?(?:°C|c)\s+(?:N/A|\d+(?:\.\d+)?W)\s.*\d+Mhz\b",
     _one("gpu.smi_index"), "mhz"),
    (r"^ROCm version: \((\d+), (\d+)\)\s*$", lambda m: iter([("torch.hip", f"{m.group(1)}.{m.group(2)}")])),
    (r"^\[Crystools INFO\] CPU: (.+?) - Arch: \S+(?: - OS: (.+?))?\s*$", _many(("host.cpu", 1), ("host.os", 2))),
    # llama.cpp / ggml: "Device 0: NVIDIA GeForce 940MX, compute capability 5.0" (the capability is the sm_ target;
    # a ROCm build prints one made from the gfx target, "AMD Radeon Pro W7800, compute capability 11.0": no sm_)
    (r"Device \d+: (.+?), (?:compute capability (\d+)\.(\d)\b|(gfx[0-9a-f]{3,4})?)", lambda m: iter(
        [("gpu.name", m.group(1)), *([("gpu.arch", f"sm_{m.group(2)}{m.group(3)}")] if m.group(2) and not re.search(
            r"\b(?:AMD|Radeon|Instinct)\b", m.group(1)) else []),
         *([("gpu.arch", m.group(4))] if m.group(4) else [])]),
     "device "),
    (r"^Vulkan\d+: (?!llvmpipe|lavapipe|SwiftShader)((?:[^()]|\((?:TM|R)\))+?) \([^)]*\) \| uma", _one("gpu.name"),
     "vulkan"),
    # llama.cpp's newer Vulkan line: "ggml_vulkan: 0 = AMD Radeon Graphics (RADV GFX1151) (radv) | uma: 1" (Mesa's
    # llvmpipe / lavapipe are the CPU rendering: no GPU)
    (r"^ggml_vulkan: \d+ = (?!llvmpipe|lavapipe|SwiftShader)((?:[^()]|\((?:TM|R)\))+?) "
     r"\((?:RADV (GFX\d{3,4}[A-Z]?)|[^)]*)\)",
     _many(("gpu.name", 1), ("gpu.arch", 2)), "ggml_vulkan"),
    # lspci: "VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 14 [Radeon RX 5500] (rev c5)"
    (r"\b(?:VGA compatible controller|3D controller|Display controller)(?: \[[0-9a-f]{4}\])?: "
     r"(?:Advanced Micro Devices, Inc\. \[AMD/ATI\]|NVIDIA Corporation) (.+)", _lspci, "controller"),
    # clinfo --list: " `-- Device #0: gfx1033"
    (r"\bDevice #\d+: (gfx[0-9a-f]{3,4})\b", _one("gpu.arch"), "device #"),
    (r"ggml_cuda_init: found \d+ (ROCm|CUDA) devices", _one("gpu.library")),
    # SD.Next's platform description: 'Torch 2.1.2+rocm5.6', 'Torch "2.3.0.dev20240218+rocm6.0"'
    (r"\bTorch \"?(\d+\.\d+\.\d+(?:\.?dev\d+)?\+[^\s\"]+)\"?\s*$", _one("torch.version"), "torch "),
    # a build named in a sentence: "torch 2.3.1+rocm5.7 shows hip 5.7 but torch.cuda.is_available() = False"
    (r"\b(?:torch|pytorch|PyTorch)(?:\s+v?|==)(\d+\.\d+\.\d+(?:\.?(?:dev|a|b|rc)\d+)?\+(?:rocm|cu|cpu)[\w.]*?)(?=[\s,;)`]|\.?$)",
     _one("torch.version"), ("torch ", "pytorch ", "torch==")),
    (r"^(?!\s*(?:if|elif|assert|while|return)\b)(?!.*\b(?:expect\w*|should|want\w*|hope\w*)\b).*?"
     r"\btorch\.cuda\.is_available\(\)(?:\)?;?\)?['\"`]{0,2})?\s*(?:(?<![=!<>])=(?!=)|->|returns|prints|outputs|:|"
     r"(?:is able to|now|does|did) return(?:s|ed)?)\s*['\"`]?(True|False|(?<=return )true|(?<=return )false)\b",
     _one("torch.available"),
     "is_available()"),  # what it printed, not a test of it nor what was expected
    # the answer said before the call: "i get False when i run torch.cuda.is_available()"
    (r"^(?!.*\b(?:expect\w*|should|want\w*|hope\w*|instead of)\b).*?\b(?:get|got|getting|returns?|returned|"
     r"shows?|showed|gives?|gave|prints?|printed)\s+['\"`]?(True|False)['\"`]?\s+(?:when|whenever|if|after|on|from|"
     r"running|calling|with)\b[^.!?]{0,30}?\btorch\.cuda\.is_available\(\)",
     _one("torch.available"), "is_available()"),
    (r"\bTorch backend: (?:AMD ROCm HIP|nVidia CUDA|NVIDIA CUDA) (\d\S*)", _one("torch.backend")),
    # SGLang's check_env prints "ROCM available" (and "HIPCC: ...") only where torch.version.hip is set: a ROCm build
    (r"^ROCM available: (True|False)\s*$", lambda m: iter([("torch.available", m.group(1)), ("torch.variant", "rocm")]),
     "rocm available"),
    # InvokeAI: "Using torch device: [AMD Radeon RX 7900 XTX (cuda:0), AMD Radeon 760M Graphics (cuda:1)]" or one name
    (r"\bUsing torch device: \[?(.+?)\]?\s*$", _invoke_devices, "using torch device: "),
    # AI-Benchmark's "*  GPU/0: AMD Instinct MI100": TensorFlow (which it runs on) lists the GPU
    (r"^\W*GPU/\d+:\s*(\S.*?)\s*$", lambda m: iter([("gpu.name", m.group(1)), ("tf.available", "True")]), "gpu/"),
    # TensorFlow's own word on the GPU: the device it created, its device list, the count people print
    (r"Created (?:TensorFlow )?device \(?/job:\S+?/device:GPU:\d+ with \d+ MB memory\)?:?\s*->\s*(?:physical GPU \()?"
     r"device:\s*\d+,\s*name:\s*([^,]*?)\s*,", lambda m: iter([("tf.available", "True"), ("gpu.name", m.group(1))]),
     "device:gpu:"),
    (r"PhysicalDevice\(name='/physical_device:GPU:\d+',\s*device_type='GPU'\)",
     lambda m: iter([("tf.available", "True")]), "physical_device:gpu:"),
    (r"^\W*Num GPUs Available:?\s*(\d+)\b", lambda m: iter([("tf.available", str(m.group(1) != "0"))]),
     "num gpus available"),
    (r"\bIgnoring visible gpu device\b", lambda m: iter([("tf.available", "False")]), "ignoring visible gpu device"),
    (r"\bGPUs? available:?\s*\[\]\s*$", lambda m: iter([("tf.available", "False")]), "available"),
    (r"list_physical_devices\(\s*['\"]GPU['\"]\s*\)\W*\s*(?:isn't|is not|doesn't|does not|can't|cannot|won't) "
     r"(?:able to )?(?:return|find|list|show|detect)", lambda m: iter([("tf.available", "False")]),
     "list_physical_devices"),
    (r"\btf\.__version__\)?\s*(?:#|->|=>|:)?\s*['\"](\d+\.\d+\.\d+[\w.\-]*)['\"]", _one("tf.version"),
     "tf.__version__"),
    (r"\bTF Version:\s*(\d+\.\d+\.\d+[\w.\-]*)", _one("tf.version"), "tf version:"),
    (r"\bGPU device = (?:cuda|xpu)(?::\d+)? (.+?)\s*$",
     lambda m: iter([("gpu.name", m.group(1)), ("torch.available", "True")]), "gpu device = "),  # InvokeAI 3
    # Kohya's and SD.Next's start-up log: torch found the GPU (and uses it)
    (r"\bTorch detected GPU: (.+?)(?:\s+VRAM\b.*?)?(?:\s+Arch \((\d+), (\d)\).*)?$", _torch_detected),
    (r"\bPython (\d+\.\d+\.\d+) on (?:Linux|Windows|linux|win32|darwin)", _one("host.python"), "python "),
    (r"\bPython version is (\d+\.\d+\.\d+)\b", _one("host.python"), "python version is"),
    (r"\bPython: version=(\d+\.\d+\.\d+)\b", _one("host.python"), "python: version="),  # SD.Next's newer log
    (r"\bfor GPU arch\s*:\s*(gfx[0-9a-f]{3,4})", _one("gpu.arch")),
    (r'msg="inference compute".*', _ollama),
    (r"\bregistered device CPU \((.+)\)\s*$", _one("host.cpu"), "registered device cpu"),  # llama.cpp's
    (r"\blibcuda\.so\.(\d{3}\.\d+(?:\.\d+)?)\b", _one("stack.nvidia_driver"), "libcuda.so."),  # the driver's own
    (r"\bconda create\b.*\bpython=(\d\.\d{1,2})\b", _one("host.python"), "conda create"),  # the environment's Python
    (r'msg="(?:hip|cuda) device" .*', _ollama, ("hip device", "cuda device")),  # ollama 0.1: one line per GPU found
    # NVML's own version is the user-space driver's: "NVML library version: 580.159"
    (r"\bNVML library version\s*[:=]?\s*(\d{3}\.\d+(?:\.\d+)?)", _one("stack.nvidia_driver")),
    (r'msg="AMD Driver: (\d+\.\d+(?:\.\d+)?)"', _one("stack.amdgpu_driver")),
    (r"\bCUDA driver version:\s*(\d{2}\.\d)\b", _one("stack.cuda")),  # ollama: the CUDA the driver runs
    (r'server config env="map\[(.*?)\]"', _ollama_env),
    (r"detected amdgpu versions \[[^\]]*\]|gpu_type=gfx[0-9a-f]+|amdgpu \[\d+\] gfx[0-9a-f]+ is not supported", _gfx,
     "gfx"),
    # TensorFlow: "Ignoring visible gpu device (device: 0, name: AMD Radeon RX 6600 XT, pci bus id: ...) with ..."
    (r"Ignoring visible gpu device \(device: \d+, name: ([^,()]+?), pci bus id", _one("gpu.name"),
     "ignoring visible gpu device"),
    (r"\bwith AMDGPU version\s*:\s*(gfx[0-9a-f]{3,4})", _one("gpu.arch")),
    (r"amdgcn-amd-amdhsa--(gfx[0-9a-f]{3,4})\b", _one("gpu.arch"), "amdhsa"),  # rocminfo's Name, MIOpen's ISA
    (r"/rocminfo-rocm-(\d+\.\d+\.\d+)/", _one("stack.rocm"), "rocminfo-rocm-"),
    # a wheel's file name: torch-2.5.1+rocm6.3.2-cp310-cp310-linux_x86_64.whl
    (r"\btorch-(\d+\.\d+\.\d+(?:\+(?:rocm|cu|cpu)[\w.]*)?)-cp\d+", _one("torch.version"), "torch-"),
    # nix-info -m: "host os: `Linux 6.8.7, NixOS, 24.05 (Uakari), 24.05.20240427.58a1abd`"
    (r"host os:\s*`?Linux (\d+\.\d+(?:\.\d+)?[\w.\-+~]*), (NixOS, [\d.]+(?: \([^)]*\))?)",
     _many(("host.kernel", 1), ("host.os", 2))),
)
"""(pattern, what it yields[, its gate: the word, or one of the words, a lower-cased line needs for it to yield
anything, or a pattern the lower-cased line must match, where the pattern has no word that is certain])"""
RULES: tuple[Rule, ...] = tuple((re.compile(row[0]), row[1]) for row in _TABLE)
"""Lines of tool output, read wherever they stand (rank ``TOOL``)."""

Gate = tuple[str, ...] | re.Pattern[str]
"""Words one of which a lower-cased line must hold (none: every line is tried), or a pattern it must match."""


def _gate(row: tuple[Any, ...]) -> Gate:
    given = row[2] if len(row) > 2 else required_word(row[0])
    if isinstance(given, str):
        return (given,) if given else ()
    return given  # type: ignore[no-any-return]


GATES: tuple[Gate, ...] = tuple(_gate(row) for row in _TABLE)
"""Each rule's gate, in the order of ``RULES``."""
_BY_WORD = tuple((word, tuple(i for i, gate in enumerate(GATES) if isinstance(gate, tuple) and word in gate))
                 for word in dict.fromkeys(w for gate in GATES if isinstance(gate, tuple) for w in gate))
"""Each gate word once, with the rules (by position) it opens."""
_WORDS = tuple(word for word, _ in _BY_WORD)
_BY_PATTERN = tuple((gate, tuple(i for i, other in enumerate(GATES) if other is gate))
                    for gate in dict.fromkeys(g for g in GATES if isinstance(g, re.Pattern)))
"""Each gate pattern once, with the rules it opens."""
_UNGATED_AT = tuple(i for i, gate in enumerate(GATES) if gate == ())
_UNGATED = tuple(RULES[i] for i in _UNGATED_AT)
"""The rules tried on every line (none, so far: a test holds that each has a gate)."""

_SYMBOLS = "\u2600-\u27bf\ufe0f\U0001f300-\U0001faff"
"""Symbols and pictographs a script's summary marks its lines with (``🔧 Torch CUDA Available: True``)."""
_FALLBACK: tuple[tuple[Rule, int], ...] = (
    ((re.compile(r"^[\s>*\-•" + _SYMBOLS + r"]*\**\"?(?P<label>[A-Za-z][A-Za-z0-9 _/\-]{0,40}?)\"?\**"
                 r"(?:\s*\(e\.g\.?,?[^)]{0,30}\))?"
                 r"\s*(?:[:：=]|\.{3,})\s*"
                 r"(?P<value>\S.*)$"), _label_line), LABELLED),
    ((re.compile(r"^\s*\|\s*\**(?P<label>[A-Za-z][A-Za-z0-9 /\-]{0,40}?)\**\s*\|\s*(?P<value>[^|]*?\S)\s*\|\s*$"),
      _table_line), LABELLED),  # a Markdown table of two columns: "| ROCm | 4.1.1 |"
    ((re.compile(r"^[\s*\-•]*[A-Za-z0-9][^:=]{0,58}$"), _short_fact), SHORT),
)
"""Lines a person typed, tried only where no tool rule matched: ``Label: value`` and a bare fact."""
_LABEL_STARTS = sorted({re.match(r"[a-z]+", alternative).group(0)  # type: ignore[union-attr]
                        for pattern, _ in _LABELS for alternative in pattern.pattern.lower().split("|")} |
                       {"what", "which", "gpu", "jax"})
_MAYBE_LABELLED = re.compile(r"(?:[\s>*\-•" + _SYMBOLS + r"]*\**\"?|\s*\|\s*\**)(?:" + "|".join(_LABEL_STARTS) + ")",
                             re.IGNORECASE)
"""Where the label of a ``Label: value`` line or a table row begins (the fallback patterns' label, at the start of the
line), the first word of a label :func:`labelled` reads, a question's included: a line without one is no label."""
_MAYBE_HEADING = ("#", "**")
"""What a heading (``### OS``, ``**GPU**``) cannot do without."""

_PRINT_CALL = re.compile(r"\bprint\(\s*((?:torch|jax|jaxlib)\.[\w.]+(?:\([^()]*\))?)\s*\)")
_SAID = re.compile(r"^\s*(?:(?:and\s+)?it\s+|which\s+|that\s+)?(?:gives|returns|prints|outputs|output|result|shows)"
                   r"\s*:?\s*(?P<value>\S*)\s*$", re.IGNORECASE)
"""What a person writes below a print: ``gives`` (the value on the next line), ``returns `False```."""
_OUTPUT_IS = re.compile(r"^\W*(?:and\s+)?(?:this|the|its|my|it)?\s*(?:command'?s\s+)?(?:output|result|answer)\b"
                        r"[^:]{0,30}?\bis\s*:?\s*[`'\"]?(?P<value>True|False)[`'\"]?\W*$", re.IGNORECASE)
"""A sentence below a print that says what it printed: ``-And this command's output for me is: False``."""
_BARE_LABEL = re.compile(r"^\s*[A-Za-z][A-Za-z /()\-]{1,38}$")
"""A line that can be a label alone (no digit, no colon): an issue form's question copied as plain text."""
_TOO_GENERIC = frozenset({"system", "platform", "device", "card", "hardware", "graphics", "architecture", "python",
                          "torch", "pytorch", "jax", "cuda", "rocm", "kernel", "accelerator"})
"""Words that stand alone on a line for many reasons besides asking for a value below."""
_HEADING = re.compile(r"^\s*(?:#{2,6}\s+(?P<a>[^#].{0,60}?)|\*\*(?P<b>[^*]{1,60}?):?\*\*:?)\s*$")
"""An issue form's question (``### Operating System``) whose answer is the next line with text."""

ENV_NAMES = ("HSA_OVERRIDE_GFX_VERSION", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
             "GPU_DEVICE_ORDINAL", "PYTORCH_ROCM_ARCH", "HCC_AMDGPU_TARGET", "ROCM_PATH", "HIP_PATH", "CUDA_HOME",
             "JAX_PLATFORMS", "OLLAMA_LLM_LIBRARY", "XLA_FLAGS", "LLVM_PATH", "HIP_PLATFORM",
             "TORCH_BLAS_PREFER_HIPBLASLT",
             "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "DS_ACCELERATOR")
"""Environment variables that change what the GPU stack does."""
_ENV_VALUE = {"HSA_OVERRIDE_GFX_VERSION": r"\d+\.\d+\.\d+|gfx[0-9a-f]{3,4}",  # a gfx name: a common mistake
              "HIP_VISIBLE_DEVICES": r"[\w,\-]+",
              "ROCR_VISIBLE_DEVICES": r"[\w,\-]+", "CUDA_VISIBLE_DEVICES": r"[\w,\-]+", "GPU_DEVICE_ORDINAL": r"[\d,]+"}
_ENV = re.compile(r"(?:^|[\s;'\"(])(?:(?:export\s+)?(?P<name>" + "|".join(ENV_NAMES) + r")\s*=\s*"
                  r"|(?:set\s+(?:-x\s+|-gx\s+|-Ux\s+)?|\$env:)(?P<name2>" + "|".join(ENV_NAMES) + r")(?:\s*=\s*|\s+))"
                  r"[\"']?(?P<value>[\w.:,/\\\-]+)")


_ENV_GATE = re.compile("|".join(ENV_NAMES))


def _environment(line: str) -> Iterator[Found]:
    for match in _ENV.finditer(line):
        name, value = match.group("name") or match.group("name2"), match.group("value")
        shape = _ENV_VALUE.get(name)
        if shape is None or re.fullmatch(shape, value):
            yield f"env.{name}", value


_PROSE_OS = re.compile(r"(?<![A-Za-z0-9_:/.\-])(?:(Ubuntu|Debian|Fedora|Rocky Linux|CentOS|Linux Mint|openSUSE Leap|"
                       r"RHEL|Pop!_OS|Windows|WSL2? Ubuntu)(?: Server)?(?:\s+v?|(?<=[a-z])(?=\d))\d+(?:\.\d+)*"
                       r"(?:\s+LTS)?|"
                       r"Gentoo Linux|Arch Linux|NixOS)\b", re.IGNORECASE)
"""A distribution and its release in a sentence; the name may stand right after text in a script without spaces
(``装centos8``) or have its release written on (``centos8``, ``rhel9``)."""
_UBUNTU_RELEASE = re.compile(r"\d{2}(?:\.(?:04|10)(?:\.\d+)?)?(?:\s+LTS)?$")
"""What follows an Ubuntu release's name: ``22.04``, ``24.04.2 LTS``, ``20`` (a year's number alone)."""
_MAYBE_PROSE_OS = Caseless.of(re.compile(r"ubuntu|debian|fedora|rocky linux|centos|linux mint|opensuse leap|rhel|"
                                          r"pop!_os|windows|wsl|gentoo linux|arch linux|nixos", re.IGNORECASE))
"""The names ``_PROSE_OS`` reads, without what must stand around them."""
_PROSE_ROCM = re.compile(r"(?<![/\w.\-+])ROCm(?:\s+(?:version|support))?(?:\s+is)?(?:\s*|-(?=\d))"
                         r"\(?v?(\d+\.\d+(?:\.\d+)?)\b", re.IGNORECASE)
"""A ROCm release named in a sentence, not in a path or URL (``.../whl/rocm5.4.2`` is the torch build's)."""
_PROSE_HIP_SDK = re.compile(r"\bHIP SDK\s+(?:version\s+)?v?(\d+\.\d+(?:\.\d+)?)\b", re.IGNORECASE)
"""AMD's HIP SDK for Windows named with its release ("the latest AMD HIP SDK 6.4"), which is the ROCm release."""
_PROSE_CUDA = re.compile(r"(?<![/\w.\-+])(torch[- ]|pytorch[- ])?CUDA(?:\s+version)?\s+is\s+v?(\d{1,2}\.\d)\b",
                         re.IGNORECASE)
"""CUDA named in a sentence with its release ("my CUDA is 12.1"); "torch-cuda is 11.8" is the torch build's."""
_MODULE = re.compile(r"(?<![\w/.\-])(rocm|pytorch|torch)/(\d+\.\d+(?:\.\d+)?)(?![\w/+]|\.\w)", re.IGNORECASE)
"""An environment module named with its version, as HPC clusters load them (``module load rocm/5.2.3``), not a
path or a URL (``/opt/rocm/...``, ``.../whl/rocm6.0``)."""
_PROSE_TORCH = re.compile(r"\b(?:py)?torch\b[^()\n]{0,30}?\((?:[\w ]{0,20}:\s*)?v?(\d+\.\d+(?:\.\d+)?"
                          r"(?:\.dev\d+|a0|rc\d+)?\+(?:cu\d{2,3}|rocm\d+(?:\.\d+)*(?:rc\d+)?|cpu|xpu))(?=[\s),])",
                          re.IGNORECASE)
"""A torch build named in brackets after the word (``the latest PyTorch nightly (2.6.0.dev20241112+cu121)``, ```pip
show torch` (this says: 2.7.0a0+rocm7.0.0rc20250717 for now)``): the build's tag makes it torch's version."""
_PROSE_PYTHON = re.compile(r"\b(?:using|running|with|on)\s+Python\s+(3\.\d+(?:\.\d+)?)\b(?!\.\d)", re.IGNORECASE)
_PROSE_KERNEL = re.compile(r"\b(\d+\.\d+\.\d+-\d+(?:\.\d+)*-(?:generic|lowlatency|azure|aws|gcp|oem|amd64|"
                           r"microsoft-standard-WSL2)|\d+\.\d+\.\d+\.\d+-microsoft-standard-WSL2)\b")
"""A kernel release in a sentence: a distribution's build (``6.8.0-45-generic``) or WSL's (``6.6.87.2-microsoft-
standard-WSL2``)."""


_MAYBE_PROSE = re.compile(word_trie(frozenset((
    "ubuntu", "debian", "fedora", "rocky", "centos", "mint", "suse", "rhel", "pop!_os", "windows", "wsl", "gentoo",
    "arch linux", "nixos", "rocm", "generic", "lowlatency", "azure", "aws", "gcp", "oem", "amd64", "gfx", "radeon",
    "instinct", "firepro", "geforce", "tesla", "quadro", "titan", "nvidia", "amd", "h200", "b200", "l40", "a800",
    "h800", "python", "cuda is", "cuda version is", "torch", "kernel", "ryzen", "fx-", "hip sdk"))))
_MAYBE_PROSE_MODEL = re.compile(r"r(?<=\br)x ?\d|m(?<=\bm)i-?\d|w(?<=\bw)\d{4}|\d ?xt|[ahv](?<=\b[ahv])100|"
                                r"i(?<=\bi)[3579]-\d{4}")
"""A sentence (lower-cased) that can mention anything ``prose`` reads holds one of the words or a model's letters and
digits at a word's start (most hold none, and are skipped at once). Each model's pattern begins with its letter, the
word boundary tested behind it: the engine then looks only where such a letter stands (several times faster than a
pattern beginning with the boundary)."""
_DIGIT = re.compile(r"\d")
_CODE_SPAN = re.compile(r"`([^`\n]{3,120})`")


_PROSE_KERNEL_SAID = re.compile(r"(?<![\w-])(?:linux\s+)?kernel\s+v?(\d\.\d{1,2}\.\d{1,3}(?:-[\w.+~]*\w)?)(?!\w|\.\w)",
                                re.IGNORECASE)
"""A kernel release named as one in a sentence: "DKMS fails on kernel 6.15.8" (a release of three parts, as ``uname
-r`` prints it; "kernel 6.8" names a series, not a release)."""
_KERNEL_SUFFIXES = ("-generic", "-lowlatency", "-azure", "-aws", "-gcp", "-oem", "-amd64", "-microsoft-standard-WSL2")
"""What every kernel release ``_PROSE_KERNEL`` reads ends with."""
_PROSE_PAIRED = re.compile(r"\b((?:AMD |NVIDIA )?(?:Radeon|Instinct|GeForce)[\w ()]{1,40}?)\s*\((gfx[0-9a-f]{3,4})\)")
_PROSE_GFX = re.compile(r"\bgfx[0-9a-f]{3,4}\b")


_PROSE_CPU = re.compile(r"(?<![\w-])(?:(?:Intel(?:\(R\))?\s+)?(?:Core(?:\(TM\))?\s+)?i[3579]-\d{4,5}[A-Z]{0,3}|"
                        r"(?:AMD\s+)?Ryzen\s+(?:AI\s+)?[3579]\s+(?:PRO\s+)?\d{3,4}[A-Z0-9]{0,3}|(?:AMD\s+)?FX-\d{4}[A-Z]?)"
                        r"(?![\w-])")
"""A desktop or laptop CPU by its model number in a sentence or a list of parts: ``i9-13900KF``, ``(i5-10500 + RX570
8GB)``, ``AMD Ryzen 9 7950X``, ``AMD FX-9830P``."""


def prose(line: str) -> Iterator[Found]:
    """Facts mentioned in a sentence (rank ``PROSE``): a distribution with its version, a ROCm release, a kernel
    release, a GPU by name (with a count), a gfx target."""
    if len(line) > LINE_CUT:
        line = line[:LINE_CUT]
    if _MAYBE_PROSE_OS.found(line):
        for match in _PROSE_OS.finditer(line):
            if match.group(1) and match.group(1).lower().endswith("ubuntu") and not _UBUNTU_RELEASE.search(
                    match.group(0)):
                continue  # "(Ubuntu 13.3.0-6ubuntu2~24.04)": gcc's version, not an Ubuntu release
            yield "host.os", match.group(0)
    lowered = line.lower()  # each pattern below is tried only where the word it needs stands
    for match in _PROSE_ROCM.finditer(line) if "rocm" in lowered else ():
        yield "stack.rocm", match.group(1)
    for match in _PROSE_HIP_SDK.finditer(line) if "hip sdk" in lowered else ():
        yield "stack.rocm", match.group(1)
    for match in _PROSE_CUDA.finditer(line) if "cuda" in lowered else ():
        yield ("torch.cuda" if match.group(1) else "stack.cuda"), match.group(2)
    for match in _PROSE_KERNEL.finditer(line) if any(word in line for word in _KERNEL_SUFFIXES) else ():
        yield "host.kernel", match.group(1)
    for match in _PROSE_KERNEL_SAID.finditer(line) if "kernel" in lowered else ():
        yield "host.kernel", match.group(1)
    for match in _PROSE_TORCH.finditer(line) if "torch" in lowered and "+" in line else ():
        yield "torch.version", match.group(1)
    for match in _PROSE_PYTHON.finditer(line) if "python" in lowered else ():
        yield "host.python", match.group(1)
    for match in _MODULE.finditer(line) if "/" in line else ():  # HPC modules: "pytorch/1.13.0 ... rocm/5.2.3"
        yield ("stack.rocm" if match.group(1).lower() == "rocm" else "torch.version"), match.group(2)
    paired = _PROSE_PAIRED.search(line) if "(gfx" in line else None
    if paired:
        yield "gpu.named", paired.group(1).strip(), 1
        yield "gpu.arch", paired.group(2)
    for name, count in gpu_mentions(line):
        yield "gpu.named", name, count
    for target in _PROSE_GFX.findall(line) if "gfx" in line else ():
        yield "gpu.arch", normalise_gfx_name(target)
    for match in _PROSE_CPU.finditer(line) if "-" in line or "yzen" in line else ():
        yield "host.cpu", match.group(0)


def _clue(found: Found, number: int, rank: int) -> Clue | None:
    field, value = found[0], found[1]
    if not value:
        return None
    return Clue(field, value, number, rank, found[2] if len(found) == 3 else 1)


@dataclass(frozen=True)
class LineGates:
    """Which rules can match each line (by number in the paste), and which lines can hold a heading: each
    found by one search of all the lines, so the line loop skips the tests that cannot succeed."""

    rules: dict[int, tuple[Rule, ...]]
    """The rules whose gate a line passes, in their order (a line not here: the ungated rules only)."""
    headings: frozenset[int]

    @classmethod
    def of(cls, lines: Sequence[str], first_line: int = 1, joined: JoinedLines | None = None) -> LineGates:
        """The gates of ``lines``; ``joined`` (:func:`joined_for_gates` of the same lines) when already made."""
        lowered = joined_for_gates(lines) if joined is None else joined
        by_word = lowered.where_words([*_WORDS, *_MAYBE_HEADING])
        opened: dict[int, list[int]] = {}
        for word, indexes in _BY_WORD:
            for index in by_word[word]:
                opened.setdefault(index, []).extend(indexes)
        for pattern, indexes in _BY_PATTERN:
            for index in lowered.where(pattern):
                opened.setdefault(index, []).extend(indexes)
        chosen: dict[tuple[int, ...], tuple[Rule, ...]] = {}  # lines that open the same rules share one tuple
        rules = {}
        for index, found in opened.items():
            key = tuple(found)
            if key not in chosen:
                chosen[key] = tuple(RULES[i] for i in sorted({*found, *_UNGATED_AT}))
            rules[first_line + index] = chosen[key]
        return cls(rules, frozenset(first_line + i for word in _MAYBE_HEADING for i in by_word[word]))


def joined_for_gates(lines: Sequence[str]) -> JoinedLines:
    """The lines as the gates read them: lower-cased (the heading and label marks have no case), the first 2,000
    characters of each."""
    return JoinedLines.of(cut_lines(lines))


def clues(lines: list[str] | tuple[str, ...], first_line: int = 1, *, is_prose: bool = False, mixed: bool = False,
          command_lines: int = 0, gates: LineGates | None = None) -> Iterator[Clue]:
    """Every fact the rules find, line by line (``first_line`` is the number of ``lines[0]`` in the paste). In prose
    (``is_prose``) sentences are read for mentions too, also where a tool rule found something in them; in prose
    ``mixed`` with a tool's output, only the lines no tool rule reads are. The first ``command_lines`` lines are
    commands, read for environment variables and tool-shaped facts only. ``gates`` (computed once for a whole paste,
    by line number) spares computing them here. A command is a part of the line it stands on (after its prompt): the
    rules that line opens include every rule the command opens, unless the command reaches past the 2,000 characters
    the gates read of a line; such a command gets its own."""
    if lines and max(map(len, lines)) > LINE_CUT:
        lines = cut_lines(lines)
    if gates is None:
        gates = LineGates.of(lines, first_line)
    own = LineGates.of(lines[:command_lines], first_line) if any(
        len(line) > 1000 for line in lines[:command_lines]) else gates
    for offset, line in enumerate(lines[:command_lines]):  # a command: tool-shaped facts and variables only
        number = first_line + offset
        for pattern, take in own.rules.get(number, _UNGATED):
            if match := pattern.search(line):
                yield from filter(None, (_clue(item, number, TOOL) for item in take(match)))
        if "_" in line and _ENV_GATE.search(line):
            yield from (Clue(item[0], item[1], number, TOOL) for item in _environment(line))
    yield from _read_lines(lines[command_lines:], first_line + len(lines[:command_lines]), gates, is_prose, mixed)


def _read_lines(lines: Sequence[str], first_line: int, gates: LineGates, is_prose: bool,
                mixed: bool = False) -> Iterator[Clue]:
    """The clues of lines that are not commands (:func:`clues`), each tried only with what can match it."""
    question = ""
    printed_expr, printed_at, awaiting = "", 0, ""  # a print(...) seen above, and "gives" said of it
    rules_of, headings = gates.rules.get, gates.headings
    (label_rule, label_take), (table_rule, table_take), (short_rule, short_take) = (rule for rule, _ in _FALLBACK)
    for number, line in enumerate(lines, first_line):
        found_here = False
        for pattern, take in rules_of(number, _UNGATED):
            if match := pattern.search(line):
                for item in take(match):
                    if (clue := _clue(item, number, TOOL)) is not None:
                        found_here = True
                        yield clue
        if "_" in line and _ENV_GATE.search(line):
            for item in _environment(line):
                found_here = True
                yield Clue(item[0], item[1], number, TOOL)
        if number in headings and (heading := _HEADING.match(line)):
            question = (heading.group("a") or heading.group("b") or "").strip()
            if not is_read_label(question):
                question = ""  # a heading no label is read under: its answer is read as any line
            continue
        if "print(" in line and (call := _PRINT_CALL.search(line)) and printed_field(call.group(1)):
            printed_expr, printed_at = call.group(1), number
        elif awaiting and line.strip():
            known, awaiting = printed_field(printed_expr), ""
            if known and (value := fitted(line.strip().strip("`'\" "), known[1])) is not None:
                found_here = True
                yield Clue(known[0], value, number, LABELLED)
                continue
        elif printed_expr and number - printed_at <= 2 and "is" in line and (
                output := _OUTPUT_IS.match(line)) and (known := printed_field(printed_expr)) and (
                taken := fitted(output.group("value"), known[1])) is not None:
            found_here = True
            yield Clue(known[0], taken, number, LABELLED)
            continue
        elif printed_expr and number - printed_at <= 4 and len(line) <= 40 and (said := _SAID.match(line)):
            known = printed_field(printed_expr)
            value = said.group("value").strip().strip("`'\" ")
            if not value:  # "gives", then the value on a line of its own
                awaiting = printed_expr
                continue
            if known and (taken := fitted(value, known[1])) is not None:
                found_here = True
                yield Clue(known[0], taken, number, LABELLED)
                continue
        if question and line.strip():
            for item in labelled(question, line):
                if (clue := _clue(item, number, LABELLED)) is not None:
                    found_here = True
                    yield clue
            question = ""
        if not found_here and len(line) <= 40 and is_prose and _BARE_LABEL.match(line) and (
                line.strip().lower() not in _TOO_GENERIC and is_read_label(line.strip())):
            question = line.strip()  # an issue form copied as text: "ROCm Version", a blank line, "rocm-6.4.3"
            continue
        if not found_here and len(line) <= 200:  # the fallbacks, each tried (a label line may also be a bare fact)
            if (":" in line or "=" in line or "|" in line or "..." in line or "：" in line) and (
                    _MAYBE_LABELLED.match(line)):  # a label's mark, and a label
                for pattern, take in ((label_rule, label_take), (table_rule, table_take)):
                    if match := pattern.search(line):
                        for item in take(match):
                            if (clue := _clue(item, number, LABELLED)) is not None:
                                found_here = True
                                yield clue
                if " | " in line and line.count(":") > 1 and not line.lstrip().startswith("|"):
                    # a one-line summary: "Python: 3.12.3 | PyTorch: 2.9.1+cu130 | GPU: NVIDIA GeForce RTX 5090"
                    for part in line.split(" | ")[1:]:
                        if match := label_rule.search(part):
                            for item in label_take(match):
                                if (clue := _clue(item, number, LABELLED)) is not None:
                                    found_here = True
                                    yield clue
            if len(line) <= 64 and (match := short_rule.search(line)):
                for item in short_take(match):
                    if (clue := _clue(item, number, SHORT)) is not None:
                        found_here = True
                        yield clue
        if is_prose and not found_here and line.count("`") >= 2 and ":" in line:
            for span in _CODE_SPAN.findall(line):  # "I still get `Is CUDA available: False`": a tool's line quoted
                if ":" not in span:
                    continue
                tried = [rule for rule in RULES if rule[0].search(span)] or (
                    [(label_rule, label_take)] if _MAYBE_LABELLED.match(span) else [])
                for pattern, take in tried:
                    if match := pattern.search(span):
                        for item in take(match):
                            if (clue := _clue(item, number, LABELLED)) is not None:
                                found_here = True
                                yield clue
        if is_prose and not (mixed and found_here) and (_DIGIT.search(line) or "linux" in (lowered := line.lower()) or
                                            "nixos" in lowered) and (_MAYBE_PROSE.search(lowered := line.lower()) or
                                                                     _MAYBE_PROSE_MODEL.search(lowered)):
            for item in prose(line):
                if (clue := _clue(item, number, PROSE)) is not None:
                    yield clue
