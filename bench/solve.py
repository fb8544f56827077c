"""Solve benchmark: 0*n on a fresh LMDB store, then again on the warm store.

Run on demand (not part of the test suite):
    .venv/bin/python bench/solve.py                 # n = 10..20, 10 minutes per n at most
    .venv/bin/python bench/solve.py --max-n 14 --limit 300 --jobs 2
    .venv/bin/python bench/solve.py --min-n 8 --baseline bench/baselines/solve-canon-v1.json
Each n runs in a fresh process (so peak RSS is that run's) on a fresh durable store: outcome,
wall and CPU seconds, df-pn visits (nodes), losing couples stored, peak RSS, and the ratio to
SPOTS's seconds on one core of this machine kind (docs/architecture.md §9); then the same
question on the now warm store, the in-process baseline of the warm/fresh ratio. --save keeps the figures as
JSON; --baseline prints the node and time ratios to a saved run. `sproutsdb check --prune
--cycles` (bench/check.py) gives pruned proof sizes.

Figures of earlier runs, with their dates and machines: bench/history/solve.md (a run
prints its own).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sproutsdb.ops.solve import SolveSettings, solve
from sproutsdb.ops.stores import open_proof_store
from sproutsdb.solver.normal.solver import SEARCHES, Progress
from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.canon import CANON_VERSION

PAPER_PRUNED = {11: 140, 12: 475}
# SPOTS on one core of this machine kind, outcome of 0*n, seconds and df-pn iterations
# (docs/architecture.md §9); 21 was not solved within 600 s.
SPOTS_SECONDS = {
    12: (21, 26),
    13: (25, 25),
    14: (136, 136),
    15: (298, 298),
    16: (38, 38),
    17: (15, 15),
    18: (437, 437),
    19: (280, 280),
    20: (466, 466),
}
SPOTS_ITERATIONS = {
    12: 45_140,
    13: 41_450,
    14: 250_087,
    15: 315_576,
    16: 58_773,
    17: 24_680,
    18: 486_913,
    19: 380_805,
    20: 448_064,
}


class OutOfTime(Exception):
    """Raised from the progress callback when a run exceeds its limit."""


def run(
    store_dir: Path, key: str, limit: float, search: str = "dfpn", jobs: int = 1
) -> dict[str, object]:
    """One solve of `key` on the store at `store_dir`: outcome, wall and CPU seconds, nodes,
    facts stored; raises OutOfTime past the limit. With jobs > 1, through the CLI."""
    if jobs > 1:
        return run_cli(store_dir, key, limit, search, jobs)
    started, cpu = time.perf_counter(), time.process_time()

    def watchdog(progress: Progress) -> None:
        if time.perf_counter() - started > limit:
            raise OutOfTime

    settings = SolveSettings(
        outcome_only=True, search=search, progress=watchdog, progress_interval=1.0
    )
    store = open_proof_store(store_dir)  # the store `sproutsdb solve --store DIR` opens
    try:
        report = solve(key, store, settings=settings)
    finally:
        store.close()
    outcome, stats = report.outcome, report.stats
    return {
        "outcome": outcome,
        "seconds": time.perf_counter() - started,
        "cpu": time.process_time() - cpu,
        "nodes": stats.nodes,
        "stored": stats.facts_stored,
        "table_clears": stats.table_clears,
    }


def run_cli(store_dir: Path, key: str, limit: float, search: str, jobs: int) -> dict[str, object]:
    """`sproutsdb solve --jobs N` as a user runs it; CPU seconds are all its processes'."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "sproutsdb",
                "solve",
                key,
                "--outcome-only",
                "--quiet",
                "--json",
                "--jobs",
                str(jobs),
                "--search",
                search,
                "--store",
                str(store_dir),
            ],
            capture_output=True,
            text=True,
            timeout=limit,
            check=True,
        )
    except subprocess.TimeoutExpired:
        raise OutOfTime from None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(done.stdout)
    return {
        "outcome": report["outcome"],
        "seconds": time.perf_counter() - started,
        "cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
        "nodes": None,
        "stored": report["stored"],
        "table_clears": None,
    }


def one(n: int, limit: float, search: str, jobs: int) -> dict[str, object]:
    """Fresh then warm solve of 0*n in this process (the parent runs one process per n)."""
    with tempfile.TemporaryDirectory(prefix=f"bench-solve-{n}-") as tmp:
        store_dir = Path(tmp) / "store"
        try:
            fresh = run(store_dir, f"0*{n}", limit, search, jobs)
        except OutOfTime:
            return {"n": n, "outcome": None}
        warm = run(store_dir, f"0*{n}", limit, search)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    if jobs > 1:
        peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
    return {
        "n": n,
        **fresh,
        "warm_seconds": warm["seconds"],
        "warm_nodes": warm["nodes"],
        "peak_rss_mb": peak,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-n", type=int, default=10)
    parser.add_argument("--max-n", type=int, default=20)
    parser.add_argument("--limit", type=float, default=600.0, help="seconds per fresh run")
    parser.add_argument(
        "--search", choices=SEARCHES, default="dfpn", help="normal-play search (default dfpn)"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes per solve (sproutsdb solve --jobs N)"
    )
    parser.add_argument("--save", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--baseline", type=Path, help="a saved run to print ratios against")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child run
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one, args.limit, args.search, args.jobs)))
        return
    baseline = json.loads(args.baseline.read_text()) if args.baseline else {}

    figures: dict[str, object] = {
        "canon_version": CANON_VERSION,
        "implementation": sprouts_game.IMPLEMENTATION,
        "search": args.search,
        "jobs": args.jobs,
    }
    print(
        f"engine: {sprouts_game.IMPLEMENTATION}, canon_version {CANON_VERSION}, "
        f"search {args.search}, jobs {args.jobs}"
    )
    print(
        f"{'n':>3} {'out':>3} {'wall s':>8} {'cpu s':>8} {'visits':>9} {'stored':>7} "
        f"{'RSS MB':>6} {'warm s':>7} {'SPOTS s':>8} {'cpu/SPOTS':>10} "
        f"{'SPOTS it':>9} {'visits/it':>9}"
    )
    for n in range(args.min_n, args.max_n + 1):
        child = subprocess.run(
            [
                sys.executable,
                __file__,
                "--one",
                str(n),
                "--limit",
                str(args.limit),
                "--search",
                args.search,
                "--jobs",
                str(args.jobs),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        row = json.loads(child.stdout)
        if row["outcome"] is None:
            print(
                f"{n:>3} {'-':>3} {'>' + str(int(args.limit)):>8}  (stopped at the limit)",
                flush=True,
            )
            figures[f"0*{n}"] = {"outcome": None, "limit": args.limit}
            continue
        spots = SPOTS_SECONDS.get(n)
        spots_it = SPOTS_ITERATIONS.get(n)
        # CPU seconds against SPOTS's one-core seconds: on a shared machine our wall
        # seconds measure the load, not the solver.
        ratio = (
            f"{row['cpu'] / spots[1]:.2f}-{row['cpu'] / spots[0]:.2f}"
            if spots and spots[0] != spots[1]
            else (f"{row['cpu'] / spots[0]:.2f}" if spots else "")
        )
        visits = row["nodes"]
        print(
            f"{n:>3} {row['outcome']:>3} {row['seconds']:>8.1f} {row['cpu']:>8.1f} "
            f"{visits if visits is not None else '-':>9} {row['stored']:>7} "
            f"{row['peak_rss_mb']:>6} {row['warm_seconds']:>7.2f} "
            f"{f'{spots[0]}-{spots[1]}' if spots and spots[0] != spots[1] else (spots[0] if spots else ''):>8} "
            f"{ratio:>10} {spots_it or '':>9} "
            f"{visits / spots_it if visits and spots_it else '':>9.4}",
            flush=True,
        )
        figures[f"0*{n}"] = {key: value for key, value in row.items() if key != "n"}
        before = baseline.get(f"0*{n}")
        if isinstance(before, dict) and visits:
            print(
                f"    against {args.baseline}: nodes {before['nodes']} -> {visits} "
                f"(x{visits / before['nodes']:.3f}), seconds {before['seconds']:.2f} -> "
                f"{row['seconds']:.2f} (x{row['seconds'] / before['seconds']:.3f})",
                flush=True,
            )
        if args.save:
            args.save.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
