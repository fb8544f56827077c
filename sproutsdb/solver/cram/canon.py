"""The canonical form of Cram lands: one key per land up to the grid's symmetries.

A land is first cut to its bounding box (translation), then its 8 images under the dihedral
group of the square (4 rotations, each mirrored) are compared as shapes `(height, width,
rows)`: the least one, with height ≤ width, is the canonical shape, and its text
(notation.format_shape) the key. Comparing rows as ints compares their text row by row,
so the key is the least text among the images with no more rows than columns.

Positions are worked on as one int per board, a *grid mask*: cell (r, c) of a board of
width w is bit r·(w+1) + (w-1-c). The extra bit per row stays 0, so a shift by 1 never
carries a cell into the next row and adjacency is a shift: horizontal neighbours by 1,
vertical ones by the stride w+1.

The functions below are the Python definitions. The compiled core (_cram.c, built when a
C compiler works) does the same on boards with h·(w+1) ≤ 64 (one 64-bit grid mask):
`CORE` is it, or None without it, with a core of another CANON_VERSION, or with
SPROUTSDB_PURE_PYTHON=1 (as for Sprouts). `board_keys` takes it when it can;
tests/test_cram_core.py holds the two to the same answers.
"""

from __future__ import annotations

import importlib
import os
from typing import Protocol, cast

from sproutsdb.solver.cram.notation import Shape

CANON_VERSION = 1


class CramCore(Protocol):
    """What the compiled core offers (the module sproutsdb.solver.cram._cram)."""

    CANON_VERSION: int
    MEMO_SLOTS: int

    def canonical_shape(self, height: int, width: int, rows: tuple[int, ...], /) -> Shape:
        """canonical_shape of a shape of ≤ 64 rows and ≤ 63 columns."""
        ...

    def lands(self, height: int, width: int, rows: tuple[int, ...], /) -> list[Shape] | None:
        """lands_of then cut, in the same order; None when h·(w+1) > 64."""
        ...

    def board_keys(self, height: int, width: int, rows: tuple[int, ...], /) -> list[str] | None:
        """The keys of a board's lands; None when it does not fit a grid mask either way."""
        ...

    def land_children(self, key: str, /) -> tuple[tuple[str, ...], ...] | None:
        """CramGame's children of one board's key; None when it does not fit a grid mask."""
        ...

    def memo_stats(self) -> tuple[int, int, int]:
        """(hits, misses, slots) of the core's land-key memo."""
        ...


def _load_core() -> CramCore | None:
    """The compiled core when it is built, ports this CANON_VERSION and is not turned off."""
    if os.environ.get("SPROUTSDB_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        module = importlib.import_module("sproutsdb.solver.cram._cram")
    except ImportError:
        return None
    core = cast(CramCore, module)
    return core if core.CANON_VERSION == CANON_VERSION else None


CORE = _load_core()


def fits(height: int, width: int) -> bool:
    """Whether the core takes a board of this size as it stands (one 64-bit grid mask)."""
    return 1 <= height and 1 <= width <= 63 and height * (width + 1) <= 64


def grid_mask(shape: Shape) -> tuple[int, int]:
    """(mask, stride) of a shape's free cells (see the module's layout)."""
    _, width, rows = shape
    stride = width + 1
    mask = 0
    for index, row in enumerate(rows):
        mask |= row << (index * stride)
    return mask, stride


def lands_of(mask: int, stride: int) -> list[int]:
    """The 4-connected components of a grid mask that have two cells or more (a lone cell
    has no move and is dropped), each as a mask in the same grid."""
    # cells with a free neighbour: the dead ones go first, so the fill never starts there
    rest = mask & ((mask << 1) | (mask >> 1) | (mask << stride) | (mask >> stride))
    found: list[int] = []
    while rest:
        land = rest & -rest
        while True:
            grown = (land | (land << 1) | (land >> 1) | (land << stride) | (land >> stride)) & rest
            if grown == land:
                break
            land = grown
        rest ^= land
        found.append(land)
    return found


def cut(land: int, stride: int) -> Shape:
    """The shape of a non-empty grid mask cut to its bounding box."""
    full = (1 << (stride - 1)) - 1
    low = (land & -land).bit_length() - 1
    land >>= (low // stride) * stride
    rows: list[int] = []
    union = 0
    while land:
        row = land & full
        rows.append(row)
        union |= row
        land >>= stride
    right = (union & -union).bit_length() - 1  # the lowest bit used: the rightmost column
    width = union.bit_length() - right
    if right:
        rows = [row >> right for row in rows]
    return len(rows), width, tuple(rows)


_REVERSED: dict[tuple[int, int], int] = {}  # (row, width) -> the row mirrored


def _reversed_bits(row: int, width: int) -> int:
    """A row of `width` cells read right to left (memoised: rows are few)."""
    mirrored = _REVERSED.get((row, width))
    if mirrored is None:
        if len(_REVERSED) >= 1 << 16:
            _REVERSED.clear()
        mirrored = _REVERSED[(row, width)] = int(format(row, f"0{width}b")[::-1], 2)
    return mirrored


def _transposed(shape: Shape) -> Shape:
    """The shape mirrored in its main diagonal (rows become columns)."""
    height, width, rows = shape
    texts = [format(row, f"0{width}b") for row in rows]
    return width, height, tuple(int("".join(column), 2) for column in zip(*texts))


def canonical_shape(shape: Shape) -> Shape:
    """The least of the 8 images of a shape (cut to its bounding box) with height ≤ width."""
    height, width = shape[0], shape[1]
    bases = [shape] if height < width else [_transposed(shape)] if height > width else []
    if not bases:  # a square: both orientations
        bases = [shape, _transposed(shape)]
    best = bases[0]
    for base in bases:
        h, w, base_rows = base
        mirrored = tuple(_reversed_bits(row, w) for row in base_rows)
        for image in (base_rows, base_rows[::-1], mirrored, mirrored[::-1]):
            if image < best[2]:
                best = (h, w, image)
    return best


def images(shape: Shape) -> list[Shape]:
    """The 8 images of a shape under the symmetries of the grid (with repeats), for tests."""
    found: list[Shape] = []
    for base in (shape, _transposed(shape)):
        h, w, base_rows = base
        mirrored = tuple(_reversed_bits(row, w) for row in base_rows)
        for image in (base_rows, base_rows[::-1], mirrored, mirrored[::-1]):
            found.append((h, w, image))
    return found
