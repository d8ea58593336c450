"""The guard never hands out the accelerator when in doubt, never raises and never blocks, whatever the lock file
is: a hand-edited vendor, devices counted by a framework only, deep or huge JSON, a device, a FIFO, a long path."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from gpuready.guard import CurrentFacts, decide
from gpuready.model import Device, Fact, Fingerprint, Framework, Vendor
from gpuready.pinning.lockfile import Lock, render_lock

NO_GPU_HERE = CurrentFacts({}, device_nodes={"amd": False, "nvidia": False})


def _lock_file(tmp_path: Path, fingerprint: Fingerprint) -> Path:
    path = tmp_path / "gpuready.lock"
    path.write_text(render_lock(Lock(fingerprint, models=("m",), tool_version="test")))
    return path


def test_a_hand_edited_vendor_other_is_the_fallback(tmp_path: Path) -> None:
    other = Fingerprint(devices=(Device(0, Vendor.OTHER, name=Fact.of("Mystery GPU")),))
    decision = decide("m", _lock_file(tmp_path, other), facts=NO_GPU_HERE)
    assert decision.device == "cpu" and "not one the guard can check" in decision.reasons[0]


@pytest.mark.parametrize("count", [1, 2])
def test_a_framework_that_counted_devices_of_an_unknown_build_is_the_fallback(tmp_path: Path, count: int) -> None:
    counted = Fingerprint(frameworks=(Framework("torch", version=Fact.of("2.9.1"), device_count=Fact.of(count)),))
    decision = decide("m", _lock_file(tmp_path, counted), facts=NO_GPU_HERE)
    assert decision.device == "cpu"


def _hostile(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / "gpuready.lock"
    if kind == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "huge-int":
        path.write_text('{"schema_version": ' + "9" * 5000 + "}")
    elif kind == "huge-int-inside":
        document = json.loads(render_lock(Lock(Fingerprint(), models=("m",))))
        text = json.dumps(document).replace('"thresholds": {', '"thresholds": {"x": ' + "1" * 5000 + ", ", 1)
        path.write_text(text)
    elif kind == "dev-zero":
        return Path("/dev/zero")
    elif kind == "urandom":
        return Path("/dev/urandom")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "long-path":
        return tmp_path / ("x" * 300) / ("y" * 5000)
    elif kind == "directory":
        path.mkdir()
    elif kind == "binary":
        path.write_bytes(bytes(range(256)) * 100)
    return path


@pytest.mark.parametrize("kind", ["deep", "huge-int", "huge-int-inside", "dev-zero", "urandom", "fifo", "long-path",
                                  "directory", "binary"])
def test_a_hostile_lock_is_the_fallback_quickly(tmp_path: Path, kind: str) -> None:
    path = _hostile(tmp_path, kind)
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.append(decide("m", path, facts=NO_GPU_HERE)), daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), f"the guard blocked on a {kind} lock"
    [decision] = found
    assert decision.device == "cpu" and not decision.verified  # type: ignore[attr-defined]
