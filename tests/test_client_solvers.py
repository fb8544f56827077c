"""Solvers sharing one server: overlapping searches at once, and RemoteProofStore in-process.

Two `sproutsdb` solver processes prove overlapping positions at the same time against one
server. Both must succeed without a conflict, and every nimber the server then holds must
equal the nimber an independent in-memory solve gives.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sproutsdb.client import Client, RemoteProofStore
from sproutsdb.solver.normal import NormalSolver
from sproutsdb.solver.proofstore import FactKind, MemoryProofStore, ProofStore
from sproutsdb.solver.sprouts.game import SproutsGame
from test_service_support import COMMAND, ServerProcess, child_env


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path / "store", "--no-seed") as proc:
        yield proc


def test_two_solvers_at_once_end_with_identical_conflict_free_facts(server: ServerProcess) -> None:
    jobs = [
        ["solve", "0*7", "--json", "--quiet"],
        ["nimber", "0*6", "0*7", "2ab2ba", "--json", "--quiet"],
    ]
    procs = [subprocess.Popen([*COMMAND, *job, "--server", server.address],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=child_env()) for job in jobs]
    try:
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (out, err) in zip(procs, outputs):
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
        result = store.put(FactKind.NIMBER, {"0*6": 1, "0*5": 1})
        assert [(c.key, c.stored, c.offered) for c in result.conflicts] == [("0*6", 0, 1)]
    with RemoteProofStore(server.address) as fresh:  # a second solver starts from the facts
        again = NormalSolver(game, fresh)
        assert again.nimber("0*6") == 0
        again.flush()
        assert again.stats.facts_stored == 0
