"""Checking proofs written by other programs: the strongest statement a store supports
(nimber, else outcome), lands of few lives re-derived from the rules (`--derive-lives`),
and the SPOTS certificates of tests/fixtures/spots imported as they are."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cli_helpers import COMMAND, run_cli
from sproutsdb.ops import DEFAULT_DERIVE_LIVES
from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.normal.rules_nimber import SmallLands
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore

GAME = SproutsGame()
SPOTS = Path(__file__).parent / "fixtures" / "spots"
CERTIFICATES = {  # root: (file, proved, outcome, nimber)
    "0*10": ("S10_dfpn_nimber.spr", "nimber", "W", 1),
    "0*12": ("S12_dfpn_outcome.spr", "nimber", "L", 0),
    "0*16": ("S16_dfpn_outcome.spr", "outcome", "W", None),
}


def solved_facts(spots: int) -> dict[str, int]:
    """Every fact the solver stores while proving the nimber of 0*spots."""
    store = MemoryProofStore()
    NormalSolver(GAME, store).nimber(f"0*{spots}")
    return dict(store.get(FactKind.NIMBER, list(store._facts[FactKind.NIMBER])))


def memory(facts: dict[str, int]) -> MemoryProofStore:
    store = MemoryProofStore()
    store.put(FactKind.NIMBER, facts)
    return store


def lmdb(path: Path, facts: dict[str, int] | None = None) -> LmdbProofStore:
    store = LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION)
    if facts:
        store.put(FactKind.NIMBER, facts)
    return store


def check_json(store: Path, root: str, *extra: str) -> tuple[int, dict]:
    done = run_cli("check", "--store", str(store), "--root", root, "--json", *extra)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


# ------------------------------------------------------------ the rules' small lands


def test_small_lands_are_derived_from_the_rules_only() -> None:
    small = SmallLands(GAME, 9)
    assert small.nimber("0*2") == 0 and small.nimber("0*3") == 1  # 6 and 9 lives
    assert small.nimber("0*4") is None and not small.covers("0*4")  # 12 lives
    assert not SmallLands(GAME, 0).covers("0") and SmallLands(GAME, 0).nimber("0") is None


# ------------------------------------------------------------ strongest statement


def test_a_stored_nimber_is_proven_as_a_nimber() -> None:
    report = Checker(GAME, memory(solved_facts(4))).check("0*4")
    assert report.ok and report.proved == "nimber" and report.nimber == 1


def test_a_root_with_no_fact_is_proven_a_win_by_one_option() -> None:
    facts = solved_facts(4)
    del facts["0*4"]  # as SPOTS writes a winning root: not stored
    report = Checker(GAME, memory(facts)).check("0*4")
    assert report.ok and report.proved == "outcome" and report.outcome == "W"
    assert report.nimber is None and "0*4" not in report.used
    # the proof is one option of value 0: its facts alone prove the win again
    again = Checker(GAME, memory(report.used)).check("0*4")
    assert again.ok and again.outcome == "W" and set(again.used) <= set(report.used)
    assert any(
        all(land in report.used for land in GAME.components(child))
        and _nim_sum_of(child, report.used) == 0
        for child in GAME.children("0*4")
    )


def _nim_sum_of(position: str, facts: dict[str, int]) -> int:
    total = 0
    for land in GAME.components(position):
        total ^= facts[land]
    return total


def test_a_loss_needs_the_stored_couple() -> None:
    facts = solved_facts(6)
    del facts["0*6"]  # 0*6 is a loss: no option shows it, and its fact is gone
    report = Checker(GAME, memory(facts)).check("0*6")
    assert not report.ok and report.proved is None and report.outcome is None
    assert [hole.missing[0] for hole in report.missing if hole.needed_by == "0*6"] == ["0*6"]


def test_only_the_lands_of_the_losing_children_suffice(tmp_path: Path) -> None:
    """A store holding only the losing couples of 0*4's lands below it proves its outcome
    through the real command; with the root's fact added, its nimber."""
    facts = solved_facts(4)
    root = facts.pop("0*4")
    with lmdb(tmp_path / "below", facts):
        pass
    code, report = check_json(tmp_path / "below", "0*4")
    assert code == 0 and report["ok"]
    assert (report["proved"], report["outcome"], report["nimber"]) == ("outcome", "W", None)
    with lmdb(tmp_path / "whole", {**facts, "0*4": root}):
        pass
    code, report = check_json(tmp_path / "whole", "0*4")
    assert code == 0 and (report["proved"], report["outcome"], report["nimber"]) == (
        "nimber",
        "W",
        1,
    )
    # --outcome-only is still accepted: the outcome alone, without the root's fact
    code, report = check_json(tmp_path / "whole", "0*4", "--outcome-only")
    assert code == 0 and (report["proved"], report["outcome"]) == ("outcome", "W")


# ------------------------------------------------------------ --derive-lives


def _without_small(facts: dict[str, int], lives: int) -> dict[str, int]:
    return {land: n for land, n in facts.items() if GAME.size(land) > lives}


def test_derived_lands_fill_holes_and_are_never_facts() -> None:
    facts = _without_small(solved_facts(5), 3)
    assert not Checker(GAME, memory(facts)).check("0*5").ok
    assert not Checker(GAME, memory(facts), derive_lives=2).check("0*5").ok
    report = Checker(GAME, memory(facts), derive_lives=3).check("0*5")
    assert report.ok and report.nimber == 1 and report.derived
    assert all(GAME.size(land) <= 3 for land in report.derived)
    assert not set(report.derived) & (set(report.verified) | set(report.used))
    small = SmallLands(GAME, 3)
    assert all(small.nimber(land) == n for land, n in report.derived.items())


def test_a_stored_small_fact_is_checked_not_replaced() -> None:
    facts = solved_facts(5)
    land = next(x for x, n in sorted(facts.items()) if 2 <= GAME.size(x) <= 3 and n == 0)
    report = Checker(GAME, memory({**facts, land: 1}), derive_lives=3).check_facts([land])
    assert land not in report.verified and land not in report.derived


def test_cli_derive_lives_reports_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "store"
    facts = _without_small(solved_facts(5), 3)
    with lmdb(path, facts):
        pass
    code, report = check_json(path, "0*5", "--derive-lives", "0")
    assert code == 1 and report["missing"] and report["derived"] == 0
    code, report = check_json(path, "0*5", "--derive-lives", "3")
    assert code == 0 and report["proved"] == "nimber" and report["nimber"] == 1
    assert report["derived"] >= len(report["derived_lands"]) > 0
    text = run_cli("check", "--store", str(path), "--root", "0*5", "--derive-lives", "3")
    assert text.returncode == 0 and "derived from the rules" in text.stdout
    assert "(nimber proven)" in text.stdout
    with LmdbProofStore.open(
        path, game="sprouts", canon_version=CANON_VERSION, create=False
    ) as store:
        assert store.count(FactKind.NIMBER) == len(facts)
        assert not store.get(FactKind.NIMBER, report["derived_lands"])
    done = run_cli(
        "check", "--store", str(path), "--all", "--jobs", "1", "--json", "--derive-lives", "3"
    )
    assert done.returncode == 0, done.stdout
    totals = json.loads(done.stdout)
    assert totals["ok"] and totals["derived"] > 0 and totals["facts"] == len(facts)
    assert (
        run_cli("check", "--store", str(path), "--root", "0*5", "--derive-lives", "-1").returncode
        == 2
    )
    assert (
        run_cli(
            "check", "--store", str(path), "--root", "0*5", "--misere", "--derive-lives", "3"
        ).returncode
        == 2
    )


def test_a_reader_that_stops_early_keeps_the_exit_status(tmp_path: Path) -> None:
    """`check … | head` used to end as an OSError (exit 2, 'bad input'): the status is
    the check's."""
    path = tmp_path / "store"
    with lmdb(path, {"0*2": 0}):
        pass
    process = subprocess.Popen(
        [*COMMAND, "check", "--store", str(path), "--root", "0*3", "--derive-lives", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1 and "Broken pipe" not in err


# ------------------------------------------------------------ the SPOTS certificates


def _import(certificate: str, store: Path) -> dict:
    done = run_cli(
        "import", str(SPOTS / certificate), "--store", str(store), "--json", "--quiet", timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# Lines of each file that repeat a position given earlier in it (SPOTS's key strings are
# not an exact canonical form), always with the same nimber: no conflict.
REPEATS = {"0*10": 6, "0*12": 47, "0*16": 46}


@pytest.mark.parametrize("root", sorted(CERTIFICATES))
def test_spots_certificate_checks(tmp_path: Path, root: str) -> None:
    certificate, proved, outcome, nimber = CERTIFICATES[root]
    imported = _import(certificate, tmp_path / "store")
    assert (imported["unchanged"], imported["conflicts"]) == (REPEATS[root], 0)
    code, report = check_json(tmp_path / "store", root)
    assert report["missing"] == [] and report["inconsistent"] == []
    assert code == 0 and report["ok"]
    assert (report["proved"], report["outcome"], report["nimber"]) == (proved, outcome, nimber)


def test_a_changed_certificate_nimber_fails_and_is_named(tmp_path: Path) -> None:
    _import(CERTIFICATES["0*10"][0], tmp_path / "store")
    with LmdbProofStore.open(
        tmp_path / "store", game="sprouts", canon_version=CANON_VERSION, create=False
    ) as store:
        facts = dict(store.iter_facts(FactKind.NIMBER))
        report = Checker(GAME, store, derive_lives=DEFAULT_DERIVE_LIVES).check("0*10")
    assert report.ok, report.missing[:3]
    # a fact of the proof that nothing else stands in for: changed, the proof fails there
    chosen = None
    for land in sorted(report.used, key=lambda x: (-GAME.size(x), x))[:12]:
        changed = {**facts, land: facts[land] + 1}
        again = Checker(GAME, memory(changed), derive_lives=DEFAULT_DERIVE_LIVES).check("0*10")
        named = {i.land for i in again.inconsistent}
        named |= {x for hole in again.missing for x in (hole.needed_by, *hole.missing)}
        if not again.ok and land in named:
            chosen = land
            break
    assert chosen is not None
    with lmdb(tmp_path / "changed", {**facts, chosen: facts[chosen] + 1}):
        pass
    done = run_cli("check", "--store", str(tmp_path / "changed"), "--root", "0*10")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert chosen in done.stdout
