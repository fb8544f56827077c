"""The `--game NAME` option of the commands that work on more than one game, and the store
of that game: a store records its game and a server says its own, and --game naming another
is refused in one line."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from sproutsdb.errors import UsageError
from sproutsdb.games import DEFAULT_GAME, GameEntry, game_names, get_game
from sproutsdb.solver.ports.game import NotationError
from sproutsdb.solver.ports.proofstore import ProofStore
from sproutsdb.store.location import resolve_store_path


def add_game_option(parser: argparse.ArgumentParser, *, store: bool = False) -> None:
    """`--game NAME`, one of the registered games (the store's or server's game by default,
    for commands that open one; else Sprouts)."""
    default = "the game of the --store or --server, else sprouts" if store else DEFAULT_GAME
    parser.add_argument(
        "--game",
        choices=game_names(),
        default=None,
        help=f"the game of the positions (default: {default}); cram takes boards like "
        "4x5 or '..#/...'",
    )


def game_of(args: argparse.Namespace, positions: Sequence[str] = ()) -> GameEntry:
    """The game a command works on: the one its --server holds or its --store records (when
    there is one), else --game, else Sprouts; a --game naming another game than the server's
    or the store's is refused in one line (the positions would be read as the wrong game).
    A text of `positions` that no game could read is refused before any server is asked."""
    asked = getattr(args, "game", None)
    for text in positions:
        refuse_unreadable(text, asked or DEFAULT_GAME)
    held, where = held_game(args)
    if asked is not None and held is not None and asked != held:
        raise UsageError(f"--game {asked} disagrees with {where}, which holds {held} positions")
    return get_game(asked or held or DEFAULT_GAME)


def refuse_unreadable(text: str, likely: str) -> None:
    """Raise the NotationError of game `likely` when no registered game reads `text`, so a
    position that is wrong in every game (0*5000) is said without waiting for a server."""
    for name in game_names():
        try:
            get_game(name).engine().canonical(text)
        except NotationError:
            continue
        return
    get_game(likely).engine().canonical(text)


def held_game(args: argparse.Namespace) -> tuple[str | None, str]:
    """The game the command's --server or --store holds, and where that is said; (None, "")
    for a command with neither, or a store not made yet."""
    if getattr(args, "server", None):
        return server_game(args), f"server {args.server}"
    if hasattr(args, "store"):
        return store_game(args.store), f"the store at {resolve_store_path(args.store)}"
    return None, ""


def server_game(args: argparse.Namespace) -> str:
    """The game the --server holds, from its ServerInfo (grpc is imported only here, when
    the command connects)."""
    from sproutsdb.tools.server_options import client_from_args

    with client_from_args(args) as client:
        game: str = client.server_info()["game"]
    return game


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
