"""The job one node of a fleet runs: doctor, then the check suite, benchmarks and micro-ceilings, and a lock verify,
each Run tagged with its placement and written where the fleet collects (``gpuready fleet node``; every engine
starts this on each node). Experiments run in isolated children as everywhere in gpuready."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from pathlib import Path

from gpuready.errors import InputError
from gpuready.fleet.config import Destination, NodeJob
from gpuready.fleet.tags import Placement, with_placement
from gpuready.model import Run

Say = Callable[[str], None]


def _runs(job: NodeJob, say: Say) -> Iterator[Run]:
    from gpuready import api
    from gpuready.model.config import BenchConfig, CheckConfig, DoctorConfig, VerifyConfig

    data = api.load_data()
    say("doctor")
    yield api.doctor(DoctorConfig(), data=data)
    if job.check_suite:
        say(f"check --suite {job.check_suite}")
        yield api.check(CheckConfig(suite=job.check_suite, only=job.only, device=job.device, timeout_s=job.timeout_s))
    workloads = list(job.workloads) or (["mlp"] if job.micro else [])
    for index, workload in enumerate(workloads):
        micro = job.micro if index == 0 else ()
        say(f"bench {workload}" + (f" --micro {','.join(micro)}" if micro else ""))
        yield api.bench(BenchConfig(workload=workload, steps=job.bench_steps, warmup=min(5, job.bench_steps),
                                    micro=micro, device=job.device), data=data)
    if job.lock_file is not None:
        say(f"verify {job.lock_file}")
        yield api.verify(VerifyConfig(lock_file=job.lock_file), data=data)


def run_node(job: NodeJob, placement: Placement, destination: Destination, *, say: Say | None = None) -> list[Run]:
    """Run ``job`` on this machine and write each Run as soon as it exists (a later failure loses nothing already
    measured). Returns the Runs, tagged with ``placement``."""
    say = say or (lambda _: None)
    done: list[Run] = []
    for run in _runs(job, say):
        tagged = dataclasses.replace(run, tags=with_placement(run.tags, placement))
        write(tagged, placement, destination)
        done.append(tagged)
    return done


def run_file(folder: Path, placement: Placement, run: Run) -> Path:
    """Where a node writes a Run in a folder destination."""
    return folder / placement.fleet / placement.node / f"{run.kind.value}-{run.id}.json"


def write(run: Run, placement: Placement, destination: Destination) -> None:
    """Write one Run to the folder first (a local copy survives a store that cannot be reached), then the store."""
    if destination.folder is not None:
        path = run_file(destination.folder, placement, run)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(".json.tmp")
            temporary.write_text(json.dumps(run.to_dict(), indent=1), encoding="utf-8")
            temporary.replace(path)
        except OSError as error:
            raise InputError(f"cannot write the run ({error.strerror or error})", source=str(path)) from error
    if destination.store_url:
        from gpuready.store import open_store

        with open_store(destination.store_url) as store:
            store.save(run)
