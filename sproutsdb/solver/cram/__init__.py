"""Cram: dominoes placed on free cells of a grid until no two free cells touch.

A position is a set of free cells; each 4-connected component of two or more cells is a
land (a lone free cell can never be played and is dropped). `CramGame` is the engine behind
the `Game` interface; `notation` reads and writes positions, `canon` puts lands in the form
that is the same for every translation, rotation and reflection of the grid. Their Python
definitions are the specification; the compiled core `_cram` (built when a C compiler works)
gives the same answers on boards that fit a 64-bit grid mask (game.IMPLEMENTATION says which
runs).
"""

from __future__ import annotations

from sproutsdb.solver.cram.canon import CANON_VERSION
from sproutsdb.solver.cram.game import CramGame
from sproutsdb.solver.cram.notation import MAX_POSITION_CELLS, TERMINAL

__all__ = ["CANON_VERSION", "MAX_POSITION_CELLS", "TERMINAL", "CramGame"]
