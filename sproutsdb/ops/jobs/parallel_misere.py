"""`solve --misere --jobs N`: helper processes prove the misère outcomes of the root's options.

The main process solves the root as `--jobs 1` would. Each of the N - 1 helpers opens the
same store (or the same server), with the RCTs the main search uses, and proves the misère
outcome of the root's options (nodes: lands, *1 parity, RCTs), taken from the end of the
order the main search tries them in, so that the two ends of the tree are worked on at
once, but for its last option: the main search stays in that one (`HeldBackRoot`,
`MainBusy`) while the helpers prove the others, and the helpers take it last. Only losing
nodes are stored: an option proven losing is stored itself, one proven winning leaves its
losing child in the store. Each solver reads the store whole when it starts, tells the others
the keys of the losing nodes it stores (`parallel_solve.Inboxes`) and every `SHARE_SECONDS`
reads the ones they told it of (`MisereSolver(share_seconds=..., news=...)`), so the main
search meets the helpers' facts instead of proving them, without asking the store about
every new child; and every search marks the nodes on its path
(`busy_marks`), so that two searches that meet in a subtree divide it instead of proving
the same nodes. The answer is the main search's, the same for every N; the helpers change
only how soon it comes. They stop when the main search ends or when their parent process is
gone.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar

from sproutsdb.ops.jobs.busy_marks import (
    HeldBackRoot,
    HelperBusy,
    MainBusy,
    SharedBusy,
    busy_tables,
    helpers_order,
)
from sproutsdb.ops.jobs.helper_processes import HelperSpec, helpers_alive
from sproutsdb.ops.jobs.parallel_normal import Inboxes
from sproutsdb.ops.solve import SolveSettings, Solving, misere_rct_source
from sproutsdb.solver.search.progress import Progress

SHARE_SECONDS = 1.0  # how often the solvers of one run look for each other's facts
# Seconds a helper has to flush and exit before it is terminated: what it has not flushed
# is only lost to sharing (the main search never waits on it), and a store transaction cut
# short is rolled back, so a helper still starting is not waited for long.
_STOP_GRACE = 2.0

T = TypeVar("T")


class MisereLinks(NamedTuple):
    """What the main search of a misère `--jobs` run is given: its busy marks, the root
    share that leaves the helpers' options to them, and the keys the helpers store (all
    None for one job)."""

    busy: SharedBusy | None = None
    root_share: HeldBackRoot | None = None
    news: Inboxes | None = None


class _Stopped(Exception):
    """Raised from a helper's progress callback when its work is no longer wanted."""


def helper_share(options: Sequence[T], index: int, helpers: int) -> list[T]:
    """Helper `index`'s options (0-based among `helpers`): every helpers-th one of
    `helpers_order` (from the end of the main search's order, its last option last)."""
    return helpers_order(options)[index::helpers]


def _helper_rcts(store: Any, spec: HelperSpec, source: dict[str, str | None]) -> Any:
    """The RCT source of a helper: the main search's. The shipped table is loaded as the
    main one was (the main process seeded the store from it, but a store's RCT claims would
    be re-derived, slower, to the same trees); any other source is found the same way."""
    if source.get("source") == "shipped":
        from sproutsdb.ops.shipped_rcts import shipped_rct_table
        from sproutsdb.solver.misere.solver import TableRcts

        shipped = shipped_rct_table()
        if shipped is not None:
            return TableRcts(shipped[0])
    rcts, _ = misere_rct_source(
        store,
        table_file=spec.rct_table,
        use_rcts=spec.use_rcts,
        notice=lambda _message: None,  # the main process said it already
        who="sproutsdb solve --jobs helper",
    )
    return rcts


def _helper_main(
    spec: HelperSpec,
    key: str,
    source: dict[str, str | None],
    index: int,
    helpers: int,
    stop: Any,
    busy: HelperBusy,
    news: Inboxes,
) -> None:
    """A helper process: prove its share of the root's options into the shared store."""
    parent = os.getppid()

    def keep_going(_progress: Progress) -> None:
        if stop.is_set() or os.getppid() != parent:
            raise _Stopped

    if stop.is_set():  # the main search ended while this process was starting
        return
    store = spec.location.open()
    try:
        settings = SolveSettings(
            misere=True,
            rcts=_helper_rcts(store, spec, source),
            progress=keep_going,
            progress_interval=0.2,
            reprove_roots=False,  # an option the store has decided is not proven again
            flush_seconds=SHARE_SECONDS,
            share_seconds=SHARE_SECONDS,
            table_capacity=spec.table_capacity,
            busy=busy,
            news=news,
        )
        if stop.is_set():
            return
        with Solving(store, settings=settings) as session:
            solver = session.solver
            options = solver.ordered_children(solver.node(key))
            kept = options[-1] if options else None
            for option in helper_share(options, index, helpers):
                if stop.is_set() or os.getppid() != parent:
                    break
                busy.follow = option == kept  # the main search's own: help it there
                solver.node_outcome(option)
    except (_Stopped, KeyboardInterrupt):
        pass
    finally:
        news.close()
        store.close()


@contextmanager
def misere_helpers_running(
    spec: HelperSpec, key: str, jobs: int, source: dict[str, str | None]
) -> Iterator[MisereLinks]:
    """Run `jobs - 1` helper processes on the misère options of `key` for the time of the
    block, which is given the main search's busy marks and root share (none for one job);
    `source` is the main search's RCT source (`misere_rct_source`'s description), found
    (and a store seeded) before the helpers start."""
    if jobs <= 1:
        yield MisereLinks()
        return
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    helpers = jobs - 1
    busy = busy_tables(context, jobs)  # the main search's first
    inboxes = [context.Queue() for _ in range(jobs)]  # the same
    processes = [
        context.Process(
            target=_helper_main,
            args=(
                spec,
                key,
                source,
                index,
                helpers,
                stop,
                HelperBusy(busy, index + 1),
                Inboxes(inboxes, index + 1),
            ),
            name=f"sproutsdb-misere-helper-{index}",
            daemon=True,
        )
        for index in range(helpers)
    ]
    root = HeldBackRoot()
    try:
        with helpers_alive(processes, stop, _STOP_GRACE):
            yield MisereLinks(MainBusy(busy, root), root, Inboxes(inboxes, 0))
    finally:
        Inboxes(inboxes, 0).close()


__all__ = ["SHARE_SECONDS", "MisereLinks", "helper_share", "misere_helpers_running"]
