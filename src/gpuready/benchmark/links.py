"""Judge measured all_reduce bus bandwidth against the peak of the links between the GPUs, or, for an all_reduce
across nodes, of the network between the nodes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from gpuready.compat.catalogue import normalise_name
from gpuready.compat.schema import LinkSpec
from gpuready.model import Finding, Fingerprint, Measurement, Severity


def link_peak(links: Sequence[LinkSpec], kind: str, gpu_name: str) -> LinkSpec | None:
    """The link spec for this kind and GPU (an entry naming the GPU first, then a generic one)."""
    wanted = normalise_name(gpu_name)
    named = [spec for spec in links if spec.kind == kind and wanted in {normalise_name(g) for g in spec.gpus}]
    generic = [spec for spec in links if spec.kind == kind and not spec.gpus]
    candidates = named or generic
    return candidates[0] if candidates else None


def judge_allreduce(fingerprint: Fingerprint | None, measurements: Sequence[Measurement],
                    links: Sequence[LinkSpec]) -> list[Finding]:
    """One finding: the largest message's bus bandwidth as a share of the dominant link type's peak."""
    allreduce = [m for m in measurements if m.metric.startswith("allreduce_busbw_gbps_")]
    across = [m for m in allreduce if int(str(m.settings.get("nodes", 1) or 1)) > 1]
    if across:
        return judge_internode(fingerprint, across, links)
    if not allreduce or fingerprint is None or fingerprint.topology is None or not fingerprint.topology.links:
        return []
    kinds = Counter("pcie" if link.kind.startswith("pcie") else link.kind for link in fingerprint.topology.links)
    kind = kinds.most_common(1)[0][0]
    gpu = next((d.name.value for d in fingerprint.devices if d.name.value), "")
    spec = link_peak(links, kind, gpu)
    largest = max(allreduce, key=lambda m: int(m.settings.get("bytes", 0) or 0))
    if spec is None:
        return [Finding("bench.allreduce_link_unknown", Severity.INFO,
                        f"all_reduce reached {largest.summary.median:.1f} GB/s bus bandwidth over {kind}; gpuready's "
                        "data has no peak for this link")]
    share = largest.summary.median / spec.per_gpu_gbps
    severity = Severity.WARN if share < 0.5 else Severity.INFO
    return [Finding("bench.allreduce_vs_link", severity,
                    f"all_reduce bus bandwidth {largest.summary.median:.1f} GB/s at {largest.settings.get('bytes')} "
                    f"bytes is {share:.0%} of the {spec.generation} peak ({spec.per_gpu_gbps:g} GB/s per GPU per "
                    "direction)" + (": well below what the links allow" if share < 0.5 else ""),
                    evidence={"link": kind, "gpu": gpu, "links": str(dict(kinds)), "confirmed": str(spec.confirmed)},
                    remedy="check NCCL/RCCL settings, that all GPUs are used, and the topology" if share < 0.5 else "",
                    source_url=spec.source)]


def network_peak(links: Sequence[LinkSpec], kind: str, port_gbits: float) -> LinkSpec | None:
    """The network entry (``per_gpu_gbps`` per port, GB/s) for this kind whose port rate is ``port_gbits`` Gb/s."""
    return next((spec for spec in links if spec.kind == kind and not spec.gpus
                 and abs(spec.per_gpu_gbps * 8 - port_gbits) <= 0.01 * port_gbits), None)


def _number(value: object) -> float | None:
    try:
        number = float(str(value))
    except ValueError:
        return None
    return number if number > 0 else None


def _gpus_per_node(measurement: Measurement) -> int | None:
    """The local world size: recorded from torchrun's LOCAL_WORLD_SIZE, else the world size over the nodes."""
    local = _number(measurement.annotations.get("local_world_size"))
    if local is not None:
        return int(local)
    world, nodes = _number(measurement.settings.get("world_size")), _number(measurement.settings.get("nodes"))
    return int(world // nodes) if world and nodes and world >= nodes else None


def judge_internode(fingerprint: Fingerprint | None, measurements: Sequence[Measurement],
                    links: Sequence[LinkSpec]) -> list[Finding]:
    """One finding for an all_reduce across nodes (torchrun): the largest message's bus bandwidth, the world size and
    the nodes, against the peak for the network between them: the catalogue entry for the node's kind and active port
    rate, times the active ports, shared among the GPUs of a node (at most one port's rate per GPU)."""
    largest = max(measurements, key=lambda m: int(m.settings.get("bytes", 0) or 0))
    notes = largest.annotations
    kind = str(notes.get("interconnect") or "network")
    port_gbits = _number(notes.get("port_rate_gbps"))
    ports = int(_number(notes.get("active_ports")) or 0)
    gpus = _gpus_per_node(largest)
    spec = network_peak(links, kind, port_gbits) if port_gbits is not None else None
    busbw = largest.summary.median
    where = (f"across {largest.settings.get('nodes')} nodes (world size {largest.settings.get('world_size')}, "
             f"{largest.settings.get('backend')})")
    evidence = {"link": kind, "nodes": str(largest.settings.get("nodes")),
                "world_size": str(largest.settings.get("world_size")), "busbw_gbps": f"{busbw:.3f}"}
    if port_gbits is not None:
        evidence.update(port_rate_gbps=f"{port_gbits:g}", active_ports=str(ports))
    if gpus is not None:
        evidence["gpus_per_node"] = str(gpus)
    if spec is None or ports < 1 or gpus is None or gpus < 1:
        what = f"{kind} at {port_gbits:g} Gb/s per port" if port_gbits is not None else f"{kind} (port rate unknown)"
        why = "no peak for" if spec is None else "no count of active ports or GPUs per node for"
        return [Finding("bench.allreduce_internode_link_unknown", Severity.INFO,
                        f"inter-node all_reduce bus bandwidth {busbw:.2f} GB/s at {largest.settings.get('bytes')} "
                        f"bytes {where}; gpuready's link data has {why} {what}", evidence=evidence)]
    peak = min(ports * spec.per_gpu_gbps / gpus, spec.per_gpu_gbps)
    share = busbw / peak
    low = share < 0.5
    assumption = (f"assuming the node's {ports} active {spec.generation} port{'s' if ports != 1 else ''} "
                  f"({spec.per_gpu_gbps:g} GB/s each per direction) are shared evenly by its {gpus} GPU"
                  f"{'s' if gpus != 1 else ''}, at most one port per GPU")
    return [Finding("bench.allreduce_internode_vs_link", Severity.WARN if low else Severity.INFO,
                    f"inter-node all_reduce bus bandwidth {busbw:.2f} GB/s {where} is {share:.0%} of the "
                    f"{spec.generation} peak of {peak:g} GB/s per GPU per direction ({assumption})"
                    + (": well below what the network allows" if low else ""),
                    evidence={**evidence, "peak_gbps_per_gpu": f"{peak:g}", "confirmed": str(spec.confirmed)},
                    remedy="check the NCCL/RCCL network settings (NCCL_IB_HCA, NCCL_SOCKET_IFNAME) and the fabric"
                    if low else "", source_url=spec.source)]
