"""Real pastes judged against what a person read in them (``tests/fixtures/pastes/*.truth.yaml``, labelled from the
threads before gpuready read them; the format is in tests/fixtures/pastes/README.md).

``evaluate`` reads one paste as ``gpuready doctor --from`` would and scores it: each labelled fact found with the
labelled value, each labelled error found, and the verdict. Used by the tests and by benchmarks/pastes.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from packaging.version import InvalidVersion, Version

from gpuready.compat.judge import judge, verdict
from gpuready.compat.load import Dataset
from gpuready.errors import InputError
from gpuready.model import BuildVariant, Fingerprint
from gpuready.probe.paste import read_fingerprint

PASTES = Path(__file__).parent / "fixtures" / "pastes"
ERROR_CODES = {"hip_no_binary_for_gpu", "invalid_device_function", "cuda_no_kernel_image",
               "hip_shared_object_init_failed", "hsa_status_error", "amdgpu_firmware_failed", "no_nvidia_driver",
               "cuda_driver_insufficient", "torch_not_compiled_with_cuda", "hip_invalid_device",
               "gpu_memory_access_fault", "segfault_in_hip_runtime", "out_of_memory", "kfd_permission_denied",
               "no_gpu_found", "cpu_fallback", "missing_library"}
"""The labelling vocabulary's error codes (``other:...`` labels are free text and are not scored)."""


def cases(folder: Path = PASTES) -> list[Path]:
    """Every paste in a folder (its .txt)."""
    return sorted(folder.glob("*.txt"))


def _value(fact: Any) -> str | None:
    value = getattr(fact, "value", None)
    if value is None:
        return None
    return str(getattr(value, "value", value))


def facts_of(fingerprint: Fingerprint) -> dict[str, Any]:
    """The fingerprint in the labelling vocabulary."""
    torch = fingerprint.framework("torch")
    found: dict[str, Any] = {
        "os": _value(fingerprint.host.os_name), "kernel": _value(fingerprint.host.kernel),
        "python": _value(fingerprint.host.python), "cpu": _value(fingerprint.host.cpu_model),
        "rocm": _value(fingerprint.stack.rocm_version),
        "amdgpu_driver": _value(fingerprint.stack.amdgpu_driver_version),
        "nvidia_driver": _value(fingerprint.stack.nvidia_driver_version),
        "cuda": _value(fingerprint.stack.cuda_driver_version) or _value(fingerprint.stack.cuda_toolkit_version),
        "gpus": sorted({str(d.name.value) for d in fingerprint.devices if d.name.value}),
        "gpu_archs": sorted({str(d.arch.value) for d in fingerprint.devices if d.arch.value}),
        "env": dict(fingerprint.environment),
        "errors": sorted({e.code for e in fingerprint.errors}),
    }
    if torch is not None and torch.installed:
        found["torch"] = _value(torch.version)
        backend = _value(torch.backend_version)
        variant = torch.variant.value
        found["torch_hip"] = backend if variant is BuildVariant.ROCM else None
        found["torch_cuda"] = backend if variant is BuildVariant.CUDA else None
        found["gpu_available"] = torch.accelerator_available.value
        if not found["gpu_archs"] and torch.device_archs.value:
            found["gpu_archs"] = sorted(set(torch.device_archs.value))
    for other in (fingerprint.framework("jax"), fingerprint.framework("tensorflow")):
        if found.get("gpu_available") is None and other is not None and other.accelerator_available.ok:
            found["gpu_available"] = other.accelerator_available.value
    for name in ("jax", "jaxlib"):
        package = next((p.version for p in fingerprint.packages if p.name == name), None)
        framework = fingerprint.framework(name)
        found[name] = _value(framework.version) if framework is not None and framework.version.ok else package
    plugins = [f"{p.name} {p.version}" for p in fingerprint.packages if re.fullmatch(r"jax-(rocm|cuda)\d*-plugin",
                                                                                      p.name)]
    found["jax_plugin"] = plugins[0] if plugins else None
    return found


def _normal(text: Any) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().lower()


def _gpu_text(text: Any) -> str:
    return _normal(re.sub(r"^\s*(?:AMD|NVIDIA)\s+(?=\S)", "", re.sub(r"\s*\([^)]*\)\s*$", "", str(text)),
                          flags=re.IGNORECASE))


def _os_text(text: Any) -> str:
    return _normal(re.sub(r"^\s*(?:GNU/)?Linux\s+(?=\S)", "", re.sub(r"\([^)]*\)", "", str(text))))


def _same(want: Any, got: Any, key: str) -> bool:
    if got is None:
        return False
    if key == "gpus":  # a trailing "(rev. 2.0)", "(Driver Version 23.10.2)" or a leading vendor ("AMD Mi100" for a
        # label's "Mi100") is no part of the name
        return {_gpu_text(w) for w in want} == {_gpu_text(g) for g in got}
    if key == "gpu_archs":
        return {_normal(w) for w in want} == {_normal(g) for g in got}
    if key == "env":
        return all(_normal(got.get(k, "")) == _normal(v) for k, v in want.items())
    if key == "os" and _os_text(want) == _os_text(got):
        return True  # labels keep or drop a trailing "(Jammy Jellyfish)", "(AGESA 1.0.0.7)" or a leading "Linux" as
        # the page had it ("Linux Ubuntu 22.04.2 LTS" names the same release as "Ubuntu 22.04.2 LTS")
    if isinstance(want, bool):
        return got is want
    if key == "torch_hip" and re.fullmatch(r"\(\d+, \d+\)", str(want)):  # ComfyUI prints torch.version.hip's tuple
        want = ".".join(re.findall(r"\d+", str(want)))
    if key == "jax_plugin":  # labelled as printed: "jax-cuda12-plugin==0.4.36" (pip freeze) or with a space
        return _normal(str(want).replace("==", " ")) == _normal(got)
    if key == "rocm":  # the release: a package's build digits (6.2.0.60200-66) are not part of it
        try:
            releases = [(Version(str(v).split("-")[0]).release + (0, 0))[:3] for v in (want, got)]
            return releases[0] == releases[1]
        except InvalidVersion:
            pass
    if key in ("rocm", "cuda", "python", "nvidia_driver"):
        try:
            return Version(str(want).split("-")[0]) == Version(str(got).split("-")[0])
        except InvalidVersion:
            pass
    return _normal(want) == _normal(got)


@dataclass
class Scored:
    """One paste read and judged."""

    case: str
    read: bool
    fields: dict[str, bool] = field(default_factory=dict)
    """Labelled field -> found with the labelled value."""
    errors: dict[str, bool] = field(default_factory=dict)
    verdict: str = ""
    expected_verdict: str = ""
    broken: bool = False
    """The thread established a fault in the stack (not ``no_problem_in_stack``)."""
    codes: tuple[str, ...] = ()
    problem: str = ""

    @property
    def false_ready(self) -> bool:
        """READY where a careful reader of the paste was not sure (what it shows is broken or incomplete)."""
        return self.verdict == "READY" and self.expected_verdict != "READY"

    @property
    def ready_on_broken(self) -> bool:
        """READY on a setup the thread later found broken (the paste itself may not show it)."""
        return self.broken and self.verdict == "READY"

    @property
    def agrees(self) -> bool:
        return self.verdict == self.expected_verdict


def evaluate(path: Path, data: Dataset) -> Scored:
    """Read, judge and score one paste."""
    truth = yaml.safe_load(path.with_suffix(".truth.yaml").read_text(encoding="utf-8"))
    source = yaml.safe_load(path.with_suffix(".source.yaml").read_text(encoding="utf-8"))
    problems = [str(p) for p in (source.get("diagnosis") or {}).get("problems") or []]
    scored = Scored(path.stem, False, expected_verdict=str(truth.get("verdict", "")),
                    broken=bool(problems) and problems != ["no_problem_in_stack"] and problems != ["unknown"],
                    problem=", ".join(problems))
    try:
        _, fingerprint = read_fingerprint(path)
    except InputError:
        return scored
    scored.read = True
    found = facts_of(fingerprint)
    for key, want in (truth.get("facts") or {}).items():
        if key == "errors":
            for code in want or []:
                if str(code) in ERROR_CODES:
                    scored.errors[str(code)] = str(code) in found["errors"]
            continue
        if want in (None, "", [], {}):
            continue
        scored.fields[key] = _same(want, found.get(key), key)
    findings = judge(fingerprint, data, today=data.as_of)
    scored.verdict = verdict(findings).value
    scored.codes = tuple(f.code for f in findings)
    return scored
