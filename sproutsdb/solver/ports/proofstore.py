"""The storage port of the solver: batch get / batch put of proven facts.

`solver/` reaches storage only through `ProofStore`; the LMDB store (server/), the gRPC
client adapter (client/) and the in-memory store below implement it. Facts are
write-once: offering a different value for a stored key is a conflict, reported to the
writer and never an overwrite.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


class FactKind(str, enum.Enum):
    """The kinds of fact a proof store keeps (one LMDB sub-database each)."""

    NIMBER = "nimber"  # canonical land -> nimber (int); a losing couple (land, n)
    MISERE = "misere"  # canonical misère node -> outcome "L" or "W"
    RCT = "rct"  # RCT content id -> RctRecord
    POS_RCT = "pos_rct"  # canonical position -> RCT content id (str)


@dataclass(frozen=True)
class RctRecord:
    """What a store keeps about one reduced canonical tree (docs/architecture.md §5)."""

    height: int
    outcome: str  # misère outcome of the tree: "W" or "L"
    children: tuple[str, ...]  # content ids of its children, sorted
    nim: int | None = None  # n when the tree is the nim-heap *n
    plus1_of: str | None = None  # content id of H when this tree is H + *1 (factored)


FactValue = int | str | RctRecord


@dataclass(frozen=True)
class Conflict:
    """A put that offered a value different from the committed one."""

    kind: FactKind
    key: str
    stored: FactValue
    offered: FactValue


@dataclass
class PutResult:
    """Per-batch outcome of a put: new facts, identical re-puts, conflicts."""

    inserted: int = 0
    unchanged: int = 0
    conflicts: list[Conflict] = field(default_factory=list)


class ConflictError(RuntimeError):
    """Raised by a searcher when the store contradicts what it just proved."""


@runtime_checkable
class ProofStore(Protocol):
    """Batch access to proven facts. Implementations must be write-once."""

    def get(self, kind: FactKind, keys: Sequence[str]) -> dict[str, FactValue]:
        """The stored values of those keys that are known (missing keys are absent)."""
        ...

    def put(self, kind: FactKind, items: Mapping[str, FactValue]) -> PutResult:
        """Store facts; identical re-puts are no-ops, differing ones are conflicts."""
        ...

    def flush(self) -> None:
        """Make every accepted put durable before returning."""
        ...

    def close(self) -> None:
        """Flush and release resources."""
        ...


@runtime_checkable
class ListedProofStore(ProofStore, Protocol):
    """A ProofStore that also counts and lists its facts (a local one; a server's does not):
    a search that is its only writer may read them all once instead of key by key."""

    def count(self, kind: FactKind) -> int:
        """Number of facts of a kind."""
        ...

    def iter_facts(self, kind: FactKind) -> Iterator[tuple[str, FactValue]]:
        """Every (key, value) of a kind."""
        ...


class MemoryProofStore:
    """A ProofStore in a dict: for unit tests of searches and for throw-away runs."""

    def __init__(self) -> None:
        self._facts: dict[FactKind, dict[str, FactValue]] = {k: {} for k in FactKind}

    def get(self, kind: FactKind, keys: Sequence[str]) -> dict[str, FactValue]:
        table = self._facts[kind]
        return {k: table[k] for k in keys if k in table}

    def put(self, kind: FactKind, items: Mapping[str, FactValue]) -> PutResult:
        table = self._facts[kind]
        result = PutResult()
        for key, value in items.items():
            stored = table.get(key)
            if stored is None:
                table[key] = value
                result.inserted += 1
            elif stored == value:
                result.unchanged += 1
            else:
                result.conflicts.append(Conflict(kind, key, stored, value))
        return result

    def count(self, kind: FactKind) -> int:
        """Number of facts of a kind (for tests and reports)."""
        return len(self._facts[kind])

    def iter_facts(self, kind: FactKind) -> Iterator[tuple[str, FactValue]]:
        """Every (key, value) of a kind, in the order they were put."""
        return iter(list(self._facts[kind].items()))

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass
