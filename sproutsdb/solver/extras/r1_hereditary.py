"""Whether a land is *hereditarily* R1: the R1 note's three conditions in every position of
its game tree, not only at the top. Pure computation.

The note (docs/architecture.md, "Sources"; solver/extras/r1.py) defines an R1 game as one in
which, in any position, there is a component scheme where (1) there is no higher inverter,
(2) every higher switch has a move to a null or a gremlin, and (3) no null has a move to a
gremlin, and it claims its rule for those games only. With lands as the components (a
move in a land makes one child, a sum of lands, which is that component's new value), the
positions of a sum's game tree are sums of lands met below its lands, so a sum meets the
conditions everywhere exactly when each of its lands does, land by land down its tree:
that is the test here, memoised per land (a dict).

Asked for condition 4 as well (`conditions=(1, 2, 3, 4)`: no gremlin has a move to a null,
which is not the note's), the test finds the lands on which the note's argument goes
through: that move is the only one its proof leaves open (bench/r1.py --exhaustive).

A land that fails is reported with evidence: for each condition failed somewhere in its
tree, one land where it fails (the nearest to the top, ties by the order of moves), its
class, the move that breaks condition 3, and how many moves below the top it stands.

Values (normal nimber and misère outcome of a position, a sum or a land) come from a
callable; `rct_values` reads them from the reduced canonical trees of an RctSearch (the
RCT fixes both: its outcome is the misère one, its nimber the normal one). Anything that
implements ports.game.Game works, Sprouts or a small abstract game.

Inside hereditarily R1 sums the note's rule is still not right in general: nothing in it
keeps a gremlin from moving to a null. Abstractly, with T = {*2} (a trap) and G = {T, 0} (a
gremlin), G + *1 meets the conditions everywhere and has nim-sum 0 with a gremlin, so the
note calls it a loss, yet G -> 0 leaves *1 and wins. In Sprouts, 1 + 2aA2Ba|AC|BC (both
lands hereditarily R1) is such a sum: 2aA2Ba|AC|BC -> 2AB|2A|2B wins (tests/test_r1_hereditary.py).
No rule that reads only the classes, even told which gremlins have a move to a null, can
mend it: G + *2 loses and G + *5 wins, while W + *2 wins and W + *5 loses for the gremlin
W = {0, T, *2, *3, *4}, also hereditarily R1 (its misère Grundy value is 5, G's is 2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from sproutsdb.solver.extras.r1 import r1_class
from sproutsdb.solver.misere.rctsearch import RctSearch
from sproutsdb.solver.ports.game import Game

Value = Callable[[str], tuple[int | None, str | None]]  # position -> (nimber, misère W/L)

CONDITIONS: dict[int, str] = {
    1: "a higher inverter",
    2: "a higher switch with no move to a null or a gremlin",
    3: "a null with a move to a gremlin",
    4: "a gremlin with a move to a null",  # not the note's: what its argument misses
}
NOTE_CONDITIONS = (1, 2, 3)


@dataclass(frozen=True)
class Violation:
    """One land of the tree where a condition fails: the condition (1-3), the land, its
    class, the move that breaks condition 3 (its child), and its depth below the top."""

    condition: int
    land: str
    land_class: str
    option: str | None = None
    depth: int = 0

    def describe(self) -> str:
        where = "at the top" if self.depth == 0 else f"{self.depth} move(s) below the top"
        text = f"condition {self.condition} fails {where}: {self.land} is {self.land_class}"
        if self.condition == 2:
            text += " with no move to a null or a gremlin"
        elif self.condition == 3:
            text += f" with a move to the gremlin {self.option}"
        elif self.condition == 4:
            text += f" with a move to the null {self.option}"
        return text


@dataclass(frozen=True)
class HereditaryVerdict:
    """Of one land: its class and, for each condition that fails somewhere in its game tree,
    the nearest land where it does (empty: hereditarily R1, or R1 with condition 4 when
    the test was asked for it)."""

    land: str
    land_class: str | None
    violations: Mapping[int, Violation] = field(default_factory=dict)

    @property
    def hereditary(self) -> bool:
        return not self.violations

    @property
    def evidence(self) -> Violation | None:
        """The violation of the lowest condition number, None when hereditarily R1."""
        return self.violations[min(self.violations)] if self.violations else None

    def describe(self) -> str:
        if self.hereditary:
            return f"{self.land}: hereditarily R1"
        return f"{self.land}: " + "; ".join(
            v.describe() for _, v in sorted(self.violations.items())
        )


class UnknownValue(ValueError):
    """A position whose nimber or misère outcome the value source does not know."""


class HereditaryR1:
    """The hereditary R1 test over one game, memoised per land (and classes per position)."""

    def __init__(
        self, game: Game, value: Value, conditions: Iterable[int] = NOTE_CONDITIONS
    ) -> None:
        self.game = game
        self.value = value
        self.conditions = frozenset(conditions)
        unknown = self.conditions - set(CONDITIONS)
        if unknown:
            raise ValueError(f"no condition {sorted(unknown)}: they are {sorted(CONDITIONS)}")
        self._classes: dict[str, str] = {}
        self._verdicts: dict[str, HereditaryVerdict] = {}

    def class_of(self, position: str) -> str:
        """The R1 class of a position (a land or a sum, canonical key)."""
        known = self._classes.get(position)
        if known is None:
            nimber, misere = self.value(position)
            found = r1_class(nimber, misere)
            if found is None:
                raise UnknownValue(f"no nimber or misère outcome for {position}")
            known = self._classes[position] = found
        return known

    def options(self, land: str) -> list[str]:
        """The land's children, each a canonical position (a sum of lands, maybe empty)."""
        return [self.game.join(child) for child in self.game.component_children(land)]

    def has_option(self, land: str, classes: Iterable[str]) -> bool:
        """Whether the land has a move to a position of one of these classes."""
        wanted = set(classes)
        return any(self.class_of(child) in wanted for child in self.options(land))

    def local(self, land: str) -> dict[int, Violation]:
        """The conditions the land itself fails (its own class and its moves only)."""
        cls = self.class_of(land)
        found: dict[int, Violation] = {}
        if cls == "higher inverter":
            found[1] = Violation(1, land, cls)
        elif cls == "higher switch" and not self.has_option(land, ("null", "gremlin")):
            found[2] = Violation(2, land, cls)
        elif cls in ("null", "gremlin"):
            condition, target = (3, "gremlin") if cls == "null" else (4, "null")
            for child in self.options(land):
                if self.class_of(child) == target:
                    found[condition] = Violation(condition, land, cls, child)
                    break
        return {c: v for c, v in found.items() if c in self.conditions}

    def check(self, land: str) -> HereditaryVerdict:
        """The verdict on a land (canonical key of one land): hereditarily R1, or for each
        condition that fails in its tree the nearest land where it fails."""
        done = self._verdicts.get(land)
        if done is not None:
            return done
        game, verdicts = self.game, self._verdicts
        stack = [land]
        while stack:  # post-order on an explicit stack: game trees can be deep
            top = stack[-1]
            if top in verdicts:
                stack.pop()
                continue
            below = list(dict.fromkeys(x for child in game.component_children(top) for x in child))
            missing = [x for x in below if x not in verdicts]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            found = self.local(top)
            for sub in below:
                for condition, seen in verdicts[sub].violations.items():
                    mine = found.get(condition)
                    if mine is None or seen.depth + 1 < mine.depth:
                        found[condition] = Violation(
                            seen.condition, seen.land, seen.land_class, seen.option, seen.depth + 1
                        )
            ordered = {c: found[c] for c in sorted(found)}
            verdicts[top] = HereditaryVerdict(top, self.class_of(top), ordered)
        return verdicts[land]

    def check_sum(self, position: str) -> list[HereditaryVerdict]:
        """The verdict on each land of a position (a sum), in the key's order."""
        return [self.check(land) for land in self.game.components(position)]


def rct_values(search: RctSearch) -> Value:
    """Values from the RCTs of an RctSearch: its RCT gives a position's misère outcome and
    its normal nimber (computing the RCTs of whatever it meets that it does not hold)."""
    algebra = search.algebra

    def value(position: str) -> tuple[int | None, str | None]:
        handle = search.rct(position)
        return algebra.nimber(handle), algebra.outcome(handle)

    return value


def tree_lands(search: RctSearch, root: str) -> list[str]:
    """Every land of a position of the game tree of `root`, sorted (the RCTs of the tree
    are computed on the way and stay in the search)."""
    search.walk(root)
    game = search.game
    below = _positions_below(game, root)
    return sorted({land for position in below for land in game.components(position)})


def _positions_below(game: Game, root: str) -> set[str]:
    """Every position of the game tree of `root` (itself included)."""
    seen = {root}
    stack = [root]
    while stack:
        for child in game.children(stack.pop()):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen
