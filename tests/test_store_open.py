"""Opening stores: identity checks, clear refusals, read-only use, lifecycle, location rule."""

from __future__ import annotations

from pathlib import Path

import lmdb
import pytest

from sproutsdb.errors import UserError
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import (
    LmdbProofStore,
    NotAStoreError,
    ReadOnlyStoreError,
    SchemaVersionError,
    StoreClosedError,
    StoreInUseError,
    StoreMismatchError,
    StoreNotFoundError,
    schema,
)
from sproutsdb.store.location import DEFAULT_DIRNAME, ENV_VAR, resolve_store_path


def make_store(path: Path) -> None:
    with LmdbProofStore.open(path, game="sprouts", canon_version=1) as store:
        store.put(FactKind.NIMBER, {"0*2": 0})


def test_creation_records_game_canon_and_schema(tmp_path: Path) -> None:
    make_store(tmp_path / "s")
    with LmdbProofStore.open(
        tmp_path / "s", game="sprouts", canon_version=1, create=False
    ) as store:
        assert store.identity.game == "sprouts"
        assert store.identity.canon_version == 1
        assert store.identity.schema_version == schema.SCHEMA_VERSION
        assert store.identity.created


@pytest.mark.parametrize("readonly", [False, True])
def test_another_game_is_refused(tmp_path: Path, readonly: bool) -> None:
    make_store(tmp_path / "s")
    with pytest.raises(StoreMismatchError) as caught:
        LmdbProofStore.open(tmp_path / "s", game="nim", canon_version=1, readonly=readonly)
    message = str(caught.value)
    assert "'sprouts'" in message and "'nim'" in message and "another store directory" in message
    assert isinstance(caught.value, UserError)


@pytest.mark.parametrize("readonly", [False, True])
def test_another_canon_version_is_refused(tmp_path: Path, readonly: bool) -> None:
    make_store(tmp_path / "s")
    with pytest.raises(StoreMismatchError) as caught:
        LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=2, readonly=readonly)
    message = str(caught.value)
    assert "version 1" in message and "version 2" in message
    assert f"sproutsdb rekey --store {tmp_path / 's'} --out NEW" in message


def test_a_newer_canon_version_is_refused_without_rekey(tmp_path: Path) -> None:
    make_store(tmp_path / "s")
    with pytest.raises(StoreMismatchError) as caught:
        LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=0)
    message = str(caught.value)
    assert "version 1" in message and "release with canon_version 1" in message
    assert "rekey" not in message


def bump_schema(path: Path, version: int | bytes) -> None:
    env = lmdb.open(str(path), max_dbs=schema.MAX_DBS)
    try:
        meta = env.open_db(schema.META.encode())
        raw = version if isinstance(version, bytes) else str(version).encode()
        with env.begin(write=True) as txn:
            txn.put(schema.META_SCHEMA_VERSION, raw, db=meta)
    finally:
        env.close()


@pytest.mark.parametrize("readonly", [False, True])
@pytest.mark.parametrize("garbage", [b"one", b"\xff\xfe"])
def test_a_garbled_meta_record_is_not_a_store(
    tmp_path: Path, readonly: bool, garbage: bytes
) -> None:
    make_store(tmp_path / "s")
    bump_schema(tmp_path / "s", garbage)
    with pytest.raises(NotAStoreError, match=r"not a sproutsdb store: its meta record"):
        LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=1, readonly=readonly)
    bump_schema(tmp_path / "s", schema.SCHEMA_VERSION)  # the refused open released the env
    with LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=1) as store:
        assert store.get(FactKind.NIMBER, ["0*2"]) == {"0*2": 0}


def test_marking_nothing_verified_commits_nothing(tmp_path: Path) -> None:
    make_store(tmp_path / "s")
    with LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=1) as store:
        before = store._env.info()["last_txnid"]  # type: ignore[union-attr]
        result = store.mark_verified(FactKind.NIMBER, [])
        assert (result.verified, result.already, result.missing) == (0, 0, [])
        assert store._env.info()["last_txnid"] == before  # type: ignore[union-attr]


@pytest.mark.parametrize("readonly", [False, True])
def test_a_newer_schema_is_refused_and_left_untouched(tmp_path: Path, readonly: bool) -> None:
    make_store(tmp_path / "s")
    bump_schema(tmp_path / "s", schema.SCHEMA_VERSION + 1)
    with pytest.raises(
        SchemaVersionError, match=r"schema version 2, newer than .* upgrade sproutsdb"
    ):
        LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=1, readonly=readonly)
    # the refused open left the store as it was, and the handle was released
    bump_schema(tmp_path / "s", schema.SCHEMA_VERSION)
    with LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=1) as store:
        assert store.get(FactKind.NIMBER, ["0*2"]) == {"0*2": 0}


def test_missing_and_foreign_stores_are_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreNotFoundError, match="no sproutsdb store"):
        LmdbProofStore.open(tmp_path / "none", game="sprouts", canon_version=1, create=False)
    with pytest.raises(StoreNotFoundError):
        LmdbProofStore.open(tmp_path / "none", game="sprouts", canon_version=1, readonly=True)
    assert not (tmp_path / "none").exists()
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(NotAStoreError, match="non-empty directory"):
        LmdbProofStore.open(tmp_path / "busy", game="sprouts", canon_version=1)
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotAStoreError, match="is a file"):
        LmdbProofStore.open(tmp_path / "file", game="sprouts", canon_version=1)
    foreign = lmdb.open(str(tmp_path / "other"))
    with foreign.begin(write=True) as txn:
        txn.put(b"their", b"data")
    foreign.close()
    with pytest.raises(NotAStoreError, match="not a sproutsdb store"):
        LmdbProofStore.open(tmp_path / "other", game="sprouts", canon_version=1)
    # an empty environment (a creator killed before its first commit) becomes a store
    lmdb.open(str(tmp_path / "empty")).close()
    with LmdbProofStore.open(tmp_path / "empty", game="sprouts", canon_version=1) as store:
        assert store.identity.game == "sprouts"


def test_read_only_store_reads_and_refuses_writes(tmp_path: Path) -> None:
    make_store(tmp_path / "s")
    with LmdbProofStore.open(
        tmp_path / "s", game="sprouts", canon_version=1, readonly=True
    ) as store:
        assert store.get(FactKind.NIMBER, ["0*2"]) == {"0*2": 0}
        with pytest.raises(ReadOnlyStoreError):
            store.put(FactKind.NIMBER, {"0*3": 1})
        with pytest.raises(ReadOnlyStoreError):
            store.mark_verified(FactKind.NIMBER, ["0*2"])
        store.flush()


def test_lifecycle_one_handle_per_process_and_idempotent_close(tmp_path: Path) -> None:
    store = LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=1)
    with pytest.raises(StoreInUseError, match="already open in this process"):
        LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=1)
    store.put(FactKind.NIMBER, {"a": 1})
    store.close()
    store.close()
    with pytest.raises(StoreClosedError):
        store.get(FactKind.NIMBER, ["a"])
    with pytest.raises(StoreClosedError):
        store.put(FactKind.NIMBER, {"b": 1})
    with LmdbProofStore.open(tmp_path / "s", game="sprouts", canon_version=1) as again:
        assert again.get(FactKind.NIMBER, ["a"]) == {"a": 1}


def test_the_store_location_rule(tmp_path: Path) -> None:
    env = {ENV_VAR: str(tmp_path / "from-env")}
    assert resolve_store_path(tmp_path / "explicit", environ=env) == tmp_path / "explicit"
    assert resolve_store_path(None, environ=env) == tmp_path / "from-env"
    assert resolve_store_path(None, environ={}, cwd=tmp_path) == tmp_path / DEFAULT_DIRNAME
    assert resolve_store_path("", environ={ENV_VAR: ""}, cwd=tmp_path) == tmp_path / DEFAULT_DIRNAME
    assert resolve_store_path("rel", environ={}, cwd=tmp_path) == tmp_path / "rel"
    assert resolve_store_path("~/x", environ={}) == Path.home() / "x"


def test_open_uses_the_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env-store"))
    with LmdbProofStore.open(game="sprouts", canon_version=1) as store:
        assert store.path == tmp_path / "env-store"
    assert (tmp_path / "env-store" / "data.mdb").exists()
