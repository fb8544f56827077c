"""The quick path of `Checker.check_facts` (no coroutines when a fact's justifications use
facts already settled) against the full check alone: the same verified facts, holes,
inconsistencies, dependencies and derived lands, batch after batch in lives order, on a
depth-first store (sums with unstored lands) with a wrong nimber and a deleted fact."""

from __future__ import annotations

import pytest

from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.solver.sprouts.notation import key_lives

GAME = SproutsGame()


class FullChecker(Checker):
    """The reference: every fact through the full (coroutine) check."""

    def _quick_check(self, land: str) -> bool:
        return False


def _facts() -> dict[str, int]:
    store = MemoryProofStore()
    NormalSolver(GAME, store, search="dfs").nimber(GAME.canonical("0*7"))
    return dict(store._facts[FactKind.NIMBER])  # type: ignore[arg-type]


def _damaged(facts: dict[str, int]) -> dict[str, int]:
    """One nimber changed to another value and one fact of many lives deleted."""
    lands = sorted(facts, key=lambda land: (key_lives(land), land))
    changed = lands[len(lands) // 3]
    deleted = lands[len(lands) // 2]
    wrong = {**facts, changed: facts[changed] + 1}
    del wrong[deleted]
    return wrong


def _run(cls: type[Checker], facts: dict[str, int], derive_lives: int) -> list[tuple]:
    source = MemoryProofStore()
    source.put(FactKind.NIMBER, facts)
    marked: set[str] = set()
    checker = cls(
        GAME,
        source,
        trusted=lambda keys: [k for k in keys if k in marked],
        derive_lives=derive_lives,
    )
    order = sorted(facts, key=lambda land: (key_lives(land), land))
    outcomes = []
    for start in range(0, len(order), 7):
        batch = order[start : start + 7]
        report = checker.check_facts(batch)
        outcomes.append(
            (
                report.verified,
                report.unproven,
                report.trusted,
                report.derived,
                sorted(report.missing, key=repr),
                sorted(report.inconsistent, key=repr),
                {land: checker._deps.get(land) for land in report.verified},
            )
        )
        checker.forget()
        marked.update(report.verified)
    return outcomes


@pytest.mark.parametrize("damage", [False, True])
@pytest.mark.parametrize("derive_lives", [0, 3])
def test_quick_path_decides_as_the_full_check(damage: bool, derive_lives: int) -> None:
    facts = _facts()
    assert len(facts) > 100
    if damage:
        facts = _damaged(facts)
    quick = _run(Checker, facts, derive_lives)
    full = _run(FullChecker, facts, derive_lives)
    assert quick == full
    if damage:
        assert any(outcome[4] or outcome[5] for outcome in quick)
