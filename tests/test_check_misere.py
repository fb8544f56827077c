"""The misère checker on stores filled by the misère solver: clean proofs check, a missing
losing node is a hole, a wrong one is an inconsistency, and pruning keeps proofs valid."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from cli_helpers import run_cli
from sproutsdb.solver.misere import check as misere_check
from sproutsdb.solver.misere.check import MisereChecker, check_misere_with_cycles
from sproutsdb.solver.misere.solver import MisereSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore

GAME = SproutsGame()
OUTCOMES = {2: "L", 3: "L", 4: "L", 5: "W"}


def engine() -> MisereSolver:
    return MisereSolver(GAME, MemoryProofStore())


def solved(spots: int) -> MemoryProofStore:
    store = MemoryProofStore()
    solver = MisereSolver(GAME, store)
    assert solver.outcome(f"0*{spots}") == OUTCOMES[spots]
    solver.flush()
    return store


def losing(keys: object) -> MemoryProofStore:
    store = MemoryProofStore()
    store.put(FactKind.MISERE, {key: "L" for key in keys})  # type: ignore[attr-defined]
    return store


def test_solved_stores_check_clean_and_cycles_never_grow() -> None:
    for spots, outcome in OUTCOMES.items():
        store = solved(spots)
        best, sizes = check_misere_with_cycles(engine(), store, f"0*{spots}", cycles=4)
        assert best.ok and best.outcome == outcome, (spots, best.missing, best.inconsistent)
        assert len(best.used) == min(sizes) <= store.count(FactKind.MISERE)
        assert all(size <= min(sizes[:i]) for i, size in enumerate(sizes) if i)
        again = MisereChecker(engine(), losing(best.used)).check(f"0*{spots}")
        assert again.ok and again.outcome == outcome and len(again.used) <= len(best.used)


def test_progress_hears_every_cycle_count_up() -> None:
    """A long check says how far it is: each cycle in turn, its nodes checked rising."""
    heard: list[tuple[int, int]] = []
    best, sizes = check_misere_with_cycles(
        engine(), solved(5), "0*5", cycles=3, progress=lambda *at: heard.append(at)
    )
    assert best.ok and len(sizes) == 3
    assert [cycle for cycle, _ in heard] == sorted(cycle for cycle, _ in heard)
    assert {cycle for cycle, _ in heard} == {1, 2, 3}
    for cycle in (1, 2, 3):
        counts = [checked for at, checked in heard if at == cycle]
        assert counts == sorted(counts) and counts[0] > 0


def test_a_node_shown_winning_once_is_not_shown_again() -> None:
    """An option of many losing nodes is shown winning once a run: the engine is asked for
    each node's children at most once (before: up to 7 times at 0*5; 0*19's check -15 %)."""
    for spots in (4, 5):
        counting, asked = counting_engine()
        report = MisereChecker(counting, solved(spots)).check(f"0*{spots}")
        assert report.ok and report.outcome == OUTCOMES[spots]
        assert asked and max(asked.values()) == 1


def test_a_tiny_cache_of_absent_keys_changes_no_verdict(monkeypatch: Any) -> None:
    """The keys a store does not hold are only a cache (cleared at ABSENT_CAP): with room
    for 8 of them the check asks the store again, and proves the same with the same facts."""
    for spots in (4, 5):
        store = solved(spots)
        roomy = MisereChecker(engine(), store).check(f"0*{spots}")
        monkeypatch.setattr(misere_check, "ABSENT_CAP", 8)
        cramped = MisereChecker(engine(), store).check(f"0*{spots}")
        monkeypatch.undo()
        assert roomy.ok and cramped.ok and cramped.outcome == roomy.outcome == OUTCOMES[spots]
        assert cramped.used == roomy.used and cramped.verified == roomy.verified


def counting_engine() -> tuple[MisereSolver, Counter[str]]:
    """A real engine whose `children` counts the nodes it is asked about."""
    counting = engine()
    asked: Counter[str] = Counter()
    children = counting.children

    def counted(node: Any) -> list[Any]:
        asked[counting.key(node)] += 1
        return children(node)

    counting.children = counted  # type: ignore[method-assign]
    return counting, asked


def test_a_missing_losing_node_is_a_hole() -> None:
    proof = MisereChecker(engine(), solved(4)).check("0*4").used
    failures = 0
    for key in proof:
        report = MisereChecker(engine(), losing(k for k in proof if k != key)).check("0*4")
        assert report.outcome in (None, "L")  # never a wrong outcome
        if not report.ok:
            failures += 1
            assert report.missing
    assert failures >= 1


def test_a_winning_node_stored_as_losing_is_an_inconsistency() -> None:
    store = solved(5)
    store.put(FactKind.MISERE, {"0*5": "L"})
    report = MisereChecker(engine(), store).check("0*5")
    assert not report.ok and report.outcome is None
    assert [i.land for i in report.inconsistent] == ["0*5"]


def test_cli_misere_check_and_prune(tmp_path: Path) -> None:
    store, pruned = tmp_path / "store", tmp_path / "pruned"
    done = run_cli("solve", "0*4", "--misere", "--store", str(store), "--quiet")
    assert done.returncode == 0, done.stderr
    done = run_cli(
        "check",
        "--misere",
        "--store",
        str(store),
        "--root",
        "0*4",
        "--prune",
        str(pruned),
        "--cycles",
        "3",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["outcome"] == "L" and report["play"] == "misere"
    with LmdbProofStore.open(
        pruned, game="sprouts", canon_version=CANON_VERSION, create=False
    ) as small:
        assert small.count(FactKind.MISERE) == report["facts_used"]
    again = run_cli("check", "--misere", "--store", str(pruned), "--root", "0*4", "--json")
    assert again.returncode == 0, again.stderr
