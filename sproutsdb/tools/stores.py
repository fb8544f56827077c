"""Which store a command works on: the embedded store at --store (opened, created or new)
or, with --server, the server's; a missing store is a UsageError naming the directory."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from sproutsdb.games import DEFAULT_GAME
from sproutsdb.solver.ports.proofstore import ProofStore
from sproutsdb.store import LmdbProofStore, StoreNotFoundError
from sproutsdb.store import open_store as open_sprouts_store
from sproutsdb.store.location import check_new_store_location, resolve_store_path
from sproutsdb.store.opening import peek_identity
from sproutsdb.tools.cli import UsageError
from sproutsdb.tools.server_options import remote_store_from_args


def open_store(path: str | None, *, readonly: bool = False) -> LmdbProofStore:
    """The embedded store for Sprouts at --store / $SPROUTSDB_STORE / ./sproutsdb-data
    (created when missing, unless read-only; never under a missing parent directory): the
    store verb's (sproutsdb.ops.stores.open_local_store)."""
    from sproutsdb.ops.stores import open_local_store

    return open_local_store(path, readonly=readonly)


def open_existing(path: str | None, *, readonly: bool = False) -> LmdbProofStore:
    """An existing store (never creates one), of the game it records: a UsageError when
    there is none."""
    try:
        game = peek_identity(path).game
        return open_sprouts_store(path, create=False, readonly=readonly, game=game)
    except StoreNotFoundError:
        raise UsageError(f"no store at {resolve_store_path(path)}") from None


def open_to_check(path: str | None) -> LmdbProofStore:
    """An existing store for a check: writable when this user may write it (the check
    marks what it verifies), else read-only (a copy made read-only, a store of another
    user: the check re-derives the same and marks nothing)."""
    return open_existing(path, readonly=not may_write(path))


def may_write(path: str | None) -> bool:
    """Whether this user may write the store at `path` (its data file and its directory,
    where LMDB keeps the lock file)."""
    where = resolve_store_path(path)
    data = where / "data.mdb"
    return os.access(where, os.W_OK) and (not data.exists() or os.access(data, os.W_OK))


def new_store(path: str, game: str = DEFAULT_GAME) -> LmdbProofStore:
    """A new store of `game` at `path`, which must not exist or be an empty directory."""
    where = Path(path).expanduser()
    check_new_store_location(where)
    if where.exists() and (not where.is_dir() or any(where.iterdir())):
        raise UsageError(f"{where} already exists and is not empty: give a new directory")
    return open_sprouts_store(where, create=True, game=game)


def open_solve_store(args: argparse.Namespace, game: str | None = None) -> ProofStore:
    """The ProofStore a solve of `game` (default Sprouts) works on: the --server's, else the
    embedded store at --store (sproutsdb.ops.stores.open_proof_store)."""
    from sproutsdb.ops.stores import open_proof_store

    if args.server:
        return remote_store_from_args(args, game)
    return open_proof_store(args.store, game=game)
