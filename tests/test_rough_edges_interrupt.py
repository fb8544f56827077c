"""Ctrl-C keeps what was proven (issue 31): an interrupt that lands inside a store write
leaves the batch pending, so the flush that follows it stores the batch, not loses it."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from sproutsdb.solver.ports.proofstore import FactKind, FactValue, MemoryProofStore, PutResult
from sproutsdb.solver.search.facts import NimberFacts


class InterruptedOnce(MemoryProofStore):
    """A store whose first put is interrupted (Ctrl-C in the middle of the write)."""

    def __init__(self) -> None:
        super().__init__()
        self.interrupted = False

    def put(self, kind: FactKind, facts: Mapping[str, FactValue], **extra: object) -> PutResult:
        if not self.interrupted:
            self.interrupted = True
            raise KeyboardInterrupt
        return super().put(kind, facts)


def test_a_batch_whose_write_was_interrupted_is_stored_by_the_next_flush() -> None:
    store = InterruptedOnce()
    facts = NimberFacts(store, batch_size=100)
    for n, land in enumerate(["0*2", "0*3", "0*4"]):
        facts.record(land, n)
    with pytest.raises(KeyboardInterrupt):
        facts.flush()
    assert facts.pending == 3  # nothing lost
    facts.record("0*5", 1)
    facts.flush()  # what `solve` does on its way out after Ctrl-C
    assert store.get(FactKind.NIMBER, ["0*2", "0*3", "0*4", "0*5"]) == {
        "0*2": 0,
        "0*3": 1,
        "0*4": 2,
        "0*5": 1,
    }
    assert facts.pending == 0 and facts.inserted == 4
