"""Misère proofs trust only the rules: forged position → RCT claims and forged table entries
are refused by every command that would use them (issue: misère trust)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.formats.rcttable import load_table, make_header, table_from_positions, write_table
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.store import LmdbProofStore

EVIL = "[Rct+Rcts_children]\n0 \n1 0\n2 0 1\n3 0 1 2\n3-1-L 2\n[Position+Rct]\n0*12 3-1-L\n"


def _store(path: Path) -> LmdbProofStore:
    return LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION, durable=False)


def test_the_forged_map_of_the_issue_is_refused(tmp_path: Path) -> None:
    evil, store = tmp_path / "evil.spr", tmp_path / "evil"
    evil.write_text(EVIL)
    assert run_cli("import", str(evil), "--store", str(store)).returncode == 0
    done = run_cli("check", "--misere", "--root", "0*12", "--store", str(store), "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is False and report["outcome"] is None
    assert report["rct_claims"]["claims_used"] == 0
    assert report["rct_claims"]["not_derived_first"][0].startswith("0*12 (claimed rct1:")
    text = run_cli("check", "--misere", "--root", "0*12", "--store", str(store))
    assert text.returncode == 1
    assert "PROOF NOT VALID" in text.stdout and "0*12 (claimed rct1:" in text.stdout


@pytest.fixture(scope="module")
def genuine_0x7(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A store holding a real misère proof of 0*7 (L), and its pruned proof."""
    root = tmp_path_factory.mktemp("misere7")
    store, pruned = root / "store", root / "pruned"
    solved = run_cli("solve", "0*7", "--misere", "--store", str(store), "--json", timeout=300)
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["outcome"] == "L"  # OEIS A164950
    args = ("check", "--misere", "--root", "0*7", "--json")
    checked = run_cli(*args, "--store", str(store), "--prune", str(pruned), timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["outcome"] == "L" and report["rct_claims"]["claims_used"] > 0
    assert report["rct_claims"]["refuted"] == 0
    return store, pruned


def test_a_genuine_store_keeps_its_verdict_under_the_issues_forged_line(
    tmp_path: Path, genuine_0x7: tuple[Path, Path]
) -> None:
    """The forged line names a land too large to re-derive: it is left unused, the verdict
    is the store's genuine one."""
    _, pruned = genuine_0x7
    evil = tmp_path / "evil.spr"
    evil.write_text(EVIL.replace("0*12", "0*7"))
    copy = tmp_path / "copy"
    _copy_store(pruned, copy)
    assert run_cli("import", str(evil), "--store", str(copy)).returncode == 0
    args = ("--misere", "--root", "0*7", "--json", "--derive-rct-lives", "18")
    done = run_cli("check", *args, "--store", str(copy))
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["outcome"] == "L"
    assert report["rct_claims"]["not_derived_first"][0].startswith("0*7 (claimed rct1:")


def _copy_store(source: Path, target: Path, forge: dict[str, str] | None = None) -> None:
    """Copy every misère, rct and pos_rct fact of one store into a new one, as claims,
    replacing the RCTs of the lands named in `forge`."""
    with _store(source) as old, _store(target) as new:
        for kind in (FactKind.RCT, FactKind.POS_RCT, FactKind.MISERE):
            facts = dict(old.iter_facts(kind))
            if kind is FactKind.POS_RCT:
                facts.update(forge or {})
            new.put(kind, facts)


def test_one_forged_land_in_a_genuine_proof_is_refuted(
    tmp_path: Path, genuine_0x7: tuple[Path, Path]
) -> None:
    _, pruned = genuine_0x7
    with _store(pruned) as proof:
        mapped = dict(proof.iter_facts(FactKind.POS_RCT))
        records = dict(proof.iter_facts(FactKind.RCT))
    # a used land, claimed to have another stored RCT of the other misère outcome
    land, cid = sorted(mapped.items())[0]
    other = next(
        c for c, r in sorted(records.items()) if r.outcome != records[cid].outcome and c != cid
    )
    forged = tmp_path / "forged"
    _copy_store(pruned, forged, forge={land: other})
    done = run_cli("check", "--misere", "--root", "0*7", "--store", str(forged), "--json")
    assert done.returncode == 1, done.stdout
    report = json.loads(done.stdout)
    assert report["ok"] is False
    assert report["rct_claims"]["refuted"] == 1
    bad = report["inconsistent"]
    assert [b["land"] for b in bad] == [land]
    assert f"claimed to have RCT {other}" in bad[0]["reason"]
    assert f"its children give {cid}" in bad[0]["reason"]


@pytest.fixture(scope="module")
def forged_table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The table of 0*3 with one position given another RCT, written by the project's own
    writer: a valid checksum, every record sound; only the position's entry lies."""
    root = tmp_path_factory.mktemp("tables")
    genuine, forged = root / "s3.rcttable", root / "s3-forged.rcttable"
    assert run_cli("rct-table", "build", "0*3", "--out", str(genuine), "--quiet").returncode == 0
    table = load_table(genuine)
    positions = dict(table.positions)
    victim = "0*2"
    positions[victim] = next(h for h in table.algebra.handles() if h != positions[victim])
    lying = table_from_positions(table.algebra, positions)
    write_table(forged, lying, make_header(lying, game="sprouts", root="0*3"))
    assert run_cli("rct-table", "info", str(forged)).returncode == 0  # framing and records
    return forged, victim


def test_a_forged_table_is_refused_by_rct_table_check(forged_table: tuple[Path, str]) -> None:
    forged, victim = forged_table
    done = run_cli("rct-table", "info", str(forged), "--check")
    assert done.returncode != 0 and victim in done.stdout + done.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("check", "--misere", "--root", "0*3", "--rct-table"),
        ("solve", "0*3", "--misere", "--rct-table"),
    ],
    ids=["check", "solve"],
)
def test_a_forged_table_is_refused_by_every_command_that_takes_one(
    tmp_path: Path, forged_table: tuple[Path, str], command: tuple[str, ...]
) -> None:
    forged, victim = forged_table
    store = tmp_path / "store"
    assert (
        run_cli("solve", "0*2", "--misere", "--store", str(store), "--no-rct-table").returncode == 0
    )
    done = run_cli(*command, str(forged), "--store", str(store))
    assert done.returncode == 2, done.stdout + done.stderr
    # one line of error, after the notice that the table is being re-derived
    notice, *lines = done.stderr.strip().splitlines()
    assert notice.startswith("sproutsdb: re-deriving every position of the RCT table")
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert "do not re-derive" in lines[0] and f"{victim}:" in lines[0]


def test_serve_refuses_to_seed_from_a_forged_table(
    tmp_path: Path, forged_table: tuple[Path, str]
) -> None:
    forged, victim = forged_table
    store = tmp_path / "served"
    args = ("serve", "--store", str(store), "--listen", "127.0.0.1:0", "--seed", str(forged))
    done = run_cli(*args, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "do not re-derive" in done.stderr and f"{victim}:" in done.stderr
    assert "Traceback" not in done.stderr
    if store.exists():  # nothing of the table was written
        with _store(store) as opened:
            assert opened.count(FactKind.POS_RCT) == 0


def test_a_map_to_an_rct_the_store_lacks_is_named_not_a_traceback(tmp_path: Path) -> None:
    store = tmp_path / "dangling"
    missing = "rct1:" + "0" * 32
    with _store(store) as opened:
        opened.put(FactKind.POS_RCT, {"0*2": missing})
    done = run_cli("check", "--misere", "--root", "0*2", "--store", str(store), "--json")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is False
    assert report["rct_claims"]["no_record_first"] == [f"0*2 (mapped to {missing})"]
