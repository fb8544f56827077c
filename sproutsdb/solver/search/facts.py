"""Batched access to facts through the ProofStore port.

Writes (`FactBuffer`, both plays): proven facts are buffered and put in batches, every
`batch_size` facts or `flush_seconds`, each batch made durable, so a killed run loses at
most the last batch; a put that meets a different stored value raises at once
(`NimberConflictError` for nimbers). Reads of nimbers (`NimberFacts`): one `get` per
expanded node for all the components it has not seen yet.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import cast

from sproutsdb.solver.ports.proofstore import (
    Conflict,
    ConflictError,
    FactKind,
    FactValue,
    ListedProofStore,
    ProofStore,
)


class NimberConflictError(ConflictError):
    """The store holds a nimber for a land that differs from the one just proven."""

    def __init__(self, key: str, stored: object, proven: int, others: int = 0) -> None:
        more = f" (and {others} more conflicts in the same batch)" if others else ""
        super().__init__(
            f"conflict on nimber of {key!r}: the store says {stored!r}, "
            f"this search proved {proven}{more}"
        )
        self.key = key
        self.stored = stored
        self.proven = proven


class StoreFormatError(ConflictError):
    """The store returned something that is not a nimber (a non-negative int)."""


class FactBuffer:
    """Write-behind buffer of one kind of proven fact in one store: `add` buffers a fact
    and says when the batch is due (full, or older than `flush_seconds`), `flush` puts it
    and makes it durable. Both solvers write through one (normal play: `NimberFacts`)."""

    def __init__(
        self,
        store: ProofStore,
        kind: FactKind,
        *,
        batch_size: int = 1000,
        flush_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        on_put: Callable[[Sequence[str]], None] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self._store = store
        self._kind = kind
        self._batch_size = batch_size
        self._flush_seconds = flush_seconds
        self._clock = clock
        self._pending: dict[str, FactValue] = {}
        self._on_put = on_put  # told the keys of each batch once it is durable
        self._last_flush = clock()
        self.writes = 0  # put batches sent
        self.inserted = 0  # facts the store did not have
        self.unchanged = 0  # facts the store already had, with the same value

    def add(self, key: str, value: FactValue) -> bool:
        """Buffer a proven fact; True when the batch is due (full or old enough)."""
        self._pending[key] = value
        return (
            len(self._pending) >= self._batch_size
            or self._clock() - self._last_flush >= self._flush_seconds
        )

    @property
    def pending(self) -> int:
        """Facts proven but not yet put."""
        return len(self._pending)

    def flush(self) -> None:
        """Put the buffered facts, make them durable, and raise on any conflict."""
        self._last_flush = self._clock()
        if not self._pending:
            return
        batch, self._pending = self._pending, {}
        self.writes += 1
        try:
            result = self._store.put(self._kind, batch)
        except BaseException:
            # a put that did not return (Ctrl-C inside it, a store error) wrote nothing
            # or the whole batch: keep it pending, so the flush after Ctrl-C stores it
            # (putting stored facts again is harmless) instead of losing proven work
            self._pending = {**batch, **self._pending}
            raise
        self.inserted += result.inserted
        self.unchanged += result.unchanged
        self._store.flush()
        if self._on_put is not None:
            self._on_put(list(batch))
        if result.conflicts:
            raise self._conflict(result.conflicts, batch)

    def _conflict(self, conflicts: list[Conflict], batch: Mapping[str, FactValue]) -> ConflictError:
        """The error a batch that met different stored values raises (its first conflict)."""
        first = conflicts[0]
        return ConflictError(
            f"conflict on {self._kind.value} fact {first.key!r}: the store says "
            f"{first.stored!r}, this search proved {first.offered!r}"
        )


class NimberFacts(FactBuffer):
    """Read-through, write-behind access to `FactKind.NIMBER` facts of one store."""

    def __init__(
        self,
        store: ProofStore,
        *,
        batch_size: int = 1000,
        flush_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        absent_capacity: int = 1 << 16,  # ~3 MB of keys; 2¹⁸ held ~10 MB
        on_put: Callable[[Sequence[str]], None] | None = None,
    ) -> None:
        super().__init__(
            store,
            FactKind.NIMBER,
            batch_size=batch_size,
            flush_seconds=flush_seconds,
            clock=clock,
            on_put=on_put,
        )
        self._absent: set[str] = set()  # asked and not stored: not asked again (bounded)
        self._absent_capacity = absent_capacity
        self.reads = 0  # get batches sent
        self.hits = 0  # nimbers found in the store
        # Set by `Couples.read_all` while its table holds every fact of the store: its
        # `fetch` then asks nothing.
        self.complete = False

    def read_all(self, limit: int) -> dict[str, int] | None:
        """Every nimber of the store, if it can list them and holds at most `limit`; None
        otherwise. Read as `fetch` reads: each one is checked to be an int ≥ 0."""
        store = self._store
        if not isinstance(store, ListedProofStore) or store.count(FactKind.NIMBER) > limit:
            return None
        self.reads += 1
        result: dict[str, int] = {}
        for key, value in store.iter_facts(FactKind.NIMBER):
            if type(value) is not int or value < 0:
                raise StoreFormatError(f"store nimber of {key!r} is {value!r}, not an int ≥ 0")
            result[key] = value
        self.hits += len(result)
        return result

    def fetch(self, keys: Iterable[str]) -> dict[str, int]:
        """Stored nimbers of those keys not asked before; one `get` for all of them."""
        wanted = sorted({k for k in keys if k not in self._absent and k not in self._pending})
        if not wanted:
            return {}
        self.reads += 1
        found = self._store.get(FactKind.NIMBER, wanted)
        result: dict[str, int] = {}
        if len(self._absent) + len(wanted) > self._absent_capacity:
            self._absent.clear()
        for key in wanted:
            if key not in found:
                self._absent.add(key)
                continue
            value = found[key]
            if type(value) is not int or value < 0:
                raise StoreFormatError(f"store nimber of {key!r} is {value!r}, not an int ≥ 0")
            result[key] = value
        self.hits += len(result)
        return result

    def record(self, key: str, nimber: int) -> None:
        """Buffer a proven nimber; flush when the batch is full or old enough."""
        self._absent.discard(key)  # stored from now on: a later fetch must find it
        if self.add(key, nimber):
            self.flush()

    def forget(self, keys: Iterable[str]) -> None:
        """Ask the store again for these keys (another process has just put them)."""
        self._absent.difference_update(keys)

    def _conflict(self, conflicts: list[Conflict], batch: Mapping[str, FactValue]) -> ConflictError:
        first = conflicts[0]
        return NimberConflictError(
            first.key, first.stored, cast(int, batch[first.key]), len(conflicts) - 1
        )
