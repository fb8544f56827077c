"""The store's single writer thread: group commit of queued operations, ack after commit.

Callers validate and encode in their own thread and queue an operation; the writer drains
every pending operation into one write transaction (a WriteTxn) and resolves each caller's
future only once that transaction has committed. A group that fails is retried one
operation at a time, so one bad batch fails only its own caller.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import lmdb

from sproutsdb.store.errors import StoreClosedError, StoreFullError, disk_error
from sproutsdb.store.txn import MarkClock, MarkOp, PutOp, RefuteOp, UnmarkOp, WriteTxn

MAX_GROUP_FACTS = 100_000  # the writer stops draining once a transaction holds this many


@dataclass(frozen=True)
class Barrier:
    """An operation that writes nothing: its future resolves once everything before it has."""

    size: int = 0


Op = PutOp | MarkOp | RefuteOp | UnmarkOp | Barrier


class GroupCommitWriter:
    """The single writer thread: group commit of queued operations, ack after commit."""

    def __init__(self, env: lmdb.Environment, dbs: Mapping[str, Any], name: str):
        self._env = env
        self._dbs = dbs
        self._queue: queue.SimpleQueue[tuple[Op, Future[Any]] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._closed = False
        self._provenance_ids: dict[bytes, int] = {}
        self._mark_clock = MarkClock()
        self.commits = 0
        self.operations = 0
        self._thread = threading.Thread(
            target=self._run, name=f"sproutsdb-writer {name}", daemon=True
        )
        self._thread.start()

    @property
    def pending(self) -> int:
        """Operations queued and not yet taken by the writer."""
        return self._queue.qsize()

    def submit(self, op: Op) -> Future[Any]:
        """Queue an operation; its future holds the result once its transaction committed."""
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise StoreClosedError("the store is closed")
            self._queue.put((op, future))
        return future

    def stop(self) -> None:
        """Commit everything queued so far, then end the thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(None)
        if threading.current_thread() is not self._thread:
            self._thread.join()

    def _run(self) -> None:
        """Drain the queue in groups of up to MAX_GROUP_FACTS facts until stop()."""
        while True:
            item = self._queue.get()
            group: list[tuple[Op, Future[Any]]] = []
            size = 0
            while item is not None:
                group.append(item)
                size += item[0].size
                if size >= MAX_GROUP_FACTS:
                    break
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            if group:
                self._commit(group)
            if item is None:
                return

    def _commit(self, group: list[tuple[Op, Future[Any]]]) -> None:
        """Apply a group in one transaction; if it fails, retry each operation on its own."""
        try:
            results = self._transact([op for op, _ in group])
        except BaseException as error:  # noqa: BLE001 - handed to the waiting callers
            if len(group) > 1:
                for one in group:
                    self._commit([one])
                return
            if isinstance(error, lmdb.MapFullError):
                error = StoreFullError(
                    f"the store is full (map_size {self._env.info()['map_size']} bytes); "
                    "reopen it with a larger map_size"
                )
            elif isinstance(error, (lmdb.Error, OSError)):
                error = disk_error(error, self._env.path()) or error
            group[0][1].set_exception(error)
            return
        for (_, future), result in zip(group, results, strict=True):
            future.set_result(result)

    def _transact(self, ops: list[Op]) -> list[Any]:
        """Apply ops and the count deltas in one write transaction; their results in order."""
        txn = self._env.begin(write=True)
        try:
            work = WriteTxn(txn, self._dbs, self._provenance_ids, self._mark_clock)
            results: list[Any] = []
            for op in ops:
                if isinstance(op, PutOp):
                    results.append(work.apply_put(op))
                elif isinstance(op, MarkOp):
                    results.append(work.apply_mark(op))
                elif isinstance(op, RefuteOp):
                    results.append(work.apply_refute(op))
                elif isinstance(op, UnmarkOp):
                    results.append(work.apply_unmark(op))
                else:
                    results.append(None)
            work.write_counts()
        except BaseException:
            txn.abort()
            raise
        txn.commit()
        self._provenance_ids.update(work.new_provenance)
        self._mark_clock.recent.update(work.new_marks)
        self._mark_clock.whens.update(work.new_whens)
        self.commits += 1
        self.operations += len(ops)
        return results


def shutdown(writer: GroupCommitWriter | None, env: lmdb.Environment) -> None:
    """Commit queued writes, stop the writer, close LMDB (also run by the finaliser)."""
    if writer is not None:
        if threading.current_thread() is writer._thread:  # finaliser run by the writer's GC
            threading.Thread(target=shutdown, args=(writer, env)).start()
            return
        writer.stop()
    env.close()
