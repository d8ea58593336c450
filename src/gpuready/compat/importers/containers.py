"""AMD's container pages (the PyTorch and JAX install pages' "Docker image support" sections, the vLLM benchmark
data file) as facts: each image's tag, digest, ROCm, framework, Ubuntu and Python, read from the Docker Hub links."""

from __future__ import annotations

import re
from collections.abc import Iterator

import yaml

from gpuready.compat.importers.facts import Fact
from gpuready.errors import ParseError

_HUB = re.compile(r"https://hub\.docker\.com/layers/(rocm/[\w.-]+)/([\w.-]+)/images/sha256-([0-9a-f]{64})")
_TAG = {
    "platform_version": re.compile(r"^rocm(\d+(?:\.\d+)+)"),
    "os": re.compile(r"ubuntu(\d\d\.\d\d)"),
    "python": re.compile(r"py(3\.\d+)"),
}
_FRAMEWORK = {"rocm/pytorch": re.compile(r"pytorch_release_(\d+(?:\.\d+)+)"),
              "rocm/jax": re.compile(r"jax(\d+(?:\.\d+)+)"),
              "rocm/vllm": re.compile(r"vllm_(\d+(?:\.\d+)+)")}


def _image_facts(repository: str, tag: str, digest: str, url: str) -> Iterator[Fact]:
    reference = f"{repository}:{tag}"
    yield Fact("container", reference, "digest", (f"sha256:{digest}",), url)
    for name, pattern in _TAG.items():
        match = pattern.search(tag)
        if match is not None:
            yield Fact("container", reference, name, (f"ubuntu {match.group(1)}" if name == "os" else
                                                      match.group(1),), url)
    framework = _FRAMEWORK.get(repository)
    match = framework.search(tag) if framework is not None else None
    if match is not None:
        yield Fact("container", reference, "framework_version", (match.group(1),), url)


def install_page_facts(text: str, url: str) -> Iterator[Fact]:
    """Every image an AMD install page links on Docker Hub (``.../layers/rocm/pytorch/TAG/images/sha256-...``)."""
    links = _HUB.findall(text)
    if not links:
        raise ParseError("no Docker Hub image links (hub.docker.com/layers/rocm/...) on the page")
    for repository, tag, digest in dict.fromkeys(links):
        yield from _image_facts(repository, tag, digest, url)


def vllm_facts(text: str, url: str) -> Iterator[Fact]:
    """The vLLM benchmark data file: the image its Docker Hub link names (the link, not ``pull_tag``, carries the
    digest)."""
    try:
        latest = yaml.safe_load(text)["vllm_benchmark"]["unified_docker"]["latest"]
        link = _HUB.search(str(latest["docker_hub_url"]))
    except (yaml.YAMLError, KeyError, TypeError):
        raise ParseError("no vllm_benchmark.unified_docker.latest.docker_hub_url") from None
    if link is None:
        raise ParseError("docker_hub_url is not a Docker Hub image link")
    yield from _image_facts(link.group(1), link.group(2), link.group(3), url)
