"""Open a store: the one verb that gives a `ProofStore`, local or remote.

`open_proof_store(location)` opens (or creates) the embedded LMDB store at `location`;
`readonly=True` opens an existing one as it is, of whatever game it records;
`server="HOST:PORT"` gives the `RemoteProofStore` of a sproutsdb server instead, checked
to be answering and to hold the same game and canonical form. Every door (the command line,
bench/, the solve fleet) opens its store here, so a solve or a check runs the same on
either. A missing store, a store or server of another game is a `UsageError` (one line).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sproutsdb.errors import UsageError
from sproutsdb.games import DEFAULT_GAME, get_game
from sproutsdb.solver.ports.proofstore import ProofStore
from sproutsdb.store import LmdbProofStore, StoreNotFoundError, open_store
from sproutsdb.store.location import check_new_store_location, resolve_store_path
from sproutsdb.store.opening import peek_identity

if TYPE_CHECKING:
    from sproutsdb.client import RemoteProofStore

REMOTE_TIMEOUT = 30.0  # seconds a call to the server may take before it is given up

Location = str | os.PathLike[str] | None


def open_proof_store(
    location: Location = None,
    *,
    server: str | None = None,
    readonly: bool = False,
    game: str | None = None,
    token: str | None = None,
    tls_ca: bytes | None = None,
) -> ProofStore:
    """The ProofStore a verb works on: the server's at `server` (its `token` for writes,
    `tls_ca` a PEM certificate for TLS), else the embedded store at `location` (default
    $SPROUTSDB_STORE or ./sproutsdb-data). A local store is created for `game` when missing
    unless `readonly`; a read-only one is taken of the game it records. (`readonly` is for
    a local store: what a client may write to a server is the server's to say, by token.)"""
    if server is not None:
        return open_remote_store(server, game=game, token=token, tls_ca=tls_ca)
    return open_local_store(location, readonly=readonly, game=game)


def open_local_store(
    location: Location = None,
    *,
    readonly: bool = False,
    game: str | None = None,
    create: bool = True,
    new: bool = False,
) -> LmdbProofStore:
    """The embedded store at `location`: created for `game` (default Sprouts) when missing,
    never under a missing parent directory; with `create=False` or `readonly`, an existing
    store of the game it records (a UsageError when there is none); with `new`, a new store
    of `game` at a path that does not exist or is an empty directory. A store of another
    game or canonical form is refused (StoreMismatchError, one line)."""
    if new:
        return _new_store(location, game or DEFAULT_GAME)
    if readonly or not create:
        try:  # an existing store is taken as it is, of whatever game it records
            recorded = peek_identity(location).game
            return open_store(location, create=False, readonly=readonly, game=recorded)
        except StoreNotFoundError:
            raise UsageError(_no_store(location)) from None
    name = game or DEFAULT_GAME
    if name != DEFAULT_GAME:  # a store of another game: created, or refused if of another
        entry = get_game(name)
        return LmdbProofStore.open(location, game=entry.name, canon_version=entry.canon_version)
    check_new_store_location(location)
    try:
        return open_store(location, create=True)
    except StoreNotFoundError:
        raise UsageError(_no_store(location)) from None


def _new_store(location: Location, game: str) -> LmdbProofStore:
    """A new store of `game` at `location`, which must not exist or be an empty directory."""
    where = Path(location if location is not None else resolve_store_path(None)).expanduser()
    check_new_store_location(where)
    if where.exists() and (not where.is_dir() or any(where.iterdir())):
        raise UsageError(f"{where} already exists and is not empty: give a new directory")
    return open_store(where, create=True, game=game)


def may_write(location: Location) -> bool:
    """Whether this user may write the store at `location` (its data file and its
    directory, where LMDB keeps the lock file): a check marks what it verifies only then."""
    where = resolve_store_path(location)
    data = where / "data.mdb"
    return os.access(where, os.W_OK) and (not data.exists() or os.access(data, os.W_OK))


def _no_store(location: Location) -> str:
    """What a command says of a missing store, and how to make one."""
    return (
        f"no store at {resolve_store_path(location)}: solve something first "
        "(sproutsdb solve …) or name an existing store with --store DIR"
    )


def open_remote_store(
    server: str,
    *,
    game: str | None = None,
    token: str | None = None,
    tls_ca: bytes | None = None,
) -> RemoteProofStore:
    """The RemoteProofStore of the server at `server`, refused (UsageError) unless it
    answers and holds `game` (default Sprouts) in this engine's canonical form."""
    from sproutsdb.client import Client, RemoteProofStore

    entry = get_game(game or DEFAULT_GAME)
    client = Client(server, token, tls_ca=tls_ca, timeout=REMOTE_TIMEOUT)
    try:
        info = client.server_info()
    except BaseException:
        client.close()
        raise
    if info["game"] != entry.name or info["canon_version"] != entry.canon_version:
        client.close()
        held = (
            f"server {server} keeps {info['game']!r} positions with canon_version "
            f"{info['canon_version']}"
        )
        if entry.name == DEFAULT_GAME:
            raise UsageError(
                f"{held}; this sproutsdb uses 'sprouts' with canon_version {entry.canon_version}"
            )
        raise UsageError(
            f"{held}; --game {entry.name} needs {entry.name!r} with canon_version "
            f"{entry.canon_version}"
        )
    return RemoteProofStore(client, owns_client=True)


@dataclass(frozen=True)
class StoreLocation:
    """Where a store is, as a value a helper process or Ray worker can be handed (it pickles):
    the embedded store at `path`, or the server at `server` with its write token and TLS
    certificate; `open()` gives its ProofStore through the one store verb."""

    path: str | None = None
    server: str | None = None
    token: str | None = None
    tls_ca: bytes | None = None
    game: str | None = None

    def open(self) -> ProofStore:
        """The ProofStore at this location (open_proof_store)."""
        return open_proof_store(
            self.path, server=self.server, game=self.game, token=self.token, tls_ca=self.tls_ca
        )

    def where(self) -> str:
        """`server ADDR` or the store's directory, as reports say it."""
        return store_where(self.path, self.server)


def store_where(location: Location = None, server: str | None = None) -> str:
    """Where a verb's facts go, as reports say it: `server ADDR` or the store's directory."""
    return f"server {server}" if server else str(resolve_store_path(location))


__all__ = [
    "StoreLocation",
    "may_write",
    "open_local_store",
    "open_proof_store",
    "open_remote_store",
    "store_where",
]
