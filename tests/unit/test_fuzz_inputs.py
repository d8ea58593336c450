"""Fuzzing every reader with damaged real input (issue 19): every real fixture (tool outputs, pastes, stored Runs) and
a real lock, cut, thinned, doubled, flipped, NUL-filled, made invalid UTF-8, CRLF'd, given a huge line, wrapped in
deep JSON or given huge integers — read as each ``--from`` kind, as ``runs import`` reads a Run file, as ``verify``
reads a lock, and by the guard. The promise: a result, or InputError (exit 2) with one line; never another
exception (exit 3), never a hang, never unbounded memory. At least 10,000 generated cases, seeded (reproducible),
and the count is printed."""

from __future__ import annotations

import dataclasses
import random
import resource
import time
from collections.abc import Callable
from pathlib import Path

from gpuready.errors import InputError
from gpuready.guard import decide
from gpuready.pinning.lockfile import read_lock, render_lock
from gpuready.probe.paste import ReportKind, read_fingerprint
from gpuready.store.files import read_run_file
from tests.fixture_kinds import FIXTURES, all_fixtures

CASES_PER_SOURCE = 90
SEED = 20261201
RUNS = sorted((Path(__file__).parents[2] / "docs" / "runs").rglob("*.json")) + sorted(
    (FIXTURES / "runs-schema1").glob("*.json"))
PASTES = sorted((FIXTURES / "pastes").glob("*.txt"))


def _resident_kib() -> int:
    """The process's resident memory now, in KiB (/proc on Linux; elsewhere its peak so far, which only grows).
    Measured around the fuzz alone: the test process's lifetime peak holds whatever earlier tests needed."""
    try:
        pages = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[1])
        return pages * resource.getpagesize() // 1024
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _sources() -> list[tuple[str, bytes]]:
    found = [(f"{f.kind}/{f.path.name}", f.path.read_bytes()) for f in all_fixtures()]
    found += [(f"pastes/{p.name}", p.read_bytes()) for p in PASTES]
    found += [(f"runs/{p.name}", p.read_bytes()) for p in RUNS]
    return found


def _mutate(data: bytes, rng: random.Random) -> bytes:
    how = rng.randrange(11)
    if not data:
        return b"x"
    if how == 0:
        return data[: rng.randrange(len(data) + 1)]
    lines = data.split(b"\n")
    if how == 1:
        return b"\n".join(line for line in lines if rng.random() > 0.25)
    if how == 2:
        index = rng.randrange(len(lines))
        return b"\n".join(lines[:index] + [lines[index]] * rng.randrange(2, 200) + lines[index:])
    if how == 3:
        flipped = bytearray(data)
        for _ in range(1 + len(flipped) // 100):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        return bytes(flipped)
    if how == 4:
        position = rng.randrange(len(data))
        return data[:position] + b"\x00" * rng.randrange(1, 64) + data[position:]
    if how == 5:
        position = rng.randrange(len(data))
        return data[:position] + rng.choice([b"\xff\xfe", b"\xc3\x28", b"\xed\xa0\x80", b"\xf0\x28\x8c"]) + data[
            position:]
    if how == 6:
        return data.replace(b"\n", b"\r\n")
    if how == 7:
        position = rng.randrange(len(data))
        return data[:position] + b"A" * rng.randrange(100_000, 1_000_000) + data[position:]
    if how == 8:
        depth = rng.randrange(100, 5000)
        return b'{"fingerprint": ' + b"[" * depth + b"]" * depth + b"}"
    if how == 9:
        digits = str(rng.randrange(10)).encode() * rng.randrange(400, 6000)
        return data.replace(b"1", digits, 3) if b"1" in data else data + digits
    return b"\n".join(rng.sample(lines, len(lines)))


def _read_as(kind: ReportKind | None) -> Callable[[Path], object]:
    return lambda path: read_fingerprint(path, kind)


READERS: list[tuple[str, Callable[[Path], object]]] = [
    ("--from (detected)", _read_as(None)),
    *((f"--from --kind {kind.value}", _read_as(kind)) for kind in ReportKind),
    ("runs import", read_run_file),
    ("verify (lock)", read_lock),
]


def test_ten_thousand_damaged_inputs_give_a_result_or_one_line(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    sources = _sources()
    assert len(sources) > 100
    cases = 0
    unexpected: list[str] = []
    start = time.perf_counter()
    target = tmp_path / "input"
    first = peak = _resident_kib()
    for name, data in sources:
        for _ in range(CASES_PER_SOURCE):
            damaged = _mutate(data, rng)
            target.write_bytes(damaged)
            label, reader = READERS[0] if rng.random() < 0.5 else rng.choice(READERS)
            case_start = time.perf_counter()
            try:
                reader(target)
            except InputError as error:
                if "\n" in error.reason:
                    unexpected.append(f"{name} as {label}: a reason of several lines")
            except Exception as error:  # noqa: BLE001 - this is what the test looks for
                unexpected.append(f"{name} as {label}: {type(error).__name__}: {str(error)[:120]}")
            if time.perf_counter() - case_start > 10:
                unexpected.append(f"{name} as {label}: took {time.perf_counter() - case_start:.0f} s")
            cases += 1
            peak = max(peak, _resident_kib())
    print(f"fuzz: {cases} damaged inputs read in {time.perf_counter() - start:.0f} s; "
          f"peak resident memory while reading {peak // 1024} MiB (the process started at {first // 1024} MiB)")
    assert cases >= 10_000
    assert unexpected == []
    assert peak - first < 1024 * 1024  # KiB: reading them never took 1 GB more than the test process held before


def test_the_guard_never_raises_on_damaged_locks(tmp_path: Path) -> None:
    from tests.unit.pinning.test_lock_verify_guard import _lock

    lock_text = render_lock(dataclasses.replace(_lock())).encode("utf-8")
    rng = random.Random(SEED + 1)
    path = tmp_path / "gpuready.lock"
    for _ in range(500):
        path.write_bytes(_mutate(lock_text, rng))
        decision = decide("resnet50", path)
        assert decision.device in ("cpu", "cuda") and decision.reasons
