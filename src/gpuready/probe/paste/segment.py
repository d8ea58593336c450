"""Split pasted text into sections: Markdown fences and ``<details>`` blocks, shell prompts with their commands, and
tool banners. Pure and linear in the size of the text.

A paste is rarely one clean tool output: it is an issue body with prose around fenced blocks, a terminal session
with prompts (``$ rocminfo``, ``user@host:~$``, ``(venv) ... ❯``, ``PS C:\\>``, ``>>>``), several outputs one after
another, quoted with ``> ``, with colour codes and Windows line ends. Sections keep their line numbers (1-based, in
the text as pasted) so every fact can say where it came from.
"""

from __future__ import annotations

import functools
import html
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from gpuready.probe.paste.prefilter import JoinedLines, lines_with_any, long_lines

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-_]")
_FENCE = re.compile(r"^\s{0,3}(`{3,}(?![^`\n]*`)|~{3,})")
"""A Markdown fence line; one of backticks with a backtick later on the line (```` ```RuntimeError: ...``` ````, a
code span typed with three) opens none, as CommonMark has it."""
_DETAILS = re.compile(r"^\s*</?(details|summary)\b[^>]*>.*$|^\s*<summary>.*</summary>\s*$", re.IGNORECASE)
_PROMPT = re.compile(
    r"^\s*(?:"
    # user@host:~$
    r"(?:\([\w.\- ]+\)\s*)?(?:\[[^\]\n]{1,80}\]\s*)?[\w.\-]+@[\w.\-]+(?::[^\s$#>]*)?\s*[$#%]\s+(?P<a>\S.*)"
    r"|(?:\([\w.\- ]+\)\s*)?\[[^\]\n]{1,80}\]\s*[$#]\s+(?P<b>\S.*)"  # (venv) [user@host dir]$
    r"|(?:\([\w.\- ]+\)\s*)?[$#%]\s+(?P<c>[a-zA-Z./~_\-][^\n]*)"  # $ cmd   # cmd   % cmd
    r"|(?:\([\w.\- ]+\)\s*)?(?:[^\s]{0,80}\s)?[❯➜λ»]\s+(?P<d>\S.*)"  # (venv) ~/dir ❯ cmd
    r"|(?:\([\w.\- ]+\)\s*)?PS [A-Za-z]:\\[^>]{0,200}>\s*(?P<e>\S.*)"  # PowerShell
    r"|(?:\([\w.\- ]+\)\s*)?[A-Za-z]:\\[^>]{0,200}>\s*(?P<f>\S.*)"  # cmd.exe, "(env) D:\dir>" in conda
    r"|>>>?\s+(?P<g>\S.*)"  # Python (">> " typed short, in a code fence where no quote is)
    r"|In \[\d+\]:\s+(?P<h>\S.*)"  # IPython
    r"|`\s*(?P<i>(?:torch|jax|tf)\.[\w.]+\([^`]*\))\s*`\s*"  # `torch.cuda.is_available()` alone, its value below
    r")$")
_COMMAND_WORDS = re.compile(
    r"^(sudo\s+)?(python\d?(\.\d+)?|python3|py|pip\d?|conda|uv|rocminfo|rocm-smi|amd-smi|nvidia-smi|nvcc|hipconfig|"
    r"cat|uname|lsb_release|dpkg|apt|apt-get|rpm|dnf|lspci|dmesg|journalctl|clinfo|vulkaninfo|ls|grep|groups|id|"
    r"docker|podman|ollama|export|set|env|echo|which|modinfo|lsmod|lscpu|free|hostnamectl|\./|torchrun|accelerate|"
    r"transformers-cli|diffusers-cli|ds_report|huggingface-cli|rocm-sdk|amdgpu-arch|offload-arch|import |print\(|"
    r"torch\.|jax\.)", re.IGNORECASE)
"""A '# ...' or '$ ...' line counts as a prompt only when a command follows (a Markdown heading does not)."""
_BANNERS = re.compile(
    r"^\s*(Collecting environment information|=+\s*ROCm System Management Interface\s*=+|ROCk module (is|is NOT) loaded"
    r"|=+\s*NVSMI LOG\s*=+|\+-{10,}\+\s*$|NVIDIA-SMI has failed|AMDSMI Tool:|jax:\s+\d"
    r"|Traceback \(most recent call last\)"
    r"|[-=]{3,}\s*(PyTorch|CUDA|ROCm|System) Info\b)")


_MAYBE_SPECIAL = ("```", "~~~", "<", "$", "#", "%", ">", "❯", "➜", "λ", "»", "Collecting environment information",
                  "ROCm System Management Interface", "ROCk module", "NVSMI LOG", "+----------",
                  "NVIDIA-SMI has failed", "AMDSMI Tool:", "jax:", "Traceback (most", "---", "===", "In [", "`torch.",
                  "`jax.", "`tf.", "` torch.")
"""What a fence, a details tag, a prompt or a banner cannot do without: lines without any are none of those."""
_MAYBE_SPECIAL_LOWER = tuple(dict.fromkeys(mark.lower() for mark in _MAYBE_SPECIAL))


@dataclass(frozen=True)
class Section:
    """A stretch of the paste that is one thing (one tool's output, a traceback, prose)."""

    first: int
    """First line, 1-based, in the text as pasted."""
    last: int
    lines: tuple[str, ...]
    command: str = ""
    fenced: bool = False
    command_line: int = 0
    """The line the command stands on (0 without one): blank lines may stand between it and the output."""

    @functools.cached_property
    def text(self) -> str:
        """The lines joined (once: the classifier and the parsers read it several times)."""
        return "\n".join(self.lines)

    @property
    def where(self) -> str:
        return f"lines {self.first}-{self.last}" if self.first != self.last else f"line {self.first}"


_BANNER_GLUED = "Collecting environment information..."


def clean_lines(text: str) -> list[str]:
    """Lines without colour codes, Windows line ends, HTML entities, a Markdown quote prefix or a logger's bracketed
    level or time stamp."""
    text = _ANSI.sub("", text.replace("\r\n", "\n").replace("\r", "\n")) if "\x1b" in text or "\r" in text else text
    lines = text.split("\n")
    joined = JoinedLines(text, (0, *accumulate(map((1).__add__, map(len, lines)))))
    marked = joined.where_any(_MAYBE_CLEANED)
    marked.update(index + 1 for index in joined.where_word("\n>") if index + 1 < len(lines))  # found on the line before
    marked.update(index + 1 for index in joined.where_word("\n[") if index + 1 < len(lines))
    marked.update(index + 1 for index in joined.where_word("\n20") if index + 1 < len(lines))  # a dated log line
    marked.update(index + 1 for index in joined.where_word("\n`") if index + 1 < len(lines))
    marked.update(joined.where_word("`\n"))
    if text.startswith((">", "[", "20", "`")):
        marked.add(0)
    fenced = _fenced(lines, joined) if marked else ()
    for index in sorted(marked):  # the other lines need only their trailing spaces taken off
        lines[index] = _clean_line(lines[index], quoted=not fenced or not _inside(fenced, index))
    return [line.rstrip() for line in lines]


def _fenced(lines: Sequence[str], joined: JoinedLines) -> list[tuple[int, int]]:
    """The spans (opening and closing line index) of the Markdown code fences, found as the segmenter finds them
    (``_FENCE``; a quoted fence line, behind ``>``, opens none): ``>>`` in a fence is no quote, so
    ``>> torch.cuda.is_available()`` there is a Python prompt typed short."""
    spans, opened = [], None
    for index in sorted(joined.where_any(("```", "~~~"))):
        if _FENCE.match(lines[index]):
            if opened is None:
                opened = index
            else:
                spans.append((opened, index))
                opened = None
    if opened is not None:
        spans.append((opened, len(lines)))
    return spans


def _inside(spans: Sequence[tuple[int, int]], index: int) -> bool:
    """Whether line ``index`` stands inside one of the fence ``spans`` (between its opening and closing lines)."""
    position = bisect_right(spans, (index, 1 << 62)) - 1
    return position >= 0 and spans[position][0] < index < spans[position][1]


_MAYBE_CLEANED = ("&", "：", "，", _BANNER_GLUED, " INFO ", " WARNING ", " ERROR ", " DEBUG ", " CRITICAL ")
"""What a line that :func:`_clean_line` changes holds, besides a quote prefix (``>`` at its start)."""


_LOG_PREFIX = re.compile(r"(?:\[(?:\d{4}-\d\d-\d\d[ T][\d:.,]+|INFO|WARNING|WARN|ERROR|DEBUG)\] ?)+(?=\S)")
"""A logger's level or time stamp in brackets before the message (ComfyUI and its launchers): ``[INFO] Device: ...``,
``[2025-03-10 12:00:00.123] Total VRAM ...``."""


_TIMED_LEVEL = re.compile(r"\d\d:\d\d:\d\d[-.,:]\d+\s+(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+(?=\S)")
"""A time and a level before the message, as Kohya's GUI (rich's logger) prints it: ``15:45:16-129105 INFO     Torch
...``."""


_ISO_TIMED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)? - (?=\S)")
"""An ISO time stamp and a dash before the message, as ComfyUI's System Information report quotes its log:
``2025-04-25T15:51:00.752933 - AMD arch: gfx1103``."""


def _clean_line(line: str, quoted: bool = True) -> str:
    """One line cleaned; a quote prefix is taken off only where the line may be quoted (``quoted``: not inside a code
    fence)."""
    if line.startswith("[") and (prefix := _LOG_PREFIX.match(line)):
        line = line[prefix.end():]
    elif line[:1].isdigit() and (prefix := _TIMED_LEVEL.match(line) or _ISO_TIMED.match(line)):
        line = line[prefix.end():]
    if "&" in line:
        line = html.unescape(line)
    if "：" in line or "，" in line:  # full-width colon and comma (CJK input) read as ASCII ones
        line = line.replace("：", ": ").replace("，", ", ")
    while quoted and line.startswith(">") and not line.startswith(">>>") and (len(line) == 1 or line[1] in " >"):
        line = line[2:] if line.startswith("> ") else line[1:]
    if quoted and line.count("`") == 1 and (line.startswith("`") or line.endswith("`")):
        line = line.strip("`")  # a code span typed with one backtick around lines: "`$ lspci | grep VGA", ..., "`"
    if line.startswith(_BANNER_GLUED) and "PyTorch version:" in line:
        line = line[line.index("PyTorch version:"):]  # a terminal wider than the banner glued the next line on
    return line


def prompt_command(line: str) -> str | None:
    """The command after a shell or Python prompt, when ``line`` is one."""
    if len(line) > 4000:
        return None
    match = _PROMPT.match(line)
    if not match:
        return None
    command = next(group for group in match.groups() if group)
    if match.group("c") is not None and not _COMMAND_WORDS.match(command):
        return None  # '# Title' in Markdown, '$ 5 dollars' in prose
    return command.strip()


_NEXT_TOOL = re.compile(r"^\s*(?:sudo\s+)?(?:cat\s+/(?:etc|proc|opt|sys)/\S+|uname\s+-\w+|lsb_release\s+-\w+|"
                        r"rocminfo(?:\s.*)?|rocm-smi(?:\s.*)?|amd-smi(?:\s.*)?|nvidia-smi(?:\s.*)?|"
                        r"pip3?\s+(?:list|freeze|show)\b.*|dpkg\s+-l\b.*|hipconfig\b.*|python3?(?:\s+-c\s.*)?|"
                        r"docker\s+run\s.*)\s*$")
"""Commands that print a tool's output, typed without a prompt inside a fenced block that opened with one
(``uname -a`` ... then ``cat /etc/lsb-release``): each starts a section of its own."""


def _bare_command(line: str) -> bool:
    """A line that is a command typed without a prompt: ``rocminfo | grep gfx``, ``python3 -m pip list``,
    ``HSA_OVERRIDE_GFX_VERSION=10.3.0 python -c "..."`` (and not output such as ``Python 3.10.6 (main, ...)``)."""
    text = line.strip()
    if len(text) > 400 or re.match(r"(?i)python \d", text):
        return False
    text = re.sub(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+", "", text)
    if not _COMMAND_WORDS.match(text):
        return False
    return bool(re.search(r"\s-{1,2}\w|\||\.py\b|^\S+$|\s(list|freeze|show|version|static|topo)\b|^cat\s+/\S+$",
                          text))


def segment(text: str) -> list[Section]:
    """The sections of a paste, in order; empty sections are dropped."""
    return segment_lines(clean_lines(text))


def segment_lines(lines: list[str], joined: JoinedLines | None = None) -> list[Section]:
    """The sections of a paste already split by :func:`clean_lines`; ``joined``, when given, is the lines lower-cased
    and cut at 2,000 characters (``clues.joined_for_gates``), searched for the marks here too."""
    sections: list[Section] = []
    current: list[str] = []
    start = 1
    command = ""
    command_line = 0
    fenced = False

    def close(end: int) -> None:
        nonlocal current
        while current and not current[-1].strip():
            current.pop()
        body = tuple(current)
        if any(line.strip() for line in body) or command:
            sections.append(Section(start if body else command_line, max(start, end) if body else command_line,
                                    body, command, fenced, command_line if command else 0))
        current = []

    if joined is None:
        special = lines_with_any(_MAYBE_SPECIAL, lines, lowered=False)
    else:  # a mark found in lower case is a line to test; a longer line is tested whatever it holds
        special = joined.where_any(_MAYBE_SPECIAL_LOWER) | set(long_lines(lines))
    for number, line in enumerate(lines, 1):
        marked = number - 1 in special
        if marked and _FENCE.match(line):
            close(number - 1)
            fenced, command, start = not fenced, "", number + 1
            continue
        if fenced and not current and not command and _bare_command(line):
            command, command_line, start = line.strip(), number, number + 1  # a fenced block opening with its command
            continue
        if fenced and command and current and _NEXT_TOOL.match(line):  # the next command of a block that opened so
            close(number - 1)
            command, command_line, start = line.strip(), number, number + 1
            continue
        if not marked:
            pass
        elif _DETAILS.match(line):
            close(number - 1)
            command, start = "", number + 1
            continue
        elif (found := prompt_command(line)) is not None:
            close(number - 1)
            command, command_line, start = found, number, number + 1
            continue
        elif _BANNERS.match(line) and any(existing.strip() for existing in current):
            close(number - 1)
            command, start = "", number
        if not current and not line.strip():
            start = number + 1
            continue
        current.append(line)
    close(len(lines))
    return sections
