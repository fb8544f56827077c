"""Trust (issue 18): the server's verifier refutes false claims and verifies true ones, a
claim never blocks a proof, readers choose their trust, tokens have names and limits.
Real `sproutsdb serve` subprocesses on 127.0.0.1, real LMDB stores in temp dirs."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from service_support import ServerProcess, run_cli
from sproutsdb.client import AccessDeniedError, Client, ServiceError
from sproutsdb.facts import Status
from sproutsdb.ops import verifier as verifier_module
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame
from verifier_support import drain, open_store

HONEST = "honest-secret-0123456789abcdef"
EVE = "eve-secret-0123456789abcdef0000"
READER = "reader-secret-0123456789abcdef00"
SLOW = "slow-secret-0123456789abcdef0000"
DEADLINE = 30.0  # seconds a verdict may take on a loaded machine (typically well under 5)


def _token_files(base: Path) -> dict[str, Path]:
    book = base / "tokens"
    book.write_text(
        f"# the server's tokens\nhonest:{HONEST}\neve:{EVE}\n"
        f"reader:{READER}:ro\nslow:{SLOW}:rate=1,batch=2\n"
    )
    files = {"book": book}
    for name, secret in (("honest", HONEST), ("eve", EVE)):
        files[name] = base / f"{name}.token"
        files[name].write_text(f"{name}:{secret}\n")
    return files


def _wait_for(what: str, probe: Callable[[], Any], timeout: float = DEADLINE) -> Any:
    """Poll `probe` until it returns something truthy (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got:
            return got
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout} s: {what}")
        time.sleep(0.2)


def _record(client: Client, key: str) -> Any:
    return client.lookup([key], with_records=True).records[FactKind.NIMBER][0]


def _status(client: Client, key: str) -> Status | None:
    record = _record(client, key)
    return None if record is None else record.status


@pytest.fixture(scope="module")
def below_0x10() -> dict[str, int]:
    """The nimber facts an honest solve of 0*10 stores, without 0*10 and 0*3 themselves."""
    game = SproutsGame()
    memory = MemoryProofStore()
    assert NormalSolver(game, memory).nimber(game.canonical("0*10")) == 1
    facts = dict(memory._facts[FactKind.NIMBER])  # the test's own store
    for key in ("0*10", "0*3"):
        facts.pop(game.canonical(key), None)
    return facts  # type: ignore[return-value]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[ServerProcess, dict[str, Path]]]:
    files = _token_files(tmp_path)
    with ServerProcess(tmp_path / "store", "--no-seed", "--token-file", str(files["book"])) as proc:
        yield proc, files
        assert proc.stop() == 0


def test_false_claims_are_refuted_and_never_block_a_proof(
    server: tuple[ServerProcess, dict[str, Path]], below_0x10: dict[str, int]
) -> None:
    proc, files = server
    with Client(proc.address, HONEST) as honest, Client(proc.address, EVE) as eve:
        honest.insert(FactKind.NIMBER, below_0x10)
        # every honest claim becomes verified (the true claims of this test)
        _wait_for(
            "honest claims verified",
            lambda: honest.stats()["verified"]["nimber"] == len(below_0x10),
        )
        start = time.monotonic()
        eve.insert(FactKind.NIMBER, {"0*10": 7, "0*3": 0})
        _wait_for(
            "both false claims refuted",
            lambda: (
                _status(honest, "0*10") is Status.REFUTED
                and _status(honest, "0*3") is Status.REFUTED
            ),
        )
        refuted_after = time.monotonic() - start
        print(f"both false claims refuted {refuted_after:.2f} s after the insert")
        assert refuted_after < DEADLINE
        assert honest.get(FactKind.NIMBER, ["0*10", "0*3"]) == {}  # never served as values
        stats = honest.stats()
        assert stats["refuted"]["nimber"] == 2 and stats["verifier"]["backlog"] == 0
        assert stats["claimed"]["nimber"] == 0

    done = run_cli("query", "0*10", "--server", proc.address, "--json")
    assert done.returncode == 0, done.stderr
    land = json.loads(done.stdout)["lands"][0]
    assert land["status"] == "refuted" and land["nimber"] is None and land["claimed"] == 7
    assert land["refutation"]["proven"] == 1 and "0*10 + *1" in land["refutation"]["evidence"]
    assert land["claimed_by"]["token"] == "eve"
    assert land["refuted_by"]["tool"] == "sproutsdb verifier"
    done = run_cli("query", "0*3", "--server", proc.address)
    assert done.returncode == 0 and "REFUTED" in done.stdout and "rules" in done.stdout

    solved = run_cli(
        "solve",
        "0*10",
        "--server",
        proc.address,
        "--json",
        "--quiet",
        "--token-file",
        str(files["honest"]),
        timeout=300,
    )
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["nimber"] == 1
    with Client(proc.address) as reader:
        record = _wait_for(
            "0*10 = 1 verified",
            lambda: r if (r := _record(reader, "0*10")) and r.status is Status.VERIFIED else None,
        )
        assert record.value == 1
        looked = reader.lookup(["0*10"], with_records=True)
        assert looked.provenance[record.provenance].token == "honest"
    text = run_cli("query", "0*10", "--server", proc.address)
    assert "nimber 1 (verified" in text.stdout and "honest" in text.stdout


def test_a_contested_claim_yields_to_the_proof_and_missing_children_wait(
    server: tuple[ServerProcess, dict[str, Path]],
) -> None:
    proc, files = server
    with Client(proc.address, EVE) as eve, Client(proc.address, HONEST) as honest:
        eve.insert(FactKind.NIMBER, {"0*7": 3})  # false: 0*7 is a loss, nimber 0
        honest.insert(FactKind.NIMBER, {"0*6": 0})  # true, but nothing below it is stored
        _wait_for(  # both tried by the verifier (not a fixed sleep)
            "both claims tried and left waiting",
            lambda: honest.stats()["verifier"]["waiting"] == 2,
        )
        assert _status(honest, "0*7") is Status.CLAIMED  # nothing below: undecided
        assert _status(honest, "0*6") is Status.CLAIMED
        assert honest.stats()["verifier"]["waiting"] == 2
        assert honest.get(FactKind.NIMBER, ["0*7"], verified_only=True) == {}
        assert honest.get(FactKind.NIMBER, ["0*7"]) == {"0*7": 3}  # claims too, if asked

    for position, nimber in (("0*7", 0), ("0*6", 0)):
        solved = run_cli(
            "solve",
            position,
            "--server",
            proc.address,
            "--json",
            "--quiet",
            "--token-file",
            str(files["honest"]),
            timeout=300,
        )
        assert solved.returncode == 0, solved.stderr  # the claim 0*7 = 3 stopped nothing
        assert json.loads(solved.stdout)["nimber"] == nimber

    with Client(proc.address) as reader:
        _wait_for(
            "0*6 verified once a solver supplied the facts below it",
            lambda: _status(reader, "0*6") is Status.VERIFIED,
        )
        record = _wait_for(
            "0*7 = 0 replaced the refuted claim and is verified",
            lambda: r if (r := _record(reader, "0*7")) and r.status is Status.VERIFIED else None,
        )
        assert record.value == 0
        refuted = reader.stats()["refuted"]["nimber"]
        assert refuted == 1


def test_tokens_have_names_read_only_and_limits(
    server: tuple[ServerProcess, dict[str, Path]],
) -> None:
    proc, _ = server
    with Client(proc.address, READER) as reader:
        assert reader.get(FactKind.NIMBER, ["0*2"]) == {}  # reads are open
        with pytest.raises(AccessDeniedError, match="read-only"):
            reader.insert(FactKind.NIMBER, {"0*2": 0})
    with Client(proc.address, SLOW) as slow:
        with pytest.raises(ServiceError, match="the limit is 2"):
            slow.insert(FactKind.NIMBER, {"0*1": 0, "0*2": 0, "1": 0})
        codes = []
        for _ in range(3):
            try:
                slow.insert(FactKind.NIMBER, {"0*2": 0})
                codes.append("ok")
            except ServiceError as error:
                codes.append(str(error.code))
        assert "StatusCode.RESOURCE_EXHAUSTED" in codes
    log = proc.log.read_text()
    assert HONEST not in log and EVE not in log and READER not in log and SLOW not in log


# --- the verifier and the store, in process (real LMDB in tmp_path) -----------------------


def _open(path: Path) -> Any:
    return open_store(path)


def _drain(verifier: Any, steps: int = 500) -> None:
    drain(verifier, steps)


def test_an_unverified_claim_never_refutes_another(tmp_path: Path) -> None:
    from sproutsdb.ops.verifier import Verifier

    game = SproutsGame()
    root = game.canonical("0*6")  # a loss: nimber 0, so no option of it has nimber 0
    child = next(
        parts[0]
        for parts in game.component_children(root)
        if len(parts) == 1 and game.size(parts[0]) > 12
    )
    with _open(tmp_path / "s") as store:
        # the false claim child = 0 would make 0*6 = 0 look inconsistent, were it trusted
        store.put(FactKind.NIMBER, {root: 0, child: 0})
        verifier = Verifier(store)
        _drain(verifier)
        records = store.get_records(FactKind.NIMBER, [root, child], refuted=True)
        assert records[root].status is Status.CLAIMED  # waits: nothing below is verified
        assert records[child].status is Status.CLAIMED
        assert verifier.figures()["waiting"] == 2


def test_a_refuted_claim_keeps_its_evidence_and_verified_facts_are_write_once(
    tmp_path: Path,
) -> None:
    with _open(tmp_path / "s") as store:
        store.put(FactKind.NIMBER, {"0*3": 0})
        store.put(FactKind.NIMBER, {"0*2": 0}, verified=True)
        assert store.refute(FactKind.NIMBER, "0*2", 0, evidence="x") == "verified"
        assert store.refute(FactKind.NIMBER, "0*3", 5, evidence="x") == "changed"
        assert store.refute(FactKind.NIMBER, "0*3", 0, evidence="mex 1", proven=1) == "refuted"
        assert store.get(FactKind.NIMBER, ["0*3", "0*2"]) == {"0*2": 0}
        record = store.get_records(FactKind.NIMBER, ["0*3"], refuted=True)["0*3"]
        assert record.status is Status.REFUTED and record.value == 0
        assert record.refutation is not None and record.refutation.proven == 1
        assert store.stats()["refuted"]["nimber"] == 1 and store.count(FactKind.NIMBER) == 1
        assert store.put(FactKind.NIMBER, {"0*3": 1}).inserted == 1  # the proof replaces it
        assert [r.claimed for r in store.refutations(FactKind.NIMBER, ["0*3"])["0*3"]] == [0]


def test_a_store_made_before_refutations_opens_read_only(tmp_path: Path) -> None:
    import shutil

    from sproutsdb.store import LmdbProofStore

    fixture = Path(__file__).parent / "fixtures" / "v1_store"
    (tmp_path / "v1").mkdir()
    shutil.copy(fixture / "data.mdb", tmp_path / "v1" / "data.mdb")
    with LmdbProofStore.open(
        tmp_path / "v1", game="sprouts", canon_version=1, readonly=True
    ) as store:
        keys = [k for k, _ in store.iter_facts(FactKind.NIMBER)][:5]
        records = store.get_records(FactKind.NIMBER, keys, refuted=True)
        assert len(records) == 5 and store.stats()["refuted"]["nimber"] == 0
    assert (fixture / "data.mdb").read_bytes() == (tmp_path / "v1" / "data.mdb").read_bytes()


def test_claims_stored_before_the_verifier_started_are_found_and_verified(tmp_path: Path) -> None:
    from sproutsdb.ops.verifier import Verifier

    game = SproutsGame()
    memory = MemoryProofStore()
    NormalSolver(game, memory).nimber(game.canonical("0*8"))
    with _open(tmp_path / "s") as store:
        store.put(FactKind.NIMBER, dict(memory._facts[FactKind.NIMBER]))
        verifier = Verifier(store)  # as after a restart: nobody notifies it of these
        _drain(verifier)
        assert store.stats()["verified"]["nimber"] == store.count(FactKind.NIMBER) > 0
        assert verifier.figures()["backlog"] == 0 and not verifier.figures()["scanning"]


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="per-thread priority: Linux")
def test_the_verifier_thread_runs_below_the_servers_priority() -> None:
    """Re-deriving claims is background work: its thread lowers its own CPU priority, so a
    server's requests and the solvers on its machine go first; other threads keep theirs."""
    seen: dict[str, int] = {}

    def in_thread() -> None:
        me = threading.get_native_id()
        before = os.getpriority(os.PRIO_PROCESS, me)
        verifier_module._run_in_background()
        seen["before"], seen["after"] = before, os.getpriority(os.PRIO_PROCESS, me)

    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join(10)
    assert seen["after"] == min(19, seen["before"] + verifier_module.BACKGROUND_NICENESS)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == seen["before"]
