"""Device access: the device files accelerators are used through, their groups, and this user's groups."""

from __future__ import annotations

from gpuready.model import Access, DeviceNode, Fact
from gpuready.probe.system import System

NODE_PATTERNS = ("/dev/dri/renderD*", "/dev/nvidia[0-9]*", "/dev/nvidiactl", "/dev/nvidia-uvm")


def collect_access(system: System) -> Access:
    """Stat /dev/kfd, render nodes and NVIDIA nodes; /dev/kfd is always listed, present or not."""
    paths = ["/dev/kfd"]
    for pattern in NODE_PATTERNS:
        paths += [p for p in system.glob(pattern) if p not in paths]
    nodes = []
    for path in paths:
        info = system.stat(path)
        if info is None:
            missing: Fact[object] = Fact.absent(f"stat {path}", "no such device file")
            nodes.append(DeviceNode(path=path, exists=False, group=missing, mode=missing,  # type: ignore[arg-type]
                                    accessible=missing))  # type: ignore[arg-type]
            continue
        nodes.append(
            DeviceNode(
                path=path,
                exists=True,
                group=Fact.of(info.group, f"stat {path}"),
                mode=Fact.of(f"{info.mode:04o}", f"stat {path}"),
                accessible=Fact.of(info.accessible, f"access({path}, R_OK|W_OK)"),
            )
        )
    user, groups = system.user()
    return Access(nodes=tuple(nodes), user=Fact.of(user, "getpwuid"), groups=Fact.of(groups, "getgroups"))
