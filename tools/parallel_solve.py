"""`solve --jobs N`: helper processes prove the options of the root while the main solve runs.

The main process solves the position as `--jobs 1` would. Each of the N - 1 helpers opens
the same store (or the same server) and proves the outcome of the root's options, taken from
the end of the order the main search starts from, so the two ends of the tree are worked on
at once. Every losing couple a helper proves is stored; the main solver asks the store again
for what it had found missing every second, so it meets those facts instead of proving them.
The answer is the main solve's, so it is the same for every N; the helpers only change how
soon it comes. They stop when the main solve ends, or when their parent process is gone.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sproutsdb.games import get_game
from sproutsdb.ops.solve import SolveSettings, normal_solver
from sproutsdb.solver.normal.solver import Progress
from sproutsdb.solver.ports.game import Game

SHARE_SECONDS = 1.0  # how often solvers of one --jobs run look for each other's facts
_STOP_GRACE = 10.0  # seconds a helper has to flush and exit before it is terminated


class _Stopped(Exception):
    """Raised from a helper's progress callback when its work is no longer wanted."""


def root_options(game: Game, key: str, n: int) -> list[tuple[str, int]]:
    """The options (child, n) of the couple (key, n), fewest lives first."""
    return sorted(
        ((child, n) for child in game.children(key)),
        key=lambda option: (game.size(option[0]), option[0]),
    )


def helper_share(options: list[tuple[str, int]], index: int, helpers: int) -> list[tuple[str, int]]:
    """Helper `index`'s options (0-based among `helpers`): every helpers-th one, from the end."""
    return list(reversed(options))[index::helpers]


def _helper_main(
    args: argparse.Namespace, key: str, n: int, index: int, helpers: int, stop: Any
) -> None:
    """A helper process: prove its share of the root's options into the shared store."""
    from sproutsdb.tools.stores import open_solve_store

    parent = os.getppid()

    def keep_going(_progress: Progress) -> None:
        if stop.is_set() or os.getppid() != parent:
            raise _Stopped

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
        for child, m in helper_share(root_options(game, key, n), index, helpers):
            if stop.is_set():
                break
            solver.couple_outcome(child, m)
    except (_Stopped, KeyboardInterrupt):
        pass
    finally:
        store.close()


@contextmanager
def helpers_running(args: argparse.Namespace, key: str, jobs: int) -> Iterator[None]:
    """Run `jobs - 1` helper processes on the options of `key` for the time of the block."""
    if jobs <= 1:
        yield
        return
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    helpers = jobs - 1
    processes = [
        context.Process(
            target=_helper_main,
            args=(args, key, 0, index, helpers, stop),
            name=f"sproutsdb-solve-helper-{index}",
            daemon=True,
        )
        for index in range(helpers)
    ]
    for process in processes:
        process.start()
    try:
        yield
    finally:
        stop.set()
        for process in processes:
            process.join(_STOP_GRACE)
            if process.is_alive():
                process.terminate()
                process.join()
