"""The `--game NAME` option of the commands that work on more than one game, and the store
of that game: a store records its game, and one of another game is refused in one line."""

from __future__ import annotations

import argparse
from typing import Any

from sproutsdb.games import DEFAULT_GAME, GameEntry, game_names, get_game
from sproutsdb.tools.cli import UsageError


def add_game_option(parser: argparse.ArgumentParser, *, store: bool = False) -> None:
    """`--game NAME`, one of the registered games (the store's game by default, for commands
    that open a store; else Sprouts)."""
    default = "the game of the --store, else sprouts" if store else DEFAULT_GAME
    parser.add_argument(
        "--game",
        choices=game_names(),
        default=None,
        help=f"the game of the positions (default: {default}); cram takes boards like "
        "4x5 or '..#/...'",
    )


def game_of(args: argparse.Namespace) -> GameEntry:
    """The game a command works on: --game; else, for a command with a local store, the
    game that store records (when there is one); else Sprouts."""
    name = getattr(args, "game", None)
    if name is None and hasattr(args, "store") and not getattr(args, "server", None):
        name = store_game(args.store)
    return get_game(name or DEFAULT_GAME)


def store_game(path: str | None) -> str | None:
    """The game recorded by the store at `path`; None where there is no readable store
    (opening it then says why, as it always did)."""
    from sproutsdb.server.store.errors import StoreError
    from sproutsdb.server.store.opening import peek_identity

    try:
        return peek_identity(path).game or None
    except StoreError:
        return None


def open_game_store(args: argparse.Namespace, entry: GameEntry) -> Any:
    """The ProofStore of a solve of `entry`'s game: the --server's (which must hold that
    game), else the embedded store at --store, created for the game or refused when it
    records another game or canonical-form version (StoreMismatchError: one line)."""
    from sproutsdb.tools.stores import open_solve_store

    if entry.name == DEFAULT_GAME:
        return open_solve_store(args)
    if args.server:
        return _remote_store(args, entry)
    from sproutsdb.server.store import LmdbProofStore

    return LmdbProofStore.open(args.store, game=entry.name, canon_version=entry.canon_version)


def _remote_store(args: argparse.Namespace, entry: GameEntry) -> Any:
    """The RemoteProofStore of --server, refused unless the server holds `entry`'s game."""
    from sproutsdb.client import RemoteProofStore
    from sproutsdb.tools.server_options import client_from_args

    client = client_from_args(args)
    info = client.server_info()
    if info["game"] != entry.name or info["canon_version"] != entry.canon_version:
        client.close()
        raise UsageError(
            f"server {args.server} keeps {info['game']!r} positions with canon_version "
            f"{info['canon_version']}; --game {entry.name} needs {entry.name!r} with "
            f"canon_version {entry.canon_version}"
        )
    return RemoteProofStore(client, owns_client=True)
