"""Resume benchmark: a solve interrupted and rerun, against one uninterrupted run.

Run on demand (not part of the test suite):
    .venv/bin/python bench/resume.py                        # 0*14 stopped at 1/4, 1/3, 1/2
    .venv/bin/python bench/resume.py 0*13 --at 0.33
    .venv/bin/python bench/resume.py --no-record            # what a rerun did before records
    .venv/bin/python bench/resume.py 0*15 --misere --at 0.5 # misère outcome, the S6 table
Each run has a fresh engine (no warm memo) and its own solver; the interrupted run and its
rerun share one in-memory store and resume slot, as `solve` and its rerun share --store.
The interruption comes after a given share of the fresh run's node visits (Ctrl-C would
come after a share of its time): a KeyboardInterrupt raised from the progress callback.
Nodes are the robust figure; CPU ratios here are flattered by what one process keeps warm
between runs (measured on 0*14 through the CLI instead: both runs 1.03-1.11x a fresh one).

Figures of earlier runs, with their dates and machines: bench/history/resume.md (a run
prints its own).
"""

from __future__ import annotations

import argparse
import time

from sproutsdb.ops.shipped_rcts import shipped_rct_table
from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
from sproutsdb.solver.normal.solver import NormalSolver, Progress
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.search.resume import MemoryResumeSlots
from sproutsdb.solver.sprouts.game import SproutsGame


class Stop(KeyboardInterrupt):
    """The benchmark's Ctrl-C."""


def run(
    key: str,
    store: MemoryProofStore,
    slots: MemoryResumeSlots | None,
    stop_at: int | None = None,
    rcts: TableRcts | None = None,
) -> tuple[int | str | None, int, float, int]:
    """One solve of the nimber of ``key`` (with ``rcts``: its misère outcome, on those
    RCTs): (the answer or None if stopped, nodes, CPU s, facts)."""

    def stop(progress: Progress) -> None:
        if stop_at is not None and progress.nodes >= stop_at:
            raise Stop

    options = SolveOptions(progress=stop if stop_at is not None else None, progress_interval=0)
    started = time.process_time()
    solver: NormalSolver | MisereSolver
    answer: int | str | None
    try:
        if rcts is None:
            solver = NormalSolver(SproutsGame(), store, options=options, resume=slots)
            answer = solver.nimber(key)
        else:
            solver = MisereSolver(SproutsGame(), store, rcts, options=options, resume=slots)
            answer = solver.outcome(key)
    except Stop:
        answer = None
    seconds = time.process_time() - started
    kind = FactKind.NIMBER if rcts is None else FactKind.MISERE
    return answer, solver.stats.nodes, seconds, store.count(kind)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("position", nargs="?", default="0*14")
    parser.add_argument("--at", default="0.25,0.33,0.5", help="shares of the fresh run's nodes")
    parser.add_argument("--no-record", action="store_true", help="rerun without a record")
    parser.add_argument("--misere", action="store_true", help="misère outcome, the S6 table")
    args = parser.parse_args()
    key = SproutsGame().canonical(args.position)
    shipped = shipped_rct_table() if args.misere else None
    rcts = TableRcts(shipped[0]) if shipped is not None else None
    if args.misere and rcts is None:
        parser.error("this install lacks the shipped S6 table")
    run(SproutsGame().canonical("0*9"), MemoryProofStore(), None, rcts=rcts)  # warm
    answer, nodes, seconds, facts = run(key, MemoryProofStore(), MemoryResumeSlots(), rcts=rcts)
    what = "misère outcome" if args.misere else "nimber"
    print(
        f"{key}: {what} {answer}; fresh run {nodes:,} nodes, {seconds:.2f} CPU s, {facts:,} facts"
    )
    header = f"{'stop at':>8} {'nodes 1st':>10} {'nodes 2nd':>10} {'total':>6} "
    print(header + f"{'CPU 1st':>8} {'CPU 2nd':>8} {'total':>6} {'2nd':>6} {'facts':>7} answer")
    for share in (float(text) for text in args.at.split(",")):
        store = MemoryProofStore()
        slots = None if args.no_record else MemoryResumeSlots()
        stop_at = max(int(nodes * share), 1)
        _, nodes1, seconds1, _ = run(key, store, slots, stop_at=stop_at, rcts=rcts)
        again, nodes2, seconds2, facts2 = run(key, store, slots, rcts=rcts)
        assert again == answer, f"the rerun found {again}, the fresh run {answer}"
        print(
            f"{share:>8.2f} {nodes1:>10,} {nodes2:>10,} {(nodes1 + nodes2) / nodes:>5.2f}x "
            f"{seconds1:>8.2f} {seconds2:>8.2f} {(seconds1 + seconds2) / seconds:>5.2f}x "
            f"{seconds2 / seconds:>5.2f}x {facts2:>7,} {again}"
        )


if __name__ == "__main__":
    main()
