"""Two games served side by side: a Cram store and a Sprouts store, each behind its own real
server; each answers its own game's positions and refuses the other's with INVALID_ARGUMENT
naming the game it serves (issue: two more games through every layer)."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from service_support import ServerProcess, run_cli
from sproutsdb.client import Client, InvalidRequestError


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
