"""A solve under any memo limit, and with fewer garbage collections, visits the same nodes
and stores the same facts: the memo and the collector steer nothing. Large solves raise
the memo for the rest of the process."""

from __future__ import annotations

import gc

import pytest

from sproutsdb.solver.misere import solver as misere_solver
from sproutsdb.solver.misere.solver import MisereSolver
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.search.options import SolveOptions
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
    monkeypatch.setattr(sprouts_game, "_memo_kept_at_least", 0)  # no large land before
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


def test_a_land_of_a_large_solve_raises_the_memo_for_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """0*20 (60 lives) keeps the small memo, 0*21 (63) raises it, and it stays raised for
    every engine of the process, so that two engines never clear it at every turn."""
    monkeypatch.setattr(sprouts_game, "_memo_kept_at_least", 0)
    SproutsGame().component_children("0*20")
    assert sprouts_game.core_memo_kept() == sprouts_game.CORE_MEMO_KEPT
    SproutsGame().component_children("0*21")
    assert sprouts_game.core_memo_kept() == sprouts_game.CORE_MEMO_KEPT_LARGE
    assert SproutsGame().component_children("0*3") == sprouts_game.python_land_children("0*3")
    assert sprouts_game.core_memo_kept() == sprouts_game.CORE_MEMO_KEPT_LARGE


def test_a_solve_gives_back_the_collector_s_thresholds() -> None:
    before = gc.get_threshold()
    gc.set_threshold(123, 7, 9)
    try:
        NormalSolver(SproutsGame(), MemoryProofStore()).outcome("0*5")
        assert gc.get_threshold() == (123, 7, 9)
    finally:
        gc.set_threshold(*before)


def test_a_large_misere_root_reserves_a_larger_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """A misère root of 53 lives or more (0*18's options, as a --jobs helper's root) makes
    the game keep MISERE_LARGE_MEMO forms and the search memoise the moves of
    MISERE_LARGE_CHILDREN_CACHE lands, before its search starts (here the store answers
    it); 0*17 (51 lives) does neither."""
    monkeypatch.setattr(sprouts_game, "_memo_kept_at_least", 0)
    store = MemoryProofStore()
    store.put(FactKind.MISERE, {"0*17": "W", "0*15.AB|0*2.AB": "L"})
    solver = MisereSolver(SproutsGame(), store, options=SolveOptions(reprove_roots=False))
    assert solver.outcome("0*17") == "W"
    assert sprouts_game.core_memo_kept() == sprouts_game.CORE_MEMO_KEPT
    assert solver._moves_capacity == misere_solver.DEFAULT_CHILDREN_CACHE
    assert solver.outcome("0*15.AB|0*2.AB") == "L"
    assert sprouts_game.core_memo_kept() == misere_solver.MISERE_LARGE_MEMO
    assert solver._moves_capacity == misere_solver.MISERE_LARGE_CHILDREN_CACHE


def test_an_asked_land_moves_size_is_kept_for_a_large_misere_root(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A size of the land-moves memo the caller asked for stays, whatever the root."""
    monkeypatch.setattr(sprouts_game, "_memo_kept_at_least", 0)  # the large root raises it
    store = MemoryProofStore()
    store.put(FactKind.MISERE, {"0*18": "W"})
    options = SolveOptions(reprove_roots=False, children_cache=64)
    solver = MisereSolver(SproutsGame(), store, options=options)
    assert solver.outcome("0*18") == "W"
    assert solver._moves_capacity == 64
