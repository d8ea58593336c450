"""Kubernetes manifests: golden YAML, a round trip through the official client's models, the device plugins'
resource names, and validation by field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuready.errors import InputError
from gpuready.fleet.config import Destination, NodeJob
from tests.unit.fleet_engines.golden import assert_golden

pytest.importorskip("kubernetes")

from gpuready.fleet.engines.kubernetes import (  # noqa: E402 - after the skip
    KubernetesConfig,
    manifest,
    resource_name,
    to_data,
    to_yaml,
    write_manifest,
)

JOB = NodeJob(check_suite="quick", workloads=("transformer",), micro=("gemm", "copy"), bench_steps=30)


def _reload(data: dict[str, Any], kind: str) -> Any:
    """Data back into the client's model, the way the client reads the API server's answers."""
    from kubernetes import client

    model = getattr(client, kind)
    if hasattr(model, "from_dict"):
        return model.from_dict(data)
    return client.ApiClient().deserialize(type("Answer", (), {"data": json.dumps(data)})(), kind)


def test_indexed_job_golden_and_round_trip() -> None:
    config = KubernetesConfig(image="docker.io/rocm/pytorch:rocm6.4_ubuntu24.04_py3.12_pytorch_release_2.6.0",
                              nodes=16, vendor="amd", gpus_per_node=8, tolerations=("amd.com/gpu:NoSchedule",),
                              node_selector=(("feature.node.kubernetes.io/amd-gpu", "true"),),
                              store_secret="gpuready-store/url")
    job = manifest(JOB, "f0123456789a", config, Destination(folder=Path("/var/lib/gpuready")))
    text = to_yaml(job)
    assert_golden("indexed-job-amd.yaml", text)
    data = yaml.safe_load(text)
    assert _reload(data, "V1Job") == job
    spec = data["spec"]
    assert (spec["completionMode"], spec["completions"], spec["parallelism"]) == ("Indexed", 16, 16)
    pod = spec["template"]["spec"]
    term = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert term["labelSelector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
    container = pod["containers"][0]
    env = {e["name"]: e["valueFrom"] for e in container["env"]}
    assert env["NODE_NAME"] == {"fieldRef": {"fieldPath": "spec.nodeName"}}
    assert env["GPUREADY_STORE"] == {"secretKeyRef": {"name": "gpuready-store", "key": "url"}}
    assert "$(GPUREADY_STORE)" in container["args"] and "postgresql" not in text
    assert container["args"][container["args"].index("--engine") + 1] == "kubernetes"
    assert container["resources"]["limits"] == {"amd.com/gpu": "8"}


def test_daemonset_golden_and_round_trip(tmp_path: Path) -> None:
    config = KubernetesConfig(image="nvcr.io/nvidia/pytorch:25.01-py3", kind="daemonset", vendor="nvidia",
                              gpus_per_node=4, volume="pvc", claim="gpuready-results", namespace="gpu-ops",
                              tolerations=("nvidia.com/gpu",))
    destination = Destination(store_url=None, folder=Path("/results"))
    path = write_manifest(JOB, "nightly-7", config, destination, tmp_path / "ds.yaml")
    text = path.read_text(encoding="utf-8")
    assert_golden("daemonset-nvidia.yaml", text)
    data = yaml.safe_load(text)
    model = _reload(data, "V1DaemonSet")
    assert to_data(model) == data
    pod = data["spec"]["template"]["spec"]
    assert pod["initContainers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "4"}
    assert pod["volumes"][0]["persistentVolumeClaim"] == {"claimName": "gpuready-results"}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists"}]
    assert data["metadata"]["namespace"] == "gpu-ops"


@pytest.mark.parametrize(("vendor", "resource"), [("amd", "amd.com/gpu"), ("nvidia", "nvidia.com/gpu"),
                                                  ("none", "")])
def test_resource_names_per_vendor(vendor: str, resource: str) -> None:
    assert resource_name(vendor) == resource
    data = to_data(manifest(NodeJob(device="cpu" if vendor == "none" else "auto"), "f1",
                            KubernetesConfig(image="gpuready:dev", vendor=vendor, gpus_per_node=2),
                            Destination(store_url="postgresql://db/fleet")))
    container = data["spec"]["template"]["spec"]["containers"][0]
    assert container.get("resources", {}).get("limits", {}) == ({resource: "2"} if resource else {})
    assert "volumes" not in data["spec"]["template"]["spec"]
    assert container["args"][-2:] == ["--store", "postgresql://db/fleet"]


@pytest.mark.parametrize(("changes", "field"), [
    ({"image": "has space"}, "image"), ({"nodes": 0}, "nodes"), ({"kind": "deployment"}, "kind"),
    ({"vendor": "intel"}, "vendor"), ({"namespace": "Bad_NS"}, "namespace"), ({"store_secret": "nokey"},
                                                                              "store_secret"),
    ({"volume": "pvc"}, "claim"), ({"tolerations": ("k:Sometimes",)}, "tolerations"), ({"gpus_per_node": -1},
                                                                                      "gpus_per_node")])
def test_bad_values_name_their_field(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as raised:
        KubernetesConfig(**{"image": "gpuready:dev", **changes})
    assert raised.value.field == field
