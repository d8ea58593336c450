"""The JAX audit: run the workload's step (a built-in, jitted, or the user's factory as given) in an isolated child,
and judge what it recorded (``placement.jax_record``): where the step ran (the silent CPU fallback when a GPU plugin
is missing), host transfers and host callbacks inside the step, a traced value converted to NumPy, and recompilation
inside the training loop."""

from __future__ import annotations

import os
from typing import Any

from gpuready import __version__
from gpuready.isolation.launchers import InlineLauncher, SubprocessLauncher, raise_input_error
from gpuready.isolation.spec import CheckContext, CheckSpec
from gpuready.model import (
    CheckStatus,
    Finding,
    Fingerprint,
    Run,
    RunKind,
    Severity,
    Vendor,
    from_dict,
    make_run,
    to_dict,
)
from gpuready.model.config import AuditConfig
from gpuready.workloads.resolve import require_framework, resolve

JAX_SPEC = CheckSpec(id="audit.jax", target="gpuready.placement.jax_audit:jax_step", suites=(), framework="jax",
                     timeout_s=300.0, description="run the workload's step: where it runs, host transfers and "
                                                  "callbacks inside it, recompilation in the loop")
JAX_URL = "https://docs.jax.dev/en/latest/installation.html"
MIN_STEPS = 3
"""Recompilation inside the loop shows from the second step on: the audit runs at least this many."""


def jax_step(context: CheckContext) -> None:
    """Child half: load the workload, run its steps under the recorders, note what happened and where it ran."""
    from gpuready.placement.jax_record import run_recorded
    from gpuready.workloads.jax_device import import_jax, jax_device, on, prepare
    from gpuready.workloads.jax_loader import load_jax_workload

    config = from_dict(AuditConfig, context.options.get("config") or {"framework": "jax"}, source="audit config")
    device_name = "auto" if context.device in ("auto", "standin") else context.device
    prepare(device_name)
    jax = import_jax()
    workload = load_jax_workload(config.model, mode=config.mode)
    jitted = hasattr(workload.step, "lower")
    step = workload.step if jitted or resolve(config.model).kind == "user" else jax.jit(workload.step)
    steps = max(config.steps, MIN_STEPS)
    with on(jax_device(device_name)):
        record, output = run_recorded(step, jax.device_put(workload.params), workload.batch, steps)
    leaves = jax.tree_util.tree_leaves(output)
    context.note("backend", jax.default_backend())
    context.note("platforms", sorted({d.platform for leaf in leaves if isinstance(leaf, jax.Array)
                                      for d in leaf.devices()}) or [jax.default_backend()])
    context.note("devices", [str(d) for d in jax.devices()])
    context.note("jax_platforms_env", os.environ.get("JAX_PLATFORMS", ""))
    context.note("jitted", jitted or step is not workload.step)
    context.record("steps", steps)
    for key, value in record.as_details().items():
        context.note(key, value)


def run_jax_audit(fingerprint: Fingerprint, config: AuditConfig | None = None, *, inline: bool = False) -> Run:
    """The JAX audit as a Run."""
    config = config or AuditConfig(framework="jax")
    findings, result = audit_jax(fingerprint, config, inline=inline or config.inline)
    return make_run(RunKind.AUDIT, __version__, fingerprint=fingerprint, findings=findings, results=[result],
                    tags=("framework:jax", f"model:{config.model}", f"mode:{config.mode}"))


def audit_jax(fingerprint: Fingerprint, config: AuditConfig | None = None, *, inline: bool = False
              ) -> tuple[list[Finding], Any]:
    """Run the step (isolated) and judge it: its placement against the GPUs this machine has, and its recording."""
    config = config or AuditConfig(framework="jax")
    require_framework(resolve(config.model), "jax")
    options = {"config": to_dict(config)}
    launcher = InlineLauncher(device=config.device, options=options) if inline else SubprocessLauncher(
        device=config.device, options=options, timeout_s=config.timeout_s)
    [result] = launcher.run([JAX_SPEC])
    raise_input_error([result])
    if result.status is CheckStatus.SKIP:
        return [Finding("audit.jax_missing", Severity.INFO, str(result.details.get("reason", "jax not installed")))], \
            result
    if result.status is not CheckStatus.PASS:
        return [Finding("audit.jax_failed", Severity.BLOCKER, f"the step failed ({result.status.value}): "
                        f"{result.details.get('reason', '')}", remedy="see the traceback in the JSON output")], result
    return placement_findings(fingerprint, result.details) + step_findings(result.details), result


def placement_findings(fingerprint: Fingerprint, details: dict[str, Any]) -> list[Finding]:
    """A silent CPU run on a machine with a GPU (a blocker), or the note that there is no GPU here."""
    platforms = set(details.get("platforms") or [])
    vendors = {d.vendor for d in fingerprint.devices}
    if vendors and platforms <= {"cpu"}:
        wanted = "rocm" if Vendor.AMD in vendors else "cuda"
        plugin = "jax[rocm7-local] (or the jax-rocm7-plugin and -pjrt packages)" if wanted == "rocm" else (
            "jax[cuda12]")
        return [Finding(
            "audit.jax_cpu_fallback", Severity.BLOCKER,
            f"this machine has a GPU ({', '.join(sorted(v.value for v in vendors))}) but the jitted step ran on the "
            "CPU: JAX found no GPU plugin and fell back silently",
            evidence={"backend": str(details.get("backend")), "platforms": ", ".join(sorted(platforms))},
            remedy=f"install {plugin}; export JAX_PLATFORMS={wanted} so a missing plugin is an error, not a CPU run",
            source_url=JAX_URL)]
    if not vendors:
        return [Finding("audit.jax_no_gpu", Severity.INFO,
                        f"no GPU on this machine: the jitted step ran on {', '.join(sorted(platforms))}")]
    return []


def step_findings(details: dict[str, Any]) -> list[Finding]:
    """Findings from the step's recording: a traced value made concrete, host transfers, callbacks, recompiles."""
    found = []
    traced = details.get("traced_error") or {}
    if traced:
        found.append(Finding("audit.jax_traced_to_numpy", Severity.BLOCKER,
                             f"the step converts a traced value to NumPy or Python ({traced.get('error')}): it cannot "
                             f"be jitted as written — {traced.get('message', '')}",
                             evidence={"error": str(traced.get("error"))}, location=str(traced.get("location", "")),
                             remedy="use jax.numpy inside the step; read values out of it after it returns"))
    steps = int(details.get("steps") or MIN_STEPS)
    for entry in details.get("transfers") or []:
        every = len(entry.get("steps") or []) >= steps
        found.append(Finding("audit.jax_host_transfer", Severity.WARN,
                             f"{entry['kind']} copies a device array to the host inside the step "
                             f"({entry['count']}x in {steps} steps{', every step' if every else ''}): each one waits "
                             "for the device", evidence={"kind": str(entry["kind"]), "count": str(entry["count"])},
                             location=str(entry.get("location", "")),
                             remedy="keep values on the device inside the step; return them and read them every N "
                                    "steps, outside it"))
    for entry in details.get("callbacks") or []:
        found.append(Finding("audit.jax_host_callback", Severity.WARN,
                             f"{entry['primitive']} in the compiled step calls back to the host every step",
                             evidence={"primitive": str(entry["primitive"])}, location=str(entry.get("location", "")),
                             remedy="remove jax.debug.print/callback from the training step once debugging is done; "
                                    "log returned values instead"))
    recompiles = details.get("recompiles") or []
    if recompiles:
        programs = [p for entry in recompiles for p in entry.get("programs") or []]
        found.append(Finding("audit.jax_recompile", Severity.WARN,
                             f"the step compiled again in {len(recompiles)} of the {steps - 1} steps after the first "
                             "(a shape, dtype or static argument changes inside the loop)",
                             evidence={"steps": ", ".join(str(e["step"]) for e in recompiles),
                                       "programs": " | ".join(programs[:3])},
                             remedy="pad batches to a few fixed shapes; pass changing Python numbers as arrays, not "
                                    "static arguments"))
    return found
