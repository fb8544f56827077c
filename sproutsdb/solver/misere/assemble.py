"""The children a node gets from the moves in one of its lands, keyed, ordered and built.

``MisereNodes.sized_children`` spends most of its own time in ``assemble_land_moves``: for
every folded move of a land (``LandMove``, or a lone new land as its string), the child's
lands, parity, RCTs, key and move order. ``MisereSpace.expand`` then puts the children in
move order with their initial proof numbers (``order_children``), and df-pn passes over
them again and again (``scan_children``). These functions are the definitions; their
compiled twins in ``_assemble.c`` (built when a C compiler works) give
equal results and are used when built, unless ``SPROUTSDB_PURE_PYTHON=1``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from sproutsdb.solver.misere.keys import EMPTY_POSITION, PARITY_TOKEN
from sproutsdb.solver.search import dfpn
from sproutsdb.solver.search.dfpn import Scan

# The search builds and caches its nodes as plain tuples with Node's fields (a Node is one):
# the garbage collector stops tracking a plain tuple of strings and ints, never an instance
# of a tuple subclass, and its full collections over the cached Nodes took a fifth of the
# CPU of a 0*12 search. The public methods hand out Nodes.
NodeParts = tuple[tuple[str, ...], int, tuple[int, ...]]  # (lands, parity, rcts)

Size = tuple[int, int, int, int]  # the move order of a node (``MisereNodes.size``)

Sized = dict[str, tuple[Size, NodeParts]]  # children by key, with their move order

# assemble_land_moves's signature, which its compiled twin shares
Assembler = Callable[
    [
        Sized,
        tuple[str, ...],
        Sequence[object],
        Sequence[int],
        int,
        int,
        tuple[int, ...],
        tuple[str, str],
        int,
        int,
        Mapping[int, str],
    ],
    None,
]
# children in move order: key, parts and df-pn's initial numbers (φ, δ)
Ordered = list[tuple[str, NodeParts, tuple[int, int]]]
Orderer = Callable[[Sized, int, Mapping[int, tuple[int, int]]], Ordered]


def assemble_land_moves(
    out: Sized,
    rest: tuple[str, ...],
    moves: Sequence[object],
    moves_lives: Sequence[int],
    rest_lives: int,
    parity: int,
    rcts: tuple[int, ...],
    suffix: tuple[str, str],
    rct_nimber: int,
    rct_height: int,
    cid: Mapping[int, str],
) -> None:
    """Add to ``out`` the children of a node made by the moves of one of its lands.

    ``rest`` is the node's other lands (sorted), ``rest_lives`` their lives; ``rcts`` the
    node's RCT handles sorted by content id (``cid``), their nimber and height given;
    ``suffix`` the key's tail after the lands for a child of parity 0 and of parity 1 with
    the node's RCTs. A key already in ``out`` keeps its first child. The move order (size)
    is ``MisereNodes.size``'s: lives, -lands, nimber ≠ 0, parity + height.
    """
    for move, move_lives in zip(moves, moves_lives):
        if isinstance(move, str):  # one new land of unknown RCT (LandMoves)
            kept: tuple[str, ...] = (move,)
            flip = nimber = height = 0
            handles: tuple[int, ...] = ()
        else:
            kept, _, flip, handles, nimber, height = move  # type: ignore[misc]
        if not kept:
            child_lands = rest
        elif rest:
            child_lands = tuple(sorted(rest + kept))
        else:
            child_lands = kept
        child_parity = parity ^ flip
        head = "+".join(child_lands) if child_lands else EMPTY_POSITION
        if handles:
            child_rcts = tuple(sorted(rcts + handles, key=cid.__getitem__))
            tail = (" " + PARITY_TOKEN if child_parity else "") + "".join(
                " " + cid[h] for h in child_rcts
            )
        else:
            child_rcts = rcts
            tail = suffix[child_parity]
        child_key = head + tail
        if child_key in out:
            continue
        child_nimber = child_parity ^ rct_nimber ^ nimber
        size = (
            rest_lives + move_lives,
            -len(child_lands),
            1 if child_nimber else 0,
            child_parity + rct_height + height,
        )
        out[child_key] = (size, (child_lands, child_parity, child_rcts))


def order_children(kids: Sized, divisor: int, initials: Mapping[int, tuple[int, int]]) -> Ordered:
    """The children in move order (size, then key), each with its initial proof numbers
    ``initials[δ]``, δ = 1 + lives // divisor + its RCTs (``MisereSpace.expand``)."""
    ordered = [(size, key, child) for key, (size, child) in kids.items()]
    ordered.sort()
    return [
        (key, child, initials[1 + size[0] // divisor + len(child[2])])
        for size, key, child in ordered
    ]


def scan_children(
    children: Ordered,
    decided: Callable[[NodeParts, str], bool | None],
    numbers: dict[Any, tuple[int, int]],
    learnt: dict[str, tuple[int, int]],
    hashed: bool,
    table: Mapping[str, bool],
    claims: AbstractSet[str],
) -> Scan:
    """df-pn's pass over a misère node's children (``dfpn.scan_children``). ``table`` (the
    proven nodes) and ``claims`` (a resume record's unchecked wins) are for the compiled
    twin, which reads a child with lands straight from the table unless its key is a claim:
    ``MisereSpace.decided`` answers exactly that for such a child."""
    return dfpn.scan_children(children, decided, numbers, learnt, hashed)


# scan_children's signature, which its compiled twin shares
MisereScanner = Callable[
    [
        Ordered,
        Callable[[NodeParts, str], bool | None],
        dict[Any, tuple[int, int]],
        dict[str, tuple[int, int]],
        bool,
        Mapping[str, bool],
        AbstractSet[str],
    ],
    Scan,
]


def _compiled() -> tuple[Assembler, Orderer, MisereScanner] | None:
    """The compiled twins when they are built and not turned off, else None."""
    if os.environ.get("SPROUTSDB_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from sproutsdb.solver.misere import _assemble
    except ImportError:
        return None
    return _assemble.assemble_land_moves, _assemble.order_children, _assemble.scan_children


_TWINS = _compiled()
COMPILED: Assembler | None = None if _TWINS is None else _TWINS[0]
COMPILED_ORDER: Orderer | None = None if _TWINS is None else _TWINS[1]
# None without the build: the search then takes df-pn's own pass (the same, in Python)
COMPILED_SCAN: MisereScanner | None = None if _TWINS is None else _TWINS[2]
ASSEMBLE: Assembler = COMPILED or assemble_land_moves
ORDER: Orderer = COMPILED_ORDER or order_children
