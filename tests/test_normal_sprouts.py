"""Normal-play solver on Sprouts: the published values (Lemoine & Viennot, GLOP databases)."""

from __future__ import annotations

import pytest

from sproutsdb.solver.normal import NormalSolver
from sproutsdb.solver.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame

GAME = SproutsGame()

# nimber of 0*k for k = 0..9, and outcome of 0*k for k = 1..11
SPOT_NIMBERS = [0, 0, 0, 1, 1, 1, 0, 0, 0, 1]
SPOT_OUTCOMES = dict(enumerate("LLWWWLLLWWW", start=1))

NAMED_NIMBERS = {
    "0.AB|AB": 2,
    "1a1a": 2,
    "2ab2ba": 3,
    "1ABC|BCDE|ADE": 1,
    "22": 1,
    "222": 0,
    "0.A|0.A": 1,
    "0.1a2a": 1,
    "ABCD.}AB.}CD.}]!": 3,  # GLOP 1.x syntax
}


def spots(k: int) -> str:
    """Canonical key of k isolated spots; the engine spells zero spots `!`, not `0*0`."""
    return GAME.canonical(f"0*{k}" if k else "!")


@pytest.fixture(scope="module")
def shared() -> tuple[NormalSolver, MemoryProofStore]:
    """One solver and store for the spot positions: later ones reuse earlier facts."""
    store = MemoryProofStore()
    return NormalSolver(GAME, store), store


@pytest.mark.parametrize("k", range(len(SPOT_NIMBERS)))
def test_nimbers_of_spots(shared: tuple[NormalSolver, MemoryProofStore], k: int) -> None:
    solver, _ = shared
    assert solver.nimber(spots(k)) == SPOT_NIMBERS[k]


@pytest.mark.parametrize("k", [k for k in SPOT_OUTCOMES if k != 10])
def test_outcomes_of_spots(shared: tuple[NormalSolver, MemoryProofStore], k: int) -> None:
    solver, _ = shared
    assert solver.outcome(spots(k)) == SPOT_OUTCOMES[k]


@pytest.mark.slow
def test_outcome_of_ten_spots_from_scratch() -> None:
    """About 60 000 nodes and 15 s on one core with the C move generator."""
    solver = NormalSolver(GAME, MemoryProofStore())
    assert solver.outcome(spots(10)) == SPOT_OUTCOMES[10]


def test_spot_facts_are_canonical_single_lands(
    shared: tuple[NormalSolver, MemoryProofStore],
) -> None:
    solver, store = shared
    solver.nimber(spots(7))
    assert store.count(FactKind.NIMBER) == solver.stats.facts_stored > 0
    key = spots(7)
    assert store.get(FactKind.NIMBER, [key]) == {key: SPOT_NIMBERS[7]}
    again = NormalSolver(GAME, store)
    assert again.nimber(key) == SPOT_NIMBERS[7]
    assert again.stats.nodes <= 10 and again.stats.facts_stored == 0


@pytest.mark.parametrize("text", sorted(NAMED_NIMBERS))
def test_named_positions(text: str) -> None:
    store = MemoryProofStore()
    solver = NormalSolver(GAME, store)
    key = GAME.canonical(text)
    assert solver.nimber(key) == NAMED_NIMBERS[text]
    assert solver.outcome(key) == ("L" if NAMED_NIMBERS[text] == 0 else "W")
    stored = store.get(FactKind.NIMBER, [key])
    assert stored == {key: NAMED_NIMBERS[text]}


@pytest.mark.parametrize("text", ["0*3+0.A|0.A", "0*4+0.A|0.A"])
def test_sums_with_equal_nimbers_are_lost(text: str) -> None:
    solver = NormalSolver(GAME, MemoryProofStore())
    key = GAME.canonical(text)
    assert len(GAME.components(key)) == 2
    assert solver.outcome(key) == "L"
    assert solver.position_nimber(key) == 0
