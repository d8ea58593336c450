"""Which image a lock was made in: podman's /run/.containerenv, a reference the user gives, and saying so when the
container cannot tell (Docker, Kubernetes, unprivileged podman)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuready.errors import ParseError
from gpuready.probe.container import IMAGE_ENV, digest_of, identify_container
from gpuready.probe.parse.containerenv import parse_containerenv
from gpuready.probe.system import ReplaySystem

PRIVILEGED = (Path(__file__).parents[2] / "fixtures" / "containers" / "podman-privileged.containerenv").read_text()
DIGEST = "sha256:" + "7fe531fa185af260352fe7fbb3fa64ad749abe72adf0600a648c4692801b125a"


def test_privileged_podman_names_the_image_and_its_id_but_not_a_digest() -> None:
    found = identify_container(ReplaySystem(files={"/run/.containerenv": PRIVILEGED}))
    assert found.engine == "podman" and found.source == "/run/.containerenv"
    assert found.image == "docker.io/rocm/pytorch:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.9.1"
    assert found.image_id.startswith("3f9a1c2b") and found.digest == ""
    assert "not the registry digest" in found.note


def test_unprivileged_podman_says_the_file_is_empty_for_it() -> None:
    found = identify_container(ReplaySystem(files={"/run/.containerenv": ""}))
    assert found.engine == "podman" and found.image == "" and "--privileged" in found.note


@pytest.mark.parametrize(("files", "env", "engine"), [
    ({"/.dockerenv": ""}, {}, "docker"),
    ({}, {"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, "kubernetes"),
    ({"/proc/1/cgroup": "0::/system.slice/containerd.service\n"}, {}, "containerd"),
])
def test_engines_that_expose_no_image_say_so_and_what_to_pass(files: dict[str, str], env: dict[str, str],
                                                              engine: str) -> None:
    found = identify_container(ReplaySystem(files=files, env=env))
    assert found.engine == engine and found.image == "" and found.digest == ""
    assert "does not tell a container which image" in found.note and "--container-image" in found.note


def test_a_given_reference_wins_and_its_digest_is_kept() -> None:
    system = ReplaySystem(files={"/.dockerenv": ""}, env={IMAGE_ENV: f"rocm/pytorch@{DIGEST}"})
    from_env = identify_container(system)
    assert from_env.digest == DIGEST and from_env.source == f"${IMAGE_ENV}" and from_env.note == ""
    given = identify_container(system, "rocm/pytorch:latest")
    assert given.source == "--container-image" and given.digest == "" and "tag can be moved" in given.note


def test_outside_a_container_nothing_is_claimed() -> None:
    found = identify_container(ReplaySystem())
    assert found.engine == "" and found.image == "" and "not in a container" in found.note


def test_a_mangled_containerenv_is_reported_not_raised() -> None:
    found = identify_container(ReplaySystem(files={"/run/.containerenv": "image=\"a\nthis is not a pair\n"}))
    assert found.engine == "podman" and "could not be read" in found.note


def test_containerenv_parser() -> None:
    assert parse_containerenv(PRIVILEGED)["rootless"] == "1"
    assert parse_containerenv("") == {}
    with pytest.raises(ParseError):
        parse_containerenv("no equals sign here")


@pytest.mark.parametrize(("reference", "digest"), [
    (f"rocm/pytorch:tag@{DIGEST}", DIGEST),
    (f"rocm/pytorch@{DIGEST}", DIGEST),
    ("rocm/pytorch:latest", ""),
    ("rocm/pytorch@sha256:short", ""),
])
def test_digest_of(reference: str, digest: str) -> None:
    assert digest_of(reference) == digest
