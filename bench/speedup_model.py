"""The work model of `solve --jobs N` and beyond: ideal speed-ups on 2, 32 and 1 024 workers.

Run on demand (not part of the test suite):
    .venv/bin/python bench/speedup_model.py                  # 0*14 .. 0*18
    .venv/bin/python bench/speedup_model.py --n 12 20 --save out.json
Each 0*n is solved (outcome, df-pn, a store in memory) with a recorder in the search
(solver.search.workmodel): every couple entered, its visits, its outcome, what it waits on.
The record is then cut into tasks by a division and scheduled greedily on P workers
(longest chain first); "S_P" is T1 / makespan, "Brent" the bound min(P, T1/T∞). Divisions:
  root      today's --jobs N: the root's options (and couples two tasks share)
  depth 2   the couples within two moves of the root
  jobs split  --jobs N as built: root options, and the options of a handed-out couple near
            the root (SPLIT_DEPTH) still undecided after 4 s (JOBS_BUDGET visits)
  budget B  a couple first entered B visits after its parent was (a running solve can)
  work W    the children of every couple whose subtree took ≥ W visits (hindsight)
  couple    every couple a task (the model's limit)

Figures of 2026-11-25 (2 shared cores at load ~3; the model counts visits, not seconds):

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
from sproutsdb.ops.solve import SolveSettings, normal_solver
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.search import workmodel
from sproutsdb.tools.parallel_solve import SPLIT_DEPTH

WORKERS = (2, 32, 1024)
BUDGET = 64  # visits a couple runs before what it enters is handed out
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


def divisions(budget: int, total: int) -> list[tuple[str, workmodel.Division]]:
    """The divisions the table compares, "before" first."""
    work = max(total // 1000, 1)
    return [
        ("root", workmodel.root_options),
        ("depth 2", workmodel.by_depth(2)),
        ("jobs split", workmodel.jobs_split(JOBS_BUDGET, SPLIT_DEPTH)),
        (f"budget {budget}", workmodel.by_budget(budget)),
        (f"budget {budget // 4}", workmodel.by_budget(max(budget // 4, 1))),
        (f"work {work}", workmodel.by_work(work)),
        ("couple", workmodel.every_couple),
    ]


def model(n: int, budget: int) -> dict[str, Any]:
    """One n's record and its figures under every division."""
    work, outcome, visits, cpu = record(n)
    rows = []
    for name, division in divisions(budget, work.total):
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
    parser.add_argument("--budget", type=int, default=BUDGET)
    parser.add_argument("--save", type=Path, help="write the figures as JSON")
    args = parser.parse_args()
    results = []
    for n in range(args.n[0], args.n[1] + 1):
        results.append(model(n, args.budget))
        show(results[-1])
    if args.save:
        args.save.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
