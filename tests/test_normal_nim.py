"""Normal-play solver on Nim: every answer must agree with Bouton's xor."""

from __future__ import annotations

from functools import reduce
from operator import xor

from hypothesis import given, settings
from hypothesis import strategies as st

from sproutsdb.solver.extras.nim import NimGame
from sproutsdb.solver.normal.solver import NormalSolver, engine_order
from sproutsdb.solver.ports.proofstore import MemoryProofStore

GAME = NimGame()


def key(heaps: list[int]) -> str:
    return GAME.canonical("+".join(f"*{h}" for h in heaps) or "!")


def test_nimber_of_a_heap_is_its_size() -> None:
    solver = NormalSolver(GAME, MemoryProofStore())
    assert [solver.nimber(f"*{n}") for n in range(25)] == list(range(25))


def test_terminal_is_lost_and_has_nimber_zero() -> None:
    solver = NormalSolver(GAME, MemoryProofStore())
    assert solver.outcome("!") == "L"
    assert solver.nimber("!") == 0
    assert solver.couple_outcome("!", 3) == "W"


heap_sums = st.lists(st.integers(min_value=0, max_value=12), max_size=6)


@settings(max_examples=60, deadline=None)
@given(heaps=heap_sums, n=st.integers(min_value=0, max_value=15))
def test_sums_agree_with_bouton(heaps: list[int], n: int) -> None:
    total = reduce(xor, heaps, 0)
    solver = NormalSolver(GAME, MemoryProofStore())
    assert solver.outcome(key(heaps)) == ("L" if total == 0 else "W")
    assert solver.couple_outcome(key(heaps), n) == ("L" if total == n else "W")
    assert solver.position_nimber(key(heaps)) == total


@settings(max_examples=30, deadline=None)
@given(heaps=heap_sums)
def test_engine_order_gives_the_same_answers(heaps: list[int]) -> None:
    total = reduce(xor, heaps, 0)
    solver = NormalSolver(GAME, MemoryProofStore(), order=engine_order)
    assert solver.outcome(key(heaps)) == ("L" if total == 0 else "W")


def test_one_solver_answers_many_questions_consistently() -> None:
    store = MemoryProofStore()
    solver = NormalSolver(GAME, store)
    for a in range(9):
        for b in range(9):
            assert solver.outcome(key([a, b, 5])) == ("L" if a ^ b ^ 5 == 0 else "W")
