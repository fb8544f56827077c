"""`sproutsdb query`: RCT ids of lands and stored misère facts, besides stored nimbers.

A store seeded from a small RCT table (as `sproutsdb serve --seed` does) knows the RCT of
each land of the game tree of 0*4 and nothing else: query shows the RCT and the nimber and
misère outcome read from it, labelled as such, and writes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.formats.rcttable import make_header, table_from_positions, write_table
from sproutsdb.ops.describe import Describer
from sproutsdb.ops.seed import seed_store
from sproutsdb.ops.stores import open_local_store as open_store
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.misere.solver import brute_force_misere
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.game import SproutsGame

GAME = SproutsGame()
SPOT_NIMBERS = {3: 1, 4: 1}  # normal-play nimbers of 0*3 and 0*4


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store seeded with the RCT table of the game tree of 0*4 (no nimber, no misère)."""
    folder = tmp_path_factory.mktemp("seeded")
    root = GAME.canonical("0*4")
    search = game_tree_rcts(GAME, root)
    table = table_from_positions(search.algebra, search.positions())
    path = folder / "s4.rcttable"
    write_table(path, table, make_header(table, game="sprouts", root=root))
    store = open_store(str(folder / "store"))
    try:
        report = seed_store(store, path)
        assert report.positions > 0 and not report.skipped
    finally:
        store.close()
    return folder / "store"


def _counts(store_path: Path) -> dict[str, int]:
    store = open_store(str(store_path), readonly=True)
    try:
        return {kind.value: store.count(kind) for kind in FactKind}
    finally:
        store.close()


def test_query_of_a_seeded_land_shows_its_rct_and_what_it_tells(seeded: Path) -> None:
    before = _counts(seeded)
    done = run_cli("query", "0*4", "--json", "--store", str(seeded))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["position"] == "0*4"
    # stored facts only under the old keys: no nimber is stored
    assert (report["nimber"], report["outcome"]) == (None, None)
    (land,) = report["lands"]
    assert land["nimber"] is None and land["rct"]
    assert land["nimber_from_rct"] == SPOT_NIMBERS[4]
    assert (report["nimber_from_rct"], report["outcome_from_rct"]) == (1, "W")
    expected = brute_force_misere(GAME, "0*4", {})
    assert report["misere_outcome_from_rct"] == expected
    assert report["misere"] == {
        "outcome": expected,
        "stored": None,
        "status": None,  # no misère fact stored
        "from_rct": True,
        "rct": land["rct"],
        "rct_status": "verified",  # the seed's map, re-derived whole
        "rct_height": land["rct_height"],
    }
    text = run_cli("query", "0*4", "--store", str(seeded))
    assert text.returncode == 0, text.stderr
    assert f"land 0*4: no stored nimber; RCT {land['rct']}" in text.stdout
    assert "nimber 1 from its RCT" in text.stdout
    assert "(from the lands' RCTs, not a stored proof)" in text.stdout
    assert f"misère: outcome {expected} from its RCT {land['rct']}" in text.stdout
    assert "not in the store" not in text.stdout
    assert _counts(seeded) == before  # query writes nothing


def test_query_of_a_sum_of_seeded_lands(seeded: Path) -> None:
    done = run_cli("query", "0*3+0*4", "--json", "--store", str(seeded))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {land["land"]: land["nimber_from_rct"] for land in report["lands"]} == {
        "0*3": SPOT_NIMBERS[3],
        "0*4": SPOT_NIMBERS[4],
    }
    assert all(land["rct"] for land in report["lands"])
    assert (report["nimber_from_rct"], report["outcome_from_rct"]) == (0, "L")
    assert "misere_outcome_from_rct" not in report  # only of a single land
    assert report["misere"]["outcome"] is None


def test_query_shows_a_stored_misere_fact(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    solved = run_cli("solve", "0*4", "--misere", "--no-rct-table", "--quiet", "--store", store)
    assert solved.returncode == 0, solved.stderr  # without RCTs the node 0*4 is stored
    done = run_cli("query", "0*4", "--json", "--store", store)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["misere"]["stored"] == "L" and report["misere"]["outcome"] == "L"
    assert report["misere"]["from_rct"] is False
    assert report["nimber"] is None
    # the store has no RCTs: the shipped S6 table gives the land's RCT, and says so
    assert report["lands"][0]["rct"].startswith("rct1:")
    assert report["rct_table"]["source"] == "shipped"
    text = run_cli("query", "0*4", "--store", store).stdout
    assert "misère: outcome L (stored)" in text and "land 0*4: no stored nimber; RCT" in text
    assert "RCTs from the shipped S6 table" in text


def test_remote_query_mirrors_the_local_one(tmp_path: Path) -> None:
    from service_support import ServerProcess, build_table

    table = build_table("0*4", tmp_path / "s4.rcttable")
    with ServerProcess(tmp_path / "store", "--seed", str(table)) as server:
        done = run_cli("query", "0*3+0*4", "--json", "--server", server.address)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["server"] == server.address and report["nimber"] is None
        assert all(land["rct"] for land in report["lands"])
        assert (report["nimber_from_rct"], report["outcome_from_rct"]) == (0, "L")
        text = run_cli("query", "0*4", "--server", server.address)
        assert text.returncode == 0, text.stderr
        assert "land 0*4: no stored nimber; RCT " in text.stdout
        assert "misère: outcome L from its RCT " in text.stdout
    # without a table the misère solver stores the root 0*4 (a loss): query shows it
    with ServerProcess(tmp_path / "bare", "--no-seed") as server:
        solved = run_cli("solve", "0*4", "--misere", "--quiet", "--server", server.address)
        assert solved.returncode == 0, solved.stderr
        done = run_cli("query", "0*4", "--json", "--server", server.address)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["misere"]["stored"] == "L"
        text = run_cli("query", "0*4", "--server", server.address)
        assert "misère: outcome L (stored)" in text.stdout


def test_query_shows_the_status_of_misere_and_rct_facts(tmp_path: Path) -> None:
    """Claims are shown as claims; --verified uses none of them; a refuted map is shown
    with its evidence, never used."""
    root = GAME.canonical("0*4")
    search = game_tree_rcts(GAME, root)
    algebra = search.algebra
    cid = algebra.content_id(search.positions()[root])
    three = GAME.canonical("0*3")
    store = open_store(str(tmp_path / "store"))
    try:
        store.put(FactKind.RCT, dict(algebra.records()), verified=True)
        store.put(FactKind.POS_RCT, {root: cid, three: cid})  # claims; 0*3's is false
        store.put(FactKind.MISERE, {root: "L"})  # a claim
        assert (
            store.refute(FactKind.POS_RCT, three, cid, evidence="its children say *1") == "refuted"
        )
    finally:
        store.close()

    claims = json.loads(
        run_cli("query", "0*4", "--json", "--store", str(tmp_path / "store")).stdout
    )
    assert claims["trust"] == "verified facts and claims"
    assert claims["misere"]["stored"] == "L" and claims["misere"]["status"] == "claimed"
    assert claims["misere"]["rct_status"] == "claimed" and claims["misere"]["rct"] == cid
    (land,) = claims["lands"]
    assert (land["rct"], land["rct_status"], land["nimber_from_rct"]) == (cid, "claimed", 1)
    text = run_cli("query", "0*4", "--store", str(tmp_path / "store")).stdout
    assert "misère: outcome L (stored) — claimed, not yet verified" in text
    assert f"RCT {cid} (height {land['rct_height']}, claimed)" in text

    done = run_cli("query", "0*4", "--verified", "--json", "--store", str(tmp_path / "store"))
    assert done.returncode == 0, done.stderr
    verified = json.loads(done.stdout)
    assert verified["trust"] == "verified facts only"
    misere = verified["misere"]
    assert (misere["outcome"], misere["stored"], misere["claimed"]) == (None, None, "L")
    assert misere["rct"] is None and misere["rct_claimed"] == cid
    assert "misere_outcome_from_rct" not in verified
    (land,) = verified["lands"]
    assert land["rct"] is None and land["rct_claimed"] == cid and "nimber_from_rct" not in land
    text = run_cli("query", "0*4", "--verified", "--store", str(tmp_path / "store")).stdout
    assert "misère: claim L not yet verified (not used: --verified)" in text
    assert f"RCT claim {cid} not yet verified (not used: --verified)" in text

    refuted = json.loads(
        run_cli("query", "0*3", "--json", "--store", str(tmp_path / "store")).stdout
    )
    (land,) = refuted["lands"]
    assert land["rct"] is None and land["rct_status"] == "refuted"
    assert (
        land["rct_refuted"] == cid and land["rct_refutation"]["evidence"] == "its children say *1"
    )
    text = run_cli("query", "0*3", "--store", str(tmp_path / "store")).stdout
    assert f"RCT claim {cid} REFUTED: its children say *1" in text


def test_a_node_fact_is_no_more_verified_than_the_maps_that_keyed_it(tmp_path: Path) -> None:
    """The misère search keys a sum by its lands of known RCT replaced by their trees: a
    verified fact of such a node, found through a claimed map of one of those lands, is a
    claim about the position (the map may be false), so the position's outcome says claimed."""
    four, three = GAME.canonical("0*4"), GAME.canonical("0*3")
    position = GAME.join([four, three])
    search = game_tree_rcts(GAME, four)
    algebra = search.algebra
    store = open_store(str(tmp_path / "store"))
    try:
        store.put(FactKind.RCT, dict(algebra.records()), verified=True)
        store.put(FactKind.POS_RCT, {four: algebra.content_id(search.positions()[four])})
        table = table_from_positions(algebra, search.positions())
        node = Describer(store, game="sprouts", table=table)._node_key(
            [three], [table.positions[four]]
        )
        outcome = brute_force_misere(GAME, position)
        store.put(FactKind.MISERE, {node: outcome}, verified=True)
    finally:
        store.close()
    shown = json.loads(
        run_cli("query", position, "--json", "--store", str(tmp_path / "store")).stdout
    )
    assert shown["misere"]["stored"] == outcome
    assert shown["misere"]["status"] == "claimed"


def test_a_report_whose_lands_sum_to_nothing_has_no_node_to_look_up(tmp_path: Path) -> None:
    """0*3+0*3's moves include sums whose lands' trees cancel (the empty node, a misère win
    by the rules): the page's report lists its moves and replies instead of refusing the
    position because '!' alone is no node key."""
    search = game_tree_rcts(GAME, GAME.canonical("0*4"))
    table = table_from_positions(search.algebra, search.positions())
    store = open_store(str(tmp_path / "store"))
    try:
        describer = Describer(store, game="sprouts", table=table)
        report = describer.report(GAME.canonical("0*3+0*3"))
        assert report["position"] == GAME.canonical("0*3+0*3") and report["children"]
    finally:
        store.close()
