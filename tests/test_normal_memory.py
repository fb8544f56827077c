"""The compact forms that keep a normal-play solve's memory small (issue 32) say the same.

Exclusions are bit masks read back as sets; a resume record is compressed a batch of lines
at a time and decodes to the same state; the core's memo is cleared past CORE_MEMO_KEPT
and its children stay those of the Python reference; a solve's visits and facts are the
same as the figures published before the change.
"""

from __future__ import annotations

import zlib

import pytest

from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.search import resume
from sproutsdb.solver.search.resume import decode_state, encode_state
from sproutsdb.solver.search.table import InconsistentFactError, TranspositionTable
from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.game import SproutsGame


def test_exclusions_as_masks_read_back_as_sets() -> None:
    table = TranspositionTable()
    for n in (0, 3, 70):  # a value past 63 is just a longer int
        table.exclude("A", n)
    table.exclude("B", 1)
    assert table.is_excluded("A", 70) and table.is_excluded("A", 3)
    assert not table.is_excluded("A", 1) and not table.is_excluded("C", 0)
    assert table.couple_value("A", 0) is False and table.couple_value("A", 2) is None
    assert dict(table.exclusions) == {"A": {0, 3, 70}, "B": {1}}
    with pytest.raises(InconsistentFactError):
        table.prove("A", 3)
    assert table.exclusions["A"] == {0, 3, 70}  # the refused proof left the mask as it was
    table.prove("A", 2)
    assert "A" not in table.exclusions and table.couple_value("A", 2) is True
    assert len(table) == 2


def test_a_record_compressed_in_batches_decodes_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = {f"L{i} *{i % 3}": (i + 1, 2 * i + 1) for i in range(50)}
    exclusions = {f"L{i}": {i % 5, 7} for i in range(30)}
    lists = {"L1 *0": [("L2 *0", 3), ("L3 *1", 1)]}
    one_batch = encode_state("0*9", numbers, exclusions, lists, 9)
    monkeypatch.setattr(resume._deflate, "__defaults__", (7,))  # many small batches
    batched = encode_state("0*9", numbers, exclusions, lists, 9)
    assert zlib.decompress(batched) == zlib.decompress(one_batch)
    state = decode_state("0*9", batched)
    assert state is not None
    assert state.numbers == numbers and state.lists_size == 9
    assert {land: set(ns) for land, ns in state.exclusions.items()} == exclusions
    assert state.lists == lists


def test_the_core_memo_is_bounded_and_changes_no_children(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    core = sprouts_game.compiled_core()
    if core is None:
        pytest.skip("the compiled core is not built")
    monkeypatch.setattr(sprouts_game, "CORE_MEMO_KEPT", 16)
    monkeypatch.setattr(sprouts_game, "_memo_kept_at_least", 0)  # no large land before
    core.clear_memo()
    lands = ["0*7", "0*5", "0*6", "0*7"]
    lands += sorted({land for child in core.land_children("0*6") for land in child})[:6]
    for land in lands:
        assert sprouts_game.land_children(land) == sprouts_game.python_land_children(land)
        assert core.memo_size() < 16 + 400  # cleared before each call past the bound


@pytest.mark.parametrize(("n", "nodes", "stored"), [(8, 5291, 255), (11, 3246, 197)])
def test_visits_and_facts_are_the_published_ones(n: int, nodes: int, stored: int) -> None:
    """bench/solve.py's figures of 0*8 and 0*11 (the same before the compact forms)."""
    store = MemoryProofStore()
    solver = NormalSolver(SproutsGame(), store)
    assert solver.outcome(f"0*{n}") == ("L" if n == 8 else "W")
    stats = solver.stats
    assert (stats.nodes, stats.facts_stored) == (nodes, stored)
    assert len(store.get(FactKind.NIMBER, ["0*3"])) == 1
