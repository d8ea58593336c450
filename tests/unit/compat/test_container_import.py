"""``data update`` for containers: AMD's install pages and vLLM data and NVIDIA's NGC notes, read offline from the
recorded copies, reproduce the shipped images; a new image on a page is applied (unconfirmed) and written."""

from __future__ import annotations

import datetime
import shutil
from pathlib import Path

import pytest

from gpuready.compat.importers.containers import install_page_facts, vllm_facts
from gpuready.compat.importers.sources import recorded
from gpuready.compat.importers.update import merged, ngc_releases, run, write
from gpuready.compat.load import Dataset, load_dataset
from gpuready.errors import ParseError
from gpuready.model import Vendor

SOURCES = Path(__file__).parents[2] / "fixtures" / "compat-sources"
TODAY = datetime.date(2026, 12, 1)


@pytest.fixture(scope="module")
def data() -> Dataset:
    return load_dataset()


def test_the_recorded_pages_reproduce_the_shipped_images(data: Dataset) -> None:
    found = run(data, recorded(SOURCES), TODAY)
    container = [c for c in found.changes if c.what.startswith(("container", "cuda"))]
    assert container == [], "the recorded AMD/NVIDIA pages disagree with the shipped images or CUDA drivers"
    facts = merged(found.facts)
    read = {key for (kind, key, _) in facts if kind == "container"}
    shipped = {i.reference for i in data.containers.images if i.digest or i.vendor is Vendor.NVIDIA}
    assert shipped - read == {i.reference for i in data.containers.images if "rocm6.3.3" in i.tag}, (
        "every image with a digest is re-read, except the 6.3.3 ones (an older revision of the page)")


def test_install_page_facts_come_from_the_docker_hub_links() -> None:
    facts = merged(install_page_facts((SOURCES / "amd-jax-install.rst.txt").read_text(), "u"))
    tag = "rocm/jax:rocm7.2.1-jax0.8.2-py3.11"
    assert facts[("container", tag, "digest")][0] == (
        "sha256:5ed631c65c49f0dda84d576fe18fa1d3e446497ad2ff3c58ca5369c29b7c2875",)
    assert facts[("container", tag, "platform_version")][0] == ("7.2.1",)
    assert facts[("container", tag, "framework_version")][0] == ("0.8.2",)
    assert ("container", "rocm/jax:rocm7.2-jax0.8.2-py3.11", "digest") not in facts, "the pull line is not the link"
    with pytest.raises(ParseError):
        list(install_page_facts("a page without images", "u"))
    with pytest.raises(ParseError):
        list(vllm_facts("vllm_benchmark: {}", "u"))


def test_a_new_image_on_amds_page_is_applied_unconfirmed_and_written(data: Dataset, tmp_path: Path) -> None:
    copy = tmp_path / "sources"
    shutil.copytree(SOURCES, copy)
    page = copy / "amd-pytorch-install.rst.txt"
    new = "rocm7.2.5_ubuntu24.04_py3.12_pytorch_release_2.10.0"
    link = f"https://hub.docker.com/layers/rocm/pytorch/{new}/images/sha256-{'ab' * 32}"
    page.write_text(page.read_text() + f"\n<{link}>\n")
    found = run(data, recorded(copy), TODAY)
    assert any(c.status == "added" and c.what == f"container rocm/pytorch:{new}" for c in found.changes)
    assert found.data is not None
    image = next(i for i in found.data.containers.images if i.tag == new)
    assert (image.platform_version, image.framework, image.framework_version, image.os, image.python) == (
        "7.2.5", "torch", "2.10.0", "ubuntu 24.04", "3.12")
    assert not image.confirmed and image.digest == "sha256:" + "ab" * 32 and image.read == TODAY
    out = write(found, data, tmp_path / "new", TODAY)
    assert any(i.tag == new for i in load_dataset(out).containers.images)
    assert (out / "containers.yaml").read_text().startswith("# Written by gpuready data update")


def test_ngc_pages_to_read(data: Dataset) -> None:
    assert ngc_releases(data) == (["25.12"], ["26.01", "26.02"])
