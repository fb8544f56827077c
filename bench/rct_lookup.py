"""Time position → RCT lookups in a large RCT table opened in place (formats.rctindex), and a
misère search on it, with the sampled keys and the bound on lives (the default) against a
plain binary search of every land (the baseline: what the index did before it sampled keys).

    .venv/bin/python bench/rct_lookup.py [--table s7] [--root 0*14] [--lookups 50000] [--repeat 2]

The table is named as `solve --rct-table` names it (s7: built once into the cache, ~15
minutes). Lookups are of random positions of the table (hits) and of the same strings with
their last character changed (misses, as most lands a search asks about), in this process.
Each search runs in a process of its own (the C core keeps canonical forms for as long as
its process lives), --repeat times for each index in turns (baseline, the sample alone,
both), and reports its best CPU time; all must give the same outcome and visits: the sample
and the bound change how a position is found, never what is found.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

from sproutsdb.formats.rctindex import SAMPLE_STRIDE, IndexedRcts, index_digest, read_trees
from sproutsdb.ops.rct_tables import rct_table_file
from sproutsdb.solver.misere.solver import MisereSolver
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.trusted_tables import cached_index_files, file_digest, verified_rcts

PLAIN = 1 << 62  # a stride past every table: one sample, a plain binary search


def index_of(table: Path) -> Path:
    """Where verified_rcts keeps the index of a table file."""
    return cached_index_files(file_digest(table))[0]


def opened(index: Path, stride: int) -> tuple[IndexedRcts, float]:
    """The index opened with this sample stride, on its own copy of the table's trees (the
    snapshot verified_rcts wrote beside it), and the CPU seconds of opening the index."""
    trees = index.with_suffix(".trees")
    algebra = read_trees(trees, index_digest(trees))
    started = time.process_time()
    rcts = IndexedRcts(index, algebra, stride=stride)
    return rcts, time.process_time() - started


def lookup_micros(rcts: IndexedRcts, lands: list[str]) -> float:
    """CPU microseconds per lookup of these lands, one at a time (as a search asks)."""
    started = time.process_time()
    for land in lands:
        rcts.lookup([land])
    return (time.process_time() - started) / len(lands) * 1e6


SEARCHES = ("baseline", "sampled", "bounded")


def search_apart(name: str, table: str, root: str) -> tuple[str, int, float]:
    """`search` in a new process, on the index as `name` opens it."""
    done = subprocess.run(
        [sys.executable, __file__, "--table", table, "--root", root, "--search", name],
        check=True,
        capture_output=True,
        text=True,
    )
    outcome, visits, cpu = json.loads(done.stdout.splitlines()[-1])
    return str(outcome), int(visits), float(cpu)


def search_here(name: str, table: str, root: str) -> None:
    """Open the index (written by the parent's verified_rcts) as `name` says and print
    `search`'s figures as JSON."""
    rcts, _ = opened(
        index_of(rct_table_file(table)), PLAIN if name == "baseline" else SAMPLE_STRIDE
    )
    if name != "bounded":
        rcts.max_size = None
    print(json.dumps(search(rcts, root)))


def search(rcts: IndexedRcts, root: str) -> tuple[str, int, float]:
    """A misère search of `root` from an empty store: outcome, visits, CPU seconds."""
    game = SproutsGame()
    solver = MisereSolver(game, MemoryProofStore(), rcts)
    started = time.process_time()
    outcome = solver.outcome(game.canonical(root))
    return outcome, solver.stats.nodes, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", default="s7", help="as solve --rct-table (default s7)")
    parser.add_argument("--root", default="0*14", help="the misère search (default 0*14)")
    parser.add_argument("--lookups", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=2, help="searches of each kind")
    parser.add_argument("--search", choices=SEARCHES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.search:
        search_here(args.search, args.table, args.root)
        return

    table = rct_table_file(args.table, notice=print)
    default = verified_rcts(table, lazy_from=0)  # writes the index if need be
    if not isinstance(default, IndexedRcts):
        raise SystemExit(f"{table}: no index could be written in the cache")
    index = index_of(table)
    baseline, open_baseline = opened(index, PLAIN)
    baseline.max_size = None  # nor the bound on lives: every land is searched for
    sampled, open_sampled = opened(index, SAMPLE_STRIDE)
    print(
        f"{table}: {sampled.positions:,} positions, none of more than {sampled.max_size} "
        f"lives; open {open_baseline:.3f} s CPU with one sample, {open_sampled:.3f} s with "
        f"one in {SAMPLE_STRIDE}"
    )

    rng = random.Random(1)
    hits = [
        baseline._key(baseline._first_position + rng.randrange(baseline.positions)).decode()
        for _ in range(args.lookups)
    ]
    misses = [land[:-1] + ("Z" if land[-1] != "Z" else "Y") for land in hits]
    for kind, lands in (("hits", hits), ("misses", misses)):
        before, after = lookup_micros(baseline, lands), lookup_micros(sampled, lands)
        print(f"{kind:7} {before:6.2f} -> {after:6.2f} CPU us a lookup ({after / before:.2f}x)")

    # the search, each in a process of its own (the C core's memo of canonical forms lives
    # as long as the process): baseline, the sample alone, both (the default), in turns
    results: dict[str, list[tuple[str, int, float]]] = {name: [] for name in SEARCHES}
    for _ in range(args.repeat):
        for name in SEARCHES:
            results[name].append(search_apart(name, args.table, args.root))
    base_cpu = min(cpu for _, _, cpu in results["baseline"])
    for name, runs in results.items():
        assert {run[:2] for run in runs} == {results["baseline"][0][:2]}, f"{name} differs"
        outcome, visits, _ = runs[0]
        cpu = min(cpu for _, _, cpu in runs)
        print(
            f"misère {args.root} {name:8} {outcome}  {visits:,} visits  best of {len(runs)}: "
            f"{cpu:7.1f} CPU s ({cpu / base_cpu:.2f}x the baseline)"
        )


if __name__ == "__main__":
    main()
