"""The normal-play checker on real LMDB stores filled by the solver: clean proofs check,
holes are named, contradictions are reported, pruning keeps proofs valid and small, and a
wrong stored nimber never yields a wrong answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from sproutsdb.solver.normal.check import Checker, check_with_cycles
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore

GAME = SproutsGame()
NIMBERS = {4: 1, 5: 1, 6: 0, 7: 0}


def lmdb(path: Path) -> LmdbProofStore:
    return LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION, durable=False)


def solved(path: Path, spots: int) -> LmdbProofStore:
    """A store holding what the solver proved for the nimber of 0*spots."""
    store = lmdb(path)
    solver = NormalSolver(GAME, store)
    assert solver.nimber(f"0*{spots}") == NIMBERS[spots]
    solver.flush()
    return store


def facts_of(store: LmdbProofStore) -> dict[str, int]:
    return dict(store.iter_facts(FactKind.NIMBER))


def memory(facts: dict[str, int]) -> MemoryProofStore:
    store = MemoryProofStore()
    store.put(FactKind.NIMBER, facts)
    return store


@pytest.mark.parametrize("spots", [4, 5, 6, 7])
def test_a_solved_store_checks_clean(tmp_path: Path, spots: int) -> None:
    with solved(tmp_path / "s", spots) as store:
        report = Checker(GAME, store).check(f"0*{spots}")
        assert report.ok, (report.missing, report.inconsistent)
        assert report.nimber == NIMBERS[spots]
        assert report.outcome == ("L" if NIMBERS[spots] == 0 else "W")
        assert f"0*{spots}" in report.used
        assert set(report.used) <= set(report.verified) <= set(facts_of(store))
        assert not report.missing and not report.inconsistent


def test_outcome_only_needs_no_root_fact_for_a_win(tmp_path: Path) -> None:
    with solved(tmp_path / "s", 5) as store:
        full = Checker(GAME, store).check("0*5")
        win = Checker(GAME, store).check("0*5", outcome_only=True)
    assert win.ok and win.outcome == "W" and win.nimber is None
    assert "0*5" not in win.used and len(win.used) < len(full.used)


def test_an_empty_store_has_a_hole_at_the_root() -> None:
    report = Checker(GAME, MemoryProofStore()).check("0*3")
    assert not report.ok and report.outcome is None
    assert [h.missing[0] for h in report.missing] == ["0*3"]  # the root first


def test_deleting_a_needed_fact_names_it(tmp_path: Path) -> None:
    with solved(tmp_path / "s", 5) as store:
        proof = Checker(GAME, store).check("0*5").used
    failures = 0
    for land in proof:
        report = Checker(GAME, memory({k: v for k, v in proof.items() if k != land})).check("0*5")
        if report.ok:  # another stored fact could stand in for it
            assert land not in report.used
            continue
        failures += 1
        assert land in {name for hole in report.missing for name in hole.missing}, land
    assert failures >= len(proof) // 2


def test_changing_the_root_nimber_is_reported(tmp_path: Path) -> None:
    with solved(tmp_path / "s", 5) as store:
        proof = Checker(GAME, store).check("0*5").used
    report = Checker(GAME, memory({**proof, "0*5": 0})).check("0*5")
    assert not report.ok and report.nimber is None
    assert [(i.land, i.stored) for i in report.inconsistent] == [("0*5", 0)]


def test_changing_an_inner_nimber_is_reported_or_avoided(tmp_path: Path) -> None:
    with solved(tmp_path / "s", 5) as store:
        proof = Checker(GAME, store).check("0*5").used
    named = 0
    for land, value in proof.items():
        if value == 0 or land == "0*5":
            continue
        report = Checker(GAME, memory({**proof, land: 0})).check("0*5")
        assert land not in report.verified
        if report.ok:
            assert land not in report.used and report.nimber == 1
        named += land in {i.land for i in report.inconsistent}
    assert named >= 1


def test_a_wrong_nimber_never_gives_a_wrong_answer(tmp_path: Path) -> None:
    with solved(tmp_path / "s", 5) as store:
        facts = facts_of(store)
    for land, value in facts.items():
        for wrong in {0, 1, 2, value + 1} - {value}:
            report = Checker(GAME, memory({**facts, land: wrong})).check("0*5")
            assert land not in report.verified
            if report.ok:
                assert report.nimber == 1


def test_pruned_store_checks_clean_and_never_grows(tmp_path: Path) -> None:
    with solved(tmp_path / "s", 6) as store:
        total = store.count(FactKind.NIMBER)
        best, sizes = check_with_cycles(GAME, store, "0*6", cycles=4, seed=1)
    assert best.ok and len(best.used) == min(sizes) and len(best.used) <= total
    assert all(size <= min(sizes[:i]) for i, size in enumerate(sizes) if i)  # never grows
    with lmdb(tmp_path / "pruned") as pruned:
        pruned.put(FactKind.NIMBER, best.used, verified=True)
        again = Checker(GAME, pruned).check("0*6")
        assert again.ok and again.nimber == 0
        assert len(again.used) <= len(best.used) == pruned.count(FactKind.NIMBER)


def test_sum_root_is_the_nim_sum_of_checked_lands(tmp_path: Path) -> None:
    with lmdb(tmp_path / "s") as store:
        solver = NormalSolver(GAME, store)
        assert solver.nimber("0*3+0.A|0.A") == 0
        solver.flush()
        report = Checker(GAME, store).check(GAME.canonical("0*3+0.A|0.A"))
    assert report.ok and report.nimber == 0 and report.outcome == "L"


def test_whole_store_check_verifies_every_fact_but_a_wrong_one(tmp_path: Path) -> None:
    with solved(tmp_path / "s", 5) as store:
        facts = facts_of(store)
        report = Checker(GAME, store).check_facts(list(facts))
    assert report.verified == facts and not report.missing and not report.inconsistent
    wrong = {**facts, "0*4": 0}
    report = Checker(GAME, memory(wrong)).check_facts(list(wrong))
    assert "0*4" not in report.verified
    assert report.inconsistent and all(i.stored == wrong[i.land] for i in report.inconsistent)
