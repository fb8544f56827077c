"""The store, solve and describe verbs (sproutsdb.ops) called directly give what the
commands give: `solve --json` and `query --json` on a real LMDB store, and on a real
server through the same verbs (one ProofStore either way)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cli_helpers import run_cli
from service_support import ServerProcess
from sproutsdb import ops
from sproutsdb.errors import UsageError
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.search.progress import Progress
from sproutsdb.store import LmdbProofStore

TIMINGS = {"seconds"}


def _cli_json(*args: str) -> Any:
    import json

    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _untimed(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in TIMINGS}


def test_a_missing_store_opened_read_only_is_one_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"no store at .*solve something first"):
        ops.open_proof_store(tmp_path / "none", readonly=True)


def test_solve_and_describe_give_what_the_commands_give(tmp_path: Path) -> None:
    verb_store, cli_store = tmp_path / "verb", tmp_path / "cli"
    store = ops.open_proof_store(verb_store)
    assert isinstance(store, LmdbProofStore)
    try:
        report = ops.solve("0*6", store)
        described = ops.describe(store, "0*6").to_json()
    finally:
        store.close()
    solved = _cli_json("solve", "0*6", "--json", "--quiet", "--store", str(cli_store))
    assert _untimed(report.to_json()) == _untimed(solved)
    assert (report.outcome, report.nimber) == ("L", 0)
    queried = _cli_json("query", "0*6", "--json", "--store", str(verb_store))
    access = queried.pop("store")  # how the command opened its store: not a value
    assert access["read_only"] and access["path"] == str(verb_store)
    assert described == queried
    reader = ops.open_proof_store(verb_store, readonly=True)
    try:
        assert ops.describe(reader, "0*6").to_json() == described
    finally:
        reader.close()


def test_a_misere_solve_on_a_memory_store(tmp_path: Path) -> None:
    store = MemoryProofStore()
    report = ops.solve("0*4", store, settings=ops.SolveSettings(misere=True))
    assert report.play == "misere" and report.outcome == "L"  # OEIS A164950
    assert report.stored == store.count(FactKind.MISERE) > 0
    assert report.to_json()["rct_table"] is None


def test_ctrl_c_keeps_what_was_proven_and_says_how_much(tmp_path: Path) -> None:
    def stop_after_a_while(progress: Progress) -> None:
        if progress.nodes > 2000:
            raise KeyboardInterrupt

    settings = ops.SolveSettings(progress=stop_after_a_while, progress_interval=0.0)
    store = ops.open_proof_store(tmp_path / "store")
    try:
        with pytest.raises(ops.SolveInterrupted) as stopped:
            ops.solve("0*12", store, settings=settings)
        assert isinstance(store, LmdbProofStore)
        kept = sum(store.count(kind) for kind in FactKind)  # flushed before it was raised
        assert stopped.value.stored == kept > 0
    finally:
        store.close()


def test_the_verbs_work_the_same_on_a_server(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "served", "--no-seed", "--no-verify") as server:
        with pytest.raises(UsageError, match="--game cram needs 'cram'"):
            ops.open_proof_store(server=server.address, game="cram")
        remote = ops.open_proof_store(server=server.address)
        try:
            assert not isinstance(remote, LmdbProofStore)
            report = ops.solve("0*5", remote)
            described = ops.describe(remote, "0*5").to_json()
        finally:
            remote.close()
        queried = _cli_json("query", "0*5", "--json", "--server", server.address)
    assert (report.outcome, report.nimber) == ("W", 1) and report.stored > 0
    assert described == queried and described["server"] == server.address
    assert described["nimber"] == 1 and described["lands"][0]["status"] == "claimed"
