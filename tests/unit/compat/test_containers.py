"""Vendors' container images as data: every image sourced and resolvable, ``plan`` recommending one with the
vendor's device flags, and the loader refusing malformed entries."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpuready.compat.containers import container_options, run_line
from gpuready.compat.load import DEFAULT_DATA, Dataset, load_dataset
from gpuready.compat.plan import make_plan, resolve_gpu
from gpuready.compat.query import cuda_toolkit, parse_version, rocm_release
from gpuready.compat.schema import ContainerRun
from gpuready.errors import SchemaError
from gpuready.model import Vendor
from gpuready.report import plain_text
from gpuready.report.plan_text import render_plan


@pytest.fixture(scope="module")
def data() -> Dataset:
    return load_dataset()


def test_every_image_names_a_release_the_data_knows(data: Dataset) -> None:
    for image in data.containers.images:
        version = parse_version(image.platform_version)
        assert version is not None, image.reference
        if image.vendor is Vendor.AMD:
            assert rocm_release(data, version) is not None, image.reference
        else:
            assert cuda_toolkit(data, image.platform_version) is not None, image.reference
        assert image.source.startswith("https://") and (image.digest or image.notes or not image.confirmed)


def test_plan_recommends_amds_image_with_amds_device_flags(data: Dataset) -> None:
    plan = make_plan(data, "mi300x", "Ubuntu 24.04")
    best = plan.containers[0]
    assert best.image.startswith("rocm/pytorch:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.9.1@sha256:7fe531fa")
    docker = next(c for c in best.commands if c.engine == "docker")
    for flag in ("--device=/dev/kfd", "--device=/dev/dri", "--group-add video", "--security-opt seccomp=unconfined"):
        assert flag in docker.line
    assert docker.line.endswith(best.image) and docker.confirmed
    podman = next(c for c in best.commands if c.engine == "podman")
    assert "--group-add keep-groups" in podman.line and not podman.confirmed
    text = plain_text(render_plan(plan), width=80)
    assert docker.line in text, "a command line is printed whole, never wrapped"
    assert "flags derived, not documented by the vendor" in text


def test_a_rocm_line_picks_that_lines_image(data: Dataset) -> None:
    plan = make_plan(data, "mi300x", rocm="6.3")
    assert {o.platform for o in plan.containers} == {"ROCm 6.3.3"}
    assert make_plan(data, "mi300x", framework="jax").containers[0].image.startswith("rocm/jax:rocm7.2.1-jax0.8.2")


def test_an_image_says_when_amds_product_list_for_its_release_is_unknown(data: Dataset) -> None:
    option = make_plan(data, "rx 6800").containers[0]
    assert option.platform == "ROCm 7.2.4"
    assert "supports gfx1030; AMD's product list for it is not in the data" in option.note
    release = next(r for r in data.rocm.releases if str(r.version) == "7.14.0")
    from dataclasses import replace

    listed = replace(data, rocm=replace(data.rocm, releases=(replace(release, version=parse_version("7.2.4")),)))
    option = container_options(listed, resolve_gpu(data, "rx 6800"), "torch")[0]  # type: ignore[arg-type]
    assert "does not list AMD Radeon RX 6800" in option.note and "same ISA" in option.note


def test_nvidia_plan_uses_ngc_with_gpus_all_and_the_driver_floor(data: Dataset) -> None:
    option = make_plan(data, "h100 80gb hbm3").containers[0]
    assert option.image == "nvcr.io/nvidia/pytorch:25.12-py3" and option.platform == "CUDA 13.1.0"
    assert "--gpus all" in option.commands[0].line and "580" in option.note
    assert not option.confirmed, "the NGC tag string was not read in NVIDIA's text"


def test_a_gpu_the_images_cuda_dropped_gets_no_image(data: Dataset) -> None:
    plan = make_plan(data, "gtx 1080")  # sm_61: CUDA 13 no longer builds for Pascal
    assert plan.containers == ()
    assert "no official image in the data suits it" in plain_text(render_plan(plan))
    assert container_options(data, resolve_gpu(data, "rtx 4090"), "torch")


def test_run_line_quotes_for_the_shell() -> None:
    import datetime

    run = ContainerRun(Vendor.AMD, "docker", ("--device=/dev/kfd", "--env", "A=b c"), "https://x",
                       datetime.date(2026, 12, 1))
    assert run_line(run, "img:tag") == "docker run -it --rm --device=/dev/kfd --env 'A=b c' img:tag"


@pytest.mark.parametrize(("old", "new", "field"), [
    ("digest: 'sha256:7fe531fa", "digest: 'sha1:7fe531fa", "digest"),
    ("engine: podman", "engine: lxc", "engine"),
    ("framework: vllm", "framework: tensorflow", "framework"),
    ("os: ubuntu 24.04", "os: Ubuntu-24.04", "os"),
])
def test_the_loader_refuses_malformed_container_entries(tmp_path: Path, old: str, new: str, field: str) -> None:
    copy = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA, copy)
    text = (copy / "containers.yaml").read_text()
    assert old in text
    (copy / "containers.yaml").write_text(text.replace(old, new, 1))
    with pytest.raises(SchemaError, match=field):
        load_dataset(copy)
