"""Migrating a store keyed by canonical form version 1: refused as it is, re-keyed by
`sproutsdb rekey`, re-keyed on import of a version 1 export; on the committed fixture
written by the version 1 release (tests/fixtures/v1_store)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.formats.exchange import KINDS, ExportWriter
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.store import LmdbProofStore

FIXTURE = Path(__file__).parent / "fixtures" / "v1_store"
V1_COUNTS = {"nimber": 142, "misere": 81, "rct": 7, "pos_rct": 181}
V2_COUNTS = {"nimber": 119, "misere": 75, "rct": 7, "pos_rct": 148}  # merged keys


@pytest.fixture
def v1_store(tmp_path: Path) -> Path:
    """A private copy of the fixture (LMDB writes its lock file next to data.mdb)."""
    store = tmp_path / "v1"
    store.mkdir()
    shutil.copy(FIXTURE / "data.mdb", store / "data.mdb")
    return store


def test_current_code_is_newer_than_the_fixture() -> None:
    assert CANON_VERSION == 2


@pytest.mark.parametrize(
    "command", [["solve", "0*4"], ["serve", "--listen", "127.0.0.1:0"], ["check", "--root", "0*6"]]
)
def test_a_v1_store_is_refused_with_the_command_that_migrates_it(
    v1_store: Path, command: list[str]
) -> None:
    done = run_cli(*command, "--store", str(v1_store), timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert f"sproutsdb rekey --store {v1_store} --out NEW" in lines[0]
    assert (FIXTURE / "data.mdb").read_bytes() == (v1_store / "data.mdb").read_bytes()


def test_rekey_makes_a_v2_store_that_checks_clean(v1_store: Path, tmp_path: Path) -> None:
    new = tmp_path / "v2"
    done = run_cli("rekey", "--store", str(v1_store), "--out", str(new), "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["from_canon_version"], report["to_canon_version"]) == (1, 2)
    assert {t: n["read"] for t, n in report["tables"].items()} == V1_COUNTS
    assert sum(n["merged"] for n in report["tables"].values()) > 0
    assert report["conflicts"] == 0 and report["children_dropped"] == 4
    with LmdbProofStore.open(new, game="sprouts", canon_version=2, readonly=True) as store:
        assert {k: store.count(FactKind(k)) for k in V2_COUNTS} == V2_COUNTS
    checked = run_cli("check", "--store", str(new), "--root", "0*6", "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    result = json.loads(checked.stdout)
    assert result["ok"] and result["nimber"] == 0 and result["facts_unproven"] == 0


def test_verified_marks_and_provenance_survive_only_unchanged_facts(
    v1_store: Path, tmp_path: Path
) -> None:
    new = tmp_path / "v2"
    assert run_cli("rekey", "--store", str(v1_store), "--out", str(new), "--quiet").returncode == 0
    with LmdbProofStore.open(v1_store, game="sprouts", canon_version=1, readonly=True) as old:
        before = dict(old.iter_records(FactKind.NIMBER))
        old_origins = old.provenance_records()
    with LmdbProofStore.open(new, game="sprouts", canon_version=2, readonly=True) as store:
        after = dict(store.iter_records(FactKind.NIMBER))
        origins = store.provenance_records()
    verified = [key for key, record in after.items() if record.status.value == "verified"]
    assert verified
    for key in verified:  # unchanged key, same value, and it was verified before
        assert key in before and before[key].value == after[key].value
        assert before[key].status.value == "verified"
    for key, record in after.items():
        origin = origins[record.provenance]
        if key in before:
            assert origin.describe() == old_origins[before[key].provenance].describe()
        else:
            assert origin.tool == "sproutsdb rekey" and record.status.value == "claimed"


def test_keys_that_merge_with_different_values_are_reported_and_not_stored(tmp_path: Path) -> None:
    old, new = tmp_path / "v1", tmp_path / "v2"
    with LmdbProofStore.open(old, game="sprouts", canon_version=1) as store:
        # 1aa and 12 are one position under version 2; a wrong nimber makes them disagree.
        store.put(FactKind.NIMBER, {"1aa": 2, "12": 1, "0*2": 0})
    done = run_cli("rekey", "--store", str(old), "--out", str(new), "--json", "--quiet")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["conflicts"] == 1 and "'12'" in report["conflict_examples"][0]
    assert "1aa" in report["conflict_examples"][0]
    assert "conflicting values" in done.stderr
    with LmdbProofStore.open(new, game="sprouts", canon_version=2, readonly=True) as store:
        assert store.get(FactKind.NIMBER, ["12", "0*2"]) == {"0*2": 0}


def test_rekey_refuses_a_newer_store_and_an_occupied_target(tmp_path: Path, v1_store: Path) -> None:
    newer = tmp_path / "v9"
    with LmdbProofStore.open(newer, game="sprouts", canon_version=9):
        pass
    done = run_cli("rekey", "--store", str(newer), "--out", str(tmp_path / "x"))
    assert done.returncode == 2 and "newer" in done.stderr and len(done.stderr.splitlines()) == 1
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "notes.txt").write_text("mine")
    done = run_cli("rekey", "--store", str(v1_store), "--out", str(occupied))
    assert done.returncode == 2 and "not an empty directory" in done.stderr
    assert (occupied / "notes.txt").read_text() == "mine"


def test_importing_a_v1_export_rekeys_it(tmp_path: Path) -> None:
    store = tmp_path / "imported"
    done = run_cli(
        "import", str(FIXTURE / "export.spdbx"), "--store", str(store), "--json", "--quiet"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["inserted"] == sum(V2_COUNTS.values())
    with LmdbProofStore.open(store, game="sprouts", canon_version=2, readonly=True) as db:
        assert {k: db.count(FactKind(k)) for k in V2_COUNTS} == V2_COUNTS
    assert run_cli("check", "--store", str(store), "--root", "0*6").returncode == 0


def write_export(path: Path, canon_version: int, nimbers: dict[str, int]) -> None:
    """A native export file keyed by `canon_version` holding these nimber facts."""
    with open(path, "wb") as handle:
        writer = ExportWriter(
            handle,
            {
                "schema": 1,
                "game": "sprouts",
                "canon_version": canon_version,
                "counts": {
                    kind.value: (len(nimbers) if kind is FactKind.NIMBER else 0) for kind in KINDS
                },
                "provenance": {"exported_by": {"who": "a test", "when": "now"}},
            },
        )
        writer.write_facts(FactKind.NIMBER, nimbers.items())
        writer.close()


def test_keys_of_an_old_export_that_merge_with_different_values_are_not_imported(
    tmp_path: Path,
) -> None:
    export = tmp_path / "old.spdbx"
    write_export(export, 1, {"1aa": 2, "12": 1, "0*2": 0})
    store = tmp_path / "store"
    done = run_cli("import", str(export), "--store", str(store), "--json", "--quiet")
    assert done.returncode == 3
    report = json.loads(done.stdout)
    assert (report["inserted"], report["conflicts"]) == (1, 1)
    (example,) = report["conflict_examples"]
    assert example["key"] == "12" and example["stored"] is None
    assert set(example["file_keys"]) == {"1aa", "12"}
    text = run_cli("import", str(export), "--store", str(tmp_path / "other"), "--quiet")
    assert "neither stored" in text.stdout and "kept stored" not in text.stdout
    with LmdbProofStore.open(store, game="sprouts", canon_version=2, readonly=True) as db:
        assert db.get(FactKind.NIMBER, ["12", "0*2"]) == {"0*2": 0}


def test_an_export_of_a_newer_canon_version_is_refused_before_any_store_is_made(
    tmp_path: Path,
) -> None:
    export = tmp_path / "new.spdbx"
    write_export(export, CANON_VERSION + 1, {"0*2": 0})
    done = run_cli("import", str(export), "--store", str(tmp_path / "store"))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "newer file needs a newer sproutsdb" in done.stderr
    assert not (tmp_path / "store").exists()
