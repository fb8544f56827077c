"""Opening a store: its directory, the LMDB environment, its sub-databases and identity.

Everything here runs once per LmdbProofStore.open, before the store object exists: the
directory is checked (never create a store over someone else's files), LMDB is opened with
the reader and key limits the store needs, stale reader slots are reclaimed, and the meta
data is written for a new store or checked against the program for an existing one.
"""

from __future__ import annotations

import fcntl
import logging
import os
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import lmdb

from sproutsdb.facts import now_iso
from sproutsdb.store import schema
from sproutsdb.store.errors import (
    NotAStoreError,
    SchemaVersionError,
    StoreError,
    StoreInUseError,
    StoreMismatchError,
    StoreNotFoundError,
)
from sproutsdb.store.location import ENV_VAR, resolve_store_path
from sproutsdb.store.schema import MAX_DIRECT_KEY_BYTES, InvalidFactError

log = logging.getLogger("sproutsdb.store")  # the store's one logger, whatever module logs

DEFAULT_MAP_SIZE = (1 << 40) if sys.maxsize > 2**32 else (1 << 30)  # sparse: costs no disk
MAX_READERS = 1024
LOCK_FILE = "lock.mdb"  # LMDB's reader table and writer lock, beside data.mdb


@dataclass(frozen=True)
class StoreIdentity:
    """What a store says about itself in `meta`."""

    schema_version: int
    game: str
    canon_version: int
    created: str


class OpenedEnvironment(NamedTuple):
    """A validated store: its resolved directory, LMDB handle, sub-databases and identity."""

    path: Path
    env: lmdb.Environment
    dbs: dict[str, Any]
    identity: StoreIdentity


def open_environment(
    path: str | os.PathLike[str] | None,
    *,
    game: str,
    canon_version: int,
    create: bool,
    readonly: bool,
    durable: bool,
    map_size: int,
) -> OpenedEnvironment:
    """Open (or create) the LMDB environment of the store at `path` and check its identity.

    Raises a StoreError saying what to do for a missing store, a directory that is not a
    store, a store of another game, canon_version or schema, or one already open here.
    """
    if not isinstance(game, str) or not game:
        raise InvalidFactError(f"game must be a non-empty name, got {game!r}")
    if not schema.is_int(canon_version) or canon_version < 0:
        raise InvalidFactError(f"canon_version must be an int >= 0, got {canon_version!r}")
    where = resolve_store_path(path)
    if where.exists() and not where.is_dir():
        raise NotAStoreError(f"{where} is a file, not a store directory")
    existed = (where / "data.mdb").exists()
    if not existed:
        if readonly or not create:
            raise StoreNotFoundError(
                f"no sproutsdb store at {where}; give the path of an existing store "
                f"(explicit path or ${ENV_VAR}) or open it with create=True"
            )
        if where.exists() and any(where.iterdir()):
            raise NotAStoreError(
                f"{where} is a non-empty directory without a store; refusing to create one "
                "there (choose a new or empty directory)"
            )
        where.mkdir(parents=True, exist_ok=True)
    env = _open_env(where, readonly=readonly, durable=durable, map_size=map_size)
    try:
        if env.max_key_size() < MAX_DIRECT_KEY_BYTES:
            raise StoreError(
                f"this LMDB build allows keys of {env.max_key_size()} bytes; sproutsdb "
                f"needs {MAX_DIRECT_KEY_BYTES}"
            )
        stale = env.reader_check()
        if stale:
            log.info("store %s: reclaimed %d stale reader slot(s)", where, stale)
        dbs, identity = _open_dbs(
            env,
            where,
            readonly=readonly,
            existed=existed,
            game=game,
            canon_version=canon_version,
        )
    except BaseException:
        env.close()
        raise
    return OpenedEnvironment(where, env, dbs, identity)


def _read_identity(txn: lmdb.Transaction, meta_db: Any, where: Path) -> StoreIdentity | None:
    """The identity recorded in `meta`, or None where there is none (not a store yet);
    NotAStoreError when a record is garbled (not text, or a version that is no number)."""

    def text(key: bytes) -> str | None:
        raw = txn.get(key, db=meta_db)
        if raw is None:
            return None
        try:
            return bytes(raw).decode()
        except UnicodeDecodeError:
            raise _not_a_store(where, f"its meta record {key!r} is not text") from None

    def number(key: bytes, value: str) -> int:
        try:
            return int(value)
        except ValueError:
            raise _not_a_store(
                where, f"its meta record {key!r} is {value!r:.40}, not a number"
            ) from None

    version = text(schema.META_SCHEMA_VERSION)
    if version is None:
        return None
    return StoreIdentity(
        number(schema.META_SCHEMA_VERSION, version),
        text(schema.META_GAME) or "",
        number(schema.META_CANON_VERSION, text(schema.META_CANON_VERSION) or "-1"),
        text(schema.META_CREATED) or "",
    )


def _check_identity(where: Path, found: StoreIdentity, game: str, canon_version: int) -> None:
    """Refuse, with what the store has, what the program expects and what to do."""
    if found.schema_version > schema.SCHEMA_VERSION:
        raise SchemaVersionError(
            f"store {where} has schema version {found.schema_version}, newer than the version "
            f"{schema.SCHEMA_VERSION} this sproutsdb understands; upgrade sproutsdb to open it"
        )
    if found.schema_version < schema.SCHEMA_VERSION:
        raise SchemaVersionError(
            f"store {where} has schema version {found.schema_version}, older than the version "
            f"{schema.SCHEMA_VERSION} this sproutsdb writes; export it with the sproutsdb that "
            "wrote it and import it here"
        )
    if found.game != game:
        raise StoreMismatchError(
            f"store {where} holds facts of the game {found.game!r}, but this program expects "
            f"{game!r}; use another store directory (explicit path or ${ENV_VAR})"
        )
    if found.canon_version < canon_version:
        raise StoreMismatchError(
            f"store {where} is keyed by canonical form version {found.canon_version}, older "
            f"than this program's version {canon_version}; migrate it with "
            f"`sproutsdb rekey --store {where} --out NEW` and use NEW"
        )
    if found.canon_version != canon_version:
        raise StoreMismatchError(
            f"store {where} is keyed by canonical form version {found.canon_version}, but this "
            f"program uses version {canon_version}; use the sproutsdb release with "
            f"canon_version {found.canon_version}"
        )


def peek_identity(path: str | os.PathLike[str] | None) -> StoreIdentity:
    """What the store at `path` says about itself, whatever its game or canon_version
    (for tools that migrate stores); refuses what is no store, as opening does."""
    where = resolve_store_path(path)
    if not (where / "data.mdb").exists():
        raise StoreNotFoundError(f"no sproutsdb store at {where}")
    env = _open_env(where, readonly=True, durable=False, map_size=DEFAULT_MAP_SIZE)
    try:
        try:
            meta_db = env.open_db(schema.META.encode(), create=False)
        except lmdb.NotFoundError:
            raise _not_a_store(where) from None
        with env.begin(db=meta_db) as txn:
            identity = _read_identity(txn, meta_db, where)
    finally:
        env.close()
    if identity is None:
        raise _not_a_store(where)
    return identity


def _init_meta(txn: lmdb.Transaction, meta_db: Any, game: str, canon_version: int) -> StoreIdentity:
    """Write a new store's identity, first provenance id and zero counts into `meta`."""
    identity = StoreIdentity(schema.SCHEMA_VERSION, game, canon_version, now_iso())
    txn.put(schema.META_SCHEMA_VERSION, schema.encode_meta_int(identity.schema_version), db=meta_db)
    txn.put(schema.META_GAME, game.encode(), db=meta_db)
    txn.put(schema.META_CANON_VERSION, schema.encode_meta_int(canon_version), db=meta_db)
    txn.put(schema.META_CREATED, identity.created.encode(), db=meta_db)
    txn.put(schema.META_PROVENANCE_NEXT, schema.encode_meta_int(1), db=meta_db)
    for table in schema.FACT_TABLES:
        txn.put(schema.meta_count_key(table), b"0", db=meta_db)
        txn.put(schema.meta_verified_key(table), b"0", db=meta_db)
    return identity


def _open_dbs(
    env: lmdb.Environment,
    where: Path,
    *,
    readonly: bool,
    existed: bool,
    game: str,
    canon_version: int,
) -> tuple[dict[str, Any], StoreIdentity]:
    """Open the sub-databases, creating a fresh store's; validate an existing store's meta."""
    if readonly:
        return _open_dbs_readonly(env, where, game=game, canon_version=canon_version)
    txn = env.begin(write=True)
    try:
        # An environment with nothing in it (say, a creator killed before its first commit)
        # is as good as new; anything else without our meta data is someone else's.
        fresh = not existed or txn.stat()["entries"] == 0
        try:
            meta_db = env.open_db(schema.META.encode(), txn=txn, create=fresh)
        except lmdb.NotFoundError:
            raise _not_a_store(where) from None
        identity = _read_identity(txn, meta_db, where)
        if identity is None:
            if not fresh:
                raise _not_a_store(where)
            identity = _init_meta(txn, meta_db, game, canon_version)
        _check_identity(where, identity, game, canon_version)
        dbs = {schema.META: meta_db}
        for name in (*schema.SUBDBS[1:], *schema.OPTIONAL_SUBDBS):
            dbs[name] = env.open_db(name.encode(), txn=txn, create=True)
    except BaseException:
        txn.abort()
        raise
    txn.commit()
    return dbs, identity


def _open_dbs_readonly(
    env: lmdb.Environment, where: Path, *, game: str, canon_version: int
) -> tuple[dict[str, Any], StoreIdentity]:
    """The read-only variant: nothing may be created, so every sub-database must exist."""
    dbs: dict[str, Any] = {}
    identity: StoreIdentity | None = None
    for name in schema.SUBDBS:  # meta first: a store of another identity is refused early
        try:
            dbs[name] = env.open_db(name.encode(), create=False)
        except lmdb.NotFoundError:
            raise _not_a_store(where, f"it lacks the {name!r} sub-database") from None
        if name == schema.META:
            with env.begin(db=dbs[name]) as txn:
                identity = _read_identity(txn, dbs[name], where)
            if identity is None:
                raise _not_a_store(where)
            _check_identity(where, identity, game, canon_version)
    assert identity is not None
    for name in schema.OPTIONAL_SUBDBS:  # a store older than them has none: read as empty
        try:
            dbs[name] = env.open_db(name.encode(), create=False)
        except lmdb.NotFoundError:
            dbs[name] = None
    return dbs, identity


def _not_a_store(where: Path, why: str = "it has no sproutsdb meta data") -> NotAStoreError:
    """The refusal of an LMDB environment that some other program wrote."""
    return NotAStoreError(f"{where} holds an LMDB environment that is not a sproutsdb store: {why}")


def _open_env(where: Path, *, readonly: bool, durable: bool, map_size: int) -> lmdb.Environment:
    """lmdb.open with the store's limits; LMDB's errors become StoreErrors saying what to do.

    A read-only open of a store whose lock file this user may not write (a copy made
    read-only, a shared dataset, a store owned by another user) reads without the lock
    file (LMDB's `lock=False`), and only when no process has the store open: without the
    lock file a reader cannot tell a writer which pages it still reads."""
    try:
        return _lmdb_open(where, readonly=readonly, durable=durable, map_size=map_size)
    except lmdb.ReadonlyError as error:  # EACCES: the lock file (or directory) is not ours
        if not readonly or not lock_file_unwritable(where):
            raise StoreError(f"cannot open store {where}: {error}") from None
    except lmdb.Error as error:
        raise _open_error(where, error) from None
    _refuse_if_in_use(where)
    log.info("store %s: read without its lock file (no write access to it)", where)
    try:
        return _lmdb_open(where, readonly=True, durable=durable, map_size=map_size, lock=False)
    except lmdb.Error as error:
        raise _open_error(where, error) from None


def _lmdb_open(
    where: Path, *, readonly: bool, durable: bool, map_size: int, lock: bool = True
) -> lmdb.Environment:
    """The one lmdb.open call of the store."""
    return lmdb.open(
        str(where),
        map_size=map_size,
        subdir=True,
        readonly=readonly,
        create=False,
        lock=lock,
        sync=durable,
        metasync=durable,
        max_dbs=schema.MAX_DBS,
        max_readers=MAX_READERS,
    )


def _open_error(where: Path, error: lmdb.Error) -> StoreError:
    """The StoreError of an LMDB error at open time."""
    if "already open" in str(error):
        return StoreInUseError(
            f"store {where} is already open in this process; share that LmdbProofStore "
            "instead of opening a second one"
        )
    return StoreError(f"cannot open store {where}: {error}")


def lock_file_unwritable(where: Path) -> bool:
    """Whether this user can neither write the store's lock file nor create it."""
    lock = where / LOCK_FILE
    if lock.exists():
        return not os.access(lock, os.W_OK)
    return not os.access(where, os.W_OK)


def _refuse_if_in_use(where: Path) -> None:
    """Refuse a lockless read of a store another process has open (every LMDB process
    holds a shared fcntl lock on the first byte of the lock file; asking needs no write
    access): its writer could reuse pages this reader is reading."""
    lock = where / LOCK_FILE
    try:
        fd = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return  # no lock file: no process has the store open
    except OSError as error:
        raise StoreError(f"cannot open store {where}: {lock}: {error.strerror}") from None
    try:
        probe = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 1, 0)
        held = struct.unpack("hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, probe))[0]
    except OSError:
        held = fcntl.F_UNLCK  # a file system without fcntl locks: nobody can hold one
    finally:
        os.close(fd)
    if held != fcntl.F_UNLCK:
        raise StoreInUseError(
            f"store {where} is in use by another process, and this user may not write its "
            "lock file, so reading it now could see pages being rewritten; read it through "
            "its server (--server), or read a copy"
        )
