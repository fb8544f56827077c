"""The games registry: a game's name → its engine, notation limits and canonical-form version.

Every layer above ``solver/`` (the store, the service, the formats, the web reader, the
command line) asks this registry for the game it works on instead of importing a game's
module (docs/architecture.md, "More than one game"). A store records its game; a server says
which game it holds in ServerInfo. Sprouts is the default and, today, the only entry; a new
game is one more ``GameEntry`` built by a function registered in ``_FACTORIES``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from sproutsdb.errors import UserError
from sproutsdb.solver.ports.game import Game

DEFAULT_GAME = "sprouts"


class UnknownGameError(UserError):
    """A game name the registry does not know."""


@dataclass(frozen=True)
class Supports:
    """What a game offers beyond normal-play nimbers, so that a door asks its entry instead of
    checking the game's name: misère play, RCT tables, `--spots N` (n isolated spots), the
    results library's certificates, and `--jobs N` helper processes."""

    misere: bool = False
    rct_tables: bool = False
    spots: bool = False
    library: bool = False
    parallel: bool = False

    def missing(self, asked: dict[str, bool]) -> list[str]:
        """The names in `asked` (a capability's name → whether it is asked for) that are
        asked for and not offered, in order."""
        return [name for name, wanted in asked.items() if wanted and not getattr(self, name)]


@dataclass(frozen=True)
class GameEntry:
    """What the layers above the engine need of one game."""

    name: str
    canon_version: int  # the canonical form's version, stored in every store and file
    terminal: str  # the key of the position with no move
    implementation: str  # which engine runs: "c" (compiled core) or "python"
    max_position_vertices: int  # the largest position the notation accepts
    make_engine: Callable[..., Game]  # the engine (keyword options, e.g. cache_size)
    lives: Callable[[str], int]  # a canonical key's size measure, without parsing it whole
    count_vertices: Callable[[str], int]  # what max_position_vertices bounds, of any text
    fast_canonical_lands: Callable[[str], list[str] | None]  # None: take the engine's path
    compiled_core: Callable[[], Any]  # the compiled core module, or None
    supports: Supports = Supports()  # what it offers beyond normal-play nimbers

    def engine(self, **options: Any) -> Game:
        """A new engine of this game."""
        return self.make_engine(**options)


def _sprouts() -> GameEntry:
    """Sprouts: the engine of solver/sprouts (the one module allowed to name it)."""
    from sproutsdb.solver.sprouts import game as sprouts_game
    from sproutsdb.solver.sprouts.canon import CANON_VERSION
    from sproutsdb.solver.sprouts.notation import MAX_POSITION_VERTICES, count_vertices, key_lives

    return GameEntry(
        name="sprouts",
        canon_version=CANON_VERSION,
        terminal=sprouts_game.TERMINAL,
        implementation=sprouts_game.IMPLEMENTATION,
        max_position_vertices=MAX_POSITION_VERTICES,
        make_engine=sprouts_game.SproutsGame,
        lives=key_lives,
        count_vertices=count_vertices,
        fast_canonical_lands=sprouts_game.core_canonical_lands,
        compiled_core=sprouts_game.compiled_core,
        supports=Supports(misere=True, rct_tables=True, spots=True, library=True, parallel=True),
    )


def _circular() -> GameEntry:
    """Circular sprouts CS_n(P4: t1..tn) (docs/circular-sprouts.md): pure Python, no core."""
    from sproutsdb.solver.circular import game as circular_game
    from sproutsdb.solver.circular import notation

    return GameEntry(
        name="circular",
        canon_version=circular_game.CANON_VERSION,
        terminal=notation.TERMINAL,
        implementation=circular_game.IMPLEMENTATION,
        max_position_vertices=notation.MAX_POSITION_VERTICES,
        make_engine=circular_game.CircularGame,
        lives=notation.key_lives,
        count_vertices=notation.count_vertices,
        fast_canonical_lands=lambda text: None,
        compiled_core=lambda: None,
    )


def _cram() -> GameEntry:
    """Cram: dominoes on a grid, the engine of solver/cram (its compiled core when built,
    `implementation` says which). The server's key fast path is Sprouts' alone: a Cram key is
    made by the engine, whose C and Python definitions are tested equal."""
    from sproutsdb.solver.cram import game as cram_game
    from sproutsdb.solver.cram.canon import CANON_VERSION
    from sproutsdb.solver.cram.notation import (
        MAX_POSITION_CELLS,
        TERMINAL,
        count_cells,
        key_cells,
    )

    return GameEntry(
        name="cram",
        canon_version=CANON_VERSION,
        terminal=TERMINAL,
        implementation=cram_game.IMPLEMENTATION,
        max_position_vertices=MAX_POSITION_CELLS,
        make_engine=cram_game.CramGame,
        lives=key_cells,
        count_vertices=count_cells,
        fast_canonical_lands=lambda text: None,
        compiled_core=lambda: None,
    )


_FACTORIES: dict[str, Callable[[], GameEntry]] = {
    "sprouts": _sprouts,
    "cram": _cram,
    "circular": _circular,
}


def game_names() -> tuple[str, ...]:
    """The names of the registered games, the default first."""
    return tuple(_FACTORIES)


@cache
def get_game(name: str = DEFAULT_GAME) -> GameEntry:
    """The registry's entry of a game; UnknownGameError naming the known ones."""
    factory = _FACTORIES.get(name)
    if factory is None:
        known = ", ".join(game_names())
        raise UnknownGameError(f"unknown game {name!r} (this sproutsdb knows: {known})")
    return factory()
