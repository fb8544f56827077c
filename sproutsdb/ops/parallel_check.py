"""Batches of a whole-store check (`sproutsdb check --all`), in this process or in workers.

The lands are taken fewest lives first (`lives_order`), so that a land's dependencies,
which have fewer lives, are checked and marked before it. A batch is a list of lands
checked with one `Checker` memo; its result is a compact `BatchDigest`. `Tally` adds
digests up in order: it reads which lands of the batch were already verified, marks the
batch's verified facts in the store and keeps the first `SHOWN` holes and inconsistencies
sorted by key. The same pieces serve `--jobs 1` (in this process) and `--jobs N`:
`CheckPool` starts N worker processes (`spawn`: no open LMDB environment or writer thread
crosses a fork), each opens the store read-only once and builds one Checker; the parent
sends batches to idle workers (at most 2×N not yet done; a batch waits for the batches of
fewer lives before it to be marked) and alone writes.

Why the results do not depend on N: a fact's verdict depends only on the stored facts and on
the marks made before the run (a fact marked during the run was re-derived by this run, so
trusting it or re-deriving it gives the same verdict); holes and inconsistencies are
reported by the check of the fact they belong to, which is never trusted, so deduplicating
and sorting them gives the same list; and the parent tallies batches in the same order
whatever N is.
"""

from __future__ import annotations

import multiprocessing
import pickle
import signal
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from itertools import islice
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, BinaryIO, Self

import zstandard

from sproutsdb.errors import UserError
from sproutsdb.facts import CHECK_ALL, CHECK_RECHECK
from sproutsdb.games import get_game
from sproutsdb.progress import counter_bar
from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.search.driver import QuietCollector
from sproutsdb.store import LmdbProofStore, Mark, open_store
from sproutsdb.store.opening import peek_identity

SHOWN = 20  # holes and inconsistencies listed in a report (the smallest keys)


class CheckWorkerError(UserError):
    """A worker process failed or died: the run stops (exit 2); marks made so far stay."""


# ----------------------------------------------------------------------------- one batch


@dataclass
class BatchDigest:
    """What checking one batch found, small enough to send between processes."""

    facts: int  # lands in the batch
    ok: int  # of them, trusted or verified now
    unproven: int  # of them, rejected for a hole or a bad fact below
    verified: list[str]  # every land the batch verified (dependencies too)
    missing: list[dict[str, Any]] = field(default_factory=list)  # smallest SHOWN
    inconsistent: list[dict[str, Any]] = field(default_factory=list)  # smallest SHOWN
    bad: int = 0  # distinct holes and inconsistencies found
    rechecked: int = 0  # facts the batch re-derived (more than its own: a cost)
    derived_lands: list[str] = field(default_factory=list)  # from the rules, for its facts


def _hole_key(hole: dict[str, Any]) -> tuple[Any, ...]:
    return (hole["needed_by"], hole["couple"], tuple(hole["missing"]))


def _inconsistency_key(bad: dict[str, Any]) -> tuple[Any, ...]:
    return (bad["land"], bad["stored"], bad["reason"])


def smallest(
    items: Iterable[dict[str, Any]],
    key: Callable[[dict[str, Any]], tuple[Any, ...]],
    limit: int | None = SHOWN,
) -> list[dict[str, Any]]:
    """Distinct items sorted by key, the first `limit` of them (all when None)."""
    distinct = {key(item): item for item in items}
    return [distinct[k] for k in sorted(distinct)[:limit]]


class MarkedFacts:
    """The store as a Checker's fact source that notes, in the same read, which of the
    facts read are marked verified: `trusted` answers from that note, so each lookup
    costs one LMDB read, not two (the Checker asks `trusted` right after each read, about
    keys of that read). With `marked_by` (a recheck), only the marks of those provenance
    ids count: the run's own, whatever other checks marked before."""

    def __init__(self, store: LmdbProofStore, marked_by: set[int] | None = None) -> None:
        self._store = store
        self._verified: set[str] = set()
        self._marked_by = marked_by

    def get(self, kind: FactKind, keys: Sequence[str]) -> dict[str, Any]:
        self._verified.clear()
        return self._store.get(kind, keys, verified_out=self._verified, marked_by=self._marked_by)

    def trusted(self, keys: Sequence[str]) -> list[str]:
        return [k for k in keys if k in self._verified]


def new_checker(
    store: LmdbProofStore, *, derive_lives: int = 0, marked_by: set[int] | None = None
) -> Checker:
    """A Checker of the store's nimber facts that trusts facts already marked verified
    (with `marked_by`, a set the caller keeps up to date: only those marked by these
    provenance ids) and takes unstored lands of at most `derive_lives` lives from the rules."""
    facts = MarkedFacts(store, marked_by)
    game = get_game(store.identity.game).engine()  # the store's game
    return Checker(game, facts, trusted=facts.trusted, derive_lives=derive_lives)


def check_batch(checker: Checker, lands: list[str]) -> BatchDigest:
    """Check the stored facts of `lands` with one memo, then drop the memo (the garbage
    collector paused meanwhile: full collections walked the memo to free nothing, 3 % of a
    check; a batch is bounded, and the collector is on again after it).

    Batches come in lives order, each after every batch of fewer lives is marked
    (`level_batches`, `dispatch_in_order`): the values and marks the checker read stay
    true, so it keeps them for the next batch (`Checker.forget`), with this batch's
    verified facts, which its caller marks, as trusted."""
    with QuietCollector().paused():
        report = checker.check_facts(lands)
    checker.trust(report.verified)
    checker.forget(keep_read=True)
    batch = set(lands)
    ok = report.trusted + sum(1 for land in lands if land in report.verified)
    wrong = {i.land for i in report.inconsistent if i.land in batch}
    holes = smallest(
        (
            {"couple": h.couple, "needed_by": h.needed_by, "missing": list(h.missing)}
            for h in report.missing
        ),
        _hole_key,
        None,
    )
    bads = smallest(
        ({"land": i.land, "stored": i.stored, "reason": i.reason} for i in report.inconsistent),
        _inconsistency_key,
        None,
    )
    return BatchDigest(
        facts=len(lands),
        ok=ok,
        unproven=len(lands) - ok - len(wrong),
        verified=list(report.verified),
        missing=holes[:SHOWN],
        inconsistent=bads[:SHOWN],
        bad=len(holes) + len(bads),
        rechecked=checker.lands_checked,
        derived_lands=list(report.derived),
    )


SPILL_CHUNK = 4096  # keys per level held in memory while sorting by lives


class LevelSpill:
    """Keys grouped by lives in temporary files, read back fewest lives first, each level
    in the order the keys were added. Memory holds fewer than `chunk` keys per level;
    the files hold the keys once, as zstd-compressed pickled chunks."""

    def __init__(self, where: Path, chunk: int = SPILL_CHUNK) -> None:
        self._where = where
        self._chunk = chunk
        self._pending: dict[int, list[str]] = {}
        self._counts: dict[int, int] = {}
        self._files: dict[int, BinaryIO] = {}
        self._compress = zstandard.ZstdCompressor(level=1)

    def add(self, lives: int, key: str) -> None:
        pending = self._pending.setdefault(lives, [])
        pending.append(key)
        self._counts[lives] = self._counts.get(lives, 0) + 1
        if len(pending) >= self._chunk:
            self._write(lives)

    def _write(self, lives: int) -> None:
        file = self._files.get(lives)
        if file is None:
            file = self._files[lives] = open(self._where / f"lives-{lives}", "w+b")  # noqa: SIM115
        data = self._compress.compress(pickle.dumps(self._pending[lives], protocol=5))
        file.write(len(data).to_bytes(8, "little"))
        file.write(data)
        self._pending[lives] = []

    def levels(self) -> Iterator[tuple[int, Iterator[str]]]:
        """(number of keys, the keys) of each level, fewest lives first; then closes the
        files. Each level's keys must be read before the next level is asked for."""
        decompress = zstandard.ZstdDecompressor()

        def keys(lives: int) -> Iterator[str]:
            file = self._files.get(lives)
            if file is not None:
                file.flush()
                file.seek(0)
                while size := int.from_bytes(file.read(8), "little"):
                    yield from pickle.loads(decompress.decompress(file.read(size)))
                file.close()
            yield from self._pending[lives]

        try:
            for lives in sorted(self._pending):
                yield self._counts[lives], keys(lives)
        finally:
            for file in self._files.values():
                file.close()

    def in_order(self) -> Iterator[str]:
        """Every key added, level by level."""
        for _, keys in self.levels():
            yield from keys


@contextmanager
def lives_order(
    store: LmdbProofStore, *, quiet: bool = True, chunk: int = SPILL_CHUNK
) -> Iterator[LevelSpill]:
    """The store's nimber lands by number of lives, in key order within each number.

    Every fact a land's check needs has fewer lives, so batches taken fewest lives first
    find their dependencies checked and marked by earlier batches: the batches of one
    number of lives are independent, which is what lets workers run side by side, and a
    batch's memo holds little beyond its own lands. (In key order, the first batches,
    '0*…', the big positions, re-derive most of the store.) One pass over the store spills
    the keys to temporary files (TMPDIR, zstd: a fraction of the keys' size); nothing
    holds the whole store in memory."""
    with tempfile.TemporaryDirectory(prefix="sproutsdb-check-") as where:
        spill = LevelSpill(Path(where), chunk)
        with counter_bar(
            "facts sorted by lives", enabled=not quiet, total=store.count(FactKind.NIMBER)
        ) as bar:
            lives = get_game(store.identity.game).lives
            for count, (land, _) in enumerate(store.iter_facts(FactKind.NIMBER), 1):
                spill.add(lives(land), land)
                if count % 65536 == 0:
                    bar.update_to(count)
        yield spill


def level_batches(spill: LevelSpill, size: int, jobs: int = 1) -> Iterator[list[str]]:
    """Batches of at most `size` lands, each of one number of lives, fewest first. With
    several jobs, a level comes in a multiple of `jobs` batches of equal size, so that the
    workers finish it together (the next level waits for it)."""
    for count, keys in spill.levels():
        parts = -(-count // size)
        if jobs > 1:
            parts = min(count, -(-parts // jobs) * jobs)
        whole, extra = divmod(count, parts)
        for part in range(parts):
            yield list(islice(keys, whole + (part < extra)))


@dataclass
class Tally:
    """The totals of a whole-store check, fed one batch at a time in the order checked.

    With `recheck`, marks made before the run count for nothing: every fact is re-derived,
    re-marked as this run's (`run_marks`: the provenance ids of its marks, which its
    checkers trust), and a fact it cannot re-derive loses a mark another check gave it."""

    recheck: bool = False
    run_marks: set[int] = field(default_factory=set)
    trusted_marks: Counter[int] = field(default_factory=Counter)  # mark id -> facts trusted
    withdrawn: list[str] = field(default_factory=list)  # marks withdrawn (recheck), first SHOWN
    withdrawn_count: int = 0
    facts: int = 0
    verified_now: int = 0
    already_verified: int = 0
    unproven: int = 0
    missing: list[dict[str, Any]] = field(default_factory=list)
    inconsistent: list[dict[str, Any]] = field(default_factory=list)
    bad: int = 0
    rechecked: int = 0  # facts re-derived, counted once per batch that derived them
    derived: set[str] = field(default_factory=set)  # lands taken from the rules (few)

    def add(self, store: LmdbProofStore, lands: list[str], digest: BatchDigest) -> None:
        """Count a batch as a one-process run would, then mark what it verified.

        `already_verified` counts the lands of the batch marked before it was tallied, read
        from the store (in lives order, by an earlier run only: earlier batches verify
        lands of fewer lives); the others that check OK are `verified_now`.
        """
        marks = store.mark_ids(FactKind.NIMBER, lands)
        if self.recheck:
            already = sum(1 for pid in marks.values() if pid in self.run_marks)
        else:
            already = len(marks)
            self.trusted_marks.update(marks.values())
        check = CHECK_RECHECK if self.recheck else CHECK_ALL
        marked = store.mark_verified(
            FactKind.NIMBER, digest.verified, check=check, restamp=self.recheck
        )
        if marked.verifier is not None:
            self.run_marks.add(marked.verifier)
        if self.recheck:
            self._withdraw(store, lands, digest, marks)
        self.facts += digest.facts
        self.already_verified += already
        self.verified_now += digest.ok - already
        self.unproven += digest.unproven
        self.missing = smallest([*self.missing, *digest.missing], _hole_key)
        self.inconsistent = smallest([*self.inconsistent, *digest.inconsistent], _inconsistency_key)
        self.bad += digest.bad
        self.rechecked += digest.rechecked
        self.derived.update(digest.derived_lands)

    def _withdraw(
        self, store: LmdbProofStore, lands: list[str], digest: BatchDigest, marks: dict[str, int]
    ) -> None:
        """Withdraw the marks other checks gave to lands of the batch this run could not
        re-derive (a recheck believes no mark it did not make)."""
        verified = set(digest.verified)
        foreign = [
            land
            for land in lands
            if land in marks and land not in verified and marks[land] not in self.run_marks
        ]
        if foreign:
            self.withdrawn_count += store.withdraw_marks(FactKind.NIMBER, foreign)
            self.withdrawn = sorted([*self.withdrawn, *foreign])[:SHOWN]

    def trusted_by_check(self, store: LmdbProofStore) -> dict[str, int]:
        """The facts trusted on marks made before this run, by kind of check."""
        out: Counter[str] = Counter()
        if self.trusted_marks:
            records = store.provenance_records()
            for pid, n in self.trusted_marks.items():
                record = records.get(pid)
                out[Mark(pid, record).label] += n
        return dict(sorted(out.items()))

    def as_dict(self) -> dict[str, Any]:
        return {
            "facts": self.facts,
            "verified_now": self.verified_now,
            "already_verified": self.already_verified,
            "unproven": self.unproven,
            "missing": self.missing,
            "inconsistent": self.inconsistent,
            "bad": self.bad,
            "rechecked": self.rechecked,
            "derived": len(self.derived),
            "derived_lands": sorted(self.derived)[:SHOWN],
        }


# ----------------------------------------------------------------------------- workers


def _describe(error: BaseException) -> str:
    if isinstance(error, UserError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _worker_main(conn: Connection, path: str, derive_lives: int = 0, recheck: bool = False) -> None:
    """A worker: open the store read-only once, then check the batches it is sent.

    Messages in: (seq, lands, run marks) or None (stop); with `recheck`, only facts marked
    by the run's marks (provenance ids) are trusted. Out: (seq, True, BatchDigest) or
    (seq, False, message), after which the worker stops. Ctrl-C is the parent's to handle.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    store: LmdbProofStore | None = None
    failure: str | None = None
    run_marks: set[int] | None = set() if recheck else None
    try:
        store = open_store(path, create=False, readonly=True, game=peek_identity(path).game)
        checker = new_checker(store, derive_lives=derive_lives, marked_by=run_marks)
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
            seq, lands, marks = task
            if run_marks is not None:
                run_marks.update(marks)
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


def dispatch_in_order(
    work: Iterator[list[str]],
    done: Callable[[list[str], BatchDigest], None],
    workers: Sequence[Any],
    submit: Callable[[Any, int, list[str]], None],
    wait_any: Callable[[list[Any]], list[tuple[int, BatchDigest]]],
    *,
    level: Callable[[str], int] | None = None,
) -> None:
    """Check every batch of `work` on `workers`; call `done(lands, digest)` in its order.

    At most 2 × workers batches are dispatched and not yet done, and a batch waits until
    every batch before it holding lands of a lower `level` than its highest is done
    (marked): `work` comes level by level (`lives_order`), a land's dependencies are of
    lower levels, so a worker finds them marked instead of re-deriving them. How a batch
    travels is the pool's: `submit(worker, seq, lands)` sends one, `wait_any(busy)` blocks
    until some of the busy workers' batches are done and returns their (seq, digest).
    `level` defaults to the game's lives.
    """
    if level is None:
        level = get_game().lives
    window = 2 * len(workers)
    idle = list(reversed(workers))
    busy: dict[int, Any] = {}  # seq -> worker
    lands_of: dict[int, list[str]] = {}  # sent and not yet done
    results: dict[int, BatchDigest] = {}
    next_seq = next_done = 0
    peeked: list[str] | None = None
    exhausted = False
    while True:
        while idle and not exhausted and next_seq - next_done < window:
            if peeked is None:
                peeked = next(work, None)
                if peeked is None:
                    exhausted = True
                    break
            if lands_of and level(lands_of[next_done][0]) < level(peeked[-1]):
                break  # its dependencies may be in batches not marked yet
            worker = idle.pop()
            submit(worker, next_seq, peeked)
            busy[next_seq] = worker
            lands_of[next_seq] = peeked
            peeked = None
            next_seq += 1
        if next_done in results:
            done(lands_of.pop(next_done), results.pop(next_done))
            next_done += 1
            continue
        if not busy:
            if exhausted:
                return
            continue
        for seq, digest in wait_any(list(busy.values())):
            idle.append(busy.pop(seq))
            results[seq] = digest


@dataclass
class _Worker:
    process: Any  # multiprocessing.context.SpawnProcess
    conn: Connection
    seq: int | None = None  # the batch it is checking


class CheckPool:
    """`jobs` worker processes checking batches of one store; a context manager that
    leaves no process behind, whether the run ends, fails or is interrupted."""

    def __init__(
        self,
        path: str,
        jobs: int,
        *,
        derive_lives: int = 0,
        run_marks: set[int] | None = None,
    ) -> None:
        """`run_marks` (a recheck): the provenance ids of the run's marks, kept up to date
        by the caller; each batch carries them, and workers trust no other mark."""
        context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._clean = False
        self._run_marks = run_marks
        # Children start with SIGINT blocked (the mask survives fork and exec): a Ctrl-C at
        # the terminal reaches the whole process group, and only this process handles it.
        block = hasattr(signal, "pthread_sigmask")
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if block else None
        try:
            for number in range(jobs):
                parent_end, child_end = context.Pipe()
                process = context.Process(
                    target=_worker_main,
                    args=(child_end, path, derive_lives, run_marks is not None),
                    name=f"sproutsdb-check-{number}",
                    daemon=True,
                )
                self._workers.append(_Worker(process, parent_end))
                process.start()
                child_end.close()
        except BaseException:
            self.close()
            raise
        finally:
            if old is not None:  # blocked above
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
                with suppress(OSError):
                    worker.conn.send(None)
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

    def run(
        self,
        work: Iterator[list[str]],
        done: Callable[[list[str], BatchDigest], None],
        *,
        level: Callable[[str], int] | None = None,
    ) -> None:
        """Check every batch of `work`; call `done(lands, digest)` in the order of `work`
        (`dispatch_in_order`, batches through the workers' pipes)."""
        dispatch_in_order(work, done, self._workers, self._submit, self._wait_any, level=level)

    def _submit(self, worker: _Worker, seq: int, lands: list[str]) -> None:
        worker.seq = seq
        marks = () if self._run_marks is None else tuple(sorted(self._run_marks))
        self._send(worker, (seq, lands, marks))

    def _wait_any(self, busy: list[_Worker]) -> list[tuple[int, BatchDigest]]:
        """The batches done among the busy workers' (a dead worker raises)."""
        waiting: dict[Any, _Worker] = {}
        for worker in busy:
            waiting[worker.conn] = worker
            waiting[worker.process.sentinel] = worker
        ready = {id(waiting[obj]): waiting[obj] for obj in wait(list(waiting))}
        finished = []
        for worker in ready.values():
            finished.append(self._receive(worker))
            worker.seq = None
        return finished

    def _send(self, worker: _Worker, task: tuple[int, list[str], tuple[int, ...]]) -> None:
        try:
            worker.conn.send(task)
        except OSError:  # it died between two batches
            raise self._stopped(worker) from None

    def _receive(self, worker: _Worker) -> tuple[int, BatchDigest]:
        try:
            seq, good, payload = worker.conn.recv()
        except (EOFError, OSError):
            raise self._stopped(worker) from None
        if not good:
            raise CheckWorkerError(f"check worker {worker.process.pid} failed: {payload}")
        return seq, payload

    @staticmethod
    def _stopped(worker: _Worker) -> CheckWorkerError:
        worker.process.join(timeout=2)
        return CheckWorkerError(
            f"check worker {worker.process.pid} stopped (exit code "
            f"{worker.process.exitcode}); facts marked so far stay marked"
        )
