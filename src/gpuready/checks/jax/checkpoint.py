"""Checkpoints: save a training state (parameters, optax moments, step, RNG key) with orbax-checkpoint and with
``flax.serialization``, restore both in a fresh process, compare every array bit for bit with what was saved, and
continue: the next steps must give bit-identical losses."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from gpuready.checks.jax.train import import_optax
from gpuready.isolation.spec import CheckContext, Fail, Skip
from gpuready.workloads.jax_device import device_under_test, import_jax, jax_device, on, on_device, prepare
from gpuready.workloads.jax_models import build_mlp

FIRST, THEN = 3, 3
FORMATS = ("orbax", "flax")


def _imports() -> tuple[Any, Any]:
    try:
        import flax.serialization
        import orbax.checkpoint
    except ImportError as error:
        raise Skip(f"orbax-checkpoint or flax is not installed ({error}); pip install 'gpuready[jax]'") from error
    return orbax.checkpoint, flax.serialization


def _setup() -> tuple[Any, Any]:
    """A fresh training state (dropout on, so the RNG key must round-trip too) and its jitted step."""
    jax, optax = import_jax(), import_optax()
    recipe = build_mlp()
    optimizer = optax.adamw(1e-3)
    params = recipe.init("float32")
    state = {"params": params, "opt_state": jax.jit(optimizer.init)(params),
             "step": on_device(np.zeros((), np.int32), "int32"), "rng": jax.random.PRNGKey(0)}

    def update(state: Any, inputs: Any, target: Any) -> tuple[Any, Any]:
        rng, dropout = jax.random.split(state["rng"])
        loss, grads = jax.value_and_grad(lambda p: recipe.loss(recipe.apply(p, inputs, dropout), target))(
            state["params"])
        updates, opt_state = optimizer.update(grads, state["opt_state"], state["params"])
        return {"params": optax.apply_updates(state["params"], updates), "opt_state": opt_state,
                "step": state["step"] + 1, "rng": rng}, loss

    step = jax.jit(update)

    def run(state: Any, start: int, count: int) -> tuple[Any, list[str]]:
        losses = []
        for index in range(start, start + count):
            inputs, target = recipe.batch(index)
            state, loss = step(state, on_device(inputs, "float32"), on_device(target, "float32"))
            losses.append(float(loss).hex())  # exact, for bit-identity
        return state, losses

    return state, run


def _path(entries: Any) -> str:
    parts = []
    for entry in entries:
        for attribute in ("key", "name", "idx"):
            if hasattr(entry, attribute):
                parts.append(str(getattr(entry, attribute)))
                break
    return "/".join(parts)


def digests(tree: Any) -> dict[str, str]:
    """Every array leaf's dtype, shape and bytes (hashed) by its key path (named the same for dicts, attributes and
    sequences, so a tree restored without its Python types compares with the one saved)."""
    jax = import_jax()
    found = {}
    for entries, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        array = np.ascontiguousarray(np.asarray(leaf))
        found[_path(entries)] = f"{array.dtype}{array.shape}:{hashlib.sha256(array.tobytes()).hexdigest()}"
    return found


def resume(folder: str, device_name: str, out: str) -> None:
    """Fresh-process half: restore both checkpoints into a fresh state, hash every array, run the next steps."""
    prepare(device_name)
    ocp, serialization = _imports()
    jax = import_jax()
    report: dict[str, Any] = {}
    with on(jax_device(device_name)):
        template, run = _setup()
        checkpointer = ocp.StandardCheckpointer()
        restored = {"orbax": checkpointer.restore(os.path.join(folder, "orbax"), template),
                    "flax": serialization.from_bytes(template, Path(folder, "state.msgpack").read_bytes())}
        checkpointer.close()
        for name, state in restored.items():
            same_tree = jax.tree_util.tree_structure(state) == jax.tree_util.tree_structure(template)
            report[name] = {"digests": digests(state), "losses": run(state, FIRST, THEN)[1] if same_tree else None}
    Path(out).write_text(json.dumps(report))


def roundtrip(context: CheckContext) -> None:
    """Train a few steps, save (orbax and flax.serialization), restore in a fresh process, compare, continue."""
    device = device_under_test(context)
    ocp, serialization = _imports()
    with on(device), tempfile.TemporaryDirectory(prefix="gpuready-jax-ckpt-") as folder:
        state, run = _setup()
        state, _ = run(state, 0, FIRST)
        before = digests(state)
        checkpointer = ocp.StandardCheckpointer()
        checkpointer.save(os.path.join(folder, "orbax"), state)
        checkpointer.wait_until_finished()
        checkpointer.close()
        Path(folder, "state.msgpack").write_bytes(serialization.to_bytes(state))
        context.record("flax_bytes", Path(folder, "state.msgpack").stat().st_size)
        _, uninterrupted = run(state, FIRST, THEN)
        out = os.path.join(folder, "resumed.json")
        done = subprocess.run(
            [sys.executable, "-c", "import sys; from gpuready.checks.jax.checkpoint import resume; "
                                   "resume(sys.argv[1], sys.argv[2], sys.argv[3])", folder, context.device, out],
            capture_output=True, text=True, timeout=float(context.options.get("resume_timeout_s", 120)), check=False)
        if done.returncode != 0:
            raise Fail(f"restoring in a fresh process failed: {done.stderr.strip().splitlines()[-1:]}")
        report = json.loads(Path(out).read_text())
    context.record("arrays_compared", len(before))
    context.note("uninterrupted", [float.fromhex(v) for v in uninterrupted])
    misses = []
    for name in FORMATS:
        after = report[name]["digests"]
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        if changed:
            misses.append(f"{name}: {len(changed)} of {len(before)} saved arrays differ after restoring, bit for bit"
                          f" or missing: {', '.join(changed[:6])}" + (" ..." if len(changed) > 6 else ""))
        elif report[name]["losses"] != uninterrupted:
            resumed = [float.fromhex(v) for v in report[name]["losses"]]
            misses.append(f"{name}: the resumed run differs: {resumed} vs {context.details['uninterrupted']}")
    if misses:
        raise Fail("; ".join(misses))
