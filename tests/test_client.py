"""The client's behaviour at the edges: retries, an unreachable server, the CLI over gRPC."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from pathlib import Path

import pytest

from service_support import ServerProcess, build_table, run_cli
from sproutsdb.client import Client, ServerUnavailableError
from sproutsdb.solver.ports.proofstore import FactKind


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unavailable_is_retried_until_the_server_is_up(tmp_path: Path) -> None:
    port = free_port()
    server = ServerProcess(tmp_path / "store", "--no-seed", listen=f"127.0.0.1:{port}")
    starter = threading.Thread(target=lambda: (time.sleep(0.3), server.start()))
    try:
        starter.start()
        with Client(f"127.0.0.1:{port}", retries=12, timeout=20) as c:
            assert c.server_info()["game"] == "sprouts"  # first attempts: refused
        starter.join(60)
    finally:
        starter.join(60)
        server.kill()


def test_unreachable_server_is_one_clear_line(tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    with (
        Client(address, retries=2, timeout=5) as c,
        pytest.raises(ServerUnavailableError, match="not answering"),
    ):
        c.get(FactKind.NIMBER, ["0*2"])
    for args in (["query", "0*2"], ["stats"], ["solve", "0*3", "--quiet"]):
        done = run_cli(*args, "--server", address, timeout=60)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert f"server {address} is not answering" in done.stderr


def test_cli_query_and_stats_over_grpc(tmp_path: Path) -> None:
    table = build_table("0*4", tmp_path / "s4.rcttable")
    with ServerProcess(tmp_path / "store", "--seed", str(table)) as server:
        solved = run_cli("solve", "0*4", "--server", server.address, "--quiet")
        assert solved.returncode == 0, solved.stderr
        done = run_cli("query", "0.0.0.0.}]!", "--server", server.address, "--json")
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert (report["position"], report["nimber"], report["outcome"]) == ("0*4", 1, "W")
        assert report["misere"]["rct"] and report["misere"]["outcome"] in ("W", "L")
        text = run_cli("query", "0*4", "--server", server.address).stdout
        # claimed, or already verified by the server's verifier (0*4 is decided by the rules)
        assert re.search(r"land 0\*4: nimber 1 \((claimed|verified);", text), text
        assert "misère: outcome" in text
        stats = run_cli("stats", "--server", server.address, "--json")
        assert stats.returncode == 0, stats.stderr
        report = json.loads(stats.stdout)
        assert report["facts"]["pos_rct"] == 1505 and report["facts"]["nimber"] > 0
        assert report["server"]["rct_tables"][0]["root"] == "0*4"
        human = run_cli("stats", "--server", server.address).stdout
        assert "requests" in human and "commits" in human
        bad = run_cli("query", "AB|A", "--server", server.address)
        assert bad.returncode == 2 and "seen once" in bad.stderr
