"""The R1 note's misère rule (the note on a misère algorithm for R1 games; docs/architecture.md,
"Sources"), applied to a
sum of lands whose normal nimber and misère outcome are known. Pure computation.

The note sorts each component of a sum by its two outcomes. A *null* loses in normal play
and wins in misère; a *trap* loses in both; an *inverter* wins in normal play and loses in
misère (a *higher inverter* when its nimber is above 1); a *switch* wins in both (a
*gremlin* with nimber 1, a *higher switch* above 1). In an R1 game there are no higher
inverters, every higher switch has a move to a null or a gremlin, and no null has a move
to a gremlin; for those games the note claims that a sum is a misère loss for the player
to move exactly when its nim-sum is 0 and some component is a trap or a switch, or when no
component is a trap or a switch and the number of inverters is odd. A winning move is then
prescribed by the first of four cases that fits:

1. a trap, or two higher switches, or a gremlin: play the normal-play move (one that makes
   the nim-sum 0; there is one only when the nim-sum is not 0);
2. no trap, no gremlin, one higher switch, an even number of inverters: move the switch to
   a trap or an inverter;
3. the same with an odd number of inverters: move the switch to a null or a gremlin;
4. no trap and no switch, an even number of inverters: move a null to an inverter or an
   inverter to a null.

Inverters are counted with the higher ones (an R1 game has none; Sprouts has them).

Any other sum (no trap or switch and an odd number of inverters, or case 1's counts with
nim-sum 0) is one the note calls a loss, so no case applies. A case names classes, not one
move: among the moves it allows, `r1_rule` takes the first whose result the note's own loss
criterion calls a loss (by the classes of the lands after the move), else the first it
allows. The note claims its rule for R1 games only, and Sprouts is not one: higher inverters
occur, and 6,377 of the 13,342 lands of the tree of 0*5 fail a condition somewhere in their
own tree (solver/extras/r1_hereditary.py tests every position). Even on sums of lands that
meet the conditions everywhere the rule can fail, since the note's argument never rules out
a gremlin moving to a null (1+2aA2Ba|AC|BC). So the rule is a claim to measure against the
exact misère solver (bench/r1.py), never a source of facts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

SWITCHES = ("gremlin", "higher switch")
INVERTERS = ("inverter", "higher inverter")
# What each case lets the moved component become (case 1 prescribes a nimber instead).
TARGETS: dict[int, tuple[str, ...]] = {
    2: ("trap", *INVERTERS),
    3: ("null", "gremlin"),
}


def r1_class(nimber: int | None, misere: str | None) -> str | None:
    """The R1 class, or None unless both the nimber and the misère outcome are known.

    null: normal loss, misère win; trap: loss in both; inverter: normal win, misère loss
    (higher inverter when the nimber is above 1); switch: win in both, a gremlin with
    nimber 1, a higher switch above 1.
    """
    if nimber is None or misere not in ("W", "L"):
        return None
    if nimber == 0:
        return "null" if misere == "W" else "trap"
    if misere == "L":
        return "inverter" if nimber == 1 else "higher inverter"
    return "gremlin" if nimber == 1 else "higher switch"


@dataclass(frozen=True)
class Part:
    """A component (a land, or what a land becomes after a move: a sum, maybe empty) with
    its normal nimber and misère outcome ("W"/"L"); None where unknown."""

    key: str
    nimber: int | None
    misere: str | None

    @property
    def r1(self) -> str | None:
        return r1_class(self.nimber, self.misere)


@dataclass(frozen=True)
class R1Verdict:
    """What the rule says of a sum: the lands' classes, the case that applies (1-4, None
    when none does), the move (index of the land moved in and what it becomes), and why."""

    classes: tuple[str | None, ...]
    nim_sum: int | None
    case: int | None
    land: int | None = None
    child: Part | None = None
    result_loses_by_note: bool | None = None  # the note's criterion on the position reached
    unknown_children: int = 0  # children of the lands tried whose class is unknown
    reason: str = ""

    @property
    def applies(self) -> bool:
        return self.case is not None

    def as_json(self, lands: Sequence[Part]) -> dict[str, Any]:
        """The verdict as JSON (the lands' keys and classes, the case, the move, why)."""
        moved = None if self.land is None else lands[self.land].key
        return {
            "classes": [{"land": p.key, "r1": c} for p, c in zip(lands, self.classes, strict=True)],
            "nim_sum": self.nim_sum,
            "case": self.case,
            "applies": self.applies,
            "land": moved,
            "land_class": None if self.land is None else self.classes[self.land],
            "to": None if self.child is None else self.child.key,
            "to_class": None if self.child is None else self.child.r1,
            "result_loses_by_note": self.result_loses_by_note,
            "unknown_children": self.unknown_children,
            "reason": self.reason,
        }


def note_says_loss(classes: Iterable[str], nim_sum: int) -> bool:
    """The note's criterion: nim-sum 0 with a trap or a switch, or no trap or switch and an
    odd number of inverters (higher ones counted), loses for the player to move."""
    counted = list(classes)
    hot = any(c == "trap" or c in SWITCHES for c in counted)
    if hot:
        return nim_sum == 0
    return sum(1 for c in counted if c in INVERTERS) % 2 == 1


def which_case(classes: Sequence[str], nim_sum: int) -> tuple[int | None, str]:
    """The case of the note that applies to these classes (None: none), and why."""
    traps = classes.count("trap")
    gremlins = classes.count("gremlin")
    higher = classes.count("higher switch")
    inverters = sum(1 for c in classes if c in INVERTERS)
    if not classes:
        return None, "the empty position: no move, a misère win for the player to move"
    if traps or higher >= 2 or gremlins:
        if nim_sum == 0:
            return None, "a trap or switch with nim-sum 0: the note calls it a loss"
        why = [f"{traps} trap(s)"] if traps else []
        why += [f"{higher} higher switches"] if higher >= 2 else []
        why += [f"{gremlins} gremlin(s)"] if gremlins else []
        return 1, ", ".join(why) + f"; nim-sum {nim_sum}: the normal-play move"
    parity = "even" if inverters % 2 == 0 else "odd"
    if higher == 1:
        case = 2 if inverters % 2 == 0 else 3
        into = "a trap or an inverter" if case == 2 else "a null or a gremlin"
        return case, f"one higher switch, {inverters} inverter(s) ({parity}): switch to {into}"
    if inverters % 2 == 0:
        return 4, f"no trap or switch, {inverters} inverter(s) (even): null <-> inverter"
    return None, f"no trap or switch, {inverters} inverter(s) (odd): the note calls it a loss"


def _allowed(case: int, land: Part, cls: str, child: Part, nim_sum: int) -> bool:
    """Whether moving `land` (of class cls) to `child` is a move case `case` prescribes."""
    if case == 1:
        return land.nimber is not None and child.nimber == land.nimber ^ nim_sum
    if case in TARGETS:
        return cls == "higher switch" and child.r1 in TARGETS[case]
    if cls == "null":
        return child.r1 in INVERTERS
    return cls in INVERTERS and child.r1 == "null"


def _movable(case: int, cls: str, land: Part, nim_sum: int) -> bool:
    """Whether case `case` may move in a land of class cls at all."""
    if case == 1:
        return land.nimber is not None and land.nimber ^ nim_sum < land.nimber
    if case in TARGETS:
        return cls == "higher switch"
    return cls == "null" or cls in INVERTERS


def allowed_moves(
    lands: Sequence[Part], children: Callable[[Part], Iterable[Part]]
) -> Iterator[tuple[int, Part, bool]]:
    """Every move the applying case allows: (land index, what it becomes, whether the note's
    criterion calls the position reached a loss); nothing when no case applies."""
    classes = tuple(p.r1 for p in lands)
    if any(c is None for c in classes):
        return
    known: tuple[str, ...] = tuple(c for c in classes if c is not None)
    nim_sum = _nim_sum(lands)
    case, _ = which_case(known, nim_sum)
    if case is None:
        return
    for index, (land, cls) in enumerate(zip(lands, known, strict=True)):
        if not _movable(case, cls, land, nim_sum):
            continue
        rest = known[:index] + known[index + 1 :]
        for child in children(land):
            if child.r1 is not None and _allowed(case, land, cls, child, nim_sum):
                after = nim_sum ^ (land.nimber or 0) ^ (child.nimber or 0)
                yield index, child, note_says_loss((*rest, child.r1), after)


def _nim_sum(lands: Sequence[Part]) -> int:
    total = 0
    for part in lands:
        total ^= part.nimber or 0
    return total


def r1_rule(lands: Sequence[Part], children: Callable[[Part], Iterable[Part]]) -> R1Verdict:
    """Apply the note's rule to a sum of lands; `children(land)` gives the land's children
    with their values (asked only of the lands a case may move in, in order)."""
    raw = tuple(p.r1 for p in lands)
    if any(c is None for c in raw):
        return R1Verdict(raw, None, None, reason="a land's nimber or misère outcome is unknown")
    classes: tuple[str, ...] = tuple(c for c in raw if c is not None)
    nim_sum = _nim_sum(lands)
    case, why = which_case(classes, nim_sum)
    if case is None:
        return R1Verdict(raw, nim_sum, None, reason=why)
    unknown = [0]

    def counted(land: Part) -> Iterator[Part]:
        for child in children(land):
            unknown[0] += child.r1 is None
            yield child

    fallback: tuple[int, Part] | None = None
    for index, child, loses in allowed_moves(lands, counted):
        if loses:
            return R1Verdict(raw, nim_sum, case, index, child, True, unknown[0], why)
        fallback = fallback or (index, child)
    if fallback is None:
        return R1Verdict(
            raw, nim_sum, case, unknown_children=unknown[0], reason=why + "; no such move exists"
        )
    index, child = fallback
    return R1Verdict(
        raw,
        nim_sum,
        case,
        index,
        child,
        False,
        unknown[0],
        why + "; no allowed move reaches a position the note calls a loss",
    )
