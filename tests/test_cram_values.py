"""Cram's published nimbers, proven by the couple solver into a real store of the game
`cram`, each certificate then re-derived by the checker from the stored facts alone.

The values: 1 x n is Dawson's Kayles (OEIS A002187); 2 x n has nimber n mod 2; 3 x n,
4 x 4 .. 5 x 5 are the values of the Cram tables that independent programs agree on
(Lemoine & Viennot; Uiterwijk). A failing value is a bug: never loosen one.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sproutsdb.solver.cram import CANON_VERSION, CramGame
from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore

GAME = CramGame()
DAWSON = [0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5]  # 1 x n, n = 1..16
THREE_ROWS = [0, 1, 1, 0, 1, 1, 4, 1, 3, 1]  # 3 x c, c = 0..9
BOARDS = {"4x4": 0, "4x5": 2, "4x6": 0, "5x5": 0}
SLOW_BOARDS = {"4x7": 3}  # 5 s of CPU here; bench/cram.py runs 5 x 6 and 5 x 7


@contextmanager
def cram_store(path: Path) -> Iterator[LmdbProofStore]:
    store = LmdbProofStore.open(path, game="cram", canon_version=CANON_VERSION, durable=False)
    try:
        yield store
    finally:
        store.close()


def solve_and_check(path: Path, boards: dict[str, int]) -> None:
    """Prove each board's nimber into the store, then check each certificate clean."""
    with cram_store(path) as store:
        solver = NormalSolver(GAME, store)
        got = {board: solver.nimber(GAME.canonical(board)) for board in boards}
        assert got == boards
        solver.flush()
        store.flush()
        assert store.count(FactKind.NIMBER) > 0
        for board, value in boards.items():
            key = GAME.canonical(board)
            report = Checker(GAME, store).check(key)
            assert report.ok, (board, report.missing, report.inconsistent)
            assert report.nimber == value and report.proved == "nimber"
            if key != "!":
                assert key in report.used


def test_one_row_is_dawsons_kayles(tmp_path: Path) -> None:
    solve_and_check(tmp_path / "s", {f"1x{n}": v for n, v in enumerate(DAWSON, 1)})


def test_two_rows_have_the_parity_of_their_length(tmp_path: Path) -> None:
    solve_and_check(tmp_path / "s", {f"2x{c}": c % 2 for c in range(13)})


def test_three_rows(tmp_path: Path) -> None:
    solve_and_check(tmp_path / "s", {f"3x{c}": v for c, v in enumerate(THREE_ROWS)})


def test_boards_of_four_and_five_rows(tmp_path: Path) -> None:
    solve_and_check(tmp_path / "s", BOARDS)


@pytest.mark.slow
def test_four_by_seven(tmp_path: Path) -> None:
    solve_and_check(tmp_path / "s", SLOW_BOARDS)


def test_a_second_solver_reads_the_store_and_agrees(tmp_path: Path) -> None:
    with cram_store(tmp_path / "s") as store:
        first = NormalSolver(GAME, store)
        assert first.nimber("4x5") == 2
        stored = first.stats.facts_stored
    with cram_store(tmp_path / "s") as store:
        second = NormalSolver(GAME, store)
        assert second.nimber("5x4") == 2  # the same board turned: the same key
        assert second.stats.facts_stored == 0 and second.stats.nodes < stored


def test_sums_are_nim_sums() -> None:
    from sproutsdb.solver.ports.proofstore import MemoryProofStore

    solver = NormalSolver(GAME, MemoryProofStore())
    assert solver.position_nimber(GAME.canonical("4x5+1x4")) == 2 ^ 2
    assert solver.outcome(GAME.canonical("4x5+1x4")) == "L"
    assert solver.outcome(GAME.canonical("3x6+1x4")) == "W"  # 4 xor 2
    assert solver.position_nimber("!") == 0
