"""Which container image this process runs in, as far as the container itself can tell, without the network.

Podman writes the image name and ID into ``/run/.containerenv`` for containers started with ``--privileged``
(podman-run(1)); Docker, containerd and Kubernetes expose neither the image nor its digest inside the container.
What cannot be read is said in ``note``; a reference the user gives (``--container-image`` or
``GPUREADY_CONTAINER_IMAGE``) is recorded as given, and its ``@sha256:`` digest when it carries one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuready.errors import ParseError
from gpuready.probe.host import detect_container
from gpuready.probe.parse.containerenv import parse_containerenv
from gpuready.probe.system import System

IMAGE_ENV = "GPUREADY_CONTAINER_IMAGE"
CONTAINERENV = "/run/.containerenv"
PODMAN_RUN_URL = ("https://github.com/containers/podman/blob/6565bde6e8d03fe805ec03d92b13eaaf34cd8fe0/docs/source/"
                  "markdown/podman-run.1.md.in")
_DIGEST = re.compile(r"@(sha256:[0-9a-f]{64})$")


@dataclass(frozen=True, slots=True)
class ContainerIdentity:
    """The image a lock was made in: what is known, where it was read, and what could not be known."""

    engine: str = ""
    """``docker``, ``podman``, ``kubernetes`` ...; empty outside a container."""
    image: str = ""
    """The image reference (``rocm/pytorch:TAG`` or ``NAME@sha256:...``)."""
    digest: str = ""
    """``sha256:...``: the registry digest, only where a reference carries it."""
    image_id: str = ""
    """Podman's image ID from /run/.containerenv: the local ID of the image, not its registry digest."""
    source: str = ""
    """Where ``image`` was read: ``--container-image``, ``$GPUREADY_CONTAINER_IMAGE``, ``/run/.containerenv``."""
    note: str = ""
    """What could not be known and why, with what to pass instead."""


def digest_of(reference: str) -> str:
    """``NAME[:TAG]@sha256:<64 hex>`` -> ``sha256:<64 hex>``; '' for a reference without one."""
    match = _DIGEST.search(reference.strip())
    return match.group(1) if match else ""


def _given(reference: str, source: str, engine: str) -> ContainerIdentity:
    digest = digest_of(reference)
    note = "" if digest else ("the reference has no @sha256: digest, and a tag can be moved to another image; "
                              "give NAME@sha256:... to pin it")
    return ContainerIdentity(engine, reference.strip(), digest, source=source, note=note)


def identify_container(system: System, given: str = "") -> ContainerIdentity:
    """What this process can tell about its image. Never raises; never touches the network."""
    engine = detect_container(system).value or ""
    if given.strip():
        return _given(given, "--container-image", engine)
    from_env = system.environ().get(IMAGE_ENV, "")
    if from_env.strip():
        return _given(from_env, f"${IMAGE_ENV}", engine)
    if not engine:
        return ContainerIdentity(note="not in a container (no /.dockerenv, /run/.containerenv or container cgroup)")
    text = system.read_text(CONTAINERENV) if engine == "podman" else None
    pairs: dict[str, str] = {}
    if text is not None:
        try:
            pairs = parse_containerenv(text)
        except ParseError as error:
            return ContainerIdentity(engine, note=f"{CONTAINERENV} could not be read: {error.reason}")
    image, image_id = pairs.get("image", ""), pairs.get("imageid", "")
    if image or image_id:
        return ContainerIdentity(engine, image, digest_of(image), image_id, CONTAINERENV,
                                 "" if digest_of(image) else
                                 "podman gives the image name and its local image ID, not the registry digest; "
                                 "`podman image inspect` on the host maps the ID to a digest, or pass "
                                 "--container-image NAME@sha256:...")
    if engine == "podman":
        return ContainerIdentity(engine, note=f"podman writes the image into {CONTAINERENV} only for --privileged "
                                              f"containers ({PODMAN_RUN_URL}); pass --container-image "
                                              "NAME@sha256:... or set " + IMAGE_ENV)
    return ContainerIdentity(engine, note=f"{engine} does not tell a container which image or digest it runs (no "
                                          "file or environment variable inside carries it); pass --container-image "
                                          f"NAME@sha256:... or set {IMAGE_ENV}")
