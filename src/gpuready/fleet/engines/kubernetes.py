"""Kubernetes: the node job as an Indexed Job (one pod per node: completions = parallelism = nodes, required pod
anti-affinity on the host name, one try per index so that a failing node stops no other) or as a DaemonSet ("every
GPU node": the job in an init container, then a pause container), built with the official client's models and
written as YAML, or applied with the kubeconfig.

Each pod learns its node from the downward API (``NODE_NAME`` = ``spec.nodeName``) and its job id from its pod name,
asks the device plugin for ``amd.com/gpu`` or ``nvidia.com/gpu``, and writes its Runs to a store (a URL, or one read
from a Secret so it never appears in the manifest) and/or a folder on a hostPath, a PersistentVolumeClaim or an
emptyDir."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpuready.errors import InputError
from gpuready.fleet.config import Destination, NodeJob
from gpuready.fleet.engines.command import node_command

GPU_RESOURCES = {"amd": "amd.com/gpu", "nvidia": "nvidia.com/gpu", "none": ""}
"""The device plugins' extended resource names (ROCm/k8s-device-plugin, NVIDIA/k8s-device-plugin)."""
KINDS = ("job", "daemonset")
VOLUMES = ("hostpath", "pvc", "emptydir")
SECRET_STORE = "$(GPUREADY_STORE)"
"""The store URL as the container sees it when it comes from a Secret (Kubernetes expands ``$(VAR)`` in args)."""
ONCE = '"$@"; echo "gpuready fleet node exited with $?"'
"""The DaemonSet's init container runs the node job through ``sh -c`` with the command as arguments (no quoting)."""
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"
_DNS = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")
_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _dns_label(field: str, value: str) -> str:
    if len(value) > 63 or not _DNS.match(value):
        raise InputError(f"expected a DNS label (lowercase letters, digits and -, at most 63); got {value!r}",
                         field=field)
    return value


def _positive(field: str, value: object, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"expected an integer {minimum} or more; got {value!r}", field=field)


@dataclass(frozen=True)
class KubernetesConfig:
    """What the cluster needs to know besides the node job."""

    image: str
    """A container image with gpuready (and the framework under test) installed."""
    nodes: int = 1
    """Pods of the Indexed Job, one per node (ignored by the DaemonSet, which runs on every matching node)."""
    kind: str = "job"
    vendor: str = "amd"
    """``amd`` (amd.com/gpu), ``nvidia`` (nvidia.com/gpu) or ``none`` (no GPU request: CPU nodes)."""
    gpus_per_node: int = 1
    namespace: str = "default"
    name: str = ""
    """The Job or DaemonSet name; default ``gpuready-<fleet run>``."""
    node_selector: tuple[tuple[str, str], ...] = ()
    tolerations: tuple[str, ...] = ()
    """``key[=value][:Effect]``; a key alone tolerates any taint of that key."""
    store_secret: str = ""
    """``SECRET/KEY``: the store URL is read from this Secret into ``GPUREADY_STORE``."""
    volume: str = "hostpath"
    """Where ``--out`` lives: ``hostpath`` (the same path on each node), ``pvc`` or ``emptydir``."""
    claim: str = ""
    """The PersistentVolumeClaim for ``volume="pvc"`` (ReadWriteMany when the nodes share it)."""
    deadline_s: int = 3600
    python: str = "python3"

    def __post_init__(self) -> None:
        if not self.image.strip() or any(c.isspace() for c in self.image):
            raise InputError(f"expected a container image reference; got {self.image!r}", field="image")
        _positive("nodes", self.nodes)
        if self.kind not in KINDS:
            raise InputError(f"expected one of {', '.join(KINDS)}; got {self.kind!r}", field="kind")
        if self.vendor not in GPU_RESOURCES:
            raise InputError(f"expected one of {', '.join(GPU_RESOURCES)}; got {self.vendor!r}", field="vendor")
        _positive("gpus_per_node", self.gpus_per_node, 0)
        _dns_label("namespace", self.namespace)
        if self.name:
            _dns_label("name", self.name)
        for key, value in self.node_selector:
            if not key or not _LABEL.match(value) or len(value) > 63:
                raise InputError(f"expected KEY=VALUE with a label value; got {key}={value}", field="node_selector")
        for toleration in self.tolerations:
            _toleration(toleration)
        if self.store_secret:
            secret, _, key = self.store_secret.partition("/")
            _dns_label("store_secret", secret)
            if not key:
                raise InputError(f"expected SECRET/KEY; got {self.store_secret!r}", field="store_secret")
        if self.volume not in VOLUMES:
            raise InputError(f"expected one of {', '.join(VOLUMES)}; got {self.volume!r}", field="volume")
        if self.volume == "pvc":
            _dns_label("claim", self.claim)
        _positive("deadline_s", self.deadline_s)


def _toleration(text: str) -> tuple[str, str | None, str | None]:
    """``key[=value][:Effect]`` as (key, value, effect)."""
    rest, _, effect = text.partition(":")
    key, _, value = rest.partition("=")
    if not key or (effect and effect not in _EFFECTS):
        raise InputError(f"expected key[=value][:{'|'.join(_EFFECTS)}]; got {text!r}", field="tolerations")
    return key, value or None, effect or None


def resource_name(vendor: str) -> str:
    """The device plugin's resource for ``vendor`` (empty for ``none``)."""
    return GPU_RESOURCES[vendor]


def _name(config: KubernetesConfig, fleet_id: str) -> str:
    if config.name:
        return config.name
    name = re.sub(r"[^a-z0-9-]+", "-", f"gpuready-{fleet_id.lower()}")[:63].strip("-")
    return _dns_label("name", name)


def _label_value(fleet_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", fleet_id)[:63].strip("-_.")


def _pod_spec(job: NodeJob, fleet_id: str, config: KubernetesConfig, destination: Destination,
              labels: dict[str, str]) -> Any:
    from kubernetes import client

    if config.store_secret:
        destination = replace(destination, store_url=SECRET_STORE)
    command = node_command(job, fleet_id, destination, "kubernetes", python=(config.python,))

    def field_env(name: str, path: str) -> Any:
        return client.V1EnvVar(name=name, value_from=client.V1EnvVarSource(
            field_ref=client.V1ObjectFieldSelector(field_path=path)))

    env = [field_env("NODE_NAME", "spec.nodeName"), field_env("GPUREADY_JOB_ID", "metadata.name")]
    if config.store_secret:
        secret, _, key = config.store_secret.partition("/")
        env.append(client.V1EnvVar(name="GPUREADY_STORE", value_from=client.V1EnvVarSource(
            secret_key_ref=client.V1SecretKeySelector(name=secret, key=key))))
    resource = resource_name(config.vendor)
    limits = {resource: str(config.gpus_per_node)} if resource and config.gpus_per_node else None
    mounts, volumes = None, None
    if destination.folder is not None:
        path = str(destination.folder)
        mounts = [client.V1VolumeMount(name="results", mount_path=path)]
        source: dict[str, Any] = {
            "hostpath": {"host_path": client.V1HostPathVolumeSource(path=path, type="DirectoryOrCreate")},
            "pvc": {"persistent_volume_claim": client.V1PersistentVolumeClaimVolumeSource(claim_name=config.claim)},
            "emptydir": {"empty_dir": client.V1EmptyDirVolumeSource()}}[config.volume]
        volumes = [client.V1Volume(name="results", **source)]
    daemon = config.kind == "daemonset"
    if daemon:  # an init container that failed would run again and again: the job runs once, whatever its verdict
        command = ["sh", "-c", ONCE, "gpuready-node", *command]
    container = client.V1Container(
        name="gpuready", image=config.image, command=command[:1], args=command[1:], env=env,
        resources=client.V1ResourceRequirements(limits=limits) if limits else None, volume_mounts=mounts)
    tolerations = []
    for text in config.tolerations:
        key, value, effect = _toleration(text)
        tolerations.append(client.V1Toleration(key=key, operator="Equal" if value else "Exists", value=value,
                                               effect=effect))
    affinity = None if daemon else client.V1Affinity(pod_anti_affinity=client.V1PodAntiAffinity(
        required_during_scheduling_ignored_during_execution=[client.V1PodAffinityTerm(
            label_selector=client.V1LabelSelector(match_labels=labels), topology_key="kubernetes.io/hostname")]))
    pause = client.V1Container(name="done", image=PAUSE_IMAGE)
    return client.V1PodTemplateSpec(
        metadata=client.V1ObjectMeta(labels=labels),
        spec=client.V1PodSpec(
            restart_policy="Always" if daemon else "Never",
            init_containers=[container] if daemon else None,
            containers=[pause] if daemon else [container],
            affinity=affinity, node_selector=dict(config.node_selector) or None,
            tolerations=tolerations or None, volumes=volumes))


def manifest(job: NodeJob, fleet_id: str, config: KubernetesConfig, destination: Destination) -> Any:
    """The ``V1Job`` (Indexed) or ``V1DaemonSet`` that runs ``job`` once per node."""
    from kubernetes import client

    name = _name(config, fleet_id)
    labels = {"app.kubernetes.io/name": "gpuready", "gpuready.dev/fleet-run": _label_value(fleet_id),
              "gpuready.dev/workload": name}
    metadata = client.V1ObjectMeta(name=name, namespace=config.namespace, labels=labels)
    template = _pod_spec(job, fleet_id, config, destination, labels)
    if config.kind == "daemonset":
        return client.V1DaemonSet(api_version="apps/v1", kind="DaemonSet", metadata=metadata,
                                  spec=client.V1DaemonSetSpec(selector=client.V1LabelSelector(match_labels=labels),
                                                              template=template))
    return client.V1Job(api_version="batch/v1", kind="Job", metadata=metadata, spec=client.V1JobSpec(
        # one try per index, and a node's failure never stops the others (Kubernetes 1.29+)
        completion_mode="Indexed", completions=config.nodes, parallelism=config.nodes, backoff_limit_per_index=0,
        active_deadline_seconds=config.deadline_s, ttl_seconds_after_finished=86400, template=template))


def to_data(model: Any) -> dict[str, Any]:
    """A client model as plain JSON data (the API's camelCase field names)."""
    from kubernetes import client

    data: dict[str, Any] = client.ApiClient().sanitize_for_serialization(model)
    return data


def to_yaml(model: Any) -> str:
    import yaml

    return yaml.safe_dump(to_data(model), sort_keys=False, default_flow_style=False, width=1000)


def write_manifest(job: NodeJob, fleet_id: str, config: KubernetesConfig, destination: Destination,
                   path: Path) -> Path:
    """Write the manifest as YAML (``kubectl apply -f PATH``)."""
    from gpuready.files import write_text

    write_text(path, to_yaml(manifest(job, fleet_id, config, destination)))
    return path


def apply(job: NodeJob, fleet_id: str, config: KubernetesConfig, destination: Destination) -> str:
    """Create the Job or DaemonSet with the kubeconfig (or the in-cluster service account); returns its name."""
    from kubernetes import client
    from kubernetes import config as kube_config

    try:
        kube_config.load_kube_config()
    except Exception:  # noqa: BLE001 - the client raises several types; in a pod the service account is next
        kube_config.load_incluster_config()
    model = manifest(job, fleet_id, config, destination)
    if config.kind == "daemonset":
        client.AppsV1Api().create_namespaced_daemon_set(config.namespace, model)
    else:
        client.BatchV1Api().create_namespaced_job(config.namespace, model)
    return str(model.metadata.name)
