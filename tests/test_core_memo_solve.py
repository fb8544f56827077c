"""A solve under any memo limit, and with fewer garbage collections, visits the same nodes
and stores the same facts: the memo and the collector steer nothing."""

from __future__ import annotations

import gc

import pytest

from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.game import SproutsGame


@pytest.mark.parametrize("kept", [2, 64, 1 << 17])
def test_published_visits_and_facts_under_any_memo_limit(
    monkeypatch: pytest.MonkeyPatch, kept: int
) -> None:
    """bench/solve.py's 0*8 (5 291 visits, 255 facts), the memo turning every few lands or
    never; the facts are those of the default limit."""
    core = sprouts_game.compiled_core()
    if core is not None:
        core.clear_memo()
    monkeypatch.setattr(sprouts_game, "CORE_MEMO_KEPT", kept)
    store = MemoryProofStore()
    solver = NormalSolver(SproutsGame(), store)
    try:
        assert solver.outcome("0*8") == "L"
    finally:
        if core is not None:
            core.set_memo_limit(1 << 17)
    assert (solver.stats.nodes, solver.stats.facts_stored) == (5291, 255)
    if core is not None:
        assert core.memo_size() <= max(kept, 1 << 17)
    assert store.get(FactKind.NIMBER, ["0*8"]) == {"0*8": 0}


def test_a_solve_gives_back_the_collector_s_thresholds() -> None:
    before = gc.get_threshold()
    gc.set_threshold(123, 7, 9)
    try:
        NormalSolver(SproutsGame(), MemoryProofStore()).outcome("0*5")
        assert gc.get_threshold() == (123, 7, 9)
    finally:
        gc.set_threshold(*before)
