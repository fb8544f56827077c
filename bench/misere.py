"""Misère outcomes of 0*n on an RCT table, each n in a process of its own: outcome,
seconds (wall and CPU), df-pn visits, stored losing nodes, pruned proof size, peak RSS,
and the CPU seconds of opening the table ("open s").

    python bench/misere.py [--from 12] [--to 20] [--minutes 20] [--cycles 3] [--jobs N] [--json]

Each n gets a fresh in-memory store, the shipped S6 table (data/s6.rcttable) or --table
FILE (opened as `solve --rct-table` opens it: S7 in place, from its index), and at most
--minutes of df-pn search; a run that runs out of time is reported as such and the next
n is tried (a larger n may be a quick win: 0*16 is W). With --jobs N the store is a fresh
LMDB store in a temporary folder instead (for N = 1 too, so that the two compare), shared
with N - 1 helper processes as `solve --misere --jobs N` runs them; "CPU s" is then the
main process's and "all CPU s" adds the helpers'. A finished search is then checked
as `check --misere --prune --cycles K` does: the checker re-derives the outcome from the
stored losing nodes alone (it must be clean, with the same outcome) and "proof L" is the
smallest proof it found, in losing nodes. Every outcome must equal OEIS A164950; the
script exits 1 at the first one that does not, or at a check that is not clean.

"paper pos." is the misère paper's count of positions in its proofs (Lemoine & Viennot,
Figure 10, n ≤ 17, reached in 20 hours in 2009); the paper counts positions beyond its
S6 table, we count losing nodes whose RCT parts the table has already reduced, so the
two measure the same proofs differently. "peak RSS" is the process's (table included).

Figures of earlier runs, with their dates and machines: bench/history/misere.md (a run
prints its own).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

A164950 = "WLLLWWLLLWWWLLLWWWLL"  # misère outcomes of 0*1 .. 0*20 (OEIS A164950)
PAPER_POSITIONS = {
    7: 7,
    8: 24,
    9: 44,
    10: 114,
    11: 79,
    12: 983,
    13: 1082,
    14: 3517,
    15: 6906,
    16: 8981,
    17: 17583,
}


class OutOfTime(Exception):
    pass


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_one(
    n: int,
    table_path: str,
    minutes: float,
    cycles: int,
    jobs: int | None = None,
    seed_results: bool = False,
) -> dict[str, object]:
    """Solve and check misère 0*n in this process (and with `jobs`, its helpers); one row
    of the table. With `seed_results`, the store first gets the results library's
    certificates of 0*1..0*(n-1), as `solve --seed-results` does."""
    import tempfile
    from contextlib import ExitStack

    from sproutsdb.ops.jobs.parallel_misere import SHARE_SECONDS, misere_helpers_running
    from sproutsdb.ops.solve import SolveSettings, Solving
    from sproutsdb.solver.misere.solver import Progress
    from sproutsdb.solver.ports.proofstore import MemoryProofStore, ProofStore
    from sproutsdb.trusted_tables import verified_rcts

    opened_cpu = _cpu()
    rcts = verified_rcts(table_path)  # as every command: re-derived (or cached), S7 in place
    opened_cpu = _cpu() - opened_cpu
    deadline = time.monotonic() + minutes * 60

    def check(_: Progress) -> None:
        if time.monotonic() > deadline:
            raise OutOfTime

    resources = ExitStack()
    store: ProofStore
    if seed_results and jobs is None:
        jobs = 1  # seeding needs an LMDB store
    if jobs is None:
        store = MemoryProofStore()
    else:
        from sproutsdb.ops.jobs.helper_processes import HelperSpec
        from sproutsdb.ops.shipped_rcts import describe_source
        from sproutsdb.ops.stores import StoreLocation, open_proof_store

        folder = resources.enter_context(tempfile.TemporaryDirectory(prefix="misere-bench-"))
        store = open_proof_store(folder, game="sprouts")
        resources.callback(store.close)
        helpers = HelperSpec(StoreLocation(path=folder), rct_table=str(table_path))
        source = describe_source("file", table_path)
    seeded = 0
    if seed_results:
        from sproutsdb.ops.seed import seed_results_below
        from sproutsdb.solver.ports.proofstore import FactKind
        from sproutsdb.solver.sprouts.game import SproutsGame

        seed_results_below(store, SproutsGame(), f"0*{n}", "misere")
        counted: Any = store  # (an LMDB store: counts, as _row reads them)
        seeded = counted.count(FactKind.MISERE)
    settings = SolveSettings(
        misere=True,
        rcts=rcts,
        progress=check,
        progress_interval=1.0,
        share_seconds=SHARE_SECONDS if jobs is not None and jobs > 1 else None,
    )
    wall, cpu, helpers_cpu = time.perf_counter(), _cpu(), _children_cpu()
    with resources:
        with ExitStack() as running:
            if jobs is not None:
                links = running.enter_context(
                    misere_helpers_running(helpers, f"0*{n}", jobs, source)
                )
                settings = dataclasses.replace(
                    settings, busy=links.busy, root_share=links.root_share
                )
            with Solving(store, settings=settings) as session:  # flushed on leaving
                try:
                    outcome: str | None = session.solve(f"0*{n}").outcome
                except OutOfTime:
                    outcome = None
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
        helpers_cpu = _children_cpu() - helpers_cpu
        row = _row(n, outcome, wall, cpu, session, store, rcts, cycles, seeded)
    row.update(jobs=jobs or 1, all_cpu_seconds=round(cpu + helpers_cpu, 1), seeded=seeded)
    row["table_open_cpu_seconds"] = round(opened_cpu, 1)
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return row


def _row(
    n: int,
    outcome: str | None,
    wall: float,
    cpu: float,
    session: Any,
    store: Any,
    rcts: Any,
    cycles: int,
    seeded: int = 0,
) -> dict[str, object]:
    """The row of one n: the search's figures, then the check of what it stored.

    ``seeded`` losing nodes came from the results library before the search: not its own.
    """
    from sproutsdb.solver.misere.check import check_misere_with_cycles
    from sproutsdb.solver.misere.rct_trust import DerivedRcts
    from sproutsdb.solver.misere.solver import MisereSolver
    from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore

    game, stats = session.game, session.stats
    row: dict[str, object] = {
        "n": n,
        "outcome": outcome,
        "published": A164950[n - 1] if n <= 20 else None,
        "seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "visits": stats.nodes,
        "expansions": stats.expansions,
        "stored": store.count(FactKind.MISERE) - seeded,
        "paper_positions": PAPER_POSITIONS.get(n),
    }
    if outcome is not None:
        check_wall, check_cpu = time.perf_counter(), _cpu()
        # as `check --misere --rct-table`: each land's RCT re-derived, here from the table
        checked = DerivedRcts(game, rcts, trusted=rcts.rct_id_of)
        engine = MisereSolver(game, MemoryProofStore(), checked)
        best, sizes = check_misere_with_cycles(engine, store, f"0*{n}", cycles=cycles, seed=n)
        row.update(
            check_ok=bool(best.ok and best.outcome == outcome),
            proof_first=sizes[0],
            proof=len(best.used),
            check_seconds=round(time.perf_counter() - check_wall, 1),
            check_cpu_seconds=round(_cpu() - check_cpu, 1),
        )
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--from", dest="first", type=int, default=12)
    parser.add_argument("--to", dest="last", type=int, default=20)
    parser.add_argument(
        "--minutes",
        type=float,
        default=20.0,
        help="wall-time cap of the search of each n (default 20)",
    )
    parser.add_argument(
        "--cycles",
        type=int,
        default=3,
        help="random check cycles for the pruned proof (as check --cycles)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="as solve --misere --jobs N, on an LMDB store (default: one process, in memory)",
    )
    parser.add_argument(
        "--table",
        default=str(ROOT / "data" / "s6.rcttable"),
        metavar="FILE|sN",
        help="the RCT table, as solve --rct-table: a file, or s6 / s7 (s7 built once into "
        "the cache); default the shipped S6",
    )
    parser.add_argument(
        "--seed-results",
        action="store_true",
        help="as solve --seed-results: each n's store (LMDB) first gets the results "
        "library's certificates of 0*1..0*(n-1); 'stored L' counts the new nodes only",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per n")
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    from sproutsdb.ops.rct_tables import rct_table_file

    args.table = str(rct_table_file(args.table, notice=lambda line: print(line, file=sys.stderr)))
    if args.one is not None:  # the child process of one n
        row = run_one(args.one, args.table, args.minutes, args.cycles, args.jobs, args.seed_results)
        print(json.dumps(row), flush=True)
        return 0
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    print(
        f"# table {args.table}; at most {args.minutes:g} min of search per n; "
        f"check --misere --prune --cycles {args.cycles}",
        file=sys.stderr,
    )
    if not args.json:
        jobs_head = f" {'jobs':>4} {'all CPU s':>9}" if args.jobs is not None else ""
        print(
            f"{'n':>3} {'outcome':>8} {'A164950':>7} {'wall s':>8} {'CPU s':>8}{jobs_head} "
            f"{'visits':>10} {'stored L':>9} {'proof L':>8} {'paper pos.':>10} "
            f"{'check':>6} {'peak RSS':>9} {'open s':>6}"
        )
    status = 0
    for n in range(args.first, args.last + 1):
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--one",
                str(n),
                "--minutes",
                str(args.minutes),
                "--cycles",
                str(args.cycles),
                "--table",
                args.table,
                *(["--jobs", str(args.jobs)] if args.jobs is not None else []),
                *(["--seed-results"] if args.seed_results else []),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            print(f"0*{n}: the run failed:\n{done.stderr}", file=sys.stderr)
            return 1
        row = json.loads(done.stdout.strip().splitlines()[-1])
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            outcome = row["outcome"] or "timeout"
            proof = row.get("proof", "-")
            check = {True: "clean", False: "FAIL"}.get(row.get("check_ok"), "-")  # type: ignore[arg-type]
            paper = row["paper_positions"] if row["paper_positions"] is not None else "-"
            jobs = f" {row['jobs']:>4} {row['all_cpu_seconds']:>9}" if args.jobs is not None else ""
            print(
                f"{n:>3} {outcome:>8} {row['published'] or '-':>7} {row['seconds']:>8} "
                f"{row['cpu_seconds']:>8}{jobs} {row['visits']:>10,} {row['stored']:>9,} "
                f"{proof:>8} {paper:>10} {check:>6} {row['peak_rss_mb']:>6} MB "
                f"{row['table_open_cpu_seconds']:>6}",
                flush=True,
            )
        if row["outcome"] is not None and row["outcome"] != row["published"]:
            print(
                f"0*{n}: outcome {row['outcome']} differs from A164950's {row['published']}",
                file=sys.stderr,
            )
            status = 1
            break
        if row.get("check_ok") is False:
            print(f"0*{n}: the check of the stored losing nodes is not clean", file=sys.stderr)
            status = 1
            break
    return status


if __name__ == "__main__":
    sys.exit(main())
