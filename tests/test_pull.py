"""`sproutsdb pull` from two real servers: an honest peer's facts all become verified
here; a peer that serves one wrong nimber (forged into its store as a claim, served with
its verifier off) gets that fact refuted, never verified, and every other fact kept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from service_support import ServerProcess, run_cli
from sproutsdb.facts import Provenance
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import open_store

FORGED = "0*2.2"  # a land of 0*7's proof small enough for the rules to decide


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("peers") / "honest"
    done = run_cli("solve", "0*7", "--quiet", "--store", str(store), timeout=300)
    assert done.returncode == 0, done.stderr
    return store


@pytest.fixture(scope="module")
def liar_store(solved: Path) -> tuple[Path, dict[str, int]]:
    """Every fact of the honest store, but FORGED's nimber is one more than the truth."""
    path = solved.parent / "liar"
    with open_store(solved, create=False, readonly=True) as honest:
        facts = dict(honest.iter_facts(FactKind.NIMBER))
    facts[FORGED] += 1
    with open_store(path) as liar:
        liar.put(FactKind.NIMBER, facts, provenance=Provenance(tool="forger"))
    return path, facts


@pytest.fixture(scope="module")
def servers(solved: Path, liar_store: tuple[Path, dict[str, int]]) -> Iterator[tuple[str, str]]:
    with (
        ServerProcess(solved, "--no-seed") as honest,
        ServerProcess(liar_store[0], "--no-seed", "--no-verify") as liar,
    ):
        yield honest.address, liar.address


def pull(*args: str) -> tuple[int, dict, str]:
    done = run_cli("pull", "--json", "--quiet", *args, timeout=300)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def test_pull_all_from_an_honest_peer_verifies_every_fact(
    servers: tuple[str, str], solved: Path, tmp_path: Path
) -> None:
    local = tmp_path / "local"
    code, report, _ = pull("--server", servers[0], "--all", "--store", str(local))
    with open_store(solved, create=False, readonly=True) as honest:
        total = honest.count(FactKind.NIMBER)
    assert code == 0
    assert report["received"] == {"nimber": total} and report["inserted"] == total
    assert report["verified"] == total and report["claimed"] == report["refuted"] == 0
    assert report["check_ok"] is True
    query = json.loads(run_cli("query", "0*7", "--json", "--store", str(local)).stdout)
    land = query["lands"][0]
    assert land["status"] == "verified" and land["nimber"] == 0
    assert f"from server {servers[0]}" in land["provenance"]  # provenance names the peer
    again = pull("--server", servers[0], "--all", "--store", str(local))[1]
    assert again["inserted"] == 0 and again["unchanged"] == total  # idempotent


def test_a_forged_nimber_is_refuted_never_verified_and_nothing_else_is_lost(
    servers: tuple[str, str], liar_store: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    facts = liar_store[1]
    local = tmp_path / "local"
    code, report, stderr = pull("--server", servers[1], "--all", "--store", str(local))
    assert code == 1 and "1 fact(s)" in stderr and len(stderr.splitlines()) == 1
    assert report["refuted"] == 1 and report["verified"] == len(facts) - 1
    with open_store(local, create=False, readonly=True) as store:
        records = store.get_records(FactKind.NIMBER, list(facts), refuted=True)
        forged = records[FORGED]
        assert forged.status.value == "refuted" and forged.value == facts[FORGED]
        assert store.get(FactKind.NIMBER, [FORGED]) == {}  # never served as a fact
        kept = {k: r.value for k, r in records.items() if k != FORGED}
        assert kept == {k: v for k, v in facts.items() if k != FORGED}
        assert all(r.status.value == "verified" for k, r in records.items() if k != FORGED)


def test_pull_root_fetches_the_proof_and_refutes_the_forgery(
    servers: tuple[str, str], tmp_path: Path
) -> None:
    honest = tmp_path / "honest"
    code, report, _ = pull("--server", servers[0], "--root", "0*7", "--store", str(honest))
    assert code == 0 and report["root"] == "0*7" and report["check_ok"] is True
    assert report["verified"] == report["received"]["nimber"] > 0
    check = run_cli("check", "--root", "0*7", "--store", str(honest))
    assert check.returncode == 0, check.stdout

    lied = tmp_path / "lied"
    code, report, _ = pull("--server", servers[1], "--root", "0*7", "--store", str(lied))
    assert code == 1 and report["refuted"] == 1
    with open_store(lied, create=False, readonly=True) as store:
        assert store.get(FactKind.NIMBER, [FORGED]) == {}


def test_bad_requests_are_one_line(servers: tuple[str, str], tmp_path: Path) -> None:
    for args in (
        ["--all"],  # no --server
        ["--server", servers[0]],  # neither --root nor --all
        ["--server", servers[0], "--all", "--root", "0*7"],
        ["--server", "127.0.0.1:1", "--all"],  # nobody there
    ):
        done = run_cli("pull", *args, "--store", str(tmp_path / "s"), timeout=120)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_pull_into_the_store_another_server_serves(
    servers: tuple[str, str], solved: Path, tmp_path: Path
) -> None:
    """The issue's two-server case: one server's facts pulled into the store a second server
    is serving are checked by the pull, and that server serves them as verified."""
    served = tmp_path / "served"
    assert run_cli("solve", "0*3", "--quiet", "--store", str(served)).returncode == 0
    with ServerProcess(served, "--no-seed") as second:
        code, report, _ = pull("--server", servers[0], "--all", "--store", str(served))
        assert code == 0 and report["refuted"] == 0
        assert report["verified"] == report["inserted"] + report["unchanged"] > 0
        done = run_cli("query", "0*7", "--json", "--server", second.address)
        land = json.loads(done.stdout)["lands"][0]
        assert land["nimber"] == 0 and land["status"] == "verified"
