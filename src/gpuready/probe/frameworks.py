"""Framework facts: installed distributions (package metadata) and what each framework says of itself (child)."""

from __future__ import annotations

import json
from typing import Any

from gpuready._framework_child import MARKER
from gpuready.errors import ParseError
from gpuready.model import BuildVariant, Fact, Framework, Package
from gpuready.model.build import is_gpu_package, variant_of
from gpuready.probe.system import CommandResult, System

FRAMEWORK_TIMEOUT_S = 90.0
"""Importing torch and initialising a GPU stack can take long on a cold cache; a hang is cut off here."""



def relevant_packages(distributions: list[tuple[str, str]]) -> tuple[Package, ...]:
    """The installed distributions that matter to an accelerator stack, sorted by name."""
    found = {name.lower(): Package(name.lower(), version) for name, version in distributions if is_gpu_package(name)}
    return tuple(found[name] for name in sorted(found))


def parse_child_output(text: str) -> dict[str, Any]:
    """The JSON payload a framework child printed after its marker (warnings before it are ignored)."""
    for line in reversed(text.splitlines()):
        if line.startswith(MARKER):
            try:
                payload = json.loads(line[len(MARKER):])
            except json.JSONDecodeError as error:
                raise ParseError(f"child printed malformed JSON: {error.msg}") from error
            if not isinstance(payload, dict) or "ok" not in payload:
                raise ParseError("child JSON has no 'ok' field")
            return payload
    raise ParseError("child printed no result line")


def child_argv(system: System, framework: str) -> list[str]:
    """How a framework child is started: the same interpreter, our child module."""
    return [system.python_executable(), "-m", "gpuready._framework_child", framework]


def child_failure(result: CommandResult) -> str:
    if result.error:
        return result.error
    if result.returncode is not None and result.returncode < 0:
        import signal

        try:
            name = signal.Signals(-result.returncode).name
        except ValueError:
            name = f"signal {-result.returncode}"
        return f"crashed with {name}" + (f": {result.stderr.strip().splitlines()[-1][:200]}" if result.stderr.strip()
                                         else "")
    return result.failure()


def _metadata_version(packages: tuple[Package, ...], *names: str) -> tuple[str, str] | None:
    for package in packages:
        if package.name in names:
            return package.name, package.version
    return None


def _framework_without_facts(name: str, reason: Fact[Any], version: Fact[str] | None = None,
                             variant: Fact[BuildVariant] | None = None, installed: bool = True) -> Framework:
    """A framework whose self-reported facts all share one reason for being unknown."""
    return Framework(name=name, version=version or reason, variant=variant or reason, backend_version=reason,
                     accelerator_available=reason, device_count=reason, device_names=reason, device_archs=reason,
                     arch_list=reason, default_backend=reason, installed=installed)


def framework_from_child(name: str, packages: tuple[Package, ...], result: CommandResult | None,
                         skipped: bool = False) -> Framework:
    """Turn a child's answer (or its failure) and the package metadata into a ``Framework``; ``skipped`` when the
    child was not started on request (what the framework would say is then unknown, not an error)."""
    installed = _metadata_version(packages, name)
    source = f"{name} (child process)"
    if installed is None and result is None:
        return _framework_without_facts(name, Fact.absent("package metadata", f"{name} is not installed"),
                                        installed=False)
    meta_version: Fact[str] = Fact.of(installed[1], "package metadata") if installed else Fact.absent(
        "package metadata", "no distribution metadata")
    meta_variant: Fact[BuildVariant] = Fact.of(variant_of(installed[1]), "package metadata version") \
        if installed else Fact.absent("package metadata")
    payload: dict[str, Any] | None = None
    failure = "not run"
    if result is not None:
        try:
            payload = parse_child_output(result.stdout)
        except ParseError as error:
            failure = child_failure(result) if not result.ok else error.reason
    if payload is not None and not payload.get("ok"):
        failure = f"import {name} failed: {payload.get('error', 'unknown error')}"
        payload = None
    if payload is None:
        missing: Fact[Any] = Fact.skipped(source, "not probed (frameworks skipped on request)") if (
            skipped and result is None) else Fact.error(source, failure)
        return _framework_without_facts(name, missing, meta_version, meta_variant)
    facts = payload.get("facts") or {}
    if not isinstance(facts, dict):
        facts = {}
    return _framework_from_facts(name, facts, meta_version, meta_variant, source)


def _strings(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _framework_from_facts(
    name: str, facts: dict[str, Any], meta_version: Fact[str], meta_variant: Fact[BuildVariant], source: str
) -> Framework:
    version = Fact.of(str(facts["version"]), source) if facts.get("version") else meta_version
    unsupported: Fact[Any] = Fact.unsupported(source, f"{name} does not report this")
    if name == "torch":
        hip, cuda = facts.get("hip"), facts.get("cuda")
        variant = BuildVariant.ROCM if hip else BuildVariant.CUDA if cuda else BuildVariant.CPU
        backend: Fact[str] = Fact.of(str(hip or cuda), f"torch.version.{'hip' if hip else 'cuda'}") if (
            hip or cuda) else Fact.unsupported(source, "CPU-only build")
        names = _strings(facts.get("device_names"))
        archs = _strings(facts.get("device_archs"))
        arch_list = _strings(facts.get("arch_list"))
        return Framework(
            name=name,
            version=version,
            variant=Fact.of(variant, "torch.version.hip / torch.version.cuda"),
            backend_version=backend,
            accelerator_available=Fact.of(bool(facts.get("available")), "torch.cuda.is_available()"),
            device_count=Fact.of(int(facts.get("device_count") or 0), "torch.cuda.device_count()"),
            device_names=Fact.maybe(names, source),
            device_archs=Fact.maybe(archs, source),
            arch_list=Fact.of(arch_list, "torch._C._cuda_getArchFlags()") if arch_list else (
                Fact.unsupported(source, "CPU-only build") if variant is BuildVariant.CPU
                else Fact.absent(source, "no compiled architecture list")),
            default_backend=unsupported,
        )
    backend_name = str(facts.get("default_backend") or "")
    platforms = " ".join(_strings(facts.get("platforms")) or ())
    variant = BuildVariant.ROCM if "rocm" in platforms else BuildVariant.CUDA if (
        "cuda" in platforms) else BuildVariant.CPU if backend_name == "cpu" else meta_variant.get(BuildVariant.UNKNOWN)
    names = _strings(facts.get("device_names"))
    archs = _strings(facts.get("device_archs"))
    platform = str(facts.get("platform_version") or "")
    return Framework(
        name=name,
        version=version,
        variant=Fact.of(variant, "jax.devices()"),
        backend_version=Fact.of(platform, "the JAX backend's platform_version") if platform else unsupported,
        accelerator_available=Fact.of(backend_name not in ("", "cpu"), "jax.default_backend()"),
        device_count=Fact.of(int(facts.get("device_count") or 0), "jax.devices()"),
        device_names=Fact.maybe(names, source),
        device_archs=Fact.of(archs, "device.compute_capability") if archs and all(archs) else unsupported,
        arch_list=unsupported,
        default_backend=Fact.of(backend_name, "jax.default_backend()") if backend_name else Fact.absent(source),
    )


def parse_torch_version_file(text: str) -> dict[str, str | None]:
    """``torch/version.py`` (plain assignments, written at build time): __version__, cuda, hip."""
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise ParseError(f"torch/version.py does not parse: {error.msg}") from error
    values: dict[str, str | None] = {}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            if isinstance(value, ast.Constant) and (value.value is None or isinstance(value.value, str)):
                for target in targets:
                    if isinstance(target, ast.Name):
                        values[target.id] = value.value
    if "__version__" not in values:
        raise ParseError("no __version__ in torch/version.py")
    return values


def cpu_only_torch(system: System) -> Framework | None:
    """torch's own version file says CPU-only build (no CUDA, HIP, ROCm or XPU): its facts are known without
    importing it.

    A CPU build cannot see a GPU, so there is nothing a child process would add; this keeps ``gpuready env`` fast.
    """
    folder = system.package_dir("torch")
    if folder is None:
        return None
    try:
        text = system.read_text(f"{folder}/version.py")
        facts = parse_torch_version_file(text) if text is not None else None
    except (OSError, ParseError):
        return None
    if facts is None or any(facts.get(k) for k in ("cuda", "hip", "rocm", "xpu")):
        return None
    source = "torch/version.py (a CPU-only build: not imported)"
    not_built: Fact[Any] = Fact.unsupported(source, "CPU-only build")
    return Framework(name="torch", version=Fact.of(str(facts["__version__"]), source),
                     variant=Fact.of(BuildVariant.CPU, source), backend_version=not_built,
                     accelerator_available=Fact.of(False, source), device_count=Fact.of(0, source),
                     device_names=Fact.of((), source), device_archs=Fact.of((), source), arch_list=not_built,
                     default_backend=Fact.unsupported(source, "torch does not report this"))


def triton_framework(packages: tuple[Package, ...]) -> Framework | None:
    """Triton as installed (never imported: importing it can initialise a GPU)."""
    found = _metadata_version(packages, "pytorch-triton-rocm", "triton", "pytorch-triton", "triton-rocm")
    if found is None:
        return None
    name, version = found
    variant = BuildVariant.ROCM if "rocm" in name or "rocm" in version else BuildVariant.UNKNOWN
    return Framework(name=name, version=Fact.of(version, "package metadata"),
                     variant=Fact.of(variant, "distribution name"))
