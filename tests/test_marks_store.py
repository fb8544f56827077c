"""Verified marks that say who verified (issue 26): the check kind, tool and canonical-form
versions and the time of a mark, its time never before the fact's own, old marks read as
"an unknown, older check", and a recheck's re-marking and withdrawal. A real LMDB store."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import lmdb
import pytest

from sproutsdb.facts import (
    CHECK_ALL,
    SEED_REDERIVED,
    SERVER_VERIFIER,
    UNKNOWN_CHECK,
    Provenance,
    Status,
)
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore, schema

CANON = 2
OLD_SESSION = "2020-01-01T00:00:00+00:00"


@pytest.fixture
def store(tmp_path: Path) -> LmdbProofStore:
    s = LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=CANON)
    yield s
    s.close()


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_a_mark_names_the_check_its_versions_and_time(store: LmdbProofStore) -> None:
    store.put(FactKind.NIMBER, {"a": 1, "b": 2})
    checker = Provenance(who="lab@host", tool="sproutsdb", version="9.9.9")
    result = store.mark_verified(FactKind.NIMBER, ["a"], provenance=checker, check=CHECK_ALL)
    assert result.verified == 1 and result.verifier is not None
    marks = store.marks(FactKind.NIMBER, ["a", "b", "zzz"])
    assert list(marks) == ["a"]  # b is a claim, zzz is not stored
    mark = marks["a"]
    assert mark.pid == result.verifier
    assert mark.provenance is not None
    assert (mark.provenance.who, mark.provenance.tool, mark.provenance.version) == (
        "lab@host",
        "sproutsdb",
        "9.9.9",
    )
    assert mark.label == CHECK_ALL and mark.provenance.canon_version == CANON
    shown = mark.as_dict()
    assert shown["check"] == CHECK_ALL and shown["canon_version"] == CANON
    assert "check --all" in shown["described"] and "canon v2" in shown["described"]
    assert mark.summary == "check --all (sproutsdb 9.9.9, canon v2)"
    # the record the fact's status points at is the same one
    record = store.get_records(FactKind.NIMBER, ["a"])["a"]
    assert record.status is Status.VERIFIED and record.verified_by == mark.pid


def test_the_mark_time_is_never_before_the_facts_own(store: LmdbProofStore) -> None:
    """A checker whose session began before a fact was stored (a server's verifier, a
    day-long check) marks it with the time of marking, not of its session."""
    checker = Provenance(tool="sproutsdb verifier", when=OLD_SESSION)
    store.put(FactKind.NIMBER, {"a": 1, "b": 2})  # the store's provenance: now
    store.put(FactKind.NIMBER, {"f": 5}, provenance=Provenance(when="2999-01-01T00:00:00+00:00"))
    store.mark_verified(FactKind.NIMBER, ["a", "f"], provenance=checker, check=SERVER_VERIFIER)
    store.put(FactKind.NIMBER, {"b": 2}, provenance=checker, verified=True)  # an upgrade
    records = store.provenance_records()
    for key in ("a", "b", "f"):
        fact = store.get_records(FactKind.NIMBER, [key])[key]
        assert fact.verified_by is not None
        mark, own = records[fact.verified_by], records[fact.provenance]
        assert _when(mark.when) >= _when(own.when), (key, mark.when, own.when)
        assert _when(mark.when) > _when(OLD_SESSION)
    # a fact claiming a time to come is marked no earlier than that
    f = store.get_records(FactKind.NIMBER, ["f"])["f"]
    assert f.verified_by is not None and records[f.verified_by].when.startswith("2999")


def test_marks_share_a_record_until_a_newer_fact_needs_another(store: LmdbProofStore) -> None:
    checker = Provenance(tool="sproutsdb verifier", when=OLD_SESSION)
    store.put(FactKind.NIMBER, {f"k{i}": i for i in range(10)})
    ids = {
        store.mark_verified(FactKind.NIMBER, [f"k{i}"], provenance=checker).verifier
        for i in range(10)
    }
    assert len(ids) == 1  # ten marks, one provenance record (no record per mark)
    store.put(FactKind.NIMBER, {"late": 1}, provenance=Provenance(when="2999-01-01T00:00:00+00:00"))
    late = store.mark_verified(FactKind.NIMBER, ["late"], provenance=checker).verifier
    assert late not in ids


def test_marks_of_an_older_store_read_as_an_unknown_older_check(tmp_path: Path) -> None:
    """A mark whose provenance record predates `check` (the JSON an older sproutsdb wrote)
    opens, reads and describes as made by an unknown, older check."""
    path = tmp_path / "old"
    with LmdbProofStore.open(path, game="sprouts", canon_version=CANON) as store:
        store.put(FactKind.NIMBER, {"a": 1})
        pid = store.mark_verified(FactKind.NIMBER, ["a"], check=CHECK_ALL).verifier
        assert pid is not None
    old_json = json.dumps(
        {
            "who": "someone@old",
            "tool": "sproutsdb check",
            "version": "0.1.0",
            "when": OLD_SESSION,
            "comment": "",
        },
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    env = lmdb.open(str(path), max_dbs=schema.MAX_DBS, subdir=True)
    with env.begin(write=True) as txn:
        txn.put(schema.provenance_key(pid), old_json, db=env.open_db(b"provenance", txn=txn))
    env.close()
    with LmdbProofStore.open(path, game="sprouts", canon_version=CANON, readonly=True) as store:
        mark = store.marks(FactKind.NIMBER, ["a"])["a"]
        assert mark.provenance is not None and mark.provenance.check == ""
        assert mark.label == UNKNOWN_CHECK == mark.as_dict()["check"]
        assert mark.summary == UNKNOWN_CHECK
        assert store.marks_by_check(FactKind.NIMBER) == {UNKNOWN_CHECK: 1}


def test_the_shipped_v1_fixture_still_opens_with_its_marks(tmp_path: Path) -> None:
    fixture = Path(__file__).parent / "fixtures" / "v1_store"
    copy = tmp_path / "v1"
    copy.mkdir()
    shutil.copy(fixture / "data.mdb", copy / "data.mdb")
    with LmdbProofStore.open(copy, game="sprouts", canon_version=1, readonly=True) as store:
        for table in ("nimber", "misere", "rct", "pos_rct"):
            labels = store.marks_by_check(table)
            assert sum(labels.values()) == store.verified_count(table)
            assert set(labels) <= {UNKNOWN_CHECK}


def test_provenance_json_of_claims_is_unchanged() -> None:
    """Records without a check keep their bytes (and so their ids); old JSON reads back."""
    plain = Provenance(who="w", tool="t", version="1", when=OLD_SESSION)
    data = json.loads(plain.to_json())
    assert "check" not in data and "canon_version" not in data
    assert Provenance.from_json(plain.to_json()) == plain
    marked = plain.for_check(SEED_REDERIVED, canon_version=CANON)
    assert Provenance.from_json(marked.to_json()) == marked
    assert json.loads(marked.to_json())["check"] == SEED_REDERIVED


def test_a_verified_put_can_name_its_check(store: LmdbProofStore) -> None:
    """What a seed does: the facts' provenance is the table, the mark's the re-derivation."""
    table = Provenance(tool="rct-table", comment="seeded from s6.rcttable")
    store.put(
        FactKind.POS_RCT,
        {"0": "*0"},
        provenance=table,
        verified_by=table.for_check(SEED_REDERIVED),
    )
    record = store.get_records(FactKind.POS_RCT, ["0"])["0"]
    assert record.status is Status.VERIFIED
    assert store.marks(FactKind.POS_RCT, ["0"])["0"].label == SEED_REDERIVED
    assert store.provenance_records()[record.provenance].check == ""  # the claim's is plain
    # a plain verified put names its writer's tool as the check
    store.put(FactKind.NIMBER, {"x": 1}, verified=True, provenance=Provenance(tool="import"))
    assert store.marks(FactKind.NIMBER, ["x"])["x"].label == "import"


def test_restamp_and_withdraw_keep_the_counts(store: LmdbProofStore) -> None:
    store.put(FactKind.NIMBER, {"a": 1, "b": 2, "c": 3})
    other = Provenance(who="mallory@elsewhere")
    store.mark_verified(FactKind.NIMBER, ["a", "b", "c"], provenance=other, check=CHECK_ALL)
    again = store.mark_verified(FactKind.NIMBER, ["a", "b"], check="mine", restamp=True)
    assert (again.verified, again.already, again.restamped) == (0, 2, 2)
    assert {m.label for m in store.marks(FactKind.NIMBER, ["a", "b"]).values()} == {"mine"}
    assert store.marks(FactKind.NIMBER, ["c"])["c"].label == CHECK_ALL
    assert store.withdraw_marks(FactKind.NIMBER, ["c", "zzz"]) == 1
    assert store.withdraw_marks(FactKind.NIMBER, ["c"]) == 0
    c = store.get_records(FactKind.NIMBER, ["c"])["c"]
    assert c.value == 3 and c.status is Status.CLAIMED and c.verified_by is None
    assert store.verified_count(FactKind.NIMBER) == 2 and store.count(FactKind.NIMBER) == 3
    assert store.get(FactKind.NIMBER, ["a", "b", "c"], verified_only=True) == {"a": 1, "b": 2}
    # trusting only some checks' marks (what a recheck's checker reads)
    mine = store.marks(FactKind.NIMBER, ["a"])["a"].pid
    seen: set[str] = set()
    values = store.get(FactKind.NIMBER, ["a", "b", "c"], verified_out=seen, marked_by={mine})
    assert values == {"a": 1, "b": 2, "c": 3} and seen == {"a", "b"}
    assert store.get(FactKind.NIMBER, ["a", "c"], verified_only=True, marked_by={-1}) == {}


def test_a_rekeyed_store_keeps_its_old_marks_as_they_were(tmp_path: Path) -> None:
    """Re-keying copies the marks of facts whose key did not change as the old store had
    them: an old mark stays "an unknown, older check", with its own time."""
    from cli_helpers import run_cli

    fixture = Path(__file__).parent / "fixtures" / "v1_store"
    old = tmp_path / "v1"
    old.mkdir()
    shutil.copy(fixture / "data.mdb", old / "data.mdb")
    new = tmp_path / "v2"
    done = run_cli("rekey", "--store", str(old), "--out", str(new), "--quiet")
    assert done.returncode == 0, done.stderr
    with LmdbProofStore.open(old, game="sprouts", canon_version=1, readonly=True) as before:
        old_whens = {p.when for p in before.provenance_records().values()}
    with LmdbProofStore.open(new, game="sprouts", canon_version=2, readonly=True) as store:
        assert store.verified_count(FactKind.NIMBER) > 0
        assert store.marks_by_check(FactKind.NIMBER) == {
            UNKNOWN_CHECK: store.verified_count(FactKind.NIMBER)
        }
        keys = [k for k, r in store.iter_records(FactKind.NIMBER) if r.verified_by]
        for mark in store.marks(FactKind.NIMBER, keys).values():
            assert mark.provenance is not None and mark.provenance.when in old_whens
