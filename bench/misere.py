"""Misère outcomes of 0*n on the S6 RCT table: wall time, nodes, stored losing nodes.

    python bench/misere.py [--from 6] [--to 15] [--minutes 10] [--baseline-minutes 1]

Each n gets a fresh in-memory store and at most --minutes of df-pn search (the solver);
a run that runs out of time is reported as such. The baseline, run in the same process
on the same nodes and move order, is the classical depth-first win/loss search (first
losing child wins, memoised), at most --baseline-minutes per n; "×" is its time over
df-pn's (">" when the baseline ran out of time). "stored L" counts every losing node the search proved (what
goes to the store); "proof L" the losing nodes a proof needs (the paper's check algorithm:
every child of a losing node, one losing child of a winning node), which is what the
paper's Figure 10 counts beyond the table. The paper (Lemoine & Viennot, misère Sprouts and
RCTs) reached 0*17 in twenty hours on a 1.8 GHz processor, keeping under 18 000 positions
after its check algorithm; its proofs for n = 7..16 needed the numbers in PAPER_POSITIONS.

Figures of 2026-11-22 (2-core VM shared with one or two other jobs; seconds are wall):

      n  outcome  paper  seconds   visits  expanded  stored L  proof L  paper pos.  DFS (60 s cap)
      7        L      L      0.1       53        49         4        4           7  unfinished
      8        L      L      0.6      319       281        12       12          24  unfinished
      9        L      L      1.5    1,282     1,105        39       29          44  unfinished
     10        W      W      3.6    2,157     1,681        75       52         114  unfinished
     11        W      W      0.8    1,293       994        48       41          79  unfinished
     12        W      W     36.3   40,447    33,211       852      581         983  unfinished
     13        L      L     31.6   16,681    13,144       315      276       1,082  unfinished
     14        L      L     93.3   57,876    47,402       658      510       3,517  unfinished
     15  timeout      L    600.6  489,217   425,297     6,028        -       6,906  unfinished
     15        L      L    709.9  677,212   591,302     8,500    5,105       6,906  (--minutes 40)

The depth-first baseline finishes none of them in a minute (it sinks into one deep branch
of 0*7 already). The budgeted-widening search that df-pn replaced needed 36,911 visits
for 0*9, 98,552 for 0*10 and did not decide 0*12 in 528,814.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from sproutsdb.solver.misere import MisereSolver, Progress, TableRcts
from sproutsdb.solver.proofstore import MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.tools.rcttable import load_table

FIGURE_1 = "WLLLWWLLLWWWLLLWW"  # misère outcomes of 0*1 .. 0*17
PAPER_POSITIONS = {7: 7, 8: 24, 9: 44, 10: 114, 11: 79, 12: 983, 13: 1082, 14: 3517,
                   15: 6906, 16: 8981, 17: 17583}


class OutOfTime(Exception):
    pass


def run(n: int, table: object, minutes: float) -> dict[str, object]:
    deadline = time.monotonic() + minutes * 60

    def check(_: Progress) -> None:
        if time.monotonic() > deadline:
            raise OutOfTime

    solver = MisereSolver(SproutsGame(), MemoryProofStore(), TableRcts(table),
                          progress=check, progress_interval=1.0)
    start = time.perf_counter()
    try:
        outcome: str | None = solver.outcome(f"0*{n}")
    except OutOfTime:
        outcome = None
    seconds = time.perf_counter() - start
    stats = solver.stats
    proof = solver.proof_size(f"0*{n}") if outcome is not None else None
    return {"n": n, "outcome": outcome, "paper": FIGURE_1[n - 1], "seconds": round(seconds, 1),
            "nodes": stats.nodes, "expansions": stats.expansions,
            "stored": stats.facts_stored, "proof": proof,
            "paper_positions": PAPER_POSITIONS.get(n)}


def baseline(n: int, table: object, minutes: float) -> tuple[str | None, float, int]:
    """Plain depth-first search over the solver's nodes: (outcome or None, seconds, visits)."""
    solver = MisereSolver(SproutsGame(), MemoryProofStore(), TableRcts(table))
    deadline = time.monotonic() + minutes * 60
    memo: dict[str, bool] = {}
    visits = 0

    def losing(node: object, key: str) -> bool:
        nonlocal visits
        static = solver.known_outcome(node)  # type: ignore[arg-type]
        if static is not None:
            return static == "L"
        if key in memo:
            return memo[key]
        visits += 1
        if visits % 256 == 0 and time.monotonic() > deadline:
            raise OutOfTime
        kids = solver._children(node)  # type: ignore[arg-type]
        order = sorted(kids.items(), key=lambda item: solver._size(item[1]))
        memo[key] = value = not any(losing(child, child_key) for child_key, child in order)
        return value

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    root = solver.node(f"0*{n}")
    start = time.perf_counter()
    try:
        outcome: str | None = "L" if losing(root, solver.key(root)) else "W"
    except OutOfTime:
        outcome = None
    return outcome, time.perf_counter() - start, visits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--from", dest="first", type=int, default=6)
    parser.add_argument("--to", dest="last", type=int, default=15)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--baseline-minutes", type=float, default=1.0,
                        help="time cap of the depth-first baseline per n (0: skip it)")
    parser.add_argument("--table", default=str(ROOT / "data" / "s6.rcttable"))
    parser.add_argument("--json", action="store_true", help="one JSON object per n")
    args = parser.parse_args()
    start = time.perf_counter()
    table = load_table(args.table)
    print(f"# table {args.table}: {len(table.positions):,} positions, loaded in "
          f"{time.perf_counter() - start:.1f} s; at most {args.minutes:g} min per n",
          file=sys.stderr)
    if not args.json:
        print(f"{'n':>3} {'outcome':>8} {'paper':>6} {'seconds':>9} {'visits':>9} "
              f"{'expanded':>9} {'stored L':>9} {'proof L':>8} {'paper pos.':>10} "
              f"{'DFS s':>7} {'DFS visits':>10} {'×':>6}")
    for n in range(args.first, args.last + 1):
        row = run(n, table, args.minutes)
        if args.baseline_minutes > 0:
            dfs_outcome, dfs_seconds, dfs_visits = baseline(n, table, args.baseline_minutes)
            if dfs_outcome is not None and row["outcome"] not in (None, dfs_outcome):
                print(f"0*{n}: df-pn says {row['outcome']}, depth-first {dfs_outcome}",
                      file=sys.stderr)
                return 1
            ratio = dfs_seconds / max(float(row["seconds"]), 0.05)  # type: ignore[arg-type]
            row.update(baseline_outcome=dfs_outcome, baseline_seconds=round(dfs_seconds, 1),
                       baseline_visits=dfs_visits,
                       speedup=f"{'>' if dfs_outcome is None else ''}{ratio:.1f}")
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            outcome = row["outcome"] or "timeout"
            paper_pos = row["paper_positions"] if row["paper_positions"] is not None else "-"
            proof = row["proof"] if row["proof"] is not None else "-"
            dfs = (f"{row['baseline_seconds']:>7} {row['baseline_visits']:>10,} "
                   f"{row['speedup']:>6}") if "speedup" in row else ""
            print(f"{n:>3} {outcome:>8} {row['paper']:>6} {row['seconds']:>9} "
                  f"{row['nodes']:>9,} {row['expansions']:>9,} {row['stored']:>9,} "
                  f"{proof:>8} {paper_pos:>10} {dfs}",
                  flush=True)
        if row["outcome"] is not None and row["outcome"] != row["paper"]:
            print(f"0*{n}: outcome {row['outcome']} differs from the paper's {row['paper']}",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
