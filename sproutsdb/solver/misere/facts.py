"""The misère facts of a store: losing nodes, written behind the search, read as outcomes.

Only losing nodes are stored (``"L"``, as in the paper's program); a store may also hold
``"W"`` (another writer's) and anything else is refused as a conflict, however it is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from sproutsdb.solver.ports.proofstore import (
    Conflict,
    ConflictError,
    FactKind,
    FactValue,
    ProofStore,
)
from sproutsdb.solver.search.facts import FactBuffer

__all__ = ["LosingNodes", "MisereConflictError", "losing_value"]


class MisereConflictError(ConflictError):
    """The store's outcome of a node differs from the one just proven."""


def losing_value(key: str, value: FactValue) -> bool:
    """Whether the stored misère outcome ``value`` of ``key`` says losing; a value that is
    no outcome raises MisereConflictError."""
    if value not in ("L", "W"):
        raise MisereConflictError(f"store misère outcome of {key!r} is {value!r}")
    return value == "L"


class LosingNodes(FactBuffer):
    """The write-behind buffer of the losing nodes a misère search proves."""

    def __init__(
        self,
        store: ProofStore,
        *,
        batch_size: int,
        flush_seconds: float,
        on_put: Callable[[Sequence[str]], None] | None = None,
    ) -> None:
        super().__init__(
            store,
            FactKind.MISERE,
            batch_size=batch_size,
            flush_seconds=flush_seconds,
            on_put=on_put,
        )

    def _conflict(self, conflicts: list[Conflict], batch: Mapping[str, FactValue]) -> ConflictError:
        first = conflicts[0]
        return MisereConflictError(
            f"conflict on misère node {first.key!r}: the store says {first.stored!r}, "
            f"this search proved {first.offered!r}"
        )
