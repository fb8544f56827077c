"""The web page's JSON (server/position_view.py) gives the R1 note's rule: each land's class
and, for the position, the case that applies and its move, equal to what `query` says; the
move checked by brute force. A real LMDB store in a temp dir and the verified shipped table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.ops.shipped_rcts import shipped_rct_table
from sproutsdb.ops.stores import open_local_store as open_store
from sproutsdb.server.position_view import PositionReader
from sproutsdb.solver.misere.solver import brute_force_misere
from sproutsdb.solver.sprouts.game import SproutsGame

GAME = SproutsGame()


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PositionReader, Path]]:
    path = tmp_path_factory.mktemp("r1web") / "store"
    done = run_cli("solve", "0*2", "--quiet", "--store", str(path))
    assert done.returncode == 0, done.stderr
    shipped = shipped_rct_table()
    assert shipped is not None
    store = open_store(str(path), readonly=True)
    view = PositionReader(store, shipped[0], table_name=str(shipped[1]))
    try:
        yield view, path
    finally:
        view.close()
        store.close()


def test_the_page_gives_the_rule_and_query_agrees(reader: tuple[PositionReader, Path]) -> None:
    view, path = reader
    report = view.view("0*3+0.AB|AB")
    assert [land["r1"] for land in report["lands"]] == ["inverter", "higher switch"]
    r1 = report["r1"]
    assert (r1["case"], r1["applies"], r1["land"], r1["status"]) == (
        3,
        True,
        "0.AB|AB",
        "verified",
    )
    assert r1["to_class"] in ("null", "gremlin") and r1["result_loses_by_note"] is True
    assert brute_force_misere(GAME, r1["moved_to"]) == "L"
    moved = next(c for c in report["children"] if c["position"] == r1["moved_to"])
    assert moved["misere"] == "L"  # the page's exact value of the position reached
    query = json.loads(run_cli("query", "0*3+0.AB|AB", "--json", "--store", str(path)).stdout)
    assert {k: v for k, v in r1.items() if k != "status"} == query["r1"]


def test_the_page_when_no_case_applies(reader: tuple[PositionReader, Path]) -> None:
    view, _ = reader
    r1 = view.view("0+0*2")["r1"]
    assert [c["r1"] for c in r1["classes"]] == ["null", "trap"]
    assert (r1["case"], r1["moved_to"]) == (None, None)
    unknown = view.view("0*12")["r1"]
    assert unknown["case"] is None and "unknown" in unknown["reason"]
    empty = view.view("!")["r1"]
    assert empty["classes"] == [] and "empty position" in empty["reason"]
