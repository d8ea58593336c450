"""The one seam through which probes see the machine: commands, files, directories, device nodes.

``LocalSystem`` is the real machine (argv lists, timeouts, never a shell). ``ReplaySystem`` serves recorded
outputs and files, so every probe can be tested with real output from other machines.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import grp
import os
import platform
import pwd
import shutil
import socket
import stat as statmod
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

DEFAULT_TIMEOUT_S = 20.0
MAX_READ_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a command did. ``error`` is set when it could not run or ran past its timeout."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    error: str = ""
    """``not found``, ``timed out after 20 s``, ``permission denied`` ...; empty when the command ran."""

    @property
    def ok(self) -> bool:
        """Ran and exited 0."""
        return not self.error and self.returncode == 0

    @property
    def not_found(self) -> bool:
        """The program is not installed (not on PATH)."""
        return self.error == "not found"

    def failure(self) -> str:
        """One line saying why the command did not succeed."""
        if self.error:
            return self.error
        tail = (self.stderr.strip() or self.stdout.strip()).splitlines()
        last = tail[-1][:200] if tail else ""
        return f"exit status {self.returncode}" + (f": {last}" if last else "")


@dataclass(frozen=True, slots=True)
class NodeStat:
    """Owner group, permission bits and this user's access to a path."""

    group: str
    mode: int
    accessible: bool
    is_char_device: bool


class System(Protocol):
    """Everything a probe may ask of the machine."""

    def run(self, argv: Sequence[str], timeout_s: float = DEFAULT_TIMEOUT_S) -> CommandResult: ...

    def read_text(self, path: str) -> str | None:
        """File contents, or None when the file does not exist. Raises ``OSError`` when unreadable."""

    def glob(self, pattern: str) -> list[str]:
        """Sorted paths matching a shell pattern."""

    def stat(self, path: str) -> NodeStat | None: ...

    def environ(self) -> Mapping[str, str]: ...

    def uname(self) -> tuple[str, str]:
        """(kernel release, machine)."""

    def hostname(self) -> str | None:
        """This machine's name, or None when it has none."""

    def python(self) -> str: ...

    def user(self) -> tuple[str, tuple[str, ...]]:
        """(user name, group names)."""

    def which(self, program: str) -> str | None: ...

    def distributions(self) -> list[tuple[str, str]]:
        """(name, version) of every installed Python distribution."""

    def python_executable(self) -> str:
        """The interpreter framework probes run in (the one gpuready runs in)."""

    def package_dir(self, name: str) -> str | None:
        """Where an installed top-level package lives, found without importing it."""


class LocalSystem:
    """The machine gpuready runs on."""

    def run(self, argv: Sequence[str], timeout_s: float = DEFAULT_TIMEOUT_S) -> CommandResult:
        args = tuple(argv)
        try:
            done = subprocess.run(
                list(args),
                capture_output=True,
                timeout=timeout_s,
                check=False,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "LC_ALL": "C"},
            )
        except FileNotFoundError:
            return CommandResult(args, None, error="not found")
        except PermissionError:
            return CommandResult(args, None, error="permission denied")
        except subprocess.TimeoutExpired:
            return CommandResult(args, None, error=f"timed out after {timeout_s:g} s")
        except OSError as error:
            return CommandResult(args, None, error=str(error))
        return CommandResult(
            args,
            done.returncode,
            done.stdout.decode("utf-8", errors="replace"),
            done.stderr.decode("utf-8", errors="replace"),
        )

    def read_text(self, path: str) -> str | None:
        try:
            with open(path, "rb") as handle:
                return handle.read(MAX_READ_BYTES).decode("utf-8", errors="replace")
        except (FileNotFoundError, NotADirectoryError):
            return None

    def glob(self, pattern: str) -> list[str]:
        root = Path(pattern).anchor or "."
        relative = str(Path(pattern).relative_to(root)) if Path(pattern).is_absolute() else pattern
        try:
            return sorted(str(p) for p in Path(root).glob(relative))
        except OSError:
            return []

    def stat(self, path: str) -> NodeStat | None:
        try:
            info = os.stat(path)
        except OSError:
            return None
        try:
            group = grp.getgrgid(info.st_gid).gr_name
        except KeyError:
            group = str(info.st_gid)
        return NodeStat(
            group=group,
            mode=statmod.S_IMODE(info.st_mode),
            accessible=os.access(path, os.R_OK | os.W_OK),
            is_char_device=statmod.S_ISCHR(info.st_mode),
        )

    def environ(self) -> Mapping[str, str]:
        return dict(os.environ)

    def uname(self) -> tuple[str, str]:
        return platform.release(), platform.machine()

    def hostname(self) -> str | None:
        return socket.gethostname() or None

    def python(self) -> str:
        return platform.python_version()

    def user(self) -> tuple[str, tuple[str, ...]]:
        try:
            name = pwd.getpwuid(os.getuid()).pw_name
        except KeyError:
            name = str(os.getuid())
        groups = []
        for gid in sorted(set(os.getgroups()) | {os.getgid()}):
            try:
                groups.append(grp.getgrgid(gid).gr_name)
            except KeyError:
                groups.append(str(gid))
        return name, tuple(groups)

    def which(self, program: str) -> str | None:
        return shutil.which(program)

    def distributions(self) -> list[tuple[str, str]]:
        from importlib import metadata

        found = []
        for dist in metadata.distributions():
            name = dist.metadata["Name"] if dist.metadata else None
            if name:
                found.append((str(name), str(dist.version)))
        return found

    def python_executable(self) -> str:
        return sys.executable

    def package_dir(self, name: str) -> str | None:
        import importlib.util

        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        locations = list(spec.submodule_search_locations or []) if spec else []
        return locations[0] if locations else None


@dataclass(frozen=True)
class ReplaySystem:
    """A recorded machine: commands answer from ``commands``, files from ``files``; everything else is absent."""

    commands: Mapping[tuple[str, ...], CommandResult | str] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)
    nodes: Mapping[str, NodeStat] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    kernel: tuple[str, str] = ("6.8.0-45-generic", "x86_64")
    python_version: str = "3.11.7"
    user_groups: tuple[str, tuple[str, ...]] = ("user", ("user",))
    packages: tuple[tuple[str, str], ...] = ()
    executable: str = "/usr/bin/python3"
    package_dirs: Mapping[str, str] = field(default_factory=dict)

    def run(self, argv: Sequence[str], timeout_s: float = DEFAULT_TIMEOUT_S) -> CommandResult:
        args = tuple(argv)
        answer = self.commands.get(args)
        if answer is None:
            return CommandResult(args, None, error="not found")
        if isinstance(answer, str):
            return CommandResult(args, 0, answer)
        return dataclasses.replace(answer, argv=args)

    def read_text(self, path: str) -> str | None:
        return self.files.get(path)

    def glob(self, pattern: str) -> list[str]:
        names = set(self.files) | set(self.nodes)
        names |= {str(parent) for name in self.files for parent in Path(name).parents if str(parent) != "/"}
        parts = pattern.split("/")

        def matches(name: str) -> bool:
            pieces = name.split("/")
            if len(pieces) != len(parts):
                return False
            return all(fnmatch.fnmatchcase(a, b) for a, b in zip(pieces, parts, strict=True))

        return sorted(n for n in names if matches(n))

    def stat(self, path: str) -> NodeStat | None:
        return self.nodes.get(path)

    def environ(self) -> Mapping[str, str]:
        return self.env

    def uname(self) -> tuple[str, str]:
        return self.kernel

    def hostname(self) -> str | None:
        return (self.files.get("/proc/sys/kernel/hostname") or "").strip() or None

    def python(self) -> str:
        return self.python_version

    def user(self) -> tuple[str, tuple[str, ...]]:
        return self.user_groups

    def which(self, program: str) -> str | None:
        return f"/usr/bin/{program}" if any(argv[0] == program for argv in self.commands) else None

    def distributions(self) -> list[tuple[str, str]]:
        return list(self.packages)

    def python_executable(self) -> str:
        return self.executable

    def package_dir(self, name: str) -> str | None:
        return self.package_dirs.get(name)
