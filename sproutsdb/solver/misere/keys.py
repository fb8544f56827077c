"""The syntax of misère node keys (the keys of the ``misere`` facts), in one place.

A misère search node is a position part, a 0/1 part and a multiset of RCTs
(solver/misere/solver.py). Its key is space-separated tokens:

* the canonical position key of the position part, ``!`` when it is empty;
* then ``*1`` when the 0/1 part is odd (once, right after the position);
* then the content ids of the RCTs (solver/cgt/ident.py), sorted ascending as strings,
  repeats kept.

A key with neither ``*1`` nor ids is just a position key, so a plain position's misère
fact sits under its canonical key. Examples::

    0*12                       a plain position
    0*2.A|0.A *1               0*2.A|0.A + *1
    ! *1 *2 rct1:3f…           *1 + *2 + {…} (no position part)

In a node, 0 has disappeared and *1 went to the 0/1 part, so ``*0`` is never one of its
ids (and ``*1`` is always the parity token); *(2k+1) = *2k + *1 is written ``*2k`` with
the ``*1`` token. ``!`` alone (the empty position, a misère win by definition) is no key.

Only syntax is checked here: whether the position part is canonical, or an id names a
stored tree, is for the game engine and the store to say. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

from sproutsdb.solver.cgt.ident import CONTENT_ID_SYNTAX, is_content_id, nim_value_of_id
from sproutsdb.solver.ports.game import NotationError

__all__ = ["EMPTY_POSITION", "PARITY_TOKEN", "join_node_key", "split_node_key"]

EMPTY_POSITION = "!"
PARITY_TOKEN = "*1"


def split_node_key(text: str) -> tuple[str, int, tuple[str, ...]]:
    """(position part, parity 0/1, content ids) of a node key; NotationError if malformed.

    The position part is returned as written (``!`` when empty), not read as a position.
    """
    if not isinstance(text, str):
        raise NotationError(f"a misère node key is text, got {type(text).__name__}")
    if not text:
        raise NotationError(
            "the empty string is not a misère node key (it starts with a position, "
            f"{EMPTY_POSITION!r} when the position part is empty)"
        )
    tokens = text.split(" ")
    columns = []  # 1-based column of each token
    column = 1
    for token in tokens:
        columns.append(column)
        column += len(token) + 1
    for i, token in enumerate(tokens):
        if not token:
            raise NotationError(
                f"empty token at column {columns[i]} of {text!r:.120}: the tokens of a "
                "misère node key are separated by single spaces"
            )

    def where(i: int) -> str:
        return f"at column {columns[i]} of {text!r:.120}"

    position = tokens[0]
    if position == PARITY_TOKEN or is_content_id(position):
        raise NotationError(
            f"a misère node key starts with its position part ({EMPTY_POSITION!r} when it "
            f"is empty), not with {position!r:.40} {where(0)}"
        )
    parity = 0
    cids: list[str] = []
    for i in range(1, len(tokens)):
        token = tokens[i]
        if token == PARITY_TOKEN:
            if parity:
                raise NotationError(
                    f"{PARITY_TOKEN!r} twice {where(i)}: *1 + *1 is 0 in misère play, so a "
                    f"node key carries {PARITY_TOKEN!r} at most once"
                )
            if cids:
                raise NotationError(
                    f"{PARITY_TOKEN!r} out of place {where(i)}: it comes right after the "
                    "position part, before the content ids"
                )
            parity = 1
            continue
        if not is_content_id(token):
            raise NotationError(
                f"{token!r:.80} {where(i)} is neither {PARITY_TOKEN!r} nor an RCT content id "
                f"({CONTENT_ID_SYNTAX})"
            )
        nim = nim_value_of_id(token)
        if nim == 0:
            raise NotationError(f"'*0' {where(i)}: 0 is no summand of a misère node; leave it out")
        if nim is not None and nim % 2:
            raise NotationError(
                f"{token!r} {where(i)} is *{nim - 1} + *1: a misère node key writes it "
                f"'*{nim - 1}' with the {PARITY_TOKEN!r} token"
            )
        if cids and token < cids[-1]:
            raise NotationError(
                f"content ids out of order {where(i)}: {token!r} comes after "
                f"{cids[-1]!r}; a misère node key lists them sorted"
            )
        cids.append(token)
    if position == EMPTY_POSITION and not parity and not cids:
        raise NotationError(
            f"{EMPTY_POSITION!r} alone is no misère node key: the empty position is a "
            f"misère win by definition (a node with an empty position part has "
            f"{PARITY_TOKEN!r} or content ids after {EMPTY_POSITION!r})"
        )
    return position, parity, tuple(cids)


def join_node_key(position: str, parity: int, cids: Iterable[str] = ()) -> str:
    """The key of a node from its parts (``cids`` in any order; sorted here).

    ``position`` is the canonical position key (``!`` or "" when empty). The result is
    checked by ``split_node_key`` (NotationError if it is no key), so it round-trips.
    """
    if parity not in (0, 1):
        raise ValueError(f"parity is 0 or 1, got {parity!r}")
    parts = [position or EMPTY_POSITION]
    if parity:
        parts.append(PARITY_TOKEN)
    parts.extend(sorted(cids))
    key = " ".join(parts)
    split_node_key(key)
    return key
