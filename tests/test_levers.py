"""The df-pn refinements of normal play (`Levers`) switch on and off without changing an
answer: each lever off still finds the published nimbers, and does change the search."""

from __future__ import annotations

from functools import cache

import pytest

from sproutsdb.solver.normal.dfpn import Levers
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame

OFF = {
    "no 1+eps": Levers(epsilon=0.0),
    "flat delta": Levers(sized_delta=False),
    "move order": Levers(tie_order=False),
}


@cache
def visits_and_nimbers(levers: Levers) -> tuple[int, list[int]]:
    """Nimbers of 0*1..0*7 (published: 0 0 1 1 1 0 0) and the visits they took."""
    solver = NormalSolver(SproutsGame(), MemoryProofStore(), levers=levers)
    nimbers = [solver.nimber(f"0*{n}") for n in range(1, 8)]
    return solver.stats.nodes, nimbers


@pytest.mark.parametrize("name", sorted(OFF))
def test_a_lever_off_keeps_the_nimbers_and_changes_the_search(name: str) -> None:
    built_visits, built = visits_and_nimbers(Levers())
    visits, nimbers = visits_and_nimbers(OFF[name])
    assert built == nimbers == [0, 0, 1, 1, 1, 0, 0]
    assert visits != built_visits


def test_a_negative_epsilon_is_refused() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        NormalSolver(SproutsGame(), MemoryProofStore(), levers=Levers(epsilon=-1.0))
