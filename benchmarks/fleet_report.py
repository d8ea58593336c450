"""Fleet report time at scale: a synthetic fleet (made up, never measurements) of 2,000 nodes x 20 Runs with planted
bad nodes (slow GEMM, another driver, a failing check, half all_reduce bandwidth, a node missing its benchmarks), in
a SQLite store and in a folder of per-node JSON files. Prints the time of ``gpuready.fleet_report`` from each and
checks that exactly the planted nodes are named.

Target (exit 1 when missed): under 5 s for 2,000 nodes from the store.

    python benchmarks/fleet_report.py [--nodes 2000] [--postgres URL]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from tests.fleet_synthetic import Plants, fleet_documents  # noqa: E402

import gpuready  # noqa: E402
from gpuready.fleet.config import ReportConfig  # noqa: E402

TARGET_S = 5.0


def _plants(nodes: int) -> Plants:
    last = f"node{nodes - 1:04d}"
    return Plants(slow_gemm=("node0007",), other_driver=(f"node{nodes // 3:04d}",), failing_check=("node0042",),
                  half_bandwidth=(last,), missing_bench=(f"node{nodes // 2:04d}",))


def _fill_store(url: str, documents: list[dict[str, object]]) -> None:
    """Rows as ``RunStore.save`` writes them, inserted in bulk (building 40,000 Run objects first would measure the
    generator, not the report)."""
    from gpuready.store import open_store
    from gpuready.store.tables import runs as table

    with open_store(url) as store, store.engine.begin() as connection:
        rows = [{"id": d["id"], "kind": d["kind"], "created_at": d["created_at"], "label": "",
                 "tags": ",".join(d["tags"]),  # type: ignore[arg-type]
                 "device": "AMD Instinct MI300X", "host": "Ubuntu 22.04.5 LTS", "document": json.dumps(d)}
                for d in documents]
        for start in range(0, len(rows), 2000):
            connection.execute(table.insert(), rows[start:start + 2000])


def _fill_folder(root: Path, fleet: str, documents: list[dict[str, object]]) -> None:
    for document in documents:
        node = next(t for t in document["tags"] if t.startswith("node:")).split(":", 1)[1]  # type: ignore[attr-defined]
        folder = root / fleet / node
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{document['kind']}-{document['id']}.json").write_text(json.dumps(document))


def _timed(label: str, expected: set[str], **where: object) -> float:
    start = time.perf_counter()
    report = gpuready.fleet_report("fbench", config=ReportConfig(), **where)  # type: ignore[arg-type]
    seconds = time.perf_counter() - start
    named = {node for node, _ in report.defective}
    status = "exactly the planted nodes" if named == expected else f"WRONG: named {sorted(named)}"
    print(f"{label:<28} {seconds:6.2f} s  {len(report.nodes)} nodes, {len(report.defective)} defective ({status})")
    if named != expected:
        raise SystemExit(1)
    return seconds


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--postgres", help="Also measure from this PostgreSQL URL (an empty database).")
    args = parser.parse_args(argv)
    plants = _plants(args.nodes)
    documents = fleet_documents(args.nodes, plants, "fbench")
    print(f"synthetic fleet: {args.nodes} nodes, {len(documents)} Runs")
    with tempfile.TemporaryDirectory() as scratch:
        url = f"sqlite:///{scratch}/runs.sqlite"
        _fill_store(url, documents)
        store_s = _timed("report from SQLite", plants.all(), store_url=url)
        if args.postgres:
            _fill_store(args.postgres, documents)
            _timed("report from PostgreSQL", plants.all(), store_url=args.postgres)
        _fill_folder(Path(scratch), "fbench", documents)
        _timed("report from a folder", plants.all(), folder=Path(scratch))
    met = store_s < TARGET_S
    print(f"target: under {TARGET_S:g} s for {args.nodes} nodes from the store: {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
