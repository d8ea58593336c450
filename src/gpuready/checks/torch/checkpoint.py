"""Checkpoints: save everything, load it with weights_only=True in a fresh process, continue bit-identically."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from gpuready.checks.torch._util import device_under_test, import_torch
from gpuready.isolation.spec import CheckContext, Fail
from gpuready.workloads.torch_models import build_mlp

FIRST, THEN = 3, 3


def _setup(torch: Any, device: Any) -> tuple[Any, Any, Any, Any]:
    model = build_mlp().make_model().to(device).train()  # dropout on: the RNG state must round-trip too
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    return model, optimizer, scheduler, _grad_scaler(torch, device)


def _grad_scaler(torch: Any, device: Any) -> Any:
    """A GradScaler for the device (its state is part of a mixed-precision checkpoint), or None when unavailable."""
    try:
        return torch.amp.GradScaler(device.type, init_scale=1024.0, growth_interval=7)
    except (AttributeError, TypeError, RuntimeError, ValueError):
        return None


def _steps(torch: Any, device: Any, model: Any, optimizer: Any, scheduler: Any, start: int, count: int) -> list[str]:
    workload = build_mlp()
    losses = []
    for step in range(start, start + count):
        x, target = (t.to(device) for t in workload.batch(step))
        loss = workload.loss(model(x), target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(float(loss.item()).hex())  # exact, for bit-identity
    return losses


def _rng_state(torch: Any, device: Any) -> dict[str, Any]:
    state = {"cpu": torch.get_rng_state()}
    if device.type == "cuda":
        state["cuda"] = torch.cuda.get_rng_state(device)
    return state


def _set_rng_state(torch: Any, device: Any, state: dict[str, Any]) -> None:
    torch.set_rng_state(state["cpu"])
    if device.type == "cuda":
        torch.cuda.set_rng_state(state["cuda"], device)


def digests(torch: Any, value: Any, path: str = "") -> dict[str, str]:
    """Every tensor (dtype, shape and bytes, hashed) and every other value in a nested state, by its key path."""
    if isinstance(value, torch.Tensor):
        data = value.detach().cpu().clone()  # a fresh, exact storage: its bytes are the tensor's
        raw = bytes(data.untyped_storage()) if data.numel() else b""
        return {path: f"{data.dtype}{tuple(data.shape)}:{hashlib.sha256(raw).hexdigest()}"}
    if isinstance(value, dict):
        found: dict[str, str] = {}
        for key in sorted(value, key=str):
            found |= digests(torch, value[key], f"{path}.{key}" if path else str(key))
        return found
    if isinstance(value, (list, tuple)):
        found = {}
        for index, item in enumerate(value):
            found |= digests(torch, item, f"{path}[{index}]")
        return found
    return {path: repr(value)}


def _state(torch: Any, device: Any, model: Any, optimizer: Any, scheduler: Any, scaler: Any) -> dict[str, Any]:
    return {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
            "rng": _rng_state(torch, device), "scaler": scaler.state_dict() if scaler is not None else {}}


def resume(checkpoint: str, device_name: str, out: str) -> None:
    """Fresh-process half: load the checkpoint with weights_only=True into fresh objects, hash everything they now
    hold (for the bit-for-bit comparison with what was saved), and run the next steps."""
    torch = import_torch()
    device = torch.device(device_name)
    saved = torch.load(checkpoint, map_location=device, weights_only=True)
    model, optimizer, scheduler, scaler = _setup(torch, device)
    model.load_state_dict(saved["model"])
    optimizer.load_state_dict(saved["optimizer"])
    scheduler.load_state_dict(saved["scheduler"])
    if scaler is not None and saved.get("scaler"):
        scaler.load_state_dict(saved["scaler"])
    _set_rng_state(torch, device, {k: v.cpu() for k, v in saved["rng"].items()})
    loaded = digests(torch, _state(torch, device, model, optimizer, scheduler, scaler))
    losses = _steps(torch, device, model, optimizer, scheduler, FIRST, THEN)
    Path(out).write_text(json.dumps({"losses": losses, "digests": loaded}))


def roundtrip(context: CheckContext) -> None:
    """Save model, optimizer, LR scheduler and RNG states; resume elsewhere; compare the next steps bit for bit."""
    torch = import_torch()
    device = device_under_test(context)
    torch.manual_seed(0)
    if device.type == "cuda":
        torch.cuda.manual_seed_all(0)
    model, optimizer, scheduler, scaler = _setup(torch, device)
    _steps(torch, device, model, optimizer, scheduler, 0, FIRST)
    if scaler is not None:
        scaler.scale(torch.ones((), device=device))  # the scale tensor exists only after a first use
        scaler.update(new_scale=512.0)  # a non-default state, so a lost one would show
    with tempfile.TemporaryDirectory(prefix="gpuready-ckpt-") as folder:
        path = os.path.join(folder, "state.pt")
        state = _state(torch, device, model, optimizer, scheduler, scaler)
        before = digests(torch, state)
        torch.save(state, path)
        context.note("grad_scaler", "saved" if scaler is not None else "not available for this device")
        context.record("checkpoint_bytes", os.path.getsize(path))
        uninterrupted = _steps(torch, device, model, optimizer, scheduler, FIRST, THEN)
        out = os.path.join(folder, "resumed.json")
        done = subprocess.run(
            [sys.executable, "-c", "import sys; from gpuready.checks.torch.checkpoint import resume; "
                                   "resume(sys.argv[1], sys.argv[2], sys.argv[3])", path, str(device), out],
            capture_output=True, text=True, timeout=float(context.options.get("resume_timeout_s", 120)), check=False)
        if done.returncode != 0:
            raise Fail(f"resuming in a fresh process failed: {done.stderr.strip().splitlines()[-1:]}")
        report = json.loads(Path(out).read_text())
        _safetensors(context, model, folder)
    resumed, after = report["losses"], report["digests"]
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    context.record("tensors_compared", len(before))
    if changed:
        raise Fail(f"{len(changed)} of {len(before)} saved entries differ after loading, bit for bit: "
                   f"{', '.join(changed[:6])}" + (" ..." if len(changed) > 6 else ""))
    context.note("uninterrupted", [float.fromhex(v) for v in uninterrupted])
    context.note("resumed", [float.fromhex(v) for v in resumed])
    if resumed != uninterrupted:
        raise Fail(f"the resumed run differs: {resumed} vs {uninterrupted} (float hex)")


def _safetensors(context: CheckContext, model: Any, folder: str) -> None:
    try:
        from safetensors.torch import load_file, save_file
    except ImportError:
        context.note("safetensors", "not installed; skipped")
        return
    torch = import_torch()
    path = os.path.join(folder, "model.safetensors")
    state = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    save_file(state, path)
    loaded = load_file(path, device=str(next(iter(state.values())).device))
    if set(loaded) != set(state) or not all(torch.equal(loaded[k], state[k]) for k in state):
        raise Fail("the safetensors round trip changed the weights")
    context.note("safetensors", "round trip identical")
