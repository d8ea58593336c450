"""The lock records the container image as far as the container can tell, says what it could not tell, and reads
locks written before it did (schema 2's ``container_image``)."""

from __future__ import annotations

import json
from pathlib import Path

from gpuready.compat.load import load_dataset
from gpuready.model import Fingerprint
from gpuready.model.config import LockConfig
from gpuready.pinning.driver import make_lock
from gpuready.pinning.lockfile import LOCK_SCHEMA_VERSION, Lock, read_lock, render_lock
from gpuready.probe.system import ReplaySystem

PRIVILEGED = (Path(__file__).parents[2] / "fixtures" / "containers" / "podman-privileged.containerenv").read_text()
DIGEST = "sha256:" + "9c9592175fece788d6c0b86059012f49b568dc95c98c13879dfdf89c30342559"


def _lock(system: ReplaySystem, image: str = "") -> Lock:
    said: list[str] = []
    lock = make_lock(LockConfig(container_image=image), load_dataset(), Fingerprint(), said.append, system=system)
    assert all(line.startswith("lock: container image: ") for line in said)
    return lock


def test_inside_docker_the_lock_says_no_digest_could_be_read(tmp_path: Path) -> None:
    lock = _lock(ReplaySystem(files={"/.dockerenv": ""}))
    assert lock.container.engine == "docker" and lock.container.digest == ""
    assert "does not tell a container which image" in lock.container.note
    path = tmp_path / "gpuready.lock"
    path.write_text(render_lock(lock))
    assert read_lock(path).container == lock.container
    assert json.loads(path.read_text())["container"]["note"] == lock.container.note


def test_a_pinned_reference_records_its_digest() -> None:
    lock = _lock(ReplaySystem(files={"/.dockerenv": ""}), f"rocm/pytorch:rocm7.2.4_ubuntu22.04@{DIGEST}")
    assert lock.container.digest == DIGEST and lock.container.source == "--container-image"
    assert lock.container.note == ""


def test_privileged_podman_records_image_and_image_id() -> None:
    lock = _lock(ReplaySystem(files={"/run/.containerenv": PRIVILEGED}))
    assert lock.container.image.startswith("docker.io/rocm/pytorch:") and len(lock.container.image_id) == 64


def test_a_schema_2_lock_is_migrated(tmp_path: Path) -> None:
    document = json.loads(render_lock(Lock(Fingerprint())))
    document.pop("container")
    for image, expected_note in ((f"rocm/pytorch@{DIGEST}", ""), ("", "recorded no container image")):
        document.update(schema_version=2, container_image=image)
        path = tmp_path / "old.lock"
        path.write_text(json.dumps(document))
        migrated = read_lock(path)
        assert migrated.schema_version == LOCK_SCHEMA_VERSION == 3
        assert migrated.container.image == image and migrated.container.digest == (DIGEST if image else "")
        assert expected_note in migrated.container.note
