"""Reading and writing circular-sprouts positions: `CS(t1,…,tn)` terms joined by `+`, `!` empty.

A term lists the open tips of the spots met going once around the circle. The circle is an
edge cycle of the graph, so it needs at least four spots (girth ≥ 4). Messages name the term
and the fault, since a position string is user input.
"""

from __future__ import annotations

import re

from sproutsdb.solver.ports.game import NotationError

Cycle = tuple[int, ...]  # open tips of the spots, in order around the circle

TERMINAL = "!"
MIN_SPOTS = 4  # a shorter circle is a triangle or a multiple edge: not in P4
# Spots plus open tips a position may hold: the notation's size limit (the service's too).
MAX_POSITION_VERTICES = 1000

_TERM = re.compile(r"CS\(\s*(\d+(?:\s*,\s*\d+)*)\s*\)")
_NUMBER = re.compile(r"\d+")
_HUGE = 10**12  # what a number of more than 12 digits counts as (never converted)


def parse(text: str) -> list[Cycle]:
    """The circles of a position as tip tuples, in the order written; [] for `!` or "".

    Raises NotationError on anything that is not a sum of `CS(...)` terms of ≥ 4 spots, or
    on a position larger than MAX_POSITION_VERTICES.
    """
    text = text.strip()
    if text in ("", TERMINAL):
        return []
    check_size(text)
    cycles: list[Cycle] = []
    for index, part in enumerate(text.split("+"), start=1):
        term = part.strip()
        match = _TERM.fullmatch(term)
        if match is None:
            raise NotationError(
                f"circular: term {index} {term[:40]!r} is not CS(t1,…,tn) "
                "with whole numbers of open tips"
            )
        tips = tuple(int(n) for n in match.group(1).split(","))
        if len(tips) < MIN_SPOTS:
            raise NotationError(
                f"circular: term {index} {term!r} has {len(tips)} spots; a circle needs at "
                f"least {MIN_SPOTS} (the graph keeps girth ≥ 4)"
            )
        cycles.append(tips)
    return cycles


def write(cycle: Cycle) -> str:
    """The text of one circle: `CS(t1,…,tn)`."""
    return "CS(" + ",".join(str(t) for t in cycle) + ")"


def count_vertices(text: str) -> int:
    """Spots plus open tips written in `text`, without parsing it: cheap at any length."""
    count = 0
    for match in _NUMBER.finditer(text):
        digits = match.group()
        count += 1 + (int(digits) if len(digits) <= 12 else _HUGE)
    return count


def check_size(text: str) -> None:
    """NotationError for a position over MAX_POSITION_VERTICES, naming its size."""
    count = count_vertices(text)
    if count > MAX_POSITION_VERTICES:
        raise NotationError(
            f"circular: position too large: {count:,} spots and open tips; "
            f"the limit is {MAX_POSITION_VERTICES:,}"
        )


def key_lives(key: str) -> int:
    """The size measure of a canonical key from its text: 2·(open tips) − 1 per circle.

    A move keeps the open tips of a circle (two used, two on the crossbar) but splits it in
    two, and canonical form drops circles with no move left, so this drops by ≥ 1 per move.
    """
    if key == TERMINAL:
        return 0
    tips = sum(int(n) for n in _NUMBER.findall(key))
    return 2 * tips - (key.count("+") + 1)
