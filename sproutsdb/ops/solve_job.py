"""Solve a position as a whole job: the verb behind `sproutsdb solve`.

`solve_job(position, location, settings)` does everything a solve run needs beyond the
search itself: it seeds the results library's certificates below the root when
`settings.seed_results` asks, opens the store at `location` (embedded or a server's), keeps
the resume record beside an embedded store, picks a misère solve's RCT table (the one the
store was solved on, S7 for a large new root, else the store's or the shipped S6), starts
the `settings.jobs - 1` helper processes, runs the search (a Ctrl-C taken between two node
visits, so its resume record is whole: seeding before it stops at once), and closes the
store. A door only parses its flags into a location and settings, and prints the
`SolveReport`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from sproutsdb.errors import UsageError
from sproutsdb.games import DEFAULT_GAME, GameEntry, get_game
from sproutsdb.ops.deferred_interrupt import Deferred, deferred_interrupt
from sproutsdb.ops.solve import (
    SolveReport,
    SolveSettings,
    misere_rct_source,
    refuse_seeding_across_tables,
    solve,
)
from sproutsdb.ops.stores import StoreLocation
from sproutsdb.solver.ports.proofstore import ProofStore
from sproutsdb.solver.search.progress import Progress, ProgressFn
from sproutsdb.store.location import resolve_store_path
from sproutsdb.store.resume_file import FileResumeSlots

if TYPE_CHECKING:
    from sproutsdb.ops.seed import ResultSeed

Notice = Callable[[str], None]
SEED_A_SERVER = (
    "--seed-results seeds an embedded store (--store); a server seeds the results library "
    "into its own store when it starts (sproutsdb serve)"
)


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def solve_job(
    position: str,
    location: StoreLocation,
    settings: SolveSettings = SolveSettings(),
    *,
    game: GameEntry | None = None,
    notice: Notice = _say,
    on_seed: Callable[[ResultSeed], None] | None = None,
    seeding: Callable[[str], None] | None = None,
    rct_progress: bool = True,
) -> SolveReport:
    """Prove `position` (canonical) of `game` (default Sprouts) in the store at `location`,
    as `settings` ask (jobs, RCT table, seeding). `notice` hears what the run says on the
    way (a table chosen or built, a refuted claim); `seeding(play)` hears that seeding
    begins and `on_seed` each certificate seeded; `rct_progress` shows a named table's
    build counter. SolveInterrupted on Ctrl-C."""
    entry = game or get_game(location.game or DEFAULT_GAME)
    if settings.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if settings.seed_results and location.server is not None:
        raise UsageError(SEED_A_SERVER)
    if settings.misere and settings.seed_results:
        refuse_seeding_across_tables(settings.rct_table, use_rcts=settings.use_rcts)
    if settings.seed_results and seeding is not None:
        seeding("misere" if settings.misere else "normal")
    seeded = _seed_results(position, location, entry, settings, on_seed)
    resume = None if location.server else FileResumeSlots(resolve_store_path(location.path))
    with deferred_interrupt() as ctrl_c:
        settings = replace(settings, resume=resume, progress=_taking(ctrl_c, settings.progress))
        store = location.open()
        try:
            if settings.misere:
                report = _misere(position, store, location, settings, notice, rct_progress)
            else:
                report = _normal(position, store, location, entry, settings)
        finally:
            store.close()
    report.seeded_results = seeded
    return report


def _taking(ctrl_c: Deferred, progress: ProgressFn | None) -> ProgressFn:
    """The search's progress callback, which takes a waiting Ctrl-C between two node visits
    (so the resume record is whole) before it reports."""

    def report(state: Progress) -> None:
        ctrl_c.check()
        if progress is not None:
            progress(state)

    return report


def _normal(
    position: str,
    store: ProofStore,
    location: StoreLocation,
    entry: GameEntry,
    settings: SolveSettings,
) -> SolveReport:
    """A normal-play solve, with its helpers for `settings.jobs > 1`."""
    if settings.jobs <= 1:  # what helpers_running gives one job, without its imports
        alone = replace(settings, share_seconds=None, root_share=None, news=None, busy=None)
        return solve(position, store, game=entry, settings=alone)
    from sproutsdb.ops.jobs.helper_processes import HelperSpec
    from sproutsdb.ops.jobs.parallel_normal import SHARE_SECONDS, helpers_running

    spec = HelperSpec(location, search=settings.search, table_capacity=settings.table_capacity)
    with helpers_running(spec, position, settings.jobs) as links:
        shared = replace(
            settings,
            share_seconds=SHARE_SECONDS if settings.jobs > 1 else None,
            root_share=links.root_share,
            news=links.news,
            busy=links.busy,
        )
        return solve(position, store, game=entry, settings=shared)


def _misere(
    position: str,
    store: ProofStore,
    location: StoreLocation,
    settings: SolveSettings,
    notice: Notice,
    rct_progress: bool,
) -> SolveReport:
    """A misère solve on the RCT table `settings` name (else the store's default), with its
    helpers for `settings.jobs > 1`, started once the store is seeded with the same RCTs."""
    from sproutsdb.ops.jobs.helper_processes import HelperSpec
    from sproutsdb.ops.jobs.parallel_misere import SHARE_SECONDS, misere_helpers_running
    from sproutsdb.ops.rct_tables import default_misere_table
    from sproutsdb.ops.shipped_rcts import say_on_stderr

    table = settings.rct_table
    if table is None and settings.use_rcts:
        # the table of this store's earlier solves, or S7 for a large new root
        table = default_misere_table(store, position, notice=say_on_stderr)
    rcts, source = misere_rct_source(
        store,
        table_file=table,
        use_rcts=settings.use_rcts,
        notice=notice,
        progress=rct_progress,
    )
    spec = HelperSpec(
        location,
        search=settings.search,
        table_capacity=settings.table_capacity,
        rct_table=table,
        use_rcts=settings.use_rcts,
    )
    with misere_helpers_running(spec, position, settings.jobs, source) as links:
        shared = replace(
            settings,
            rcts=rcts,
            share_seconds=SHARE_SECONDS if settings.jobs > 1 else None,
            busy=links.busy,
            root_share=links.root_share,
            news=links.news,
        )
        report = solve(position, store, settings=shared)
    report.rct_source = source
    return report


def _seed_results(
    position: str,
    location: StoreLocation,
    entry: GameEntry,
    settings: SolveSettings,
    on_seed: Callable[[ResultSeed], None] | None,
) -> dict[str, int] | None:
    """`seed_results`: the results library's certificates of this play below the root, each
    re-derived before it is stored, in a store opened on its own so that Ctrl-C stops it at
    once; the certificates by what seeding did (None: not asked)."""
    if not settings.seed_results:
        return None
    from sproutsdb.ops.seed import seed_counts, seed_results_below

    play = "misere" if settings.misere else "normal"
    store = location.open()
    try:
        return seed_counts(seed_results_below(store, entry.engine(), position, play, on_seed))
    finally:
        store.close()


__all__ = ["solve_job"]
