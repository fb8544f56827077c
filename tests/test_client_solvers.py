"""Solvers sharing one server: overlapping searches at once, RemoteProofStore in-process, and
a misère solve whose losing nodes with RCT parts are stored on the server.

Two `sproutsdb` solver processes prove overlapping positions at the same time against one
server. Both must succeed without a conflict, and every nimber the server then holds must
equal the nimber an independent in-memory solve gives.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service_support import COMMAND, ServerProcess, build_table, child_env, run_cli
from sproutsdb.client import Client, RemoteProofStore
from sproutsdb.solver.misere.keys import split_node_key
from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore, ProofStore
from sproutsdb.solver.sprouts.game import SproutsGame


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path / "store", "--no-seed") as proc:
        yield proc


def test_two_solvers_at_once_end_with_identical_conflict_free_facts(server: ServerProcess) -> None:
    jobs = [
        ["solve", "0*7", "--json", "--quiet"],
        ["nimber", "0*6", "0*7", "2ab2ba", "--json", "--quiet"],
    ]
    procs = [
        subprocess.Popen(
            [*COMMAND, *job, "--server", server.address],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=child_env(),
        )
        for job in jobs
    ]
    try:
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (_out, err) in zip(procs, outputs):
        assert p.returncode == 0, err  # 3 would be a conflict
    solved = json.loads(outputs[0][0])
    assert (solved["position"], solved["nimber"]) == ("0*7", 0)
    nimbers = {r["position"]: r["nimber"] for r in map(json.loads, outputs[1][0].splitlines())}
    assert nimbers == {"0*6": 0, "0*7": 0, "2ab2ba": 3}

    with Client(server.address) as a, Client(server.address) as b:
        facts_a = dict(a.export_facts(FactKind.NIMBER, chunk_size=250))
        facts_b = dict(b.export_facts(FactKind.NIMBER))
        stats = a.stats()
    assert facts_a == facts_b and len(facts_a) > 100
    assert stats["conflicts"] == 0 and stats["facts"]["nimber"] == len(facts_a)

    game = SproutsGame()
    reference = NormalSolver(game, MemoryProofStore())
    wrong = {land: n for land, n in facts_a.items() if reference.nimber(land) != n}
    assert not wrong


def test_remote_proof_store_serves_a_solver_in_process(server: ServerProcess) -> None:
    game = SproutsGame()
    with RemoteProofStore(server.address) as store:
        assert isinstance(store, ProofStore)
        solver = NormalSolver(game, store)
        assert solver.nimber("0*6") == 0
        solver.flush()
        assert store.remote_puts >= 1 and store.remote_gets >= 1
        stored = store.client.stats()["facts"]["nimber"]
        assert stored == solver.stats.facts_stored > 0
        before = store.remote_gets
        known = dict(store.client.export_facts(FactKind.NIMBER))
        assert store.get(FactKind.NIMBER, list(known)) == known  # all from the local cache
        assert store.remote_gets == before
        deadline = time.monotonic() + 60  # the server's verifier re-derives every claim
        while store.client.stats()["verified"]["nimber"] < stored:
            assert time.monotonic() < deadline, "claims not verified within 60 s"
            time.sleep(0.2)
        result = store.put(FactKind.NIMBER, {"0*6": 1, "0*5": 1})  # against verified facts
        assert [(c.key, c.stored, c.offered) for c in result.conflicts] == [("0*6", 0, 1)]
    with RemoteProofStore(server.address) as fresh:  # a second solver starts from the facts
        again = NormalSolver(game, fresh)
        assert again.nimber("0*6") == 0
        again.flush()
        assert again.stats.facts_stored == 0


@pytest.fixture()
def seeded(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server seeded with the RCT table of 0*4 (built for the test)."""
    table = build_table("0*4", tmp_path / "s4.rcttable")
    with ServerProcess(tmp_path / "store", "--seed", str(table)) as proc:
        yield proc


def test_a_process_streams_a_servers_rct_table_once(seeded: ServerProcess) -> None:
    """Solves of one process as clients of one server (a fleet worker's tasks) share the
    table streamed by the first, each still re-deriving the claims it uses."""
    from sproutsdb.ops.solve import misere_rct_source

    sources = []
    for _ in range(2):
        store = RemoteProofStore(Client(seeded.address))
        try:
            source, where = misere_rct_source(store)
        finally:
            store.close()
        assert where == {"source": "server", "where": seeded.address}
        sources.append(source)
    first, second = sources
    assert first is not second and first.claims.algebra is second.claims.algebra
    game = SproutsGame()
    for source in sources:  # each re-derives what it hands out: 0*2 is a land of the table
        land = game.canonical("0*2")
        assert set(source.lookup([land])) == {land}
        assert source.report.claims_used == 1 and source.report.refuted == []


def test_misere_solve_on_a_server_stores_nodes_with_rct_parts(seeded: ServerProcess) -> None:
    def solve(*args: str) -> dict[str, object]:
        done = run_cli(
            "solve", *args, "--misere", "--server", seeded.address, "--json", "--quiet", timeout=60
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    first = solve("0*6")
    assert (first["outcome"], first["play"]) == ("W", "misere")
    with Client(seeded.address) as client:
        facts = dict(client.export_facts(FactKind.MISERE))
        assert len(facts) == first["stored"] and set(facts.values()) == {"L"}
        with_rcts = sorted(key for key in facts if split_node_key(key)[2])
        assert with_rcts  # the proof of 0*6 on the S4 table needs nodes with RCT parts
        assert client.get(FactKind.MISERE, with_rcts) == dict.fromkeys(with_rcts, "L")
        table = client.rct_table()
    # every stored node is a misère loss, re-proven here from the served table
    game = SproutsGame()
    checker = MisereSolver(game, MemoryProofStore(), TableRcts(table))
    assert all(checker.node_outcome(checker.parse_node(key)) == "L" for key in facts)

    second = solve("0*6")  # reads what the first proved
    assert second["outcome"] == "W" and second["stored"] == 0
    assert second["nodes"] < first["nodes"]

    grundy = solve("0*5", "--grundy")  # 0*5 is a misère win, 0*5 + *1 a loss
    assert (grundy["grundy"], grundy["outcome"]) == (1, "W")
    with Client(seeded.address) as client:
        assert client.get(FactKind.MISERE, ["0*5 *1"]) == {"0*5 *1": "L"}
