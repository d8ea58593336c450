"""``run_checks(config) -> Run``: the selected checks, each isolated, while the machine is fingerprinted."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable

from gpuready import __version__
from gpuready.checks.registry import BUILTIN
from gpuready.isolation.launchers import InlineLauncher, Progress, SubprocessLauncher
from gpuready.isolation.spec import CheckSpec
from gpuready.model import Fingerprint, Run, RunKind, make_run
from gpuready.model.config import CheckConfig

Probe = Callable[[], Fingerprint]


def selected(config: CheckConfig) -> list[CheckSpec]:
    """The checks a configuration selects (InputError when a pattern matches none). JAX's checks are in the suites
    when JAX is installed, or when asked for by framework or id; otherwise they would only say "skip"."""
    specs = BUILTIN.select(config.suite, config.only, config.framework)
    if config.framework is None and not config.only and importlib.util.find_spec("jax") is None:
        specs = [spec for spec in specs if spec.framework != "jax"]
    return specs


def run_checks(config: CheckConfig, *, progress: Progress | None = None, probe: Probe | None = None) -> Run:
    """Run the selected checks; ``probe`` (when given) fingerprints the machine meanwhile, in a thread."""
    specs = selected(config)
    fingerprints: list[Fingerprint] = []
    thread = None
    if probe is not None:
        thread = threading.Thread(target=lambda: fingerprints.append(probe()), daemon=True)
        thread.start()
    launcher = InlineLauncher(device=config.device) if config.inline else SubprocessLauncher(
        device=config.device, timeout_s=config.timeout_s)
    results = launcher.run(specs, progress) if progress else launcher.run(specs)
    if thread is not None:
        thread.join(timeout=120)
    return make_run(RunKind.CHECK, __version__, fingerprint=fingerprints[0] if fingerprints else None,
                    results=results, tags=(f"suite:{config.suite}", f"device:{config.device}"))


def rerun(check_ids: list[str], device: str, *, inline: bool = False) -> Run:
    """Run checks by id (verify re-runs the locked ones)."""
    specs = [BUILTIN.get(check_id) for check_id in check_ids]
    launcher = InlineLauncher(device=device) if inline else SubprocessLauncher(device=device)
    return make_run(RunKind.CHECK, __version__, results=launcher.run(specs), tags=(f"device:{device}",))
