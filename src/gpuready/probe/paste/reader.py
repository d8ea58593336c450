"""Read a whole paste: its sections are classified and parsed (whole outputs by the structured parsers, fragments
by line clues), known error lines are collected, and everything merges into one ``Fingerprint`` whose facts say
which lines they came from. Two sections that disagree keep both values as a ``Conflict``. Nothing is dropped
silently: every section is listed with what it was recognised as, ``unrecognised`` included."""

from __future__ import annotations

import dataclasses
import functools
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from packaging.version import InvalidVersion, Version

from gpuready.errors import InputError, ParseError
from gpuready.model import (
    BuildVariant,
    Conflict,
    Device,
    ErrorSeen,
    Fact,
    Fingerprint,
    Framework,
    Host,
    Package,
    ProbeNote,
    SectionNote,
    Stack,
    Vendor,
)
from gpuready.model.build import variant_of
from gpuready.probe.parse.kfd import normalise_gfx_name
from gpuready.probe.parse.os_release import parse_os_name
from gpuready.probe.parse.records import cut_inside_a_word
from gpuready.probe.paste.clues import (
    LABELLED,
    TOOL,
    Clue,
    LineGates,
    clues,
    fitted,
    joined_for_gates,
    looks_like_cpu,
    printed_field,
)
from gpuready.probe.paste.errors import ErrorIndex, errors_in
from gpuready.probe.paste.kinds import ReportKind, detect_kind, fingerprint_of_kind
from gpuready.probe.paste.lightning import lightning_details
from gpuready.probe.paste.listing import listed, shown_packages
from gpuready.probe.paste.prefilter import LINE_CUT, JoinedLines, required_word
from gpuready.probe.paste.repl import printed
from gpuready.probe.paste.segment import Section, clean_lines, segment_lines

_COMMANDS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), kind) for p, kind in (
    (r"collect_env", "collect-env"),
    # a package manager's command names the packages it lists: "dpkg -l nvidia-smi" lists packages, not GPUs
    (r"^\s*(?:sudo\s+)?(?:dpkg|apt|apt-get|apt-cache|rpm|dnf|yum|pacman|zypper)\b", "package-list"),
    (r"\brocminfo\b.*\|\s*(grep|egrep|rg|head|tail)", "rocminfo-fragment"),
    (r"\brocminfo\b", "rocminfo"),
    (r"\brocm-smi\b.*--json", "rocm-smi"),
    (r"\brocm-smi\b", "rocm-smi-text"),
    (r"\bamd-smi\s+version\b", "amd-smi-version"),
    (r"\bamd-smi\s+static\b.*--json", "amd-smi-static"),
    (r"\bamd-smi\s+list\b", "amd-smi-list"),
    (r"\bamd-smi\s*$", "amd-smi-default"),  # no command: the default table (ROCm 7.0 on; earlier ones print help)
    (r"\bamd-smi\b", "amd-smi-text"),
    (r"\bnvidia-smi\b.*--query-gpu", "nvidia-smi-csv"),
    (r"\bnvidia-smi\b.*\s-q\b", "nvidia-smi-q"),
    (r"\bnvidia-smi\s+topo\b", "topology"),
    (r"\bnvidia-smi\b", "nvidia-smi-table"),
    (r"\bnvcc\b", "nvcc"),
    (r"\bpip\d?\s+(list|freeze)\b", "pip-list"),
    (r"\bpip\d?\s+install\b", "pip-install"),
    (r"\bpip\d?\s+show\b", "pip-show"),
    (r"\b(amdgpu-arch|offload-arch)\b", "amdgpu-arch"),
    (r"\brocm-sdk\s+targets\b", "rocm-sdk-targets"),
    (r"\bmodinfo\b", "modinfo"),
    (r"\bconda\s+list\b", "conda-list"),
    (r"\buname\b", "uname"),
    (r"os-release", "os-release"),
    (r"lsb_release|lsb-release", "lsb-release"),
    (r"\.info/version", "rocm-version-file"),
    (r"\bhipconfig\b", "hipconfig"),
    (r"\b(dpkg|apt|apt-get|rpm|dnf|yum)\b", "package-list"),
    (r"\blspci\b", "lspci"),
    (r"\b(dmesg|journalctl)\b", "kernel-log"),
    (r"\bclinfo\b", "clinfo"),
    (r"\bvulkaninfo\b", "vulkaninfo"),
    (r"\bollama\b", "ollama-log"),
    (r"\b(transformers-cli|diffusers-cli|accelerate)\s+env\b", "hf-env"),
    (r"\bds_report\b", "ds-report"),
    (r"^\s*(?:\w+=\S*\s+)*(\S*python\d?(\.\d+)?\s+-c|import |print\(|torch\.|jax\.|jaxlib\.|sys\.|platform\.)",
     "python-print"),
    (r"^\s*(?:\w+=\S*\s+)*(sudo\s+)?\S*python\d?(\.\d+)?\s*$", "python-session"),
))
STRUCTURED = {"collect-env", "rocminfo", "rocm-smi", "amd-smi-version", "amd-smi-static", "amd-smi-list",
              "amd-smi-default", "nvidia-smi-csv", "topology", "os-release", "lsb-release", "rocm-version-file",
              "nvidia-proc-version"}
_VLLM_LINE = re.compile(r"^(\s*[A-Za-z][\w ()/.\-]*?[\w)])\s{2,}:\s?(.*)$")


_PYTORCH_LINE = re.compile(r"^\s*PyTorch version\s*:", re.MULTILINE)
_NVIDIA_SMI = re.compile(r"NVIDIA-SMI \d")
_MARKETING = re.compile(r"^\s*Marketing Name\s*:", re.MULTILINE)
_OLLAMA = re.compile(r"source=\S+\.go:\d+ msg=")


_COMMANDS_BY_WORD = tuple((pattern, kind, required_word(pattern.pattern)) for pattern, kind in _COMMANDS)


def classify(section: Section) -> tuple[str, float]:
    """What a section is: from its command when the paste shows one, else from its content."""
    if section.command:
        lowered = section.command.lower() if section.command.isascii() else None
        for pattern, kind, word in _COMMANDS_BY_WORD:  # on ASCII, only after the word the pattern needs
            if (lowered is None or word in lowered) and pattern.search(section.command):
                return kind, 0.9
    text = section.text
    if "PyTorch version" in text and _PYTORCH_LINE.search(text):
        return "collect-env", 0.9
    found = detect_kind(text) if len(text) < 4_000_000 else None
    if found is ReportKind.ROCM_VERSION_FILE and section.command:  # a bare version that another command printed
        found = None  # ("(Get-WmiObject Win32_OperatingSystem).Version" -> 10.0.22631)
    if found is not None and found is not ReportKind.RUN:
        return found.value, 0.7
    if "NVIDIA-SMI" in text and _NVIDIA_SMI.search(text):
        return "nvidia-smi-table", 0.8
    if "ROCm System Management Interface" in text:
        return "rocm-smi-text", 0.8
    if "Marketing Name" in text and _MARKETING.search(text):
        return "rocminfo-fragment", 0.6
    if "msg=" in text and _OLLAMA.search(text):
        return "ollama-log", 0.8
    if "Traceback (most recent call last)" in text:
        return "traceback", 0.8
    return "unrecognised", 0.0


def _collect_env_text(text: str) -> str:
    """vLLM's (and others') aligned ``Key    : value`` layout as torch's ``Key: value``."""
    if not re.search(r"^\s*PyTorch version\s{2,}:", text, re.MULTILINE):
        return text
    return "\n".join(_VLLM_LINE.sub(lambda m: f"{m.group(1).strip()}: {m.group(2)}", line) for line in text.split("\n"))


def _structured(kind: str, section: Section, origin: str) -> Fingerprint | None:
    if kind not in STRUCTURED:
        return None
    text = _collect_env_text(section.text) if kind == "collect-env" else section.text
    try:
        return fingerprint_of_kind(ReportKind(kind), text, origin, origin)
    except (ParseError, InputError, ValueError, RecursionError, OverflowError):
        return None


@functools.cache
def _field_names(kind: Any) -> tuple[str, ...]:
    """A dataclass's field names (``dataclasses.fields`` builds them anew at each call); () for any other type."""
    return tuple(f.name for f in dataclasses.fields(kind)) if dataclasses.is_dataclass(kind) else ()


_LEAVES = frozenset({str, int, float, bool, type(None)})
"""Types that hold no Fact: a labelling walk does not descend into them."""


def _label(value: Any, label: str) -> Any:
    """Every ok Fact inside ``value`` (a dataclass tree) marked with the section it came from; a part of the tree
    with nothing to mark is the same object, not a copy."""
    kind: Any = type(value)
    if kind is Fact:
        return dataclasses.replace(value, section=label) if value.ok and not value.section else value
    if kind is tuple:
        items = tuple(item if type(item) in _LEAVES else _label(item, label) for item in value)
        return value if all(new is old for new, old in zip(items, value, strict=True)) else items
    changes = {}
    for name in _field_names(kind):
        old = getattr(value, name)
        if type(old) not in _LEAVES and (new := _label(old, label)) is not old:
            changes[name] = new
    return dataclasses.replace(value, **changes) if changes else value


def _version_fact(clue: Clue | None, labels: dict[int, str]) -> Fact[Version]:
    """A clue's version as a Version (absent where there is none, or it is not a version)."""
    if clue is not None:
        try:
            return Fact.of(Version(clue.value), "paste", section=labels.get(clue.line, f"line {clue.line}"))
        except InvalidVersion:
            pass
    return Fact.absent("paste", "not in the paste")


def _first(found: dict[str, list[Clue]], field: str) -> Clue | None:
    """The best-ranked clue of a field, the earliest on a tie."""
    return min(found[field], key=lambda c: (c.rank, c.line)) if found.get(field) else None


def _precise(found: dict[str, list[Clue]], field: str) -> Clue | None:
    """The best-ranked clue of a version field, or a more precise one that agrees with it: a traceback's
    ``/lib/python3.8/site-packages`` says 3.8, and ``I am running Python 3.8.10`` in a sentence says which 3.8."""
    best = _first(found, field)
    if best is None:
        return None
    finer = [c for c in found[field] if c.value.startswith(best.value + ".")]
    return min(finer, key=lambda c: (c.rank, c.line)) if finer else best


def _fact(clue: Clue | None, source: str, labels: dict[int, str]) -> Fact[str]:
    if clue is None:
        return Fact.absent(source, "not in the paste")
    return Fact.of(clue.value, source, section=labels.get(clue.line, f"line {clue.line}"))


def clean_gpu_name(name: str) -> str:
    """A GPU name without what stands around it on the line: ``Radeon RX 7900 XTX (gfx1100)``, a cut-off
    ``Radeon RX 7900 XTX (gfx1``, ``gfx1100 — Radeon RX 7900 XTX`` and a next label run onto the line
    (``Radeon RX 7900 XTX      Name:   gfx1100``) -> ``Radeon RX 7900 XTX``."""
    name = re.sub(r"\s{3,}[A-Z][\w ]{0,30}:.*$", "", name.strip())  # lines run together: "... Graphics     Name: ..."
    name = name.removesuffix("NoGCNArchNameOnOldPyTorch")  # what torch's ROCm builds before 1.12 append to a name
    name = re.sub(r"^(?:gfx[0-9a-f]{3,4}|sm_\d{2,3})\s*[-\u2013\u2014:]\s+", "", name)  # "gfx1103 — AMD Radeon 780M"
    name = re.sub(r"(?<=[\w)])[.,;]+$", "", name)  # a sentence's full stop: "GPU: Radeon RX 7600 XT (gfx1102)."
    name = re.sub(r"(?<=-\d[ABCQ]|\d\d[ABCQ])\s+\d{1,3}\s?GB$", "", name)  # a vGPU profile's memory: "L40S-24Q 24GB"
    name = re.sub(r"(?i)\s+\d{1,3}\s?GB\s+(?:of\s+)?(?:VRAM|memory)$", "", name)  # "Radeon VII 16GB vram"
    name = re.sub(r"\s+[\u2013\u2014]\s+[a-z][\w ,]{0,30}$", "", name)  # "Radeon 8060S (gfx1151) — integrated"
    return re.sub(r"\s*\((?!TM\))[^)]*\)?\s*$", "", name).strip() or name.strip()


def _device(index: int, name: Clue | None, arch: Clue | None, labels: dict[int, str]) -> Device:
    text = f"{name.value if name else ''} {arch.value if arch else ''}"
    vendor = Vendor.AMD if re.search(r"gfx|AMD|Radeon|Instinct|\bMI-?\d|\bRX\s?\d{3,5}\b", text, re.IGNORECASE) else (
        Vendor.NVIDIA if re.search(r"NVIDIA|GeForce|Tesla|Quadro|RTX|GTX|sm_|\b[VAHBL]\d{2,3}\b", text,
                                   re.IGNORECASE) else Vendor.OTHER)
    named = dataclasses.replace(name, value=clean_gpu_name(name.value)) if name is not None else None
    return Device(index, vendor, name=_fact(named, "paste", labels),
                  arch=Fact.of(normalise_gfx_name(arch.value), "paste", section=labels.get(arch.line, ""))
                  if arch else Fact.absent("paste"), sources=("paste",))


def _devices(found: dict[str, list[Clue]], labels: dict[int, str],
             conflicts: list[Conflict]) -> tuple[Device, ...]:
    """The GPUs a tool listed; where no tool did, the GPU the person named (``4x MI210`` is four), the
    best-ranked name first, other names kept as a conflict."""
    listed = _listed([c for c in found.get("gpu.name", []) + found.get("agent.marketing", [])
                      if not _is_cpu_name(c.value) and not _cut_short(c.value)], labels)
    archs = _unique(sorted(found.get("gpu.arch", []), key=lambda c: (c.rank, c.line)))
    tool_archs = [c for c in archs if c.rank == TOOL]
    if listed:
        archs = tool_archs or (archs if len(archs) == len(listed) else archs[:1])  # "GPU 0: ... (gfx906)" per line
        count = max(len(listed), len(archs))
        # one target shown for several GPUs is each one's only when they are one model (an iGPU's is not a dGPU's)
        alike = len({_key(c.value) for c in listed}) == 1
        return tuple(_device(i, listed[i] if i < len(listed) else None,
                             archs[i] if i < len(archs) else (archs[0] if len(archs) == 1 and alike else None), labels)
                     for i in range(count))
    pci = sorted({c.line: c for c in found.get("gpu.pci", []) if not _cut_short(c.value)}.values(),
                 key=lambda c: c.line)  # two lines of one model are two GPUs
    if pci:  # lspci's display controllers: one GPU each; a gfx target only where the counts pair them
        archs = tool_archs or archs
        paired = archs if len(archs) == len(pci) else archs[:1] if len(pci) == 1 else []
        return tuple(_device(i, clue, paired[i] if i < len(paired) else None, labels) for i, clue in enumerate(pci))
    named = sorted((c for c in found.get("gpu.named", []) if not _is_cpu_name(c.value) and not _cut_short(c.value)),
                   key=lambda c: (c.rank, c.line))
    if not named:
        archs = tool_archs or archs[:1]
        if not archs and (smi := sorted({c.value for c in found.get("gpu.smi_index", [])}, key=int)):
            return tuple(Device(i, Vendor.AMD, sources=("paste",)) for i in range(len(smi)))  # rocm-smi's GPU[0] ...
        return tuple(_device(i, None, arch, labels) for i, arch in enumerate(archs))
    best = named[0]
    together = _unique([c for c in named if c.line == best.line and c.rank == best.rank])
    if len({_key(c.value) for c in together}) > 1:  # "GPU: Radeon 8060S + R9700 Pro": one GPU each, and no target
        return tuple(_device(i, clue, None, labels) for i, clue in enumerate(together))  # known to be either one's
    others = sorted({c.value for c in named if _key(c.value) != _key(best.value) and c.rank <= best.rank + 1})
    if others:
        conflicts.append(Conflict("gpu", (best.value, *others), tuple(labels.get(c.line, f"line {c.line}")
                                                                      for c in named[:1])))
    arch = (tool_archs or archs)[0] if (tool_archs or archs) else None
    return tuple(_device(i, best, arch, labels) for i in range(max(1, min(best.count, 64))))


def _listed(found: list[Clue], labels: dict[int, str]) -> list[Clue]:
    """The GPUs tools named, each name once, but as many times as one section lists it on lines in a row
    (``nvidia-smi -L``: ``GPU 0: NVIDIA A10`` then ``GPU 1: NVIDIA A10`` are two)."""
    lines: dict[tuple[str, str], list[int]] = {}
    for clue in found:
        lines.setdefault((clue.value, labels.get(clue.line, "")), []).append(clue.line)
    runs: dict[str, int] = {}
    for (value, _), numbers in lines.items():
        numbers = sorted(set(numbers))
        longest = run = 1
        for before, after in zip(numbers, numbers[1:], strict=False):
            run = run + 1 if after == before + 1 else 1
            longest = max(longest, run)
        runs[value] = max(runs.get(value, 1), longest)
    kept = _unique(found)
    names = [clue.value for clue in kept]
    kept = [clue for clue in kept if not _cut_by_the_table(clue.value, names)]
    return [clue for clue in kept for _ in range(min(runs.get(clue.value, 1), 64))]


def _cut_by_the_table(name: str, names: list[str]) -> bool:
    """``NVIDIA RTX PRO 6000 Blac...`` (nvidia-smi's column cuts long names) where another tool gives the whole
    name that begins so: the same GPU, not a second one. A name that stops inside a word of another one is cut too
    (``NVIDIA GeForce GTX 10`` beside ``NVIDIA GeForce GTX 1080 Ti``: the paste ends in the middle of the line)."""
    cut = clean_gpu_name(name)
    others = [clean_gpu_name(other) for other in names if other != name]
    if name.rstrip().endswith(("...", "…")):
        return any(other.startswith(cut) and len(other) > len(cut) for other in others)
    return cut_inside_a_word(cut, others)


def _cut_short(name: str) -> bool:
    """A name a narrow terminal cut (``Navi 33 [Radeon RX 7``): a bracket opened and never closed."""
    return name.count("[") > name.count("]") or name.count("(") > name.count(")")


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", clean_gpu_name(name).lower().replace("amd", "").replace("radeon", "")
                  .replace("nvidia", "").replace("geforce", ""))


def _unique(found: list[Clue]) -> list[Clue]:
    seen: set[str] = set()
    kept = []
    for clue in found:
        if clue.value not in seen:
            seen.add(clue.value)
            kept.append(clue)
    return kept


def _is_cpu_name(name: str) -> bool:
    return (looks_like_cpu(name) or bool(re.search(r"\bIntel\b", name))) and not re.search(
        r"Radeon\s+\S*\s*Graphics$|Radeon \d+M|Radeon\(TM\)", name) or bool(re.search(r"\bCPU\b", name))


_GENERIC_OS = re.compile(r"^\s*(?:GNU/)?Linux\s*$", re.IGNORECASE)
"""An OS answer that names no distribution (an issue form's ``Linux``)."""


def fingerprint_of_clues(found_clues: Sequence[Clue], labels: dict[int, str], origin: str) -> Fingerprint:
    """The facts single lines show, as a partial Fingerprint."""
    found: dict[str, list[Clue]] = defaultdict(list)
    for clue in found_clues:
        found[clue.field].append(clue)
    if found.get("os.name") and not any(c.rank == TOOL for c in found.get("host.os", [])):
        found["host.os"].extend(_os_release_names(found))
    generic = [c for c in found.get("host.os", []) if _GENERIC_OS.match(c.value)]
    if generic and any(not _GENERIC_OS.match(c.value) and c.rank <= min(g.rank for g in generic)
                       for c in found["host.os"]):  # "Linux" beside "Debian 13", both answers: the distribution
        found["host.os"] = [c for c in found["host.os"] if not _GENERIC_OS.match(c.value)]
    os_clue = _first(found, "host.os")
    if os_clue is not None and (inside := re.fullmatch(r"(?:GNU/)?Linux\s*\((\w.{2,60}?)\)", os_clue.value.strip())):
        os_clue = dataclasses.replace(os_clue, value=inside.group(1))  # "Linux (Ubuntu 24.04 LTS)": the distribution
    if os_clue is not None and (run_on := re.match(r"(.+?),\s+[A-Z][\w ]{1,20}:\s", os_clue.value)):
        os_clue = dataclasses.replace(os_clue, value=run_on.group(1))  # "Ubuntu 22.04.3, Platform: arch=x86_64 ..."
    os_id: Fact[str] = Fact.absent("paste")
    os_version: Fact[str] = Fact.absent("paste")
    if os_clue is not None:
        try:
            parsed_id, parsed_version = parse_os_name(os_clue.value)
            os_id, os_version = Fact.of(parsed_id, "paste"), Fact.of(parsed_version, "paste")
        except ParseError:
            pass
    host = Host(os_name=_fact(os_clue, "paste", labels), os_id=os_id, os_version=os_version,
                kernel=_fact(_first(found, "host.kernel"), "paste", labels),
                cpu_model=_fact(_first({"cpu": [*found.get("host.cpu", []), *(  # rocminfo's CPU agent too
                    c for c in found.get("agent.marketing", []) if _is_cpu_name(c.value))]}, "cpu"), "paste", labels),
                python=_fact(_precise(found, "host.python"), "paste", labels))
    rocm = _first(found, "stack.rocm") or _first(found, "package.rocm") or _first(found, "stack.rocm_file") or _first(
        found, "stack.rocm_path")
    if rocm is None and (hip := _first(found, "stack.hip")) is not None and (
            release := re.match(r"(\d+\.\d+)\.\d", hip.value)):  # HIP 6.3.42131 comes with ROCm 6.3
        rocm = dataclasses.replace(hip, value=release.group(1))
    rocm_fact: Fact[Version] = Fact.absent("paste", "not in the paste")
    if rocm is not None:
        try:
            rocm_fact = Fact.of(Version(re.split(r"-(?=\d)", rocm.value)[0]), "paste",
                                section=labels.get(rocm.line, ""))
        except InvalidVersion:
            pass
    cuda = _first(found, "stack.cuda") or _first(found, "stack.cuda_path")  # a toolkit's folder: what is installed
    stack = Stack(rocm_version=rocm_fact,
                  amdgpu_driver_version=_fact(_first(found, "stack.amdgpu_driver"), "paste", labels),
                  nvidia_driver_version=_fact(_first(found, "stack.nvidia_driver"), "paste", labels),
                  nvidia_userspace_version=_fact(_first(found, "stack.nvidia_userspace"), "paste", labels),
                  cuda_driver_version=_fact(cuda, "paste", labels),
                  cuda_toolkit_version=_version_fact(_first(found, "stack.cuda_toolkit"), labels))
    frameworks = tuple(f for f in (_torch(found, labels), _jax(found, labels), _tensorflow(found, labels))
                       if f is not None)
    listed = list(dict.fromkeys(Package(c.field.removeprefix("package."), c.value) for c in found_clues
                                if c.field.startswith("package.")))  # in the order the paste shows them
    jaxlib = _first(found, "jaxlib.version")  # jax.print_environment_info's "jaxlib: 0.4.33", jaxlib.__version__
    if jaxlib is not None and not any(p.name == "jaxlib" for p in listed):
        listed.append(Package("jaxlib", jaxlib.value))
    packages = tuple(sorted(listed, key=lambda p: p.name))  # stable: of two versions, the first shown comes first
    environment: dict[str, str] = {}
    for clue in found_clues:
        if clue.field.startswith("env."):
            environment.setdefault(clue.field.removeprefix("env."), clue.value)
    conflicts = _disagreements(found, labels)
    devices = _devices(found, labels, conflicts)
    return Fingerprint(host=host, devices=devices, stack=stack, frameworks=frameworks, packages=packages,
                       environment=environment, origin=origin, conflicts=tuple(conflicts))


_DISTRO_NAME = re.compile(r"\b(?:Ubuntu|Debian|Fedora|Red Hat|RHEL|Rocky|AlmaLinux|CentOS|openSUSE|SLES|SUSE|Arch|"
                          r"Manjaro|Mint|Pop!_OS|Gentoo|NixOS|Oracle|Azure Linux|Kali|EndeavourOS|CachyOS|Nobara|"
                          r"Amazon Linux|Alpine|Void|Linux)\b", re.IGNORECASE)
"""A distribution's name, as os-release's NAME= holds it."""


def _os_release_names(found: dict[str, list[Clue]]) -> list[Clue]:
    """os-release's ``NAME="Fedora Linux"`` with the ``VERSION="43 (Workstation Edition)"`` that follows it (within
    three lines) as one name, where the paste shows no ``PRETTY_NAME``."""
    versions = sorted(found.get("os.version", []), key=lambda clue: clue.line)
    lines = [clue.line for clue in versions]
    names = []
    for name in found["os.name"]:
        at = bisect_right(lines, name.line)  # the first VERSION= after the NAME= line
        version = versions[at] if at < len(versions) and lines[at] - name.line <= 3 else None
        value = f"{name.value} {version.value}" if version else name.value
        if _DISTRO_NAME.search(value):  # os-release's, not `printenv`'s NAME=DESKTOP-1234
            names.append(Clue("host.os", value, name.line, TOOL))
    return names


_SCALARS = {"torch.version": "torch version", "torch.hip": "torch HIP build", "torch.cuda": "torch CUDA build",
            "torch.available": "torch GPU available", "jax.version": "jax version", "host.os": "OS",
            "host.kernel": "kernel", "stack.rocm": "ROCm release", "stack.nvidia_driver": "NVIDIA driver",
            "stack.cuda": "CUDA version", "stack.amdgpu_driver": "amdgpu driver",
            "env.HSA_OVERRIDE_GFX_VERSION": "HSA_OVERRIDE_GFX_VERSION"}


def _disagreements(found: dict[str, list[Clue]], labels: dict[int, str]) -> list[Conflict]:
    """Fields that outputs (or labelled lines) in the paste give different values for: 2.3.0 and 2.4.1 disagree,
    7.2 and 7.2.3 do not (one refines the other). Mentions in sentences are not held against outputs."""
    conflicts = []
    for field, name in _SCALARS.items():
        clues_here = [c for c in found.get(field, []) if c.rank <= LABELLED]
        if not clues_here:
            continue
        best = min(c.rank for c in clues_here)
        values: list[Clue] = []
        for clue in sorted((c for c in clues_here if c.rank == best), key=lambda c: c.line):
            text = clue.value.strip().lower()
            if not any(text == v.value.strip().lower() or text.startswith(v.value.strip().lower() + ".") or
                       v.value.strip().lower().startswith(text + ".") for v in values):
                values.append(clue)
        if len(values) > 1:
            conflicts.append(Conflict(name, tuple(c.value for c in values),
                                      tuple(labels.get(c.line, f"line {c.line}") for c in values)))
    return conflicts


def _bool(clue: Clue | None) -> bool | None:
    return None if clue is None else clue.value.lower() in ("true", "yes")


def _build_backend(version: str) -> str | None:
    """The backend release a wheel's local tag names: ``+cu121`` -> ``12.1``, ``+rocm6.0`` -> ``6.0``."""
    cuda = re.search(r"\+cu(\d{2,3})(\d)\b", version)
    if cuda:
        return f"{int(cuda.group(1))}.{cuda.group(2)}"
    rocm = re.search(r"\+rocm(\d+\.\d+(?:\.\d+)?)", version)
    return rocm.group(1) if rocm else None


def _torch(found: dict[str, list[Clue]], labels: dict[int, str]) -> Framework | None:
    version = _first(found, "torch.version")
    hip, cuda = _first(found, "torch.hip"), _first(found, "torch.cuda")
    if version is None and hip is None and cuda is None and not found.get("torch.available"):
        return None
    variant = variant_of(version.value) if version else BuildVariant.UNKNOWN
    if variant is BuildVariant.UNKNOWN and (said := _first(found, "torch.variant")) is not None:
        variant = BuildVariant(said.value)  # a tool that prints a line only for one build says which
    if variant is BuildVariant.UNKNOWN and hip is not None:
        variant = BuildVariant.ROCM
    elif variant is BuildVariant.UNKNOWN and cuda is not None:
        variant = BuildVariant.CUDA
    backend = hip if variant is BuildVariant.ROCM else cuda if variant is BuildVariant.CUDA else (hip or cuda)
    backend = backend or _first(found, "torch.backend")
    if backend is None and version is not None and _build_backend(version.value):
        backend = dataclasses.replace(version, value=_build_backend(version.value) or "")
    available = _bool(_first(found, "torch.available"))
    source = "paste"
    return Framework("torch", version=_fact(version, source, labels),
                     variant=Fact.of(variant, source) if variant is not BuildVariant.UNKNOWN else Fact.absent(source),
                     backend_version=_fact(backend, source, labels),
                     accelerator_available=Fact.of(available, source) if available is not None else Fact.absent(
                         source, "not in the paste"))


def _jax(found: dict[str, list[Clue]], labels: dict[int, str]) -> Framework | None:
    version = _first(found, "jax.version")
    if version is None:
        return None
    listed = found.get("jax.device", [])
    first = min((c.line for c in listed), default=0)  # the first listing, as for every field: a later one (after a
    devices = [c.value for c in listed if c.line == first]  # reinstall, another version) does not overrule it
    backends = [c.value for c in found.get("jax.backends", [])]
    backend = "rocm" if any("Rocm" in d for d in devices) else "cuda" if any("Cuda" in d for d in devices) else ""
    available: bool | None = None
    if devices:
        available = any(not d.startswith("Cpu") for d in devices)
    elif backends:
        available = any(re.search(r"rocm|cuda|gpu", b) for b in backends)
    return Framework("jax", version=_fact(version, "paste", labels),
                     default_backend=Fact.of(backend, "paste") if backend else Fact.absent("paste"),
                     accelerator_available=Fact.of(available, "paste") if available is not None else Fact.absent(
                         "paste", "not in the paste"))


def _tensorflow(found: dict[str, list[Clue]], labels: dict[int, str]) -> Framework | None:
    """TensorFlow where the paste shows it: its version (said, printed, or in a package list) and whether it found
    the GPU (a device it created, its device list, AI-Benchmark's GPU line; a GPU it ignored, an empty list)."""
    version = _first(found, "tf.version") or next(
        (c for c in sorted(found.get("package.tensorflow", []) + found.get("package.tensorflow-rocm", []) +
                           found.get("package.tensorflow-gpu", []), key=lambda c: c.line)), None)
    available = _first(found, "tf.available")
    if version is None and available is None:
        return None
    return Framework("tensorflow", version=_fact(version, "paste", labels),
                     accelerator_available=Fact.of(available.value == "True", "paste",
                                                   section=labels.get(available.line, ""))
                     if available is not None else Fact.absent("paste", "not in the paste"))


def _text(fact: Fact[Any]) -> str:
    value = fact.value
    return str(getattr(value, "value", value)).strip().lower()


_NOT_MERGED = frozenset({"index", "vendor", "sources", "name"})
"""Fields that say which thing a record is (a device's index, vendor and name, a framework's name), not facts about it:
kept from the first record (a device's name is chosen by :func:`_merge_devices`)."""


def _merge_facts(a: Any, b: Any, path: str, conflicts: list[Conflict]) -> Any:
    """``a`` with what only ``b`` knows filled in; ok values that disagree are recorded."""
    if isinstance(a, Fact) and isinstance(b, Fact):
        if not (a.ok and b.ok):
            return a if a.ok or not b.ok else b
        text_a, text_b = _text(a), _text(b)
        if text_a != text_b and not (text_a.startswith(text_b) or text_b.startswith(text_a)):
            conflicts.append(Conflict(path, (str(getattr(a.value, "value", a.value)),
                                             str(getattr(b.value, "value", b.value))), (a.section, b.section)))
        return b if text_b.startswith(text_a + ".") else a  # 7.2.3 refines 7.2
    if dataclasses.is_dataclass(a) and dataclasses.is_dataclass(b) and type(a) is type(b) and not isinstance(a, type):
        changes = {name: new for name in _field_names(type(a)) if name not in _NOT_MERGED
                   if (new := _merge_facts(old := getattr(a, name), getattr(b, name), f"{path}.{name}".strip("."),
                                           conflicts)) is not old}
        return dataclasses.replace(a, **changes) if changes else a  # what b adds nothing to is not copied
    return a


def _merge_devices(lists: Sequence[tuple[Device, ...]]) -> tuple[Device, ...]:
    """The longest list (the most named devices on a tie) as the base; the others fill what it does not know,
    device by device when they list as many, else for every device of the same name."""
    lists = [devices for devices in lists if devices]
    if not lists:
        return ()
    chosen = max(range(len(lists)), key=lambda i: (len(lists[i]), sum(d.name.ok for d in lists[i]),
                                                   sum(d.arch.ok for d in lists[i])))
    base = list(lists[chosen])
    ignored: list[Conflict] = []
    for position, other in enumerate(lists):
        if position == chosen:
            continue
        for index, device in enumerate(base):
            match = other[index] if len(other) == len(base) else next(
                (d for d in other if d.name.ok and device.name.ok and _text(d.name) == _text(device.name)), None)
            if match is None and len(other) == 1 and not device.arch.ok:
                match = other[0]
            if match is not None:
                merged = _merge_facts(device, match, "device", ignored)
                if not merged.name.ok and match.name.ok:
                    merged = dataclasses.replace(merged, name=match.name)
                base[index] = merged
    return tuple(dataclasses.replace(d, index=i) for i, d in enumerate(base))


def merge(partials: Sequence[Fingerprint], origin: str) -> Fingerprint:
    """One Fingerprint from many partial ones (earlier partials win; disagreements are kept as conflicts)."""
    conflicts: list[Conflict] = []
    host, stack = Host(), Stack()
    frameworks: dict[str, Framework] = {}
    packages: dict[str, Package] = {}
    environment: dict[str, str] = {}
    probes: list[ProbeNote] = []
    topology = None
    for part in partials:
        host = _merge_facts(host, part.host, "host", conflicts)
        stack = _merge_facts(stack, part.stack, "stack", conflicts)
        for framework in part.frameworks:
            known = frameworks.get(framework.name)
            frameworks[framework.name] = framework if known is None else _merge_facts(known, framework,
                                                                                       framework.name, conflicts)
        for package in part.packages:
            known_package = packages.setdefault(package.name, package)
            if known_package.version != package.version and not package.version.startswith(known_package.version):
                conflicts.append(Conflict(f"package {package.name}", (known_package.version, package.version)))
        for name, value in part.environment.items():
            environment.setdefault(name, value)
        probes.extend(part.probes)
        topology = topology or part.topology
    devices = tuple(dataclasses.replace(d, name=dataclasses.replace(d.name, value=clean_gpu_name(str(d.name.value))))
                    if d.name.ok else d for d in _merge_devices([p.devices for p in partials]))
    return Fingerprint(host=host, devices=devices, stack=stack,
                       frameworks=tuple(frameworks.values()), packages=tuple(sorted(packages.values(),
                                                                                    key=lambda p: p.name)),
                       environment=environment, probes=tuple(probes), topology=topology, origin=origin,
                       conflicts=tuple(_distinct(conflicts)))


def _distinct(conflicts: Iterable[Conflict]) -> list[Conflict]:
    seen: set[tuple[str, tuple[str, ...]]] = set()
    kept = []
    for conflict in conflicts:
        key = (conflict.field, tuple(sorted(v.lower() for v in conflict.values)))
        if key not in seen:
            seen.add(key)
            kept.append(conflict)
    return kept


_GPU_AGENT = re.compile(r"^\s*Device Type:\s*GPU", re.MULTILINE)
_CPU_DEVICES_ASKED = re.compile(r"\b(?:local_)?devices\(\s*(?:backend\s*=\s*)?[\"']cpu[\"']")
"""A JAX call that asks for the CPU's devices (``jax.devices("cpu")``, ``jax.local_devices(backend='cpu')``): what it
prints says nothing about the GPU."""


_SCRIPT_LINE = re.compile(r"^(?:import \w|from \w[\w.]* import |print\(|\w+\s*=\s*\S|[A-Za-z_][\w.]*\(|#|$)")
"""A line of a short Python script of imports, assignments, calls and prints (comments and blank lines between)."""


_RETURNS_SAID = re.compile(r"^\W*(?:which|that|it|this)?\s*(?:always\s+|still\s+|just\s+|only\s+)?"
                           r"(?:returns?|returned|gives|gave|prints?|printed|outputs?|shows?|says?)\s*:?\s*"
                           r"[`'\"]?(?P<value>[^\s`'\".,;]+)", re.IGNORECASE)
"""The sentence under a fenced expression saying what it gave: ``which always returns false.``"""


def _lone_expression(lines: tuple[str, ...]) -> str:
    """The expression a fence holds alone (``torch.cuda.is_available()``) when it is one whose value is a fact."""
    code = [line.strip().removeprefix(">>>").strip() for line in lines if line.strip()]
    return code[0] if len(code) == 1 and printed_field(code[0]) else ""


def _answer_said(expression: str, lines: tuple[str, ...], first: int) -> Clue | None:
    """The value the first line with text below a fenced expression says it gave, as that expression's fact."""
    number, line = next(((first + i, text) for i, text in enumerate(lines) if text.strip()), (0, ""))
    known = printed_field(expression)
    said = _RETURNS_SAID.match(line) if known and len(line) <= 80 else None
    value = fitted(said.group("value"), known[1]) if said and known else None
    return Clue(known[0], value, number, LABELLED) if known and value is not None else None


_CONTINUED = re.compile(r"^\s+[a-z_.]+=")
"""A wrapped key=value log line's continuation: ``  id=GPU-23f2... library=cuda``."""


def _unwrapped_log_clues(lines: tuple[str, ...], first: int) -> list[Clue]:
    """The clues of each structured log line (Go's slog: ``msg="inference compute"``) whose key=value pairs a browser
    wrapped onto the lines below it, read as the one line it was (numbered as its first line)."""
    found: list[Clue] = []
    for index, line in enumerate(lines):
        if 'msg="' not in line:
            continue
        end = index + 1
        while end < len(lines) and end - index <= 6 and _CONTINUED.match(lines[end]):
            end += 1
        if end > index + 1:
            joined = " ".join(part.strip() for part in lines[index:end])
            found.extend(clues([joined], first + index, gates=LineGates.of([joined], first + index)))
    return found


def _print_script(lines: tuple[str, ...]) -> str:
    """A fenced Python script that prints at least two things and does nothing else, as one line (the prints in
    order, read by :func:`printed` against the output pasted after it); empty when ``lines`` are not one."""
    code = [line.strip() for line in lines if line.strip()]
    if len(code) > 30 or sum(line.startswith("print(") for line in code) < 2 or not all(
            _SCRIPT_LINE.match(line) for line in code):
        return ""
    return "; ".join(line for line in code if not line.startswith("#"))


_HSA_ONLY = frozenset({"rocminfo", "rocminfo-fragment"})
"""Section kinds of a tool that runs on ROCm's HSA runtime alone: a segmentation fault in one is a crash of ROCm."""


_DISPLAY_GREP = re.compile(r"\|\s*(?:egrep|rg|grep)\b(?:\s+-\w+)*\s+"
                           r"(?:'(?P<a>[^']*)'|\"(?P<b>[^\"]*)\"|(?P<c>[^\s|]+))", re.IGNORECASE)
_DISPLAY_CLASSES = ("vga", "3d", "display", "accelerator")
"""The PCI classes a GPU is listed under: consumer cards as VGA, data-centre ones as 3D or display controllers or
processing accelerators."""


def _lspci_found_nothing(command: str, output: Sequence[str]) -> str:
    """The error an ``lspci | grep`` for GPUs shows when it printed no device: ``lspci_no_display_device`` where the
    grep asked for every class a GPU is listed under, ``lspci_no_vga_device`` where it asked for VGA alone (a
    data-centre GPU is a 3D controller); "" where it printed one, or grepped for something else."""
    wanted = _DISPLAY_GREP.search(command)
    what = (wanted.group("a") or wanted.group("b") or wanted.group("c") or "").lower() if wanted else ""
    asked = [c for c in _DISPLAY_CLASSES if c in what]
    shown = (*_DISPLAY_CLASSES, "controller", "[amd", "nvidia")
    if not asked or any(c in line.lower() for line in output for c in shown):
        return ""
    return "lspci_no_display_device" if len(asked) > 1 else "lspci_no_vga_device"


def read_paste(text: str, origin: str) -> Fingerprint:
    """Everything a paste shows, merged, with its sections and error lines. InputError when nothing in it is
    recognised (no section, no fact, no known error)."""
    partials: list[Fingerprint] = []
    notes: list[SectionNote] = []
    found_clues: list[Clue] = []
    errors: list[ErrorSeen] = []
    labels: dict[int, str] = {}
    all_lines = clean_lines(text)
    joined = joined_for_gates(all_lines)  # one lower-cased text of the lines, searched by the gates and error index
    gates, hints = LineGates.of(all_lines, joined=joined), ErrorIndex.of(all_lines, joined=joined)
    script = ""  # a fenced script of prints whose output a later fence shows ("outputs", then the printed lines)
    asked = ""  # a fence holding one expression alone, whose value the sentence after it may say
    for section in segment_lines(all_lines, joined):
        kind, confidence = classify(section)
        label = f"{section.where} ({kind})" if kind != "unrecognised" else section.where
        structured = _structured(kind, section, origin)
        if kind == "rocminfo" and (not re.search(r"^\s*Agent \d+", section.text, re.MULTILINE) or (
                "*** Done ***" not in section.text and not _GPU_AGENT.search(section.text))):
            kind = "rocminfo-fragment"  # cut before the first agent, or inside the CPU's (| head): it lists no GPU
            label = f"{section.where} ({kind})"
        command = (section.command,) if section.command else ()  # on its own line: blank lines may follow it
        here = [c for c in [*clues(command, section.command_line, command_lines=1, gates=gates),
                            *clues(section.lines, section.first, gates=gates,
                                   is_prose=not section.fenced and (kind == "unrecognised" or not section.command),
                                   mixed=kind != "unrecognised")]
                if kind in ("rocm-version-file", "unrecognised") or c.field != "stack.rocm_file"]
        if 'msg="' in section.text:  # a key=value log line a browser wrapped: read once more, joined
            here.extend(_unwrapped_log_clues(section.lines, section.first))
        if "Version:" in section.text and "Name:" in section.text:  # pip show's record of a package
            here.extend(shown_packages(section.lines, section.first))
        if "* CUDA:" in section.text or "* System:" in section.text:  # Lightning's environment details
            here.extend(lightning_details(section.lines, section.first))
        if section.command:
            here.extend(printed(section.command, section.lines, section.first))
            here.extend(listed(section.command, section.lines, section.first))
            if _CPU_DEVICES_ASKED.search(section.command):  # jax.devices("cpu") lists the CPU whatever the GPU does
                here = [c for c in here if c.field != "jax.device"]
        if asked and not section.fenced and (answer := _answer_said(asked, section.lines, section.first)):
            here.append(answer)  # "```torch.cuda.is_available()```" then "which always returns false."
        asked = _lone_expression((section.command, *section.lines)) if section.fenced else ""
        if script and section.fenced and not section.command:
            here.extend(printed(script, section.lines, section.first))
            script = ""
        elif section.fenced and not section.command and (code := _print_script(section.lines)):
            script = code
            if kind == "unrecognised":
                kind, confidence = "python-script", 0.5  # what it prints is read in the fence after it
        elif section.fenced or len(section.lines) > 2:
            script = ""  # only a line or two of prose ("outputs") stands between a script and its output
        shown = "text" if kind == "unrecognised" else kind  # a section with an error line in it is text read
        seen = [*errors_in(command, section.command_line, shown, hints), *errors_in(section.lines, section.first, shown,
                                                                                     hints)]
        if kind == "lspci" and (empty := _lspci_found_nothing(section.command, section.lines)):
            seen.append(ErrorSeen(empty, section.command[:300], f"line {section.command_line}, lspci",
                                  line=section.command_line))
        if kind in _HSA_ONLY:  # rocminfo calls nothing but the HSA runtime: its crash is the runtime's
            seen = [dataclasses.replace(e, code="segfault_in_hip_runtime", detail=kind) if e.code == "process_segfault"
                    else e for e in seen]
        for clue in here:
            labels[clue.line] = label
        if structured is not None:
            partials.append(_label(structured, label))
        found_clues.extend(here)
        errors.extend(seen)
        recognised = structured is not None or bool(here) or bool(seen) or (kind != "unrecognised" and confidence > 0)
        if kind == "unrecognised" and recognised:
            kind, confidence = "text", 0.5  # no tool's output, but lines a person typed that name facts or errors
        notes.append(SectionNote(section.first, section.last, kind if recognised else "unrecognised",
                                 section.command[:200], confidence if recognised else 0.0,
                                 len(here) + (1 if structured is not None else 0)))
    if not partials and not found_clues and not errors and not any(n.kind != "unrecognised" for n in notes):
        raise InputError("nothing in it was recognised: expected tool output (collect_env, rocminfo, amd-smi, "
                         "rocm-smi, nvidia-smi, pip list ...) or an error message")
    errors = _with_later_success(errors, found_clues, all_lines, joined)
    from_clues = fingerprint_of_clues(found_clues, labels, origin)
    merged = merge([*partials, from_clues], origin)
    return dataclasses.replace(merged, errors=tuple(_distinct_errors(errors)), sections=tuple(notes),
                               conflicts=merged.conflicts + from_clues.conflicts)


def _working(clue: Clue) -> str | None:
    """What a clue shows when it shows the GPU working: torch available, a JAX GPU device, an app computing on it."""
    if clue.field == "torch.available" and clue.value.lower() in ("true", "yes"):
        return "torch reports the GPU available"
    if clue.field == "tf.available" and clue.value == "True":
        return "TensorFlow created a GPU device"
    if clue.field == "jax.device" and not clue.value.startswith("Cpu"):
        return f"JAX lists {clue.value}"
    if clue.field == "gpu.library" and clue.value.lower() in ("rocm", "cuda"):
        return f"the application computes with {clue.value}"
    return None


_UPGRADE_SAID = re.compile(r"\b(?:upgrad|bump|updat|downgrad|reinstall|switch)\w*\b[^.\n]{0,80}?\bto\s+v?\d+\.\d+",
                           re.IGNORECASE)
"""A person saying they moved a package to another release ("bumping up jax and jaxlib to 0.4.28"): a change."""


_UPGRADE_WORDS = ("pgrad", "ump", "pdat", "witch", "einstall")
"""What a line saying an upgrade holds (lower case): only those lines are tried with ``_UPGRADE_SAID``."""


def _with_later_success(errors: list[ErrorSeen], found: Sequence[Clue], lines: Sequence[str] = (),
                        joined: JoinedLines | None = None) -> list[ErrorSeen]:
    """Each error that a later part of the paste shows fixed: a change (an environment variable set, or an upgrade
    said in a sentence of ``lines``) after the error, then the GPU working. An error with no change between it and
    the success stays as it is. ``joined`` (the lines lower-cased, :func:`joined_for_gates`) finds the lines worth
    reading for an upgrade."""
    successes = sorted((c.line, text) for c in found if (text := _working(c)) is not None)
    changes = [(c.line, f"{c.field.removeprefix('env.')}={c.value}") for c in found if c.field.startswith("env.")]
    worded = sorted(joined.where_any(_UPGRADE_WORDS)) if joined is not None else [
        index for index, line in enumerate(lines) if any(word in line.lower() for word in _UPGRADE_WORDS)]
    changes += [(index + 1, f"an upgrade ({said.group(0)[:60]})") for index in worded
                if len(text_of := lines[index]) <= LINE_CUT and (said := _UPGRADE_SAID.search(text_of))]
    changes.sort(key=lambda change: change[0])  # stable: of two changes on one line, the one found first
    success_lines, change_lines = [line for line, _ in successes], [line for line, _ in changes]
    marked = []
    for error in errors:
        # the first change after the error, then the first success at or after that change
        at = bisect_right(change_lines, error.line) if error.line else len(changes)
        seen = bisect_left(success_lines, change_lines[at]) if at < len(changes) else len(successes)
        if seen < len(successes):
            (line, text), (change_line, change) = successes[seen], changes[at]
            error = dataclasses.replace(error, later_success=f"line {line}: {text}, after {change} "
                                                             f"(line {change_line})")
        marked.append(error)
    return marked


def _distinct_errors(errors: Iterable[ErrorSeen]) -> list[ErrorSeen]:
    seen: set[tuple[str, str]] = set()
    kept = []
    for error in errors:
        if (error.code, error.text) not in seen:
            seen.add((error.code, error.text))
            kept.append(error)
    return kept
