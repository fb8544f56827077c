"""What a search reports about itself: running statistics and throttled progress callbacks."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# How often a progress report counts the root's options settled again (a pass over the
# options and their children: a few ms at 0*21), and at most this share of the time.
ROOT_HEADWAY_SECONDS = 10.0
ROOT_HEADWAY_SHARE = 0.01


@dataclass(frozen=True)
class Progress:
    """One progress report, for a progress line (the CLI draws it on stderr)."""

    nodes: int  # couples expanded so far
    facts_stored: int  # facts the store accepted as new so far
    depth: int  # current depth of the explicit search stack
    nodes_per_second: float  # expansion rate since the previous report
    seconds: float  # time spent searching in this call
    # the root's options proven winning and losing, and their number (a long search's
    # headway: every option of a losing root must be shown winning)
    root_options: tuple[int, int, int] | None = None


ProgressFn = Callable[[Progress], None]
# A root's options, each "L" (proven losing: the root wins), "W" (proven winning) or None
SettledOptions = list[tuple[str, str | None]]


def settled_counts(options: Sequence[tuple[str, str | None]]) -> tuple[int, int, int]:
    """(options proven winning, proven losing, all) of a ``settled_options`` list."""
    outcomes = [outcome for _, outcome in options]
    return outcomes.count("W"), outcomes.count("L"), len(outcomes)


class RootHeadway:
    """The root's options settled so far, for progress reports: counted afresh at most
    every ROOT_HEADWAY_SECONDS, and less often where counting costs more than
    ROOT_HEADWAY_SHARE of the time between counts; only while a call of one root runs."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._settle: Callable[[], SettledOptions] | None = None
        self._counts: tuple[int, int, int] | None = None
        self._due = 0.0

    def start(self, settle: Callable[[], SettledOptions] | None) -> None:
        """A call begins: `settle` reads its root's options (None: no root to report)."""
        self._settle, self._counts, self._due = settle, None, 0.0

    def stop(self) -> None:
        """The call ends: its final report says the outcome instead."""
        self.start(None)

    def counts(self) -> tuple[int, int, int] | None:
        """(won, lost, options) of the running call's root, or None outside a call."""
        if self._settle is None:
            return None
        now = self._clock()
        if now >= self._due:
            self._counts = settled_counts(self._settle())
            cost = self._clock() - now
            self._due = now + max(ROOT_HEADWAY_SECONDS, cost / ROOT_HEADWAY_SHARE)
        return self._counts


@dataclass
class SolverStats:
    """Cumulative counters of one solver (over all its calls)."""

    nodes: int = 0  # couples expanded (children generated and examined)
    expansions: int = 0  # children generated afresh (df-pn re-visits from its cache don't count)
    facts_stored: int = 0  # new facts accepted by the store
    facts_unchanged: int = 0  # proven facts the store already had (re-proofs)
    cache_hits: int = 0  # couples decided by the transposition table, without search
    store_hits: int = 0  # nimbers read from the store
    store_reads: int = 0  # get batches
    store_writes: int = 0  # put batches
    max_depth: int = 0  # deepest explicit stack seen
    table_clears: int = 0  # times the in-memory table outgrew its capacity and was cleared
    seconds: float = 0.0  # wall time inside solver calls
    resumed_numbers: int = 0  # df-pn numbers taken from a resume record
    resumed_exclusions: int = 0  # winning couples of a resume record, re-derived and used
    resume_saves: int = 0  # resume records saved (periodically and when interrupted)
    restarts: int = 0  # searches started again from the root for another process's fact


class ProgressMeter:
    """Calls a progress function at most once per `interval` seconds."""

    def __init__(
        self,
        callback: ProgressFn | None,
        interval: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._callback = callback
        self._interval = interval
        self._clock = clock
        self._start = self._last = clock()
        self._start_nodes = self._last_nodes = 0

    @property
    def active(self) -> bool:
        return self._callback is not None

    def start(self, nodes: int) -> None:
        """Begin a call: rates and seconds are measured from here."""
        self._start = self._last = self._clock()
        self._start_nodes = self._last_nodes = nodes

    def tick(
        self,
        nodes: int,
        stored: int,
        depth: int,
        *,
        force: bool = False,
        root_options: tuple[int, int, int] | None = None,
    ) -> None:
        """Report if the interval has passed (or if forced, for the final report)."""
        if self._callback is None:
            return
        now = self._clock()
        elapsed = now - self._last
        if not force and elapsed < self._interval:
            return
        if force:  # the final report gives the rate of the whole call
            elapsed, done = now - self._start, nodes - self._start_nodes
        else:
            done = nodes - self._last_nodes
        rate = done / elapsed if elapsed > 0 else 0.0
        self._last, self._last_nodes = now, nodes
        self._callback(Progress(nodes, stored, depth, rate, now - self._start, root_options))
