"""LmdbProofStore facts on a real LMDB environment: round trips, write-once, long keys, batches."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sproutsdb.facts import Provenance, Status
from sproutsdb.solver.ports.proofstore import Conflict, FactKind, ProofStore, RctRecord
from sproutsdb.store import DEFAULT_MAP_SIZE, LmdbProofStore, StoreError
from sproutsdb.store.schema import MAX_DIRECT_KEY_BYTES, InvalidFactError

GAME, CANON = "sprouts", 1


def open_store(path: Path, **kwargs: Any) -> LmdbProofStore:
    return LmdbProofStore.open(path, game=GAME, canon_version=CANON, **kwargs)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LmdbProofStore]:
    with open_store(tmp_path / "store") as s:
        yield s


def assert_counts_match(store: LmdbProofStore) -> None:
    """The counts kept in meta equal what a full scan of every table finds."""
    for kind in (*FactKind, "children"):
        records = list(store.iter_records(kind))
        assert store.count(kind) == len(records), kind
        verified = sum(r.status is Status.VERIFIED for _, r in records)
        assert store.verified_count(kind) == verified, kind


RCTS = {
    "r0": RctRecord(height=0, outcome="W", children=()),
    "r1": RctRecord(height=1, outcome="L", children=("r0",), nim=1),
    "r2": RctRecord(height=2, outcome="W", children=("r0", "r1"), plus1_of="r1"),
    # many long children: the children block is zstd-compressed
    "rbig": RctRecord(
        height=9, outcome="L", children=tuple(sorted(f"{i:064x}" for i in range(200)))
    ),
}
FACTS: dict[FactKind | str, dict[str, object]] = {
    FactKind.NIMBER: {"0*2": 0, "0*3": 1, "0.AB|AB": 3, "huge": 2**62},
    FactKind.MISERE: {"0*2|0|": "L", "0*3|1|": "W"},
    FactKind.RCT: dict(RCTS),
    FactKind.POS_RCT: {"0*2": "r1", "0*3": "rbig"},
    "children": {
        "0*2": ("0.0.2", "0.1a1a"),
        "many": tuple(sorted(f"child{i}" for i in range(300))),
    },
}


def test_is_a_proof_store(store: LmdbProofStore) -> None:
    assert isinstance(store, ProofStore)


def test_every_kind_round_trips_and_survives_reopen(tmp_path: Path) -> None:
    with open_store(tmp_path / "s") as store:
        for kind, items in FACTS.items():
            result = store.put(kind, items)
            assert (result.inserted, result.unchanged, result.conflicts) == (len(items), 0, [])
            assert store.get(kind, [*items, "absent"]) == items
    with open_store(tmp_path / "s") as store:
        for kind, items in FACTS.items():
            assert store.get(kind, list(items)) == items
            assert dict(store.iter_facts(kind)) == items
            assert store.count(kind) == len(items)
        # the children cache is a set: stored sorted, so any order of the same set is identical
        assert store.put_children({"0*2": ["0.1a1a", "0.0.2"]}).unchanged == 1
        assert store.put_children({"new": ["b", "a", "b"]}).inserted == 1
        assert store.get_children(["new"]) == {"new": ("a", "b")}
        assert_counts_match(store)


def test_identical_reput_is_unchanged(store: LmdbProofStore) -> None:
    for kind, items in FACTS.items():
        store.put(kind, items)
        again = store.put(kind, items)
        assert (again.inserted, again.unchanged, again.conflicts) == (0, len(items), [])
    # equal values in another spelling are identical too (list vs tuple children)
    as_list = RctRecord(2, "W", ["r0", "r1"], plus1_of="r1")  # type: ignore[arg-type]
    lst = store.put(FactKind.RCT, {"r2": as_list})
    assert lst.unchanged == 1
    assert_counts_match(store)


def test_a_different_value_is_a_conflict_never_an_overwrite(
    store: LmdbProofStore, caplog: pytest.LogCaptureFixture
) -> None:
    store.put(FactKind.NIMBER, {"0*2": 0, "0*3": 1})
    store.put(FactKind.RCT, {"r1": RCTS["r1"]})
    with caplog.at_level(logging.WARNING, logger="sproutsdb.store"):
        result = store.put(FactKind.NIMBER, {"0*2": 0, "0*3": 2, "0*4": 1})
        rct = store.put(FactKind.RCT, {"r1": RctRecord(1, "L", ("r0",), nim=2)})
    assert result.inserted == 1 and result.unchanged == 1
    assert result.conflicts == [Conflict(FactKind.NIMBER, "0*3", stored=1, offered=2)]
    assert rct.conflicts == [
        Conflict(FactKind.RCT, "r1", RCTS["r1"], RctRecord(1, "L", ("r0",), nim=2))
    ]
    assert store.get(FactKind.NIMBER, ["0*3"]) == {"0*3": 1}
    assert store.get(FactKind.RCT, ["r1"]) == {"r1": RCTS["r1"]}
    assert "conflict on nimber '0*3': stored 1, offered 2" in caplog.text
    assert store.count(FactKind.NIMBER) == 3


def test_long_keys_are_transparent(store: LmdbProofStore) -> None:
    edge = "a" * MAX_DIRECT_KEY_BYTES  # still a direct key
    long1 = "0.AB|AB+" * 100  # 800 bytes
    long2 = "é" * 300  # 600 bytes, multi-byte characters
    long3 = "x" * 5000
    items = {edge: 1, long1: 2, long2: 3, long3: 4, "short": 5}
    assert store.put(FactKind.NIMBER, items).inserted == 5
    assert store.get(FactKind.NIMBER, [*list(items), "y" * 600]) == items
    assert store.put(FactKind.NIMBER, {long1: 2}).unchanged == 1
    assert store.put(FactKind.NIMBER, {long1: 7}).conflicts == [
        Conflict(FactKind.NIMBER, long1, 2, 7)
    ]
    assert store.mark_verified(FactKind.NIMBER, [long3]).verified == 1
    assert store.get_records(FactKind.NIMBER, [long3])[long3].status is Status.VERIFIED
    listed = list(store.iter_facts(FactKind.NIMBER))
    assert dict(listed) == items
    assert [k for k, _ in listed[:2]] == [edge, "short"]  # direct keys first, in byte order
    tail = [k for k, _ in listed[2:]]
    assert sorted(tail) == sorted([long1, long2, long3])
    assert dict(store.iter_facts(FactKind.NIMBER, start_after=tail[0])) == {
        k: items[k] for k in tail[1:]
    }
    # long keys work for positions too, in the children cache and as pos_rct keys
    assert store.put("children", {long1: [long2, long3]}).inserted == 1
    assert store.get_children([long1]) == {long1: tuple(sorted([long2, long3]))}
    assert_counts_match(store)


def test_a_batch_with_one_invalid_value_writes_nothing(store: LmdbProofStore) -> None:
    bad_batches: list[tuple[FactKind | str, dict[str, object]]] = [
        (FactKind.NIMBER, {"a": 1, "b": -1, "c": 2}),
        (FactKind.NIMBER, {"a": 1, "b": True}),
        (FactKind.NIMBER, {"a": 1, "b": "3"}),
        (FactKind.NIMBER, {"a": 1, "": 2}),
        (FactKind.NIMBER, {"a": 1, "\ud800": 2}),
        (FactKind.MISERE, {"a": "L", "b": "P"}),
        (FactKind.POS_RCT, {"a": "r1", "b": ""}),
        (FactKind.RCT, {"a": RCTS["r0"], "b": RctRecord(1, "W", ("r1", "r0"))}),  # unsorted
        (FactKind.RCT, {"a": RCTS["r0"], "b": RctRecord(-1, "W", ())}),
        (FactKind.RCT, {"a": RCTS["r0"], "b": RctRecord(1, "X", ())}),
        (FactKind.RCT, {"a": RCTS["r0"], "b": {"height": 1}}),
        ("children", {"a": ["x"], "b": "not-a-list"}),
    ]
    for kind, items in bad_batches:
        with pytest.raises(InvalidFactError, match="nothing written"):
            store.put(kind, items)
        assert store.get(kind, ["a", "c"]) == {}
        assert store.count(kind) == 0
    with pytest.raises(InvalidFactError, match="unknown fact kind"):
        store.put("colours", {"a": 1})
    assert store.put(FactKind.NIMBER, {}).inserted == 0
    with pytest.raises(InvalidFactError, match="single string"):
        store.get(FactKind.NIMBER, "0*2")
    assert_counts_match(store)


def test_status_provenance_and_mark_verified(store: LmdbProofStore) -> None:
    checker = Provenance(
        who="checker@lab", tool="sproutsdb check", version="0.1.0", comment="re-derived"
    )
    store.put(FactKind.NIMBER, {"a": 1, "b": 2, "c": 3})
    records = store.get_records(FactKind.NIMBER, ["a", "b"])
    assert {r.status for r in records.values()} == {Status.CLAIMED}
    writer_id = records["a"].provenance
    assert store.provenance_records()[writer_id] == store.provenance

    marked = store.mark_verified(FactKind.NIMBER, ["a", "b", "zzz"], provenance=checker)
    assert (marked.verified, marked.already, marked.missing) == (2, 0, ["zzz"])
    again = store.mark_verified(FactKind.NIMBER, ["a"], provenance=checker)
    assert (again.verified, again.already) == (0, 1)
    a = store.get_records(FactKind.NIMBER, ["a"])["a"]
    assert a.value == 1 and a.status is Status.VERIFIED and a.provenance == writer_id
    assert a.verified_by is not None
    mark = store.provenance_records()[a.verified_by]
    # the mark names the checker, with the kind of check (its tool, none given), the
    # store's canonical-form version and the time of marking (never before the fact's)
    assert mark == dataclasses.replace(
        checker, when=mark.when, check="sproutsdb check", canon_version=1
    )
    assert mark.when >= store.provenance_records()[writer_id].when

    # a verified re-put of the same value upgrades the status; it is not a conflict
    upgraded = store.put(FactKind.NIMBER, {"c": 3}, verified=True, provenance=checker)
    assert (upgraded.unchanged, upgraded.conflicts) == (1, [])
    assert store.get_records(FactKind.NIMBER, ["c"])["c"].status is Status.VERIFIED
    # ...and a differing value is still a conflict, status untouched
    assert store.put(FactKind.NIMBER, {"c": 4}, verified=True).conflicts
    # a claimed re-put never downgrades
    store.put(FactKind.NIMBER, {"a": 1})
    assert store.get_records(FactKind.NIMBER, ["a"])["a"].status is Status.VERIFIED
    assert store.verified_count(FactKind.NIMBER) == 3
    # each distinct provenance stored once: the writer, the checker's mark (shared by both
    # marks and the upgrade), the checker as the verified put's writer, and the mark of
    # the store's own provenance (the refused verified put of c = 4)
    assert len(store.provenance_records()) == 4
    assert_counts_match(store)


def test_iteration_is_ordered_chunked_and_resumable(store: LmdbProofStore) -> None:
    items = {f"k{i:05d}": i % 7 for i in range(2500)}  # more than two read chunks
    keys = list(items)
    for start in range(0, 2500, 500):
        store.put(FactKind.NIMBER, {k: items[k] for k in reversed(keys[start : start + 500])})
    listed = list(store.iter_facts(FactKind.NIMBER))
    assert listed == sorted(items.items())
    assert list(store.iter_facts(FactKind.NIMBER, start_after="k01233")) == listed[1234:]
    assert (
        list(store.iter_facts(FactKind.NIMBER, start_after="k01233x")) == listed[1234:]
    )  # absent key
    assert list(store.iter_facts(FactKind.NIMBER, start_after="k99999")) == []


def test_backup_is_a_complete_store(store: LmdbProofStore, tmp_path: Path) -> None:
    for kind, items in FACTS.items():
        store.put(kind, items)
    store.mark_verified(FactKind.NIMBER, ["0*2"])
    copy = store.backup(tmp_path / "backup")
    with open_store(copy, readonly=True) as restored:
        for kind, items in FACTS.items():
            assert dict(restored.iter_facts(kind)) == items
        assert restored.get_records(FactKind.NIMBER, ["0*2"])["0*2"].status is Status.VERIFIED
        assert_counts_match(restored)
    with pytest.raises(StoreError, match="new or empty directory"):
        store.backup(copy)


def test_stats_report_counts_and_durability(store: LmdbProofStore) -> None:
    store.put(FactKind.NIMBER, {"a": 1})
    stats = store.stats()
    assert (
        stats["counts"]["nimber"] == 1 and stats["game"] == GAME and stats["canon_version"] == CANON
    )
    assert stats["map_size"] == DEFAULT_MAP_SIZE >= 1 << 30 and stats["readers"]["max"] >= 1024
    assert stats["file_bytes"] < 1 << 24  # the 1 TiB map is address space, not disk
    assert stats["writer"]["commits"] >= 1
    assert store.durable and store._env is not None and store._env.flags()["sync"]
