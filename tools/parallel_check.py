"""Batches of a whole-store check (`sproutsdb check --all`), in this process or in workers.

A batch is a list of stored lands, checked with one `Checker` memo; its result is a compact
`BatchDigest`. `Tally` adds digests up in key order: it reads which lands of the batch were
already verified, marks the batch's verified facts in the store and keeps the first
`SHOWN` holes and inconsistencies sorted by key. The same two pieces serve `--jobs 1` (in
this process) and `--jobs N`: `CheckPool` starts N worker processes (`spawn`: no open LMDB
environment or writer thread crosses a fork), each opens the store read-only once and
builds one Checker; the parent streams batches to idle workers, at most 2×N batches in
flight, and alone writes.

Why the results do not depend on N: a fact's verdict depends only on the stored facts and on
the marks made before the run (a fact marked during the run was re-derived by this run, so
trusting it or re-deriving it gives the same verdict); holes and inconsistencies are
reported by the check of the fact they belong to, which is never trusted, so deduplicating
and sorting them gives the same list. A worker does not see the marks of batches running
beside it and so re-derives some facts twice: the price of parallelism, not of results.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Self

from sproutsdb.server.schema import Status
from sproutsdb.server.store import LmdbProofStore
from sproutsdb.solver.check import Checker
from sproutsdb.solver.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame

from sproutsdb.errors import UserError

SHOWN = 20  # holes and inconsistencies listed in a report (the smallest keys)


class CheckWorkerError(UserError):
    """A worker process failed or died: the run stops (exit 2); marks made so far stay."""


# ----------------------------------------------------------------------------- one batch


@dataclass
class BatchDigest:
    """What checking one batch found, small enough to send between processes."""

    facts: int                   # lands in the batch
    ok: int                      # of them, trusted or verified now
    unproven: int                # of them, rejected for a hole or a bad fact below
    verified: list[str]          # every land the batch verified (dependencies too)
    missing: list[dict[str, Any]] = field(default_factory=list)       # smallest SHOWN
    inconsistent: list[dict[str, Any]] = field(default_factory=list)  # smallest SHOWN
    bad: int = 0                 # distinct holes and inconsistencies found


def _hole_key(hole: dict[str, Any]) -> tuple[Any, ...]:
    return (hole["needed_by"], hole["couple"], tuple(hole["missing"]))


def _inconsistency_key(bad: dict[str, Any]) -> tuple[Any, ...]:
    return (bad["land"], bad["stored"], bad["reason"])


def smallest(items: Iterable[dict[str, Any]], key: Callable[[dict[str, Any]], tuple[Any, ...]],
             limit: int | None = SHOWN) -> list[dict[str, Any]]:
    """Distinct items sorted by key, the first `limit` of them (all when None)."""
    distinct = {key(item): item for item in items}
    return [distinct[k] for k in sorted(distinct)[:limit]]


def new_checker(store: LmdbProofStore) -> Checker:
    """A Checker of the store's nimber facts that trusts facts already marked verified."""
    def trusted(keys: Sequence[str]) -> list[str]:
        records = store.get_records(FactKind.NIMBER, keys)
        return [k for k, r in records.items() if r.status is Status.VERIFIED]

    return Checker(SproutsGame(), store, trusted=trusted)


def check_batch(checker: Checker, lands: list[str]) -> BatchDigest:
    """Check the stored facts of `lands` with one memo, then drop the memo."""
    report = checker.check_facts(lands)
    checker.forget()
    batch = set(lands)
    ok = report.trusted + sum(1 for land in lands if land in report.verified)
    wrong = {i.land for i in report.inconsistent if i.land in batch}
    holes = smallest(({"couple": h.couple, "needed_by": h.needed_by, "missing": list(h.missing)}
                      for h in report.missing), _hole_key, None)
    bads = smallest(({"land": i.land, "stored": i.stored, "reason": i.reason}
                     for i in report.inconsistent), _inconsistency_key, None)
    return BatchDigest(facts=len(lands), ok=ok, unproven=len(lands) - ok - len(wrong),
                       verified=list(report.verified), missing=holes[:SHOWN],
                       inconsistent=bads[:SHOWN], bad=len(holes) + len(bads))


def batches(store: LmdbProofStore, size: int) -> Iterator[list[str]]:
    """The store's nimber lands in key order, `size` at a time (streamed, never all)."""
    pending: list[str] = []
    for land, _ in store.iter_facts(FactKind.NIMBER):
        pending.append(land)
        if len(pending) >= size:
            yield pending
            pending = []
    if pending:
        yield pending


@dataclass
class Tally:
    """The totals of a whole-store check, fed one batch at a time in key order."""

    facts: int = 0
    verified_now: int = 0
    already_verified: int = 0
    unproven: int = 0
    missing: list[dict[str, Any]] = field(default_factory=list)
    inconsistent: list[dict[str, Any]] = field(default_factory=list)
    bad: int = 0

    def add(self, store: LmdbProofStore, lands: list[str], digest: BatchDigest) -> None:
        """Count a batch as a one-process run would, then mark what it verified.

        `already_verified` counts the lands marked before this batch (by an earlier run or
        an earlier batch), read from the store: a worker may have re-derived some of them.
        """
        records = store.get_records(FactKind.NIMBER, lands)
        already = sum(1 for r in records.values() if r.status is Status.VERIFIED)
        store.mark_verified(FactKind.NIMBER, digest.verified)
        self.facts += digest.facts
        self.already_verified += already
        self.verified_now += digest.ok - already
        self.unproven += digest.unproven
        self.missing = smallest([*self.missing, *digest.missing], _hole_key)
        self.inconsistent = smallest([*self.inconsistent, *digest.inconsistent],
                                     _inconsistency_key)
        self.bad += digest.bad

    def as_dict(self) -> dict[str, Any]:
        return {"facts": self.facts, "verified_now": self.verified_now,
                "already_verified": self.already_verified, "unproven": self.unproven,
                "missing": self.missing, "inconsistent": self.inconsistent, "bad": self.bad}


# ----------------------------------------------------------------------------- workers


def _describe(error: BaseException) -> str:
    if isinstance(error, UserError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _worker_main(conn: Connection, path: str) -> None:
    """A worker: open the store read-only once, then check the batches it is sent.

    Messages in: (seq, lands) or None (stop). Out: (seq, True, BatchDigest) or
    (seq, False, message), after which the worker stops. Ctrl-C is the parent's to handle.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    store: LmdbProofStore | None = None
    failure: str | None = None
    try:
        store = LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION,
                                    create=False, readonly=True)
        checker = new_checker(store)
    except Exception as error:  # noqa: BLE001 (reported with the first batch)
        failure = _describe(error)
    try:
        while True:
            try:
                task = conn.recv()
            except EOFError:  # the parent is gone
                return
            if task is None:
                return
            seq, lands = task
            if failure is None:
                try:
                    conn.send((seq, True, check_batch(checker, lands)))
                    continue
                except Exception as error:  # noqa: BLE001 (any failure goes to the parent)
                    failure = _describe(error)
            conn.send((seq, False, failure))
            return
    finally:
        if store is not None:
            store.close()


@dataclass
class _Worker:
    process: Any  # multiprocessing.context.SpawnProcess
    conn: Connection
    seq: int | None = None  # the batch it is checking


class CheckPool:
    """`jobs` worker processes checking batches of one store; a context manager that
    leaves no process behind, whether the run ends, fails or is interrupted."""

    def __init__(self, path: str, jobs: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._clean = False
        # Children start with SIGINT blocked (the mask survives fork and exec): a Ctrl-C at
        # the terminal reaches the whole process group, and only this process handles it.
        block = hasattr(signal, "pthread_sigmask")
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if block else None
        try:
            for number in range(jobs):
                parent_end, child_end = context.Pipe()
                process = context.Process(target=_worker_main, args=(child_end, path),
                                          name=f"sproutsdb-check-{number}", daemon=True)
                self._workers.append(_Worker(process, parent_end))
                process.start()
                child_end.close()
        except BaseException:
            self.close()
            raise
        finally:
            if block:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)

    @property
    def pids(self) -> list[int]:
        return [w.process.pid for w in self._workers if w.process.pid is not None]

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        self._clean = kind is None
        self.close()

    def close(self) -> None:
        """Stop every worker: politely after a clean run, at once otherwise."""
        for worker in self._workers:
            if self._clean and worker.process.is_alive():
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
        for worker in self._workers:
            process = worker.process
            if process.pid is None:
                continue
            if not self._clean and process.is_alive():
                process.terminate()
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
            worker.conn.close()
        self._workers = []

    def run(self, work: Iterator[list[str]],
            done: Callable[[list[str], BatchDigest], None]) -> None:
        """Check every batch of `work`; call `done(lands, digest)` in the order of `work`,
        with at most 2 × jobs batches dispatched and not yet done."""
        window = 2 * len(self._workers)
        idle = list(reversed(self._workers))
        busy: dict[int, _Worker] = {}
        lands_of: dict[int, list[str]] = {}  # sent and not yet done
        results: dict[int, BatchDigest] = {}
        next_seq = next_done = 0
        exhausted = False
        while True:
            while idle and not exhausted and next_seq - next_done < window:
                lands = next(work, None)
                if lands is None:
                    exhausted = True
                    break
                worker = idle.pop()
                worker.seq = next_seq
                worker.conn.send((next_seq, lands))
                busy[next_seq] = worker
                lands_of[next_seq] = lands
                next_seq += 1
            if next_done in results:
                done(lands_of.pop(next_done), results.pop(next_done))
                next_done += 1
                continue
            if not busy:
                if exhausted:
                    return
                continue
            waiting = {}
            for worker in busy.values():
                waiting[worker.conn] = worker
                waiting[worker.process.sentinel] = worker
            ready = {id(waiting[obj]): waiting[obj] for obj in wait(list(waiting))}
            for worker in ready.values():
                seq, digest = self._receive(worker)
                del busy[seq]
                results[seq] = digest
                worker.seq = None
                idle.append(worker)

    def _receive(self, worker: _Worker) -> tuple[int, BatchDigest]:
        name = f"check worker {worker.process.pid}"
        try:
            seq, good, payload = worker.conn.recv()
        except (EOFError, OSError):
            worker.process.join(timeout=2)
            raise CheckWorkerError(f"{name} stopped (exit code {worker.process.exitcode}) "
                                   "while checking a batch") from None
        if not good:
            raise CheckWorkerError(f"{name} failed: {payload}")
        return seq, payload
