"""The fleet's readers under damaged input (seeded, reproducible): a Run document with fields cut, retyped or
replaced is digested or refused with InputError, never another exception; a damaged baseline file is loaded or
refused with InputError naming the file. The documents start from a synthetic fleet (made up)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from gpuready.errors import InputError
from gpuready.fleet.analysis import analyse
from gpuready.fleet.baseline import dump_baseline, load_baseline, make_baseline
from gpuready.fleet.collect import Collected, digest
from tests.fleet_synthetic import Plants, fleet_documents

SEED = 20261201
ODD_VALUES: list[Any] = [None, 0, -1, 2**70, 1.5, float("inf"), "", "x" * 300, [], {}, [None], {"a": []}, True,
                         "\x1b[2J", "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace")]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:3]):
            found += _paths(inner, (*prefix, index))
    return found


def _damage(document: dict[str, Any], rng: random.Random) -> Any:
    if rng.random() < 0.05:
        return copy.deepcopy(rng.choice(ODD_VALUES))
    damaged = copy.deepcopy(document)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(damaged)
        if not paths:
            break
        path = rng.choice(paths)
        parent = damaged
        for step in path[:-1]:
            parent = parent[step]
        if rng.random() < 0.3 and isinstance(parent, dict):
            parent.pop(path[-1], None)
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(ODD_VALUES))
    return damaged


def test_damaged_run_documents_are_digested_or_refused() -> None:
    rng = random.Random(SEED)
    documents = fleet_documents(3, Plants(), "ffuzz")
    read, refused = [], 0
    for index in range(3000):
        damaged = _damage(rng.choice(documents), rng)
        try:
            found = digest(damaged, f"case {index}", "ffuzz")
        except InputError:
            refused += 1
            continue
        if found is not None:
            read.append(found)
    print(f"3000 damaged Run documents: {len(read)} digested, {refused} refused")
    assert read and refused
    analyse(Collected("ffuzz", tuple(read)))  # whatever was digested, the analysis takes it


def test_damaged_baseline_files_load_or_name_the_file(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    found = [digest(d, "synthetic", "ffuzz") for d in fleet_documents(4, Plants(), "ffuzz")]
    text = dump_baseline(make_baseline(analyse(Collected("ffuzz", tuple(d for d in found if d is not None)))))
    path = tmp_path / "baseline.yaml"
    loaded = refused = 0
    for _ in range(1500):
        data = bytearray(text.encode())
        for _ in range(rng.randint(1, 6)):
            how = rng.randrange(4)
            at = rng.randrange(len(data))
            if how == 0:
                del data[at:at + rng.randint(1, 40)]
            elif how == 1:
                data[at] = rng.randrange(256)
            elif how == 2:
                data[at:at] = rng.choice([b"[", b"{", b": ", b"\n- ", b"\x00", b"!!python/object:os.system", b"&a *a"])
            else:
                data[at:at] = json.dumps(rng.choice(ODD_VALUES)).encode()
        path.write_bytes(bytes(data))
        try:
            load_baseline(path)
            loaded += 1
        except InputError as error:
            refused += 1
            assert error.source == str(path)
    print(f"1500 damaged baseline files: {loaded} loaded, {refused} refused")
    assert refused
