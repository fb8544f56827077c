"""Cram and circular stores through export, import, query and a server (issue 72): the game
comes from the store or the server, never from a --game the user must repeat; an export
imports into a new store made for its game, and a --game or store of another game is
refused in one line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from service_support import ServerProcess, run_cli
from sproutsdb.store.opening import peek_identity

# (game, a root solved into the store, its canonical key, its nimber, a position solved on
# a server of the game, its nimber): Cram 5x5 (a second's solve) is a second-player win;
# circular CS(3,1,5,1) is Theorem 5.1's 2p = 4 and CS(1,1,2,1) Lemma 5.3's 2
# (docs/circular-sprouts.md).
GAMES = [
    pytest.param("cram", "5x5", "5x5", 0, "4x5", 2, id="cram"),
    pytest.param("circular", "CS(3,1,5,1)", "CS(1,3,1,5)", 4, "CS(1,1,2,1)", 2, id="circular"),
]
OTHER = {"cram": "circular", "circular": "cram"}


def ok(result: subprocess.CompletedProcess[str]) -> str:
    """The stdout of a command that succeeded."""
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def one_line_error(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The one stderr line of a command refused with exit 2, naming every needle."""
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def values(report: dict[str, Any]) -> dict[str, Any]:
    """What a query says of a position, wherever it was asked: its key, nimber, outcome
    and each land's nimber."""
    lands = {land["land"]: land["nimber"] for land in report["lands"]}
    return {k: report[k] for k in ("position", "nimber", "outcome")} | {"lands": lands}


def query(position: str, *where: str) -> dict[str, Any]:
    """`sproutsdb query POSITION --json` on a --store or --server, without --game."""
    report: dict[str, Any] = json.loads(ok(run_cli("query", position, *where, "--json")))
    return values(report)


@pytest.mark.parametrize(("game", "root", "key", "nimber", "served", "served_nimber"), GAMES)
def test_an_export_imports_into_a_new_store_of_its_game(
    tmp_path: Path, game: str, root: str, key: str, nimber: int, served: str, served_nimber: int
) -> None:
    store, copy, out = tmp_path / "solved", tmp_path / "copy", tmp_path / f"{game}.spdbx"
    ok(run_cli("solve", root, "--game", game, "--store", str(store), "--quiet"))
    before = query(root, "--store", str(store))  # the store's game: no --game
    assert (before["position"], before["nimber"]) == (key, nimber)
    exported = json.loads(ok(run_cli("export", "--store", str(store), "--out", str(out), "--json")))
    imported = json.loads(ok(run_cli("import", str(out), "--store", str(copy), "--json")))
    assert imported["inserted"] == sum(exported["counts"].values()) > 0
    assert imported["conflicts"] == 0 and imported["recanonicalised"] == 0
    assert peek_identity(copy).game == game  # made for the export's game
    assert query(root, "--store", str(copy)) == before
    again = json.loads(ok(run_cli("import", str(out), "--store", str(copy), "--json")))
    assert (again["inserted"], again["unchanged"]) == (0, imported["inserted"])
    # the copy exports the same facts again: a round trip
    back = tmp_path / "back.spdbx"
    exported_again = ok(run_cli("export", "--store", str(copy), "--out", str(back), "--json"))
    assert json.loads(exported_again)["counts"] == exported["counts"]


@pytest.mark.parametrize(("game", "root", "key", "nimber", "served", "served_nimber"), GAMES)
def test_another_game_is_refused_in_one_line(
    tmp_path: Path, game: str, root: str, key: str, nimber: int, served: str, served_nimber: int
) -> None:
    store, other, out = tmp_path / "solved", tmp_path / "other", tmp_path / f"{game}.spdbx"
    ok(run_cli("solve", root, "--game", game, "--store", str(store), "--quiet"))
    ok(run_cli("export", "--store", str(store), "--out", str(out)))
    ok(run_cli("solve", "!", "--game", OTHER[game], "--store", str(other), "--quiet"))
    one_line_error(
        run_cli("import", str(out), "--store", str(other)),
        f"holds '{game}' facts and the store at {other} holds '{OTHER[game]}' facts",
    )
    one_line_error(
        run_cli("import", str(out), "--store", str(tmp_path / "new"), "--game", OTHER[game]),
        f"holds '{game}' facts, not '{OTHER[game]}' facts",
    )
    assert not (tmp_path / "new").exists()  # refused before a store was made
    for command in (
        ("query", root, "--store", str(store)),
        ("export", "--store", str(store), "--out", str(tmp_path / "no.spdbx")),
        ("import", str(out), "--store", str(store)),
        ("nimber", root, "--store", str(store)),
    ):
        one_line_error(
            run_cli(*command, "--game", "sprouts"),
            f"--game sprouts disagrees with the store at {store}, which holds {game} positions",
        )
    assert not (tmp_path / "no.spdbx").exists()


@pytest.mark.parametrize(("game", "root", "key", "nimber", "served", "served_nimber"), GAMES)
def test_solve_and_query_through_a_server_of_the_game(
    tmp_path: Path, game: str, root: str, key: str, nimber: int, served: str, served_nimber: int
) -> None:
    """A store imported from an export is served; the commands ask the server its game."""
    store, copy, out = tmp_path / "solved", tmp_path / "copy", tmp_path / f"{game}.spdbx"
    ok(run_cli("solve", root, "--game", game, "--store", str(store), "--quiet"))
    ok(run_cli("export", "--store", str(store), "--out", str(out)))
    ok(run_cli("import", str(out), "--store", str(copy)))
    local = query(root, "--store", str(store))
    with ServerProcess(copy, "--no-seed") as server:
        where = ("--server", server.address)
        assert query(root, *where) == local
        solved = json.loads(ok(run_cli("solve", served, *where, "--json", "--quiet")))
        assert solved["nimber"] == served_nimber
        assert solved["outcome"] == ("L" if served_nimber == 0 else "W")
        again = json.loads(ok(run_cli("solve", root, *where, "--json", "--quiet")))
        assert (again["position"], again["nimber"], again["stored"]) == (key, nimber, 0)
        line = ok(run_cli("nimber", served, *where, "--json", "--quiet"))
        assert json.loads(line)["nimber"] == served_nimber
        assert query(served, *where)["nimber"] == served_nimber
        for command in ("solve", "query", "nimber"):
            one_line_error(
                run_cli(command, root, *where, "--game", "sprouts"),
                f"--game sprouts disagrees with server {server.address}, "
                f"which holds {game} positions",
            )
        pulled = tmp_path / "pulled"
        ok(run_cli("pull", "--server", server.address, "--all", "--store", str(pulled), "--quiet"))
    assert peek_identity(pulled).game == game  # a new store takes the peer's game
    assert query(root, "--store", str(pulled)) == local
