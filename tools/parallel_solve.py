"""`solve --jobs N`: helper processes prove parts of the tree while the main solve runs.

The main process solves the position as `--jobs 1` would. The N - 1 helpers open the same
store (or the same server) and share one queue of couples (position, n), filled with the
root's options from the end of the order the main search starts from, so the two ends of the
tree are worked on at once. A helper takes the next couple and proves it. When a helper has
nothing left to take, a couple another one has worked on for SPLIT_SECONDS of CPU is split
(the work model, bench/speedup_model.py, shows the root's options alone cannot feed more
than a few workers): its own options go to the end of the queue, then the couple again, to
be proven whole and cheaply once they are known. Splitting only for an idle helper keeps
`--jobs 2` as it was: a split's options are partly wasted work (one losing option proves a
win, the others were not needed). Every losing couple a helper proves is stored; the main solver asks the store again for what it had found
missing every second, so it meets those facts instead of proving them. The answer is the
main solve's, so it is the same for every N; the helpers only change how soon it comes. They
stop when the main solve ends, or when their parent process is gone.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sproutsdb.games import get_game
from sproutsdb.ops.solve import SolveSettings, normal_solver
from sproutsdb.solver.normal.solver import Progress
from sproutsdb.solver.ports.game import Game
from sproutsdb.tools.helper_processes import helpers_alive

SHARE_SECONDS = 1.0  # how often solvers of one --jobs run look for each other's facts
SPLIT_SECONDS = 4.0  # CPU s after which a helper's couple may hand out its options
SPLIT_DEPTH = 3  # couples this many moves below the root are proven whole, never split
_STOP_GRACE = 10.0  # seconds a helper has to flush and exit before it is terminated
_IDLE_SECONDS = 0.5  # how long an idle helper waits for the queue before looking again

Couple = tuple[str, int, int]  # position, nim part, moves below the root


class _Stopped(Exception):
    """Raised from a helper's progress callback when its work is no longer wanted."""


class _OverBudget(Exception):
    """Raised from a helper's progress callback when its couple has run SPLIT_SECONDS."""


def root_options(game: Game, key: str, n: int) -> list[tuple[str, int]]:
    """The options of the couple (key, n): (child, n) for each child, then (key, k) for
    k < n; fewest lives first."""
    children = sorted(
        ((child, n) for child in game.children(key)),
        key=lambda option: (game.size(option[0]), option[0]),
    )
    return children + [(key, k) for k in range(n)]


def first_tasks(game: Game, key: str, n: int) -> list[Couple]:
    """The queue the helpers start from: the root's options from the end (the main search
    starts from the small end)."""
    return [(child, m, 1) for child, m in reversed(root_options(game, key, n))]


def split(game: Game, couple: Couple) -> list[Couple]:
    """What a couple that ran over its budget hands out: its options, then itself (at
    SPLIT_DEPTH: proven whole then)."""
    key, n, depth = couple
    options = [(child, m, depth + 1) for child, m in root_options(game, key, n)]
    return [*options, (key, n, SPLIT_DEPTH)]


def _helper_main(
    args: argparse.Namespace,
    tasks: Any,
    idle: Any,
    stop: Any,
    split_seconds: float,
) -> None:
    """A helper process: prove couples of the shared queue into the shared store."""
    from sproutsdb.tools.stores import open_solve_store

    parent = os.getppid()
    deadline = [float("inf")]

    def keep_going(progress: Progress) -> None:
        if stop.is_set() or os.getppid() != parent:
            raise _Stopped
        # depth 0 is the report at the end of a call: the couple is decided by then
        if progress.depth > 0 and idle.value > 0 and time.process_time() >= deadline[0]:
            raise _OverBudget

    game = get_game().engine()
    store = open_solve_store(args)
    try:
        settings = SolveSettings(
            progress=keep_going,
            progress_interval=0.2,
            reprove_roots=False,
            flush_seconds=SHARE_SECONDS,
            share_seconds=SHARE_SECONDS,
            search=getattr(args, "search", "dfpn"),
        )
        solver = normal_solver(game, store, settings)
        waiting = False
        while not stop.is_set():
            try:
                couple: Couple = tasks.get(timeout=_IDLE_SECONDS)
            except queue.Empty:
                if not waiting:
                    waiting = True
                    with idle.get_lock():
                        idle.value += 1
                continue
            if waiting:
                waiting = False
                with idle.get_lock():
                    idle.value -= 1
            key, n, depth = couple
            splits = depth < SPLIT_DEPTH
            deadline[0] = time.process_time() + split_seconds if splits else float("inf")
            try:
                solver.couple_outcome(key, n)
            except _OverBudget:
                for part in split(game, couple):
                    tasks.put(part)
    except (_Stopped, KeyboardInterrupt):
        pass
    finally:
        tasks.cancel_join_thread()  # what is left in the queue is nobody's work any more
        store.close()


@contextmanager
def helpers_running(
    args: argparse.Namespace, key: str, jobs: int, *, split_seconds: float = SPLIT_SECONDS
) -> Iterator[None]:
    """Run `jobs - 1` helper processes on the options of `key` for the time of the block
    (a couple of theirs undecided after `split_seconds` is split)."""
    if jobs <= 1:
        yield
        return
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    tasks: Any = context.Queue()
    idle: Any = context.Value("i", 0)  # helpers waiting for work: they ask for splits
    for couple in first_tasks(get_game().engine(), key, 0):
        tasks.put(couple)
    processes = [
        context.Process(
            target=_helper_main,
            args=(args, tasks, idle, stop, split_seconds),
            name=f"sproutsdb-solve-helper-{index}",
            daemon=True,
        )
        for index in range(jobs - 1)
    ]
    try:
        with helpers_alive(processes, stop, _STOP_GRACE):
            yield
    finally:
        tasks.cancel_join_thread()
        tasks.close()
