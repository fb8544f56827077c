"""The work model of `solve --jobs N` and beyond: ideal speed-ups on 2, 32 and 1 024 workers.

Run on demand (not part of the test suite):
    .venv/bin/python bench/speedup_model.py                  # 0*14 .. 0*18
    .venv/bin/python bench/speedup_model.py --n 12 20 --save out.json --budgets 16 64
Each 0*n is solved (outcome, df-pn, a store in memory) with a recorder in the search
(solver.search.workmodel): every couple entered, its visits, its outcome, what it waits on
(a losing couple: all its options; a winning one: its cheapest losing option; a sum: the
nimbers it is reduced by). A division cuts the record into tasks, a couple each with the
part of its first-visit subtree no other task has (a couple two tasks wait on is a task of
its own: proven once, read from the store by both); the tasks are scheduled greedily on P
workers (longest chain first). T1 = the solve's visits (the record sums to them exactly),
T∞ = the longest chain of tasks, S_P = T1 / makespan (the bound min(P, T1/T∞) is met
within 5 % in every row below, so it is not shown). Ideal: handing out costs nothing, a task
takes the visits it took in the one-process run, and nothing is proven twice. Divisions:
  root        today's --jobs N: the root's options (the "before")
  depth 2     every couple within two moves of the root
  jobs split  --jobs N as built now: the root's options, and a task near the root (less
              than SPLIT_DEPTH moves) still undecided after 4 s (JOBS_BUDGET visits) hands
              out its options
  budget B    any task that ran B visits hands out its couple's options (the visit trace
              replayed: what running workers could do, no hindsight; the "after")
  work W      hindsight: the children of every couple whose subtree took ≥ W = T1/1000
  couple      every couple a task (the model's limit); --jobs N as built since 2026-11-26:
              its busy marks let a search take any couple no other search is in, so what
              the workers divide is this division (less the speculative work at winning
              nodes, which no row here counts)

`record_misere(n)` records misère 0*n the same way (its nodes in place of couples; no sums):
bench/fleet_traces.py's `graph N --misere` saves it for the fleet simulator.

Figures of earlier runs, with their dates and machines: bench/history/speedup_model.md (a run
prints its own).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sproutsdb.games import get_game
from sproutsdb.ops.jobs.parallel_normal import SPLIT_DEPTH
from sproutsdb.ops.shipped_rcts import shipped_rct_table
from sproutsdb.ops.solve import SolveSettings, Solving, normal_solver
from sproutsdb.solver.misere.solver import TableRcts
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.search import workmodel

WORKERS = (2, 32, 1024)
BUDGETS = (16, 64, 256, 1024)  # visits a task runs before it hands out its options
# `--jobs N` splits a couple after SPLIT_SECONDS (4 s): about this many visits on one core
JOBS_BUDGET = 20_000


def record(n: int) -> tuple[workmodel.WorkRecord, str, int, float]:
    """Solve 0*n's outcome with a recorder: (record, outcome, solver visits, CPU seconds)."""
    game = get_game().engine()
    solver = normal_solver(game, MemoryProofStore(), SolveSettings())
    work = workmodel.WorkRecord()
    workmodel.install(solver, work)
    started = time.process_time()
    outcome = solver.outcome(game.canonical(f"0*{n}"))
    return work, outcome, solver.stats.nodes, time.process_time() - started


def record_misere(n: int) -> tuple[workmodel.WorkRecord, str, int, float]:
    """Solve misère 0*n's outcome with a recorder, as `sproutsdb solve 0*n --misere` does on
    a new store (the shipped S6 RCT table; the rules alone if this install lacks it), in
    memory: (record, outcome, solver visits, CPU seconds)."""
    shipped = shipped_rct_table()
    rcts = TableRcts(shipped[0]) if shipped is not None else None
    settings = SolveSettings(misere=True, rcts=rcts)
    work = workmodel.WorkRecord()
    with Solving(MemoryProofStore(), settings=settings) as solving:
        workmodel.install(solving.solver, work)
        started = time.process_time()
        outcome = solving.solver.outcome(solving.game.canonical(f"0*{n}"))
        cpu = time.process_time() - started
        return work, outcome, solving.stats.nodes, cpu


def divisions(budgets: list[int], total: int) -> list[tuple[str, workmodel.Division]]:
    """The divisions the table compares, "before" first."""
    work = max(total // 1000, 1)
    return [
        ("root", workmodel.root_options),
        ("depth 2", workmodel.by_depth(2)),
        ("jobs split", workmodel.jobs_split(JOBS_BUDGET, SPLIT_DEPTH)),
        *((f"budget {b}", workmodel.by_budget(b)) for b in budgets),
        (f"work {work}", workmodel.by_work(work)),
        ("couple", workmodel.every_couple),
    ]


def model(n: int, budgets: list[int]) -> dict[str, Any]:
    """One n's record and its figures under every division."""
    work, outcome, visits, cpu = record(n)
    rows = []
    for name, division in divisions(budgets, work.total):
        figures = workmodel.speedups(work, division, WORKERS)
        rows.append(
            {
                "division": name,
                "tasks": figures.tasks,
                "t1": figures.total,
                "tinf": figures.critical,
                "largest": figures.largest,
                "greedy": {p: round(s, 1) for p, s in figures.greedy.items()},
                "brent": {p: round(s, 1) for p, s in figures.bound.items()},
            }
        )
    return {
        "n": n,
        "outcome": outcome,
        "visits": visits,
        "recorded": work.total,
        "couples": len(work),
        "cpu": round(cpu, 1),
        "rows": rows,
    }


def show(result: dict[str, Any]) -> None:
    """Print one n's table."""
    print(
        f"0*{result['n']} {result['outcome']}: {result['visits']:,} visits "
        f"(recorded {result['recorded']:,}), {result['couples']:,} couples, "
        f"{result['cpu']} CPU s"
    )
    head = "  division      tasks        T1     T∞  largest     S_2    S_32  S_1024  Brent_1024"
    print(head)
    for row in result["rows"]:
        g = row["greedy"]
        print(
            f"  {row['division']:<11} {row['tasks']:>7,} {row['t1']:>9,} {row['tinf']:>6,} "
            f"{row['largest']:>8,} {g[2]:>7.1f} {g[32]:>7.1f} {g[1024]:>7.1f} "
            f"{row['brent'][1024]:>11.1f}"
        )
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs=2, default=(14, 18), metavar=("MIN", "MAX"))
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    parser.add_argument("--save", type=Path, help="write the figures as JSON")
    args = parser.parse_args()
    results = []
    for n in range(args.n[0], args.n[1] + 1):
        results.append(model(n, args.budgets))
        show(results[-1])
    if args.save:
        args.save.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
