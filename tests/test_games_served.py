"""Two games served side by side: a Cram store and a Sprouts store, each behind its own real
server; each answers its own game's positions and refuses the other's with INVALID_ARGUMENT
naming the game it serves (issue: two more games through every layer)."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest

from service_support import ServerProcess, run_cli
from sproutsdb.client import Client, InvalidRequestError
from test_web import WebProcess, api


def test_a_cram_and_a_sprouts_server_side_by_side(tmp_path: Path) -> None:
    with (
        ServerProcess(tmp_path / "cram", "--game", "cram", "--no-seed") as cram,
        ServerProcess(tmp_path / "sprouts", "--no-seed") as sprouts,
    ):
        assert run_cli("nimber", "4x5", "--game", "cram", "--server", cram.address).returncode == 0
        assert run_cli("nimber", "0*5", "--server", sprouts.address).returncode == 0
        with Client(cram.address) as db:
            assert db.server_info()["game"] == "cram"
            assert db.get("nimber", ["4x5"]) == {"4x5": 2}
            with pytest.raises(InvalidRequestError, match="this server holds cram positions") as no:
                db.get("nimber", ["0*5"])
            assert no.value.code == grpc.StatusCode.INVALID_ARGUMENT
        with Client(sprouts.address) as db:
            assert db.server_info()["game"] == "sprouts"
            assert db.get("nimber", ["0*5"]) == {"0*5": 1}
            with pytest.raises(InvalidRequestError, match="holds sprouts positions") as no:
                db.get("nimber", ["4x5"])
            assert no.value.code == grpc.StatusCode.INVALID_ARGUMENT
        # the command line says the same in one line, exit 2
        crossed = run_cli("nimber", "0*5", "--server", cram.address)
        assert crossed.returncode == 2 and "cram" in crossed.stderr
        assert "Traceback" not in crossed.stderr


@pytest.mark.parametrize(
    ("game", "root", "nimber"), [("cram", "4x5", 2), ("circular", "CS(3,1,5,1)", 4)]
)
def test_check_and_web_take_the_stores_game(
    tmp_path: Path, game: str, root: str, nimber: int
) -> None:
    """A store records its game: check (root, pruned, --all with workers) and the page work
    on it without being told."""
    store, pruned = tmp_path / game, tmp_path / f"{game}-proof"
    assert run_cli("solve", root, "--game", game, "--store", str(store)).returncode == 0
    checked = run_cli("check", "--root", root, "--store", str(store), "--prune", str(pruned))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    again = run_cli("check", "--root", root, "--store", str(pruned), "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["nimber"] == nimber
    whole = run_cli("check", "--all", "--jobs", "2", "--store", str(store), "--json")
    assert whole.returncode == 0, whole.stdout + whole.stderr
    page = WebProcess(store)
    try:
        status, view = api(page, root)
        assert status == 200 and view["lands"][0]["nimber"] == nimber
        assert view["lands"][0]["nimber_status"] == "verified"  # marked by the checks above
    finally:
        page.stop()
