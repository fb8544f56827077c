"""Circular sprouts against the Brussels-sprout theory paper (§5–6): Lemmas 5.2 and 5.3,
Theorem 5.1 on a small square, BS2(P4: p,q) = 0 through §6's reduction, and the same values
kept in a real LMDB store of game "circular" whose certificates check."""

from __future__ import annotations

from pathlib import Path

import pytest

from sproutsdb.games import game_names, get_game
from sproutsdb.solver.circular.game import CircularGame
from sproutsdb.solver.circular.paper import bs2_nimber, cs4_text, theorem_5_1
from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.store import LmdbProofStore

GAME = CircularGame()


@pytest.fixture(scope="module")
def solver() -> NormalSolver:
    return NormalSolver(GAME, MemoryProofStore())


def eta(solver: NormalSolver, text: str) -> int:
    return solver.position_nimber(GAME.canonical(text))


def test_lemma_5_2(solver: NormalSolver) -> None:
    assert [eta(solver, f"CS(0,0,{q},0)") for q in range(12)] == [0] * 12  # (i)
    assert eta(solver, "CS(0,1,0,1)") == 1  # (ii)
    assert [eta(solver, f"CS(1,0,{q},0)") for q in range(1, 12)] == [1] * 11  # (iii)
    assert [eta(solver, f"CS(0,1,{q},1)") for q in range(1, 12)] == [0] * 11  # (iv)


def test_lemma_5_3(solver: NormalSolver) -> None:
    assert [eta(solver, f"CS(1,1,{q},1)") for q in range(1, 16)] == [1] + [2] * 14


def test_formula_matches_the_lemmas() -> None:
    assert [theorem_5_1(0, q) for q in range(6)] == [1, 0, 0, 0, 0, 0]
    assert [theorem_5_1(1, q) for q in range(1, 6)] == [1, 2, 2, 2, 2]
    with pytest.raises(ValueError, match="0 ≤ p ≤ q"):
        theorem_5_1(3, 2)


def test_theorem_5_1_on_a_small_square(solver: NormalSolver) -> None:
    wrong = [
        (p, q, eta(solver, cs4_text(p, q)), theorem_5_1(p, q))
        for q in range(15)
        for p in range(q + 1)
        if eta(solver, cs4_text(p, q)) != theorem_5_1(p, q)
    ]
    assert wrong == []


def test_bs2_is_zero_through_the_reduction(solver: NormalSolver) -> None:
    def cs4(a: int, c: int) -> int:
        return eta(solver, cs4_text(a, c))

    assert {bs2_nimber(p, q, cs4) for p in range(3, 9) for q in range(p, 9)} == {0}
    assert bs2_nimber(1, 4, cs4) == 1  # one first move, then nothing: the first player wins
    assert bs2_nimber(0, 4, cs4) == 0


def test_the_registry_serves_circular() -> None:
    assert "circular" in game_names()
    entry = get_game("circular")
    engine = entry.engine(cache_size=10)
    assert entry.canon_version == 1 and entry.terminal == engine.terminal == "!"
    assert entry.fast_canonical_lands("CS(1,1,1,1)") is None and entry.compiled_core() is None
    k = engine.canonical("CS(3,1,5,1)+CS(2,2,2,2)")
    assert entry.lives(k) == engine.size(k) == 2 * (10 + 8) - 2


def test_values_in_a_real_store_have_certificates(tmp_path: Path) -> None:
    roots = [GAME.canonical(cs4_text(p, q)) for q in range(9) for p in range(q + 1)]
    with LmdbProofStore.open(tmp_path / "circular", game="circular", canon_version=1) as store:
        solver = NormalSolver(GAME, store)
        values = {root: solver.nimber(root) for root in roots}
        store.flush()
    with LmdbProofStore.open(
        tmp_path / "circular", game="circular", canon_version=1, readonly=True
    ) as store:
        checker = Checker(GAME, store)
        for root in roots:
            report = checker.check(root)
            assert report.ok and report.proved == "nimber", (root, report.missing)
            assert report.nimber == values[root]
