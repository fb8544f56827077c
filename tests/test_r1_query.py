"""`sproutsdb query` shows the R1 note's rule (solver/extras/r1.py): each land's class, whether a
case applies and the rule's move, locally on the shipped S6 table and through a server
seeded with the RCT table of 0*4 (the store's RCTs); the move checked by brute force."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import run_cli
from sproutsdb.solver.misere.solver import brute_force_misere
from sproutsdb.solver.sprouts.game import SproutsGame

GAME = SproutsGame()


def _store(tmp_path: Path) -> str:
    """A store without RCTs (so query reads the shipped S6 table)."""
    store = str(tmp_path / "store")
    done = run_cli("solve", "0*2", "--quiet", "--store", store)
    assert done.returncode == 0, done.stderr
    return store


def test_query_gives_classes_case_and_move(tmp_path: Path) -> None:
    store = _store(tmp_path)
    done = run_cli("query", "0*3+0.AB|AB", "--json", "--store", store)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [land["r1"] for land in report["lands"]] == ["inverter", "higher switch"]
    r1 = report["r1"]
    assert [c["r1"] for c in r1["classes"]] == ["inverter", "higher switch"]
    assert (r1["case"], r1["applies"], r1["land"], r1["land_class"]) == (
        3,
        True,
        "0.AB|AB",
        "higher switch",
    )
    assert r1["to_class"] in ("null", "gremlin") and r1["result_loses_by_note"] is True
    assert brute_force_misere(GAME, r1["moved_to"]) == "L"  # the move wins, checked apart
    assert brute_force_misere(GAME, "0*3+0.AB|AB") == "W"
    text = run_cli("query", "0*3+0.AB|AB", "--store", store).stdout
    assert "R1 classes: 0*3 inverter, 0.AB|AB higher switch" in text
    assert "R1 rule: case 3 applies" in text
    assert f"R1 move: 0.AB|AB (higher switch) -> {r1['to']}" in text
    assert f"reaching {r1['moved_to']}" in text


def test_query_when_no_case_applies_or_a_class_is_unknown(tmp_path: Path) -> None:
    store = _store(tmp_path)
    report = json.loads(run_cli("query", "0+0*2", "--json", "--store", store).stdout)
    r1 = report["r1"]
    assert [c["r1"] for c in r1["classes"]] == ["null", "trap"]
    assert (r1["case"], r1["applies"], r1["moved_to"]) == (None, False, None)
    assert "the note calls it a loss" in r1["reason"]
    assert brute_force_misere(GAME, "0+0*2") == "L"
    text = run_cli("query", "0*12", "--store", store).stdout
    assert "R1 rule: no case applies (a land's nimber or misère outcome is unknown)" in text
    empty = json.loads(run_cli("query", "!", "--json", "--store", store).stdout)["r1"]
    assert empty["classes"] == [] and "empty position" in empty["reason"]


def test_remote_query_gives_the_same_rule(tmp_path: Path) -> None:
    from service_support import ServerProcess, build_table

    table = build_table("0*4", tmp_path / "s4.rcttable")
    with ServerProcess(tmp_path / "seeded", "--seed", str(table)) as server:
        done = run_cli("query", "0*3+0*4", "--json", "--server", server.address)
        assert done.returncode == 0, done.stderr
        r1 = json.loads(done.stdout)["r1"]
    local = json.loads(run_cli("query", "0*3+0*4", "--json", "--store", _store(tmp_path)).stdout)[
        "r1"
    ]
    assert [c["r1"] for c in r1["classes"]] == ["inverter", "inverter"]
    assert r1["case"] == 4 and r1["moved_to"] is not None
    assert r1 == local
    assert brute_force_misere(GAME, r1["moved_to"]) == "L"
