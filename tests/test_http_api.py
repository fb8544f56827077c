"""The web JSON API of `sproutsdb web` against real server processes: the engine's children
of large positions, statuses and sources of every value, what a verified loss implies, the
index and the OpenAPI description (every field of a real report explained), and a store whose
`pos_rct` claim names an RCT it lacks (answered, never a dropped connection)."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from cli_helpers import run_cli
from test_web import WebProcess, fetch

MISSING_RCT = "rct1:" + "ab" * 16  # well formed, but no such tree in the store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("http") / "store"
    for args in (["solve", "0*8"], ["check", "--root", "0*8"]):  # a verified normal loss
        done = run_cli(*args, "--store", str(path), timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    return path


@pytest.fixture(scope="module")
def web(store: Path) -> Iterator[WebProcess]:
    server = WebProcess(store)
    try:
        yield server
    finally:
        server.stop()
    assert server.proc.returncode == 0


def api(web: WebProcess, position: str, parent: str | None = None) -> tuple[int, dict[str, Any]]:
    url = f"{web.url}api/v1/position?pos={quote(position)}"
    if parent is not None:
        url += f"&from={quote(parent)}"
    return fetch(url)


def cli_children(position: str) -> list[str]:
    done = run_cli("children", position, "--json")
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout)["children"])


@pytest.mark.parametrize("position", ["0*11", "0*12", "0*20", "0*30", "0*12+0.AB|AB"])
def test_children_of_large_positions_are_the_engines(web: WebProcess, position: str) -> None:
    started = time.monotonic()
    status, view = api(web, position)
    took = time.monotonic() - started
    assert status == 200, view
    assert [c["position"] for c in view["children"]] == cli_children(position)
    assert view["children_count"] == len(view["children"]) and view["children_note"] is None
    assert took < 3, took  # the page stays fast (0*11: 0.45 s for the CLI with its start-up)


def test_a_verified_loss_makes_every_child_a_win_with_a_refuting_reply(web: WebProcess) -> None:
    status, view = api(web, "0*8")
    assert status == 200
    assert (view["nimber"], view["nimber_source"], view["nimber_status"]) == (
        0,
        "stored",
        "verified",
    )
    assert view["lands"][0]["verified_by"]["tool"] == "sproutsdb"
    proof = view["proof"]["normal"]
    assert proof["outcome"] == "L" and proof["status"] == "verified"
    assert proof["children"] == proof["refuted"] == len(view["children"]) == 5
    for child in view["children"]:
        assert child["outcome"] == "W" and child["winning_normal"] is False
        assert child["outcome_status"] == "verified"
        if child["outcome_source"] == "inferred":
            assert "0*8" in child["inferred_from"]["normal"]
        reply = child["reply_normal"]
        assert reply is not None and reply["status"] == "verified"
        assert reply["position"] in cli_children(child["position"])  # a real move
        _, alone = api(web, reply["position"])
        assert alone["outcome"] == "L" and alone["outcome_status"] == "verified"
        # the child alone: a win, by its move to that verified loss, or from its parent
        _, own = api(web, child["position"])
        assert own["outcome"] == "W" and own["outcome_status"] == "verified", own
        assert own["proof"]["normal"]["move"] is not None
        _, came = api(web, child["position"], parent="0*8")
        assert came["outcome"] == "W" and came["outcome_status"] == "verified"


def test_claims_are_shown_as_claims(web: WebProcess, store: Path) -> None:
    """A solved, unchecked position: its values are claims; an RCT value says so."""
    done = run_cli("solve", "0*5", "--quiet", "--store", str(store), timeout=300)
    assert done.returncode == 0, done.stderr
    _, view = api(web, "0*5")
    assert view["lands"][0]["status"] in ("claimed", "verified")
    if view["lands"][0]["status"] == "claimed":
        assert view["nimber_status"] == "claimed" and view["outcome_status"] == "claimed"
    # misère from the shipped table: a claim unless its positions were re-derived
    assert view["rct_source"] == "table" and view["rct_provenance"]["table"]
    table = "verified" if view["rct_provenance"]["verified"] else "claimed"
    assert view["misere_source"] == "rct" and view["misere_status"] == table
    assert view["lands"][0]["r1"] is not None
    both = {table, view["lands"][0]["nimber_status"]} == {"verified"}
    assert view["lands"][0]["r1_status"] == ("verified" if both else "claimed")
    _, empty = api(web, "!")
    assert (empty["outcome"], empty["outcome_source"], empty["outcome_status"]) == (
        "L",
        "rules",
        "verified",
    )


def documented(schema: dict[str, Any], value: dict[str, Any], where: str) -> list[str]:
    """Fields of a real report the OpenAPI schema does not explain."""
    missing = []
    props = schema.get("properties", {})
    for name, field in value.items():
        spec = props.get(name)
        if spec is None or not spec.get("description"):
            missing.append(f"{where}.{name}")
            continue
        if name in ("lands", "children") and field:
            missing += documented(spec["items"], field[0], f"{where}.{name}[]")
    return missing


def test_index_and_openapi_explain_every_field(web: WebProcess) -> None:
    for path in ("api/v1/", "api/v1"):
        status, index = fetch(web.url + path)
        assert status == 200 and "/api/v1/openapi.json" in index["endpoints"]
    status, spec = fetch(web.url + "api/v1/openapi.json")
    assert status == 200 and spec["openapi"].startswith("3.")
    schema = spec["paths"]["/api/v1/position"]["get"]["responses"]["200"]["content"][
        "application/json"
    ]["schema"]
    for position in ("0*8", "0*6", "0*5+0.AB|AB"):
        _, view = api(web, position)
        assert documented(schema, view, position) == []
    props = schema["properties"]
    for name in ("nimber_source", "misere_source", "children_note", "outcome_status"):
        assert len(props[name]["description"]) > 40, name
    r1 = props["lands"]["items"]["properties"]["r1"]["description"]
    assert "not missing data" in r1


def test_a_pos_rct_claim_naming_a_missing_rct_is_answered(tmp_path: Path) -> None:
    """The store maps 0*9 (outside the shipped table) to an RCT it does not hold: every
    position is still answered with a status code, the trouble named, the rest shown."""
    from sproutsdb.solver.ports.proofstore import FactKind
    from sproutsdb.solver.sprouts.canon import CANON_VERSION
    from sproutsdb.store import LmdbProofStore

    path = tmp_path / "store"
    done = run_cli("solve", "0*4", "--quiet", "--store", str(path), timeout=300)
    assert done.returncode == 0, done.stderr
    with LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION) as store:
        store.put(FactKind.POS_RCT, {"0*9": MISSING_RCT})  # a claim, as an import would
        assert store.get_records(FactKind.POS_RCT, ["0*9"])["0*9"].status.value == "claimed"
    server = WebProcess(path)
    try:
        for position in ("0*9", "0*9+0*4", "0*10", "0*4"):
            status, view = api(server, position)
            assert status == 200, (position, view)
        _, view = api(server, "0*9")
        assert view["rct"] is None and MISSING_RCT in view["rct_problem"]
        assert view["lands"][0]["rct_problem"] and view["misere"] is None
        _, view = api(server, "0*9+0*4")
        by_land = {x["land"]: x for x in view["lands"]}
        assert MISSING_RCT in by_land["0*9"]["rct_problem"]
        assert by_land["0*4"]["nimber"] is not None and by_land["0*4"]["rct_problem"] is None
        _, view = api(server, "0*10")  # 0*9 is no child of 0*10, but 0*9's land problems
        assert view["children"]  # never spoil the listing
        with urllib.request.urlopen(server.url + "api/v1/health", timeout=30) as reply:
            assert reply.status == 200  # the server is still up
    finally:
        server.stop()
    assert server.proc.returncode == 0
    assert "Traceback" not in (server.proc.stdout.read() if server.proc.stdout else "")


def test_a_verified_misere_loss_makes_every_child_a_misere_win(tmp_path: Path) -> None:
    """0*4 is a misère loss: once `check --misere` verified its stored node, each child is a
    misère win (inferred) with a stored losing reply; 0*5 is a win by its move to a
    verified loss. Unchecked nodes stay claims."""
    path = tmp_path / "store"
    for args in (["solve", "0*4", "--misere"], ["solve", "0*5", "--misere"]):
        done = run_cli(*args, "--quiet", "--store", str(path), "--no-rct-table", timeout=300)
        assert done.returncode == 0, done.stderr
    server = WebProcess(path, "--no-table")
    try:
        _, before = api(server, "0*4")
        assert (before["misere"], before["misere_status"]) == ("L", "claimed")
        assert all(c["misere_source"] != "inferred" for c in before["children"])
        done = run_cli(
            "check",
            "--misere",
            "--root",
            "0*4",
            "--store",
            str(path),
            "--no-rct-table",
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        _, view = api(server, "0*4")
        assert (view["misere"], view["misere_source"], view["misere_status"]) == (
            "L",
            "stored",
            "verified",
        )
        assert view["proof"]["misere"]["refuted"] == len(view["children"]) > 0
        for child in view["children"]:
            assert (child["misere"], child["misere_status"]) == ("W", "verified")
            assert child["winning_misere"] is False
            reply = child["reply_misere"]
            assert reply["position"] in cli_children(child["position"]), reply
            _, alone = api(server, reply["position"])
            assert alone["misere"] == "L"
        # 0*5, a misère win: its losing child is only claimed, so nothing is inferred yet
        _, five = api(server, "0*5")
        assert five["misere"] is None and five["proof"]["misere"] is None
        done = run_cli(
            "check",
            "--misere",
            "--root",
            "0*5",
            "--store",
            str(path),
            "--no-rct-table",
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        _, five = api(server, "0*5")
        assert (five["misere"], five["misere_source"], five["misere_status"]) == (
            "W",
            "inferred",
            "verified",
        )
        move = five["proof"]["misere"]["move"]
        assert move in cli_children("0*5") and five["proof"]["misere"]["move_status"] == "verified"
        assert "a verified loss" in five["inferred_from"]["misere"]
        (land,) = five["lands"]  # one land: its row says what the summary says
        assert (land["misere"], land["misere_source"], land["misere_status"]) == (
            "W",
            "inferred",
            "verified",
        )
    finally:
        server.stop()
