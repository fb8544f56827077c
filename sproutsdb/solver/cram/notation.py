"""Cram notation: boards as rows of `.` (free) and `#` (filled) joined by `/`.

`..#/...` is a 2-row board whose top right cell is filled; `4x5` is an empty board of 4 rows
and 5 columns; terms joined by `+` are a sum; `!` is the position with no move. A board is
held as a *shape* `(height, width, rows)`: each row an int of `width` bits, the leftmost
column the most significant bit, 1 for a free cell (so comparing rows as ints compares their
text, `#` before `.`).
"""

from __future__ import annotations

import re

from sproutsdb.solver.ports.game import NotationError

TERMINAL = "!"
MAX_POSITION_CELLS = 1024  # grid cells (free or filled) of one position, summed over terms
FREE, FILLED = ".", "#"

Shape = tuple[int, int, tuple[int, ...]]

_RECTANGLE = re.compile(r"([0-9]+)x([0-9]+)")
_TO_BITS = str.maketrans({FREE: "1", FILLED: "0"})
_TO_TEXT = str.maketrans({"1": FREE, "0": FILLED})


def _quoted(text: str) -> str:
    """A term as an error message shows it (long ones cut)."""
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


def parse_terms(text: str) -> list[Shape]:
    """The boards of a position, in the order written (`!` gives none).

    Raises NotationError naming the term, row and column at fault, or the size limit.
    """
    text = text.strip()
    if text == TERMINAL:
        return []
    if not text:
        raise NotationError("cram: empty position: write ! for the position with no move")
    terms = text.split("+")
    cells = count_cells(text)
    if cells > MAX_POSITION_CELLS:
        told = f"{cells:,}" if cells < 10**15 else "more than 10^15"
        raise NotationError(
            f"cram: the position has {told} grid cells; this sproutsdb accepts at most "
            f"{MAX_POSITION_CELLS:,}"
        )
    shapes: list[Shape] = []
    for index, term in enumerate(terms, 1):
        where = f"cram: term {index} {_quoted(term.strip())}" if len(terms) > 1 else "cram:"
        shape = _parse_term(term.strip(), where)
        if shape is not None:
            shapes.append(shape)
    return shapes


def _parse_term(term: str, where: str) -> Shape | None:
    """One board, or None for an empty one (`!`, or a board with 0 rows or columns)."""
    if term == TERMINAL:
        return None
    if not term:
        raise NotationError(f"{where} is empty: write a board like 4x5 or ../.# between the +")
    match = _RECTANGLE.fullmatch(term)
    if match:
        height, width = int(match.group(1)), int(match.group(2))
        if not height or not width:
            return None
        return height, width, ((1 << width) - 1,) * height
    if term[0].isdigit():
        raise NotationError(
            f"{where} {_quoted(term)} is not a board: write MxN (rows x columns, e.g. 4x5) "
            "or rows of . and # joined by /"
        )
    rows = term.split("/")
    width = len(rows[0])
    bits: list[int] = []
    for number, row in enumerate(rows, 1):
        if not row:
            raise NotationError(f"{where} row {number} is empty (two / in a row, or one at an end)")
        if row.count(FREE) + row.count(FILLED) != len(row):
            column = next(i for i, c in enumerate(row, 1) if c not in (FREE, FILLED))
            raise NotationError(
                f"{where} row {number}, column {column}: {row[column - 1]!r} is neither "
                f"{FREE!r} (a free cell) nor {FILLED!r} (a filled cell)"
            )
        if len(row) != width:
            raise NotationError(
                f"{where} row {number} has {len(row)} columns but row 1 has {width}: "
                "every row of a board has the same width"
            )
        bits.append(int(row.translate(_TO_BITS), 2))
    return len(rows), width, tuple(bits)


def format_shape(shape: Shape) -> str:
    """The text of a shape: `HxW` when every cell is free, else its rows joined by `/`."""
    height, width, rows = shape
    if rows.count((1 << width) - 1) == height:
        return f"{height}x{width}"
    return "/".join(format(row, f"0{width}b").translate(_TO_TEXT) for row in rows)


def count_cells(text: str) -> int:
    """The grid cells (free or filled) a position's text describes, without building it:
    what MAX_POSITION_CELLS bounds (an `MxN` term counts M·N)."""
    total = 0
    for term in text.split("+"):
        term = term.strip()
        match = _RECTANGLE.fullmatch(term)
        if match:
            height, width = match.groups()
            if len(height) + len(width) > 30:  # far past any limit: no huge int to print
                return 10**30
            total += int(height) * int(width)
        elif term != TERMINAL:
            total += term.count(FREE) + term.count(FILLED)
    return total


def key_cells(key: str) -> int:
    """The free cells of a canonical key (its size: every move fills two)."""
    total = 0
    for term in key.split("+"):
        if "x" in term:
            height, _, width = term.partition("x")
            total += int(height) * int(width)
        else:
            total += term.count(FREE)
    return total
