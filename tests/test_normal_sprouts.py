"""Normal-play solver on Sprouts: the published values (Lemoine & Viennot, GLOP databases)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.normal.solver import SEARCHES, NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, MemoryProofStore, PutResult
from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.game import SproutsGame

GAME = SproutsGame()

# With the compiled move generator the whole module takes seconds; the pure-Python engine
# is about 50 times slower, so there the big cases only run with `-m slow`.
PURE_PYTHON = getattr(sprouts_game, "IMPLEMENTATION", "python") == "python"


def heavy(value: int, *, from_k: int) -> object:
    """A parameter marked slow when the engine is pure Python and the case is big."""
    return pytest.param(value, marks=pytest.mark.slow) if PURE_PYTHON and value >= from_k else value


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


class KeepingStore(MemoryProofStore):
    """A MemoryProofStore that also lists every nimber fact put into it."""

    def __init__(self) -> None:
        super().__init__()
        self.nimbers: dict[str, FactValue] = {}

    def put(self, kind: FactKind, items: Mapping[str, FactValue]) -> PutResult:
        if kind is FactKind.NIMBER:
            self.nimbers.update(items)
        return super().put(kind, items)


def mex_nimber(land: str, memo: dict[str, int]) -> int:
    """Nimber of a land by the plain mex rule over its whole game tree (no search)."""
    todo = [land]
    while todo:
        top = todo[-1]
        if top in memo:
            todo.pop()
            continue
        children = GAME.component_children(top)
        missing = [part for child in children for part in child if part not in memo]
        if missing:
            todo.extend(missing)
            continue
        values = set()
        for child in children:
            value = 0
            for part in child:
                value ^= memo[part]
            values.add(value)
        nimber = 0
        while nimber in values:
            nimber += 1
        memo[top] = nimber
        todo.pop()
    return memo[land]


@pytest.fixture(scope="module")
def shared() -> tuple[NormalSolver, KeepingStore]:
    """One solver and store for the spot positions: later ones reuse earlier facts."""
    store = KeepingStore()
    return NormalSolver(GAME, store), store


@pytest.mark.parametrize("k", [heavy(k, from_k=8) for k in range(len(SPOT_NIMBERS))])
def test_nimbers_of_spots(shared: tuple[NormalSolver, KeepingStore], k: int) -> None:
    solver, _ = shared
    assert solver.nimber(spots(k)) == SPOT_NIMBERS[k]


@pytest.mark.parametrize("k", [heavy(k, from_k=8) for k in SPOT_OUTCOMES if k != 10])
def test_outcomes_of_spots(shared: tuple[NormalSolver, KeepingStore], k: int) -> None:
    solver, _ = shared
    assert solver.outcome(spots(k)) == SPOT_OUTCOMES[k]


@pytest.mark.slow
def test_outcome_of_ten_spots_from_scratch() -> None:
    """About 60 000 nodes and 10-15 s on one core with the compiled move generator."""
    solver = NormalSolver(GAME, MemoryProofStore())
    assert solver.outcome(spots(10)) == SPOT_OUTCOMES[10]


# Stored facts small enough (<= 8 lives) to be re-derived by brute force, after the nimber
# of 0*7: df-pn proves fewer small couples than depth-first search on the way.
CHECKED_SMALL_FACTS = {"dfs": 100, "dfpn": 80}


@pytest.mark.parametrize("search", SEARCHES)
def test_stored_facts_are_canonical_single_lands_with_true_nimbers(search: str) -> None:
    store = KeepingStore()
    solver = NormalSolver(GAME, store, search=search)
    key = spots(7)
    assert solver.nimber(key) == SPOT_NIMBERS[7]
    assert len(store.nimbers) == store.count(FactKind.NIMBER) == solver.stats.facts_stored > 0
    memo: dict[str, int] = {}
    checked = 0
    for land, value in store.nimbers.items():
        assert GAME.canonical(land) == land and GAME.components(land) == (land,)
        if GAME.size(land) <= 8:  # small enough for the whole tree
            assert mex_nimber(land, memo) == value, land
            checked += 1
    assert checked >= CHECKED_SMALL_FACTS[search], checked
    assert store.get(FactKind.NIMBER, [key]) == {key: SPOT_NIMBERS[7]}
    again = NormalSolver(GAME, store, search=search)
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


@pytest.mark.parametrize(("text", "nimber"), [("0*7", True), ("0*4+0.A|0.A", False)])
def test_the_independent_checker_accepts_every_stored_fact(text: str, nimber: bool) -> None:
    """The facts of one run form a complete certificate for solver/normal/check.py."""
    store = KeepingStore()
    solver = NormalSolver(GAME, store)
    key = GAME.canonical(text)
    answer = solver.nimber(key) if nimber else solver.outcome(key)
    report = Checker(GAME, store).check(key, outcome_only=not nimber)
    assert report.ok and not report.missing and not report.inconsistent
    assert (report.nimber if nimber else report.outcome) == answer
    every = Checker(GAME, store).check_facts(store.nimbers)
    assert every.verified == store.nimbers
