"""The `--game NAME` option of the commands that work on more than one game, and the store
of that game: a store records its game, and one of another game is refused in one line."""

from __future__ import annotations

import argparse

from sproutsdb.games import DEFAULT_GAME, GameEntry, game_names, get_game
from sproutsdb.solver.ports.proofstore import ProofStore


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
    from sproutsdb.store.errors import StoreError
    from sproutsdb.store.opening import peek_identity

    try:
        return peek_identity(path).game or None
    except StoreError:
        return None


def open_game_store(args: argparse.Namespace, entry: GameEntry) -> ProofStore:
    """The ProofStore of a solve of `entry`'s game: the --server's (which must hold that
    game), else the embedded store at --store, created for the game or refused when it
    records another game or canonical-form version (StoreMismatchError: one line)."""
    from sproutsdb.tools.stores import location_of

    return location_of(args, entry.name).open()
