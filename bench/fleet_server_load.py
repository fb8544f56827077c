"""The server under W writers: facts/s, Insert latency p50/p99 and the server's CPU per fact
and per commit, the costs bench/fleet_simulator.py charges its server queue.

Run on demand (not part of the test suite):
    .venv/bin/python bench/fleet_server_load.py                       # W = 1 2 4 8 16, B = 1 40
    .venv/bin/python bench/fleet_server_load.py --writers 1 8 --batch 40 --root 0*14
Real facts (0*ROOT solved in memory here, its nimber facts: what a fleet Inserts) are
Inserted into a fresh local `serve --no-results` (bench/fleet.py's Server) by W writer
processes, each its own slice in batches of B facts (a fleet solver sends what it proved in
its last 0.5 s: a few tens at the roots the traces ran), one Insert after another, as
FleetStore's writer thread does. Per (W, B): wall seconds, facts/s, the writers' Insert
latencies (p50/p99), the server's own CPU seconds (from /proc) and its commit figures
(Stats). The CPU a fact and a commit cost the server are fitted from the B = 1 and largest-B
runs at W = 1 (two equations: CPU = commits x a + facts x b). Saves
bench/results/fleet_server_load.json; CPU figures hold under load, wall ones do not (the
load is saved beside them).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fleet import Server
from fleet_traces import _cpu_of

RESULTS = Path(__file__).resolve().parent / "results" / "fleet_server_load.json"


def real_facts(root: str) -> list[tuple[str, Any]]:
    """The nimber facts one process's solve of `root` (outcome, df-pn) puts."""
    from sproutsdb.games import get_game
    from sproutsdb.ops.solve import SolveSettings, normal_solver
    from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore

    game = get_game().engine()
    store = MemoryProofStore()
    normal_solver(game, store, SolveSettings()).outcome(game.canonical(root))
    return list(store.iter_facts(FactKind.NIMBER))


def _writer(address: str, facts: list[tuple[str, Any]], batch: int, out: Any) -> None:
    """One writer process: Insert its facts in batches, one after another; its latencies."""
    from sproutsdb.ops.stores import open_remote_store
    from sproutsdb.solver.ports.proofstore import FactKind

    store = open_remote_store(address)
    latencies = []
    for start in range(0, len(facts), batch):
        part = dict(facts[start : start + batch])
        began = time.perf_counter()
        store.put(FactKind.NIMBER, part)
        latencies.append(time.perf_counter() - began)
    store.close()
    out.put(latencies)


def one_load(facts: list[tuple[str, Any]], writers: int, batch: int) -> dict[str, Any]:
    """W writers Insert `facts` (disjoint slices) into a fresh server in batches of B."""
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="server-load-") as tmp:
        server = Server(Path(tmp) / "store", "--no-seed")
        try:
            out = context.Queue()
            slices = [facts[w::writers] for w in range(writers)]
            procs = [context.Process(target=_writer, args=(server.address, s, batch, out))
                     for s in slices]  # fmt: skip
            load = os.getloadavg()
            cpu0 = _cpu_of(server.proc.pid)
            started = time.perf_counter()
            for p in procs:
                p.start()
            latencies = [x for _ in procs for x in out.get()]
            for p in procs:
                p.join()
            wall = time.perf_counter() - started
            time.sleep(1.0)  # the verifier's claims of the last batches
            cpu = _cpu_of(server.proc.pid) - cpu0
            stats = server.stats()
        finally:
            server.stop()
    latencies.sort()
    return {
        "writers": writers,
        "batch": batch,
        "facts": len(facts),
        "wall": round(wall, 2),
        "facts_per_s": round(len(facts) / wall),
        "insert_ms": {
            "p50": round(1000 * latencies[len(latencies) // 2], 2),
            "p99": round(1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 2),
        },
        "server_cpu": round(cpu, 2),
        "commits": stats.get("commits"),
        "commit_ms": stats.get("commit_ms"),
        "facts_inserted": stats.get("facts_inserted"),
        "load": [round(x, 2) for x in load],
    }


def fit(rows: list[dict[str, Any]]) -> dict[str, float] | None:
    """The server's CPU a commit (a) and a fact (b) from two W = 1 runs of different B."""
    ones = sorted((r for r in rows if r["writers"] == 1), key=lambda r: r["batch"])
    if len(ones) < 2 or ones[0]["batch"] == ones[-1]["batch"]:
        return None
    (c1, f1, s1), (c2, f2, s2) = (
        (r["commits"], r["facts_inserted"], r["server_cpu"]) for r in (ones[0], ones[-1])
    )
    det = c1 * f2 - c2 * f1
    if det == 0:
        return None
    a = (s1 * f2 - s2 * f1) / det
    b = (c1 * s2 - c2 * s1) / det
    return {"cpu_ms_per_commit": round(1000 * a, 4), "cpu_ms_per_fact": round(1000 * b, 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default="0*14")
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 40])
    parser.add_argument("--limit", type=int, default=4000, help="facts a run Inserts")
    parser.add_argument("--save", type=Path, default=RESULTS)
    args = parser.parse_args()
    facts = real_facts(args.root)[: args.limit]
    print(f"{len(facts):,} facts of {args.root}", flush=True)
    rows = []
    for batch in args.batch:
        for writers in args.writers:
            if batch == 1 and writers > 1 and writers not in (args.writers[-1],):
                continue  # B = 1 only at W = 1 and the most writers (slow: a commit a fact)
            row = one_load(facts, writers, batch)
            rows.append(row)
            print(json.dumps(row), flush=True)
    fitted = fit(rows)
    print("fitted server CPU:", fitted)
    args.save.parent.mkdir(parents=True, exist_ok=True)
    saved = {"when": time.strftime("%Y-%m-%d %H:%M:%S"), "root": args.root, "rows": rows,
             "fit": fitted, "cores": os.cpu_count()}  # fmt: skip
    args.save.write_text(json.dumps(saved, indent=1) + "\n")
    print(f"saved {args.save}")


if __name__ == "__main__":
    main()
