"""`sproutsdb query` shows the R1 note's rule (solver/extras/r1.py): each land's class, whether a
case applies and the rule's move, locally on the shipped S6 table and through a server
seeded with the RCT table of 0*4 (the store's RCTs); the move checked by brute force."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import run_cli
from sproutsdb.ops.describe import describe
from sproutsdb.ops.stores import open_local_store
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


def test_query_says_where_the_note_is_a_theorem(tmp_path: Path) -> None:
    """Each land is tested hereditarily (conditions 1-3 in its whole tree, and condition 4,
    the gap in the note's argument): a sum of such lands gets the corrected rule with its
    move's result checked exactly; otherwise the land and the violation are named."""
    store = _store(tmp_path)

    def scope(position: str) -> dict[str, object]:  # query --json's, in this process
        opened = open_local_store(store)
        try:
            found: dict[str, object] = describe(opened, position).report["r1"]["scope"]
        finally:
            opened.close()
        return found

    holds = scope("2AB|2A|2B+0*1")
    assert (holds["hereditary_r1"], holds["corrected_rule_applies"]) == (True, True)
    assert holds["move_checked"] == "L" and "the corrected rule holds" in str(holds["says"])
    gap = scope("1+2aA2Ba|AC|BC")  # the counterexample: a gremlin moving to a null
    assert (gap["hereditary_r1"], gap["corrected_rule_applies"]) == (True, False)
    assert "2aA2Ba|AC|BC is gremlin with a move to the null 2AB|2A|2B" in str(gap["says"])
    outside = scope("0*4")
    assert outside["hereditary_r1"] is False
    assert "0*2.2a2a is higher inverter" in str(outside["says"])
    large = scope("0*6")
    assert large["tested"] is False and large["hereditary_r1"] is None
    text = run_cli("query", "1+2aA2Ba|AC|BC", "--store", store).stdout
    assert "R1 scope: every land is hereditarily R1, but the note's argument has a gap" in text
