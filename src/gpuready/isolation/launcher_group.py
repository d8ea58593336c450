"""Joining a process group that an external launcher (``torchrun``, across nodes) set up: which rank and world this
process has, how many nodes, and a process group per experiment on the launcher's store.

Each experiment of a node job runs in a fresh child process and initialises its own group. On torchrun's store the
default key prefix would be the same for every one of them, so a second group would read the first one's (dead)
peers' addresses: each group gets a prefix of its own (the experiment's name and torchrun's restart count)."""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

NEEDED = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@dataclass(frozen=True)
class LauncherGroup:
    """This process's place in the launcher's world."""

    rank: int
    world: int
    local_world: int
    nodes: int
    master: tuple[str, int]
    agent_store: bool
    """torchrun's agent hosts the store (every rank is a client); otherwise rank 0 hosts it."""
    attempt: str


def launched(environ: Mapping[str, str] | None = None) -> LauncherGroup | None:
    """The launcher's group as its environment describes it, or None when no launcher started this process."""
    env = os.environ if environ is None else environ
    if not set(NEEDED) <= set(env):
        return None
    world = int(env["WORLD_SIZE"])
    local_world = int(env.get("LOCAL_WORLD_SIZE", world))
    nodes = int(env.get("GROUP_WORLD_SIZE") or max(1, world // max(1, local_world)))
    return LauncherGroup(int(env["RANK"]), world, local_world, nodes, (env["MASTER_ADDR"], int(env["MASTER_PORT"])),
                         env.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true",
                         env.get("TORCHELASTIC_RESTART_COUNT", "0"))


def init_group(dist: Any, backend: str, name: str, group: LauncherGroup, timeout_s: float = 600) -> None:
    """``dist.init_process_group`` on the launcher's store under a prefix of this experiment's own."""
    timeout = datetime.timedelta(seconds=timeout_s)
    host, port = group.master
    store = dist.TCPStore(host, port, group.world, is_master=group.rank == 0 and not group.agent_store,
                          timeout=timeout, wait_for_workers=False)
    prefixed = dist.PrefixStore(f"gpuready/{name}/{group.attempt}", store)
    dist.init_process_group(backend, store=prefixed, rank=group.rank, world_size=group.world, timeout=timeout)
