"""Host facts: OS, kernel, CPU, C library, Python, container, hostname."""

from __future__ import annotations

import re

from gpuready.model import Fact, Host
from gpuready.probe.parse import parse_fact
from gpuready.probe.parse.os_release import parse_lsb_release, parse_os_release
from gpuready.probe.system import System


def parse_cpu_model(text: str) -> str | None:
    """The first ``model name`` of ``/proc/cpuinfo`` (x86) or ``Model name`` of lscpu-like text."""
    match = re.search(r"^(?:model name|Model name)\s*:\s*(.+?)\s*$", text, re.MULTILINE)
    return match.group(1) if match else None


def parse_ldd_version(text: str) -> str | None:
    """``ldd (Ubuntu GLIBC 2.35-0ubuntu3.8) 2.35`` -> ``glibc 2.35``; musl's ``Version 1.2.4`` -> ``musl 1.2.4``."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    if "musl" in text.lower():
        match = re.search(r"Version\s+(\d+(?:\.\d+)+)", text)
        return f"musl {match.group(1)}" if match else None
    match = re.search(r"(\d+\.\d+(?:\.\d+)?)\s*$", first)
    return f"glibc {match.group(1)}" if match else None


def detect_container(system: System) -> Fact[str]:
    """docker / podman / kubernetes / containerd / lxc, from marker files, cgroup names and the environment."""
    env = system.environ()
    if "KUBERNETES_SERVICE_HOST" in env:
        return Fact.of("kubernetes", "KUBERNETES_SERVICE_HOST")
    if system.read_text("/run/.containerenv") is not None:
        return Fact.of("podman", "/run/.containerenv")
    if system.read_text("/.dockerenv") is not None:
        return Fact.of("docker", "/.dockerenv")
    try:
        cgroup = system.read_text("/proc/1/cgroup") or ""
    except OSError:
        cgroup = ""
    for marker, name in (("kubepods", "kubernetes"), ("docker", "docker"), ("libpod", "podman"),
                         ("containerd", "containerd"), ("lxc", "lxc")):
        if marker in cgroup:
            return Fact.of(name, "/proc/1/cgroup")
    if env.get("container"):
        return Fact.of(env["container"], "$container")
    return Fact.absent("/.dockerenv, /run/.containerenv, /proc/1/cgroup", "no container markers")


def _read(system: System, path: str) -> tuple[str | None, str]:
    try:
        return system.read_text(path), ""
    except OSError as error:
        return None, str(error)


def collect_host(system: System) -> Host:
    """Probe the host. Never raises: each fact says what it could not find out."""
    os_text, os_error = _read(system, "/etc/os-release")
    if os_text is None:
        os_text, os_error = _read(system, "/usr/lib/os-release")
    os_fact = parse_fact(parse_os_release, os_text, "/etc/os-release") if os_text is not None else None
    lsb_text, _ = _read(system, "/etc/lsb-release")
    lsb_fact = parse_fact(parse_lsb_release, lsb_text, "/etc/lsb-release") if lsb_text is not None else None
    lsb = lsb_fact.value if lsb_fact and lsb_fact.ok else None

    if os_fact is None:
        missing = Fact[str].error("/etc/os-release", os_error) if os_error else Fact[str].absent(
            "/etc/os-release", "no os-release file")
        os_name, os_id, os_version = missing, missing, missing
    elif not os_fact.ok or os_fact.value is None:
        broken = Fact[str].error(os_fact.source, os_fact.detail)
        os_name, os_id, os_version = broken, broken, broken
    else:
        release = os_fact.value
        point = lsb.point_release if lsb and lsb.distrib_id.lower() == release.id else None
        version = point or release.version_id
        os_id = Fact.of(release.id, "/etc/os-release")
        os_version = Fact.of(version, "/etc/lsb-release" if point else "/etc/os-release") if version else (
            Fact[str].absent("/etc/os-release", "no VERSION_ID"))
        name = (lsb.description if lsb and point else None) or release.pretty_name or release.name or release.id
        os_name = Fact.of(name, "/etc/os-release")

    kernel, machine = system.uname()
    cpu_text, cpu_error = _read(system, "/proc/cpuinfo")
    cpu_model = parse_cpu_model(cpu_text or "")
    if cpu_model:
        cpu = Fact.of(cpu_model, "/proc/cpuinfo")
    elif cpu_error:
        cpu = Fact[str].error("/proc/cpuinfo", cpu_error)
    else:
        cpu = Fact[str].absent("/proc/cpuinfo", "no model name line")

    ldd = system.run(["ldd", "--version"], timeout_s=5)
    libc_name = parse_ldd_version(ldd.stdout or ldd.stderr) if not ldd.error else None
    libc = Fact.of(libc_name, "ldd --version") if libc_name else Fact[str].absent("ldd --version", ldd.failure())

    hostname = system.hostname()
    return Host(
        os_name=os_name,
        os_id=os_id,
        os_version=os_version,
        kernel=Fact.of(kernel, "uname -r") if kernel else Fact.absent("uname -r"),
        machine=Fact.of(machine, "uname -m") if machine else Fact.absent("uname -m"),
        cpu_model=cpu,
        libc=libc,
        python=Fact.of(system.python(), "platform.python_version()"),
        container=detect_container(system),
        hostname=Fact.of(hostname, "socket.gethostname()") if hostname else Fact.absent("socket.gethostname()"),
    )
