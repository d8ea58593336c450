"""Devices and backend as JAX sees them: the plugin actually loaded, the versions of jax, jaxlib, the plugin and its
PJRT runtime and whether they pair (and what gpuready's compatibility data says of the pairing), and a silent CPU
fallback on a machine that has a GPU as a failure."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from typing import Any

from gpuready.checks.reference import ArrayComparison
from gpuready.isolation.spec import CheckContext
from gpuready.workloads.jax_device import backend_errors, device_under_test, gpu_hardware, import_jax, is_gpu, on

PLUGIN = re.compile(r"^jax[-_](cuda|rocm)\d*[-_](plugin|pjrt)$")
JAX_URL = "https://docs.jax.dev/en/latest/installation.html"


def installed_versions() -> dict[str, str]:
    """jax, jaxlib and every installed JAX GPU plugin or PJRT runtime, by distribution name."""
    found = {}
    for distribution in metadata.distributions():
        name = (distribution.metadata["Name"] or "").lower().replace("_", "-")
        if name in ("jax", "jaxlib") or PLUGIN.match(name):
            found[name] = distribution.version
    return dict(sorted(found.items()))


def _release(version: str) -> tuple[int, ...]:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version).release
    except InvalidVersion:
        return ()


def pairing_misses(versions: dict[str, str]) -> list[str]:
    """Plugins and PJRT runtimes whose release is not jaxlib's: JAX will not load them (``.postN`` fixes pair)."""
    jaxlib = versions.get("jaxlib")
    if jaxlib is None:
        return ["jaxlib is not installed"]
    return [f"{name} {version} does not pair with jaxlib {jaxlib} (pip install {name}=={jaxlib})"
            for name, version in versions.items() if PLUGIN.match(name) and _release(version) != _release(jaxlib)]


def data_notes(versions: dict[str, str], data_dir: str | None) -> list[str]:
    """What gpuready's compatibility data says of the installed ROCm plugin pairing."""
    from pathlib import Path

    from gpuready.compat.load import DEFAULT_DATA, load_file
    from gpuready.compat.schema import JaxData

    plugins = [name for name in versions if PLUGIN.match(name) and "rocm" in name and name.endswith("plugin")]
    if not plugins:
        return []
    data = load_file(Path(data_dir or DEFAULT_DATA) / "jax.yaml", JaxData)
    notes = []
    for plugin in plugins:
        known = [entry for entry in data.rocm if entry.plugin == plugin and
                 entry.jax.release == _release(versions.get("jax", ""))]
        notes.append(f"{plugin} with jax {versions.get('jax')}: " + (
            f"in gpuready's data for ROCm {', '.join(known[0].rocm) or '(release not stated)'} ({known[0].source})"
            if known else "not in gpuready's data (unknown pairing)"))
    return notes


def _loaded(jax: Any) -> dict[str, str]:
    """Backends JAX started (name -> platform version) and the plugin modules it imported."""
    started: dict[str, str] = {}
    try:
        from jax._src import xla_bridge

        for name, client in xla_bridge.backends().items():
            started[str(name)] = str(getattr(client, "platform_version", "")).strip().splitlines()[0][:120]
    except Exception:  # noqa: BLE001 - a private table; the default backend below says enough
        started[jax.default_backend()] = ""
    for module in sorted(m for m in sys.modules if m.startswith("jax_plugins.") and m.count(".") == 1):
        started[f"module {module}"] = ""
    return started


def backend(context: CheckContext) -> None:
    """Devices, backend, plugin, versions and pairing; a CPU run where a GPU exists fails."""
    device = device_under_test(context)
    jax = import_jax()
    versions = installed_versions()
    context.note("versions", versions)
    context.note("loaded", _loaded(jax))
    context.note("devices", [f"{d.platform}:{d.id} {d.device_kind}" for d in jax.devices()])
    context.record("device_count", len(jax.devices()))
    compare = ArrayComparison(context)
    for miss in pairing_misses(versions):
        compare.require("pairing", False, miss)
    notes = data_notes(versions, context.options.get("data_dir"))
    if notes:
        context.note("compatibility_data", notes)
    if versions.get("jax") and versions.get("jaxlib") and _release(versions["jax"]) != _release(versions["jaxlib"]):
        context.note("jax_jaxlib", f"jax {versions['jax']} runs on jaxlib {versions['jaxlib']}")
    vendors = context.options.get("gpu_vendors", gpu_hardware())
    if not is_gpu(device) and context.device != "cpu" and vendors:
        errors = backend_errors(jax)
        plugins = [name for name in versions if PLUGIN.match(name)]
        compare.require("cpu_fallback", False, f"this machine has a GPU ({', '.join(vendors)}) but JAX runs on the "
                        "CPU: " + (f"the plugin did not start ({'; '.join(f'{k}: {v}' for k, v in errors.items())})"
                                   if errors else f"installed plugins: {', '.join(plugins) or 'none'}")
                        + f"; install the vendor plugin and set JAX_PLATFORMS=cuda or rocm ({JAX_URL})")
    with on(device):
        numbers = jax.numpy.arange(8.0) + 1
        compare.require("placement", set(numbers.devices()) == {device},
                        f"a computation asked of {device} ran on {numbers.devices()}")
        compare.equal("arange_sum", float(numbers.sum()), 36.0)
    compare.finish()
