"""A reply a maintainer can post under an issue: what the paste shows (with the lines it came from), the verdict,
each finding with its fix and source, what to paste next to decide, and which parts of the paste were read as what.
Every value from the paste is escaped: a paste cannot inject Markdown or HTML into the reply."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from gpuready.model import Fact, Fingerprint, Run, Severity
from gpuready.report.markdown import escape, link
from gpuready.report.terminal import inert

_ASKS: dict[str, tuple[str, str]] = {
    "unknown.devices": ("`rocminfo` (AMD) or `nvidia-smi` (NVIDIA)", "which GPUs the system sees"),
    "gpu.none": ("`rocminfo` (AMD) or `nvidia-smi` (NVIDIA), and `lspci | grep -iE 'vga|display|3d'`",
                 "whether the GPU is seen at all"),
    "unknown.framework": ("`python -m torch.utils.collect_env`", "the framework build and whether it sees the GPU"),
    "unknown.device_access": ("`ls -l /dev/kfd /dev/dri/render*; groups` (AMD) or `ls -l /dev/nvidia*` (NVIDIA)",
                              "whether the user can open the GPU"),
    "unknown.gpu_arch": ("`rocminfo | grep -E 'Marketing Name|gfx'`", "the GPU's gfx target"),
    "unknown.torch_arch_list": ("`python -c \"import torch; print(torch.cuda.get_arch_list())\"`",
                                "which GPU targets the torch build has kernels for"),
    "unknown.rocm": ("`cat /opt/rocm/.info/version` or `amd-smi version`", "the installed ROCm release"),
}
"""Finding code -> (what to ask for, what it decides)."""
_SEVERITY = {Severity.BLOCKER: "Blocker", Severity.WARN: "Warning", Severity.INFO: "Note"}


def _code(text: str) -> str:
    """A Markdown code span (no escapes are processed inside one: backticks and line breaks are all it fears)."""
    return "`" + " ".join(inert(text).split()).replace("`", "'") + "`"


_SPAN = re.compile(r"`([^`\n]+)`")


def _prose(text: str) -> str:
    """gpuready's own sentence (a finding's message or fix) as Markdown: its `code` spans stay code spans, all else
    is escaped (a pasted value inside it can at most make an inert code span)."""
    text = " ".join(text.split())
    parts, last = [], 0
    for span in _SPAN.finditer(text):
        parts += [_spaced(text[last:span.start()]), _code(span.group(1))]
        last = span.end()
    parts.append(_spaced(text[last:]))
    return "".join(parts)


def _spaced(text: str) -> str:
    """``escape`` keeping a space at either end (between words and a code span)."""
    if not text.strip():
        return text
    return (" " if text[0] == " " else "") + escape(text) + (" " if text[-1] == " " else "")


def _shown(fact: Fact[Any]) -> str:
    value = fact.value
    text = str(getattr(value, "value", value))
    return f"{text} ({fact.section})" if fact.section else text


def _rows(fp: Fingerprint) -> Iterator[tuple[str, str]]:
    host, stack = fp.host, fp.stack
    for label, fact in (("OS", host.os_name), ("Kernel", host.kernel), ("CPU", host.cpu_model),
                        ("Python", host.python)):
        if fact.ok:
            yield label, _shown(fact)
    for device in fp.devices:
        arch = f" ({device.arch.value})" if device.arch.ok else ""
        name = str(device.name.value) if device.name.ok else "unnamed GPU"
        yield f"GPU {device.index}", f"{name}{arch}"
    if stack.rocm_version.ok:
        yield "ROCm", _shown(stack.rocm_version)
    for label, fact in (("amdgpu driver", stack.amdgpu_driver_version),
                        ("NVIDIA driver", stack.nvidia_driver_version), ("CUDA", stack.cuda_driver_version)):
        if fact.ok:
            yield label, _shown(fact)
    for framework in fp.frameworks:
        if not framework.installed and not framework.accelerator_available.ok:
            continue
        parts = [_shown(framework.version) if framework.version.ok else "version not shown"]
        if framework.variant.ok and framework.variant.value is not None:
            parts.append(f"{framework.variant.value.value} build")
        if framework.backend_version.ok:
            parts.append(f"backend {framework.backend_version.value}")
        if framework.accelerator_available.ok:
            parts.append(f"GPU available: {framework.accelerator_available.value}")
        yield framework.name, ", ".join(parts)
    for name, value in sorted(fp.environment.items()):
        yield name, value
    for error in fp.errors:
        yield "error", f"{error.code}: {error.text} ({error.section})"


def _asks(run: Run) -> list[str]:
    asks: dict[str, str] = {}
    for found in run.findings:
        ask = _ASKS.get(found.code)
        if ask is not None:
            asks.setdefault(ask[0], ask[1])
    fp = run.fingerprint
    if fp is not None and any(d.vendor.value == "amd" for d in fp.devices) and not fp.stack.rocm_version.ok:
        ask = _ASKS["unknown.rocm"]
        asks.setdefault(ask[0], ask[1])
    return [f"- {command}: {why}" for command, why in asks.items()]


def render_triage(run: Run) -> str:
    """The reply, as Markdown."""
    fp = run.fingerprint
    origin = fp.origin if fp is not None else "?"
    data = next((t.removeprefix("data:") for t in run.tags if t.startswith("data:")), "")
    lines = [f"### gpuready triage: {escape(run.outcome.summary)}", "",
             f"<sub>Judged from {escape(origin)}" + (f" against compatibility data of {escape(data)}" if data else "")
             + f" by gpuready {escape(run.tool_version)}.</sub>", ""]
    rows = list(_rows(fp)) if fp is not None else []
    if rows:
        lines += ["**What the paste shows**", "", "| | |", "|---|---|"]
        lines += [f"| {escape(label)} | {escape(value)} |" for label, value in rows]
        lines.append("")
    if run.findings:
        lines += ["**Findings**", ""]
        for found in run.findings:
            lines.append(f"- **{_SEVERITY[found.severity]}** {_code(found.code)}: {_prose(found.message)}")
            if found.remedy:
                lines.append(f"  - Fix: {_prose(found.remedy)}")
            if found.source_url:
                lines.append(f"  - Source: {link(found.source_url)}")
        lines.append("")
    asks = _asks(run)
    if asks:
        lines += ["**To decide, please also paste**", "", *asks, ""]
    if fp is not None and fp.sections:
        lines += ["<details><summary>How the paste was read</summary>", ""]
        for note in fp.sections:
            where = f"lines {note.first_line}-{note.last_line}" if note.last_line != note.first_line else (
                f"line {note.first_line}")
            where = f"{note.source}, {where}" if note.source else where
            what = "not recognised" if note.kind == "unrecognised" else (
                f"{note.kind}, {note.facts} fact{'s' if note.facts != 1 else ''}")
            command = f" after {_code(note.command)}" if note.command else ""
            lines.append(f"- {where}: {escape(what)}{command}")
        lines += ["", "</details>", ""]
    return "\n".join(lines).rstrip() + "\n"
