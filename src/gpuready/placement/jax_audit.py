"""JAX placement: where a jitted step actually ran, and the silent CPU fallback when a GPU plugin is missing."""

from __future__ import annotations

import os
from typing import Any

from gpuready import __version__
from gpuready.isolation.launchers import InlineLauncher, SubprocessLauncher
from gpuready.isolation.spec import CheckContext, CheckSpec, Skip
from gpuready.model import CheckStatus, Finding, Fingerprint, Run, RunKind, Severity, Vendor, make_run

JAX_SPEC = CheckSpec(id="audit.jax", target="gpuready.placement.jax_audit:jitted_step", suites=(), framework="jax",
                     timeout_s=300.0, description="run a jitted step and report its backend and devices")
JAX_URL = "https://docs.jax.dev/en/latest/installation.html"


def jitted_step(context: CheckContext) -> None:
    """A jitted forward/grad step; notes the backend and the devices holding its result."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as error:
        raise Skip(f"jax is not installed ({error})") from error

    def loss(w: Any, x: Any) -> Any:
        return jnp.mean(jnp.tanh(x @ w) ** 2)

    step = jax.jit(jax.value_and_grad(loss))
    value, grad = step(jnp.ones((64, 64)), jnp.ones((32, 64)))
    grad.block_until_ready()
    context.note("backend", jax.default_backend())
    context.note("platforms", sorted({d.platform for d in grad.devices()}))
    context.note("devices", [str(d) for d in jax.devices()])
    context.note("jax_platforms_env", os.environ.get("JAX_PLATFORMS", ""))
    context.record("loss", float(value))


def run_jax_audit(fingerprint: Fingerprint, *, inline: bool = False) -> Run:
    """The JAX placement audit as a Run."""
    findings, result = audit_jax(fingerprint, inline=inline)
    return make_run(RunKind.AUDIT, __version__, fingerprint=fingerprint, findings=findings, results=[result],
                    tags=("framework:jax",))


def audit_jax(fingerprint: Fingerprint, *, inline: bool = False) -> tuple[list[Finding], Any]:
    """Run the jitted step (isolated) and judge it against the GPUs this machine has."""
    launcher = InlineLauncher() if inline else SubprocessLauncher()
    [result] = launcher.run([JAX_SPEC])
    if result.status is CheckStatus.SKIP:
        return [Finding("audit.jax_missing", Severity.INFO, str(result.details.get("reason", "jax not installed")))], \
            result
    if result.status is not CheckStatus.PASS:
        return [Finding("audit.jax_failed", Severity.BLOCKER, f"the jitted step failed ({result.status.value}): "
                        f"{result.details.get('reason', '')}", remedy="see the traceback in the JSON output")], result
    platforms = set(result.details.get("platforms") or [])
    vendors = {d.vendor for d in fingerprint.devices}
    findings: list[Finding] = []
    if vendors and platforms <= {"cpu"}:
        wanted = "rocm" if Vendor.AMD in vendors else "cuda"
        plugin = "jax[rocm7-local] (or the jax-rocm7-plugin and -pjrt packages)" if wanted == "rocm" else (
            "jax[cuda12]")
        findings.append(Finding(
            "audit.jax_cpu_fallback", Severity.BLOCKER,
            f"this machine has a GPU ({', '.join(sorted(v.value for v in vendors))}) but the jitted step ran on the "
            "CPU: JAX found no GPU plugin and fell back silently",
            evidence={"backend": str(result.details.get("backend")), "platforms": ", ".join(sorted(platforms))},
            remedy=f"install {plugin}; export JAX_PLATFORMS={wanted} so a missing plugin is an error, not a CPU run",
            source_url=JAX_URL))
    elif not vendors:
        findings.append(Finding("audit.jax_no_gpu", Severity.INFO,
                                f"no GPU on this machine: the jitted step ran on {', '.join(sorted(platforms))}"))
    return findings, result
