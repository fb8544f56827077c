"""The run loop both solvers share: a call's frame, node visits, restarts, resume records.

`NormalSolver` and `MisereSolver` search different nodes (couples; misère nodes) through
the same driver: an explicit stack of coroutines run with the collector paused, started
again from the root when another solver's facts decide a node on its path, counting each
visit (progress, meeting the other solvers, saving a resume record), and ending every call
by committing what it proved and saving or discarding its resume record. `SearchRun` is
that driver; a solver fills in its hooks (what a record holds, how it meets the others).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, TypeVar

from sproutsdb.solver.search.dfpn import DfpnSearch, RestartSearch
from sproutsdb.solver.search.driver import QuietCollector, run_tasks
from sproutsdb.solver.search.facts import FactBuffer
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.search.progress import RootHeadway, SolverStats
from sproutsdb.solver.search.resume import ResumeSlots

__all__ = ["RESUME_COST_SHARE", "CallFrame", "SearchRun"]

# A resume record is saved at most once per flush interval, and less often when saving it
# costs more than 1/RESUME_COST_SHARE of the time between saves (a large table).
RESUME_COST_SHARE = 50

Result = TypeVar("Result")


class CallFrame:
    """One call of a solver while it runs: ``finished`` once it has its answer (an
    unfinished call leaves a resume record at its end)."""

    finished = False


class SearchRun:
    """The driver of a solver's calls, over its ``_facts`` (the write-behind buffer of
    what it proves) and ``_dfpn`` (None for a search without df-pn).

    Hooks: ``_bound_memory`` (at each visit, before anything else), ``_share`` (every
    ``share_seconds``: meet the other solvers' facts), ``_end_call`` (the call's own state,
    when it ends), ``_record`` and ``_record_discarded`` (the resume record's content, and
    what a finished call drops with it).
    """

    # Save the resume record before committing the facts beside it (misère), not after.
    _RECORD_FIRST: ClassVar[bool] = False
    _facts: FactBuffer
    _dfpn: DfpnSearch[Any] | None

    def __init__(
        self,
        options: SolveOptions,
        share_seconds: float | None,
        resume: ResumeSlots | None,
    ) -> None:
        self._meter = options.meter()
        self._reprove_roots = options.reprove_roots
        self._stack: list[Any] = []
        self._stats = SolverStats()
        self._collector = QuietCollector()
        self._headway = RootHeadway()  # the running call's root options, for progress
        self._share_seconds = share_seconds
        self._next_share = time.monotonic() + (share_seconds or 0.0)
        # Where an interrupted call leaves its search state for a rerun (a hint, never a fact).
        self._resume = resume
        self._resume_slot: str | None = None  # the running call's slot, while it runs
        self._resume_root: str | None = None  # the root its record names
        self._resume_every = options.flush_seconds
        self._resume_due = 0.0

    # ----------------------------------------------------------------- public API

    def flush(self) -> None:
        """Put every proven fact still buffered (raises a ConflictError on conflict)."""
        try:
            self._facts.flush()
        finally:
            self._sync_store_stats()

    @property
    def stats(self) -> SolverStats:
        """A snapshot of the cumulative counters."""
        self._sync_store_stats()
        return SolverStats(**vars(self._stats))

    # ----------------------------------------------------------------- the call

    @contextmanager
    def _call_frame(self, started: float) -> Iterator[CallFrame]:
        """The body of a call started at ``started`` (``time.perf_counter``): at its end,
        however it ends, commit what it proved and report, and save its resume record if
        it did not finish (else discard it)."""
        frame = CallFrame()
        try:
            yield frame
        finally:
            self._headway.stop()
            self._end_call()
            self._stack = []
            self._stats.seconds += time.perf_counter() - started
            try:
                self.flush()
            finally:
                try:
                    self._leave_resume(frame.finished)
                finally:
                    self._meter.tick(self._stats.nodes, self._facts.inserted, 0, force=True)

    def _restarting(self, run: Callable[[], Result]) -> Result:
        """Run the call's search with the collector paused, again from its root (keeping
        df-pn's numbers and the table) each time another solver's facts decide a node on
        its path (`RestartSearch`)."""
        with self._collector.paused():
            while True:
                if self._dfpn is not None:
                    self._dfpn.in_flight.clear()
                try:
                    return run()
                except RestartSearch:
                    self._stats.restarts += 1
                    self._stack = []

    def _drive(self, task: Any) -> Any:
        """Run a task and all its sub-tasks on the explicit stack; its result."""
        return run_tasks(task, self._stack, self._stats)

    def _visit(self) -> None:
        """Count a node visit, keep memory bounded, meet the other solvers when due, save
        the resume record when due, maybe collect garbage and report progress."""
        stats = self._stats
        stats.nodes += 1
        self._bound_memory()
        if self._share_seconds is not None and time.monotonic() >= self._next_share:
            self._next_share = time.monotonic() + self._share_seconds
            self._share()
        if self._resume_root is not None and time.monotonic() >= self._resume_due:
            self._save_resume()  # a killed run resumes from here
        self._collector.tick()
        if self._meter.active:
            self._meter.tick(
                stats.nodes,
                self._facts.inserted,
                len(self._stack),
                root_options=self._headway.counts(),
            )

    def _commit_due(self) -> None:
        """A batch of proven facts is due: commit it, with the resume record beside it
        when one is due too."""
        if self._resume_root is not None and time.monotonic() >= self._resume_due:
            self._save_resume()
        else:
            self.flush()

    # ----------------------------------------------------------------- resume records

    def _resume_at(
        self, slot: str, root: str, take_up: Callable[[bytes], None], first_save: float
    ) -> None:
        """Take up the record an interrupted call of ``root`` left in ``slot`` (``take_up``
        decodes and installs it: a hint), then keep the call's record there, saved first
        ``first_save`` seconds from now."""
        if self._resume is None:
            return
        data = self._resume.load(slot)
        if data is not None:
            take_up(data)
        # only now: a call stopped while taking up a record leaves that record as it was
        self._resume_slot, self._resume_root = slot, root
        self._resume_due = time.monotonic() + first_save

    def _save_resume(self, *, commit: bool = True) -> None:
        """Save the search state (`_record`) and commit what is proven (unless just done),
        in the order `_RECORD_FIRST` says."""
        if self._resume is None or self._resume_slot is None:
            return
        started = time.monotonic()
        if commit and not self._RECORD_FIRST:
            self.flush()
        if self._resume.save(self._resume_slot, self._record()):
            self._stats.resume_saves += 1
        now = time.monotonic()
        self._resume_due = now + max(self._resume_every, RESUME_COST_SHARE * (now - started))
        if commit and self._RECORD_FIRST:
            self.flush()

    def _leave_resume(self, finished: bool) -> None:
        """A finished call needs no record; an interrupted one saves where it stood."""
        if self._resume is None or self._resume_slot is None:
            return
        try:
            if finished:
                self._resume.discard(self._resume_slot)
                self._record_discarded()
            else:
                self._save_resume(commit=False)  # the call has just flushed (or failed to)
        finally:
            self._resume_slot = self._resume_root = None

    # ----------------------------------------------------------------- hooks

    def _bound_memory(self) -> None:
        """At each visit: keep the in-memory tables within their bounds."""

    def _share(self) -> None:
        """Every ``share_seconds``: meet the facts the other solvers of the store put."""

    def _end_call(self) -> None:
        """A call ends: drop what belonged to it alone."""

    def _record(self) -> bytes:
        """The resume record of the running call."""
        raise NotImplementedError

    def _record_discarded(self) -> None:
        """A finished call's record is discarded: drop what it left in memory."""

    def _sync_store_stats(self) -> None:
        """Copy the store counters of the fact buffer into the statistics."""
        facts, stats = self._facts, self._stats
        stats.facts_stored = facts.inserted
        stats.facts_unchanged = facts.unchanged
        stats.store_writes = facts.writes
