"""The normal-play search is iterative: trees far deeper than Python's recursion limit solve."""

from __future__ import annotations

import sys

from normal_games import chain
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.search.options import SolveOptions

DEPTH = 6000


def test_a_chain_deeper_than_the_recursion_limit_solves() -> None:
    assert DEPTH > 5 * sys.getrecursionlimit()
    game = chain()
    store = MemoryProofStore()
    solver = NormalSolver(game, store, options=SolveOptions(batch_size=500))
    assert solver.nimber(f"C{DEPTH}") == DEPTH % 2
    assert solver.outcome(f"C{DEPTH - 1}") == ("L" if (DEPTH - 1) % 2 == 0 else "W")
    assert solver.stats.max_depth >= DEPTH
    # Every even heap on the way is a proven losing couple (C2k, 0); odd ones were only
    # shown winning (≠ 0), which is cached, not stored.
    facts = store.get(FactKind.NIMBER, [f"C{n}" for n in range(1, DEPTH + 1)])
    assert all(f"C{n}" in facts for n in range(2, DEPTH + 1, 2))
    assert all(v == int(k[1:]) % 2 for k, v in facts.items())


def test_a_deep_sum_solves() -> None:
    game = chain()
    solver = NormalSolver(game, MemoryProofStore())
    assert solver.outcome(game.join([f"C{DEPTH}", f"C{DEPTH - 2}"])) == "L"
    assert solver.outcome(game.join([f"C{DEPTH}", f"C{DEPTH - 3}", "C2"])) == "W"
