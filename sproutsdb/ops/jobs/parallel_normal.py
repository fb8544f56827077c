"""`solve --jobs N`: helper processes prove parts of the tree while the main solve runs.

The main process solves the position as `--jobs 1` would. The N - 1 helpers open the same
store (or the same server) and share one queue of couples (position, n). The main search
offers its root's children the first time it expands the root (`RootClaims`, df-pn's
`RootShare`): they are queued from the end of its own order, its last child last, under
one shared claim byte a child; while that last child is undecided, the main search counts
the others as busy (`MainBusy`) and stays in it. A helper skips a child the main search has
entered and takes the next one; with nothing left, it takes a child the main search entered
and has not decided, another than the one it is in if it can. Every search marks the nodes
on its path (`SharedBusy`, df-pn's `BusyMarks`), and at a node that looks losing leaves a
child another search is in to that one while it has another to search, so two searches
that meet in one subtree divide it instead of proving the same nodes. Each process tells
the others the keys of the facts it has made durable (`Inboxes`, the solvers' `FactNews`),
and each reads those from the store every second. When a helper has nothing left to take
and N > 2, a couple another one has worked on for `split_seconds` of CPU is split: its own
options go to the end of the queue, then the couple again, to be proven whole and cheaply
once they are known (`split_depth` moves below the root, never again). The answer is the
main solve's, so it is the same for every N; the helpers only change how soon it comes.
They stop when the main solve ends, or when their parent process is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from sproutsdb.games import get_game
from sproutsdb.ops.jobs.busy_marks import MainBusy, SharedBusy, busy_tables, helpers_order
from sproutsdb.ops.jobs.helper_processes import HelperSpec, helpers_alive
from sproutsdb.ops.solve import SolveSettings, normal_solver
from sproutsdb.solver.normal.solver import Progress
from sproutsdb.solver.ports.game import Game

SHARE_SECONDS = 1.0  # how often solvers of one --jobs run look for each other's facts
SPLIT_SECONDS = 4.0  # CPU s after which a helper's couple may hand out its options
SPLIT_DEPTH = 3  # couples this many moves below the root are proven whole, never split
SHARED_CHILDREN = 4096  # root children with a claim byte (0*21 has 12; more go unclaimed)
_STOP_GRACE = 10.0  # seconds a helper has to flush and exit before it is terminated
_IDLE_SECONDS = 0.5  # how long an idle helper waits for the queue before looking again

# Who works on a root child: its claim byte.
FREE, MAIN, HELPER, DONE = 0, 1, 2, 3

Couple = tuple[int, str, int, int]  # root child's claim index (-1: none), position, n, depth
Node = tuple[tuple[str, ...], int]  # a df-pn node of normal play: lands, nim part


class _Stopped(Exception):
    """Raised from a helper's progress callback when its work is no longer wanted."""


class _OverBudget(Exception):
    """Raised from a helper's progress callback when its couple has run its budget."""


def claim_root_children(
    index: dict[str, int], children: Sequence[tuple[str, Node]]
) -> list[Couple]:
    """The root's children as couples for the helpers, in the main search's order: each of
    the first SHARED_CHILDREN numbered by its claim in `index` (key -> claim), later ones -1;
    a child with no land left (decided by the rules) is not queued."""
    queued: list[Couple] = []
    for key, (lands, n) in children:
        claim = len(index) if len(index) < SHARED_CHILDREN else -1
        if claim >= 0:
            index[key] = claim
        if lands:
            queued.append((claim, "+".join(lands), n, 1))
    return queued


class RootClaims:
    """The main search's side of the shared root (df-pn's `RootShare`): it queues the
    root's children for the helpers and keeps their claim bytes."""

    def __init__(self, tasks: Any, claims: Any, current: Any) -> None:
        self.tasks, self.claims, self.current = tasks, claims, current
        self._index: dict[str, int] = {}
        self._offered = False
        self._kept = -1  # the claim index of the child held back for the main search

    def offer(self, children: Sequence[tuple[str, Node]]) -> None:
        if self._offered:
            return
        self._offered = True
        queued = claim_root_children(self._index, children)
        for couple in helpers_order(queued):  # the main search starts from the front
            self.tasks.put(couple)
        if len(queued) > 1:
            self._kept = queued[-1][0]

    def for_helpers(self, key: str) -> bool:
        """Whether ``key`` is a root child left to the helpers: any undecided one but the
        child held back for the main search, for as long as that one is undecided."""
        index = self._index.get(key, -1)
        kept = self._kept
        return (
            index >= 0
            and kept >= 0
            and index != kept
            and self.claims[kept] != DONE
            and self.claims[index] != DONE
        )

    def entering(self, key: str) -> None:
        index = self._index.get(key, -1)
        self.current.value = index
        if index >= 0:
            with self.claims.get_lock():
                if self.claims[index] == FREE:
                    self.claims[index] = MAIN

    def decided(self, key: str) -> None:
        index = self._index.get(key, -1)
        if index >= 0:
            self.claims[index] = DONE


class Inboxes:
    """`FactNews` between the processes of one `--jobs` run: an inbox queue each; the keys
    one process puts go to every other's inbox, and each reads its own (so the main search
    meets a helper's facts without dropping what it holds: measured, dropping it every
    second changed the visits of a `0*14` solve from 150 064 to between 94 000 and 277 000)."""

    def __init__(self, queues: Sequence[Any], me: int) -> None:
        self.queues, self.me = list(queues), me

    def published(self, keys: Sequence[str]) -> None:
        for index, inbox in enumerate(self.queues):
            if index != self.me:
                inbox.put(keys)

    def news(self) -> list[str]:
        inbox, keys = self.queues[self.me], []
        while True:
            try:
                keys.extend(inbox.get_nowait())
            except queue.Empty:
                return keys

    def close(self) -> None:
        """Let the process exit whatever its queues still hold (nobody's news any more)."""
        for inbox in self.queues:
            inbox.cancel_join_thread()


class HelperLinks(NamedTuple):
    """What the main solve of a `--jobs` run is given: its root's children to share
    (`SolveSettings.root_share`) and the helpers' facts (`SolveSettings.news`)."""

    root_share: RootClaims | None = None
    news: Inboxes | None = None
    busy: SharedBusy | None = None


def root_options(game: Game, key: str, n: int) -> list[tuple[str, int]]:
    """The options of the couple (key, n): (child, n) for each child, then (key, k) for
    k < n; fewest lives first."""
    children = sorted(
        ((child, n) for child in game.children(key)),
        key=lambda option: (game.size(option[0]), option[0]),
    )
    return children + [(key, k) for k in range(n)]


def split(game: Game, couple: Couple, depth_limit: int = SPLIT_DEPTH) -> list[Couple]:
    """What a couple that ran over its budget hands out: its options, then itself (at
    ``depth_limit``: proven whole then), under the same claim."""
    index, key, n, depth = couple
    options = [(-1, child, m, depth + 1) for child, m in root_options(game, key, n)]
    return [*options, (index, key, n, depth_limit)]


def _claim(claims: Any, couple: Couple, *, deferred: bool) -> str:
    """Take a couple's claim for a helper: "take", "defer" (the main search is on it and
    the helper has other work), or "skip" (decided, or another helper's)."""
    index = couple[0]
    if index < 0:
        return "take"
    with claims.get_lock():
        state = claims[index]
        if state == DONE or (state == HELPER and couple[3] == 1):
            return "skip"
        if state == MAIN and not deferred:
            return "defer"
        claims[index] = HELPER
    return "take"


def _left_by_main(deferred: list[Couple], claims: Any, current: Any) -> Couple | None:
    """A root child the main search entered and has not decided: another than the one it
    is in now if there is one (the earliest queued: the far end of its order)."""
    open_ones = [couple for couple in deferred if claims[couple[0]] == MAIN]
    deferred[:] = open_ones
    for couple in open_ones:
        if couple[0] != current.value:
            deferred.remove(couple)
            return couple
    return deferred.pop(0) if deferred else None


def _helper_main(
    spec: HelperSpec,
    tasks: Any,
    claims: Any,
    current: Any,
    news: Inboxes,
    busy: SharedBusy,
    idle: Any,
    stop: Any,
    split_seconds: float,
    split_depth: int,
) -> None:
    """A helper process: prove couples of the shared queue into the shared store."""
    parent = os.getppid()
    deadline = [float("inf")]

    def keep_going(progress: Progress) -> None:
        if stop.is_set() or os.getppid() != parent:
            raise _Stopped
        # depth 0 is the report at the end of a call: the couple is decided by then
        if progress.depth > 0 and idle.value > 0 and time.process_time() >= deadline[0]:
            raise _OverBudget

    game = get_game().engine()
    store = spec.location.open()
    try:
        settings = SolveSettings(
            progress=keep_going,
            progress_interval=0.2,
            reprove_roots=False,
            flush_seconds=SHARE_SECONDS,
            share_seconds=SHARE_SECONDS,
            search=spec.search,
            news=news,
            busy=busy,
        )
        solver = normal_solver(game, store, settings)
        waiting = False
        deferred: list[Couple] = []  # root children the main search had entered
        while not stop.is_set():
            from_deferred = False
            try:
                couple: Couple = tasks.get(timeout=_IDLE_SECONDS if not deferred else 0.01)
            except queue.Empty:
                left = _left_by_main(deferred, claims, current)
                if left is None:
                    if not waiting:
                        waiting = True
                        with idle.get_lock():
                            idle.value += 1
                    continue
                couple, from_deferred = left, True
            if waiting:
                waiting = False
                with idle.get_lock():
                    idle.value -= 1
            verdict = _claim(claims, couple, deferred=from_deferred)
            if verdict == "defer":
                deferred.append(couple)
                continue
            if verdict == "skip":
                continue
            index, key, n, depth = couple
            splits = depth < split_depth
            deadline[0] = time.process_time() + split_seconds if splits else float("inf")
            try:
                solver.couple_outcome(key, n)
            except _OverBudget:
                for part in split(game, couple, split_depth):
                    tasks.put(part)
            else:
                if index >= 0:
                    claims[index] = DONE
    except (_Stopped, KeyboardInterrupt):
        pass
    finally:
        tasks.cancel_join_thread()  # what is left in the queue is nobody's work any more
        news.close()
        store.close()


@contextmanager
def helpers_running(
    spec: HelperSpec,
    key: str,
    jobs: int,
    *,
    split_seconds: float = SPLIT_SECONDS,
    split_depth: int = SPLIT_DEPTH,
) -> Iterator[HelperLinks]:
    """Run `jobs - 1` helper processes for the time of the block; the block's solve of
    `key` offers them its root's children and meets their facts through the links it is
    given (none for one job). A helper's couple undecided after `split_seconds` is split,
    down to `split_depth` moves below the root."""
    if jobs <= 1:
        yield HelperLinks()
        return
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    tasks: Any = context.Queue()
    claims: Any = context.Array("b", SHARED_CHILDREN)
    current: Any = context.Value("i", -1, lock=False)  # the root child the main search is in
    idle: Any = context.Value("i", 0)  # helpers waiting for work: they ask for splits
    inboxes = [context.Queue() for _ in range(jobs)]  # the main's first, then a helper's
    busy = busy_tables(context, jobs)  # the same
    processes = [
        context.Process(
            target=_helper_main,
            args=(
                spec,
                tasks,
                claims,
                current,
                Inboxes(inboxes, index + 1),
                SharedBusy(busy, index + 1),
                idle,
                stop,
                split_seconds,
                split_depth,
            ),
            name=f"sproutsdb-solve-helper-{index}",
            daemon=True,
        )
        for index in range(jobs - 1)
    ]
    try:
        with helpers_alive(processes, stop, _STOP_GRACE):
            root = RootClaims(tasks, claims, current)
            yield HelperLinks(root, Inboxes(inboxes, 0), MainBusy(busy, root))
    finally:
        tasks.cancel_join_thread()
        tasks.close()
        Inboxes(inboxes, 0).close()
