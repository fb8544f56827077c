"""Sprouts behind the `Game` protocol: canonical keys, lands, children, lives.

A position key is its canonical lands joined by `+` (sorted), or `!` when empty. The
children of a land are computed once and memoised, and the children of a sum are
assembled from the children of its lands, so shared lands cost nothing twice.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import ModuleType
from typing import TypeVar

from sproutsdb.solver.ports.game import sum_children
from sproutsdb.solver.sprouts.canon import CANON_VERSION, canonical_lands
from sproutsdb.solver.sprouts.moves import TooManySplits, raw_children
from sproutsdb.solver.sprouts.notation import SPOT_RUN, RawPosition, key_lives, parse

Made = TypeVar("Made")  # what a C core call gives
V = TypeVar("V")  # a value child_values looks up

TERMINAL = "!"
# The spots a twin has fewer in one run: 0*n's outcomes repeat with period 6 from 0*5 on
# (W iff n = 3, 4, 5 mod 6 in every value known), and so, often, do the replies its proofs use.
TWIN_SHIFT = 6

# The children of a land come from the compiled core (_core.c, a port of notation, moves
# and canon that gives byte-identical keys) when it is built and ports this CANON_VERSION;
# otherwise, or with SPROUTSDB_PURE_PYTHON=1 (differential tests), from the Python
# reference. IMPLEMENTATION says which one is active: "c" or "python".
# `_core` is the module or None; typing has no "module or None", hence the ignores.
if os.environ.get("SPROUTSDB_PURE_PYTHON", "") in ("", "0"):
    try:
        from sproutsdb.solver.sprouts import _core as _core  # re-exported: server/validation.py
    except ImportError:
        _core = None  # type: ignore[assignment]
    if _core is not None and _core.CANON_VERSION != CANON_VERSION:
        _core = None  # type: ignore[assignment]
else:
    _core = None  # type: ignore[assignment]
IMPLEMENTATION = "python" if _core is None else "c"


def compiled_core() -> ModuleType | None:
    """The compiled core module when it is active (benchmarks time it directly), else None."""
    return _core


def core_canonical_lands(text: str) -> list[str] | None:
    """The compiled core's canonical lands of a position, or None when the core is not
    active or does not read the text (GLOP 1.x, sums, genus): then ask the Python parser."""
    if _core is None:
        return None
    try:
        return list(_core.canonical_lands(text))
    except _core.Unsupported:
        return None


def python_land_children(component: str) -> tuple[tuple[str, ...], ...]:
    """The reference: distinct children of a land, each as its sorted canonical lands,
    in order of first occurrence among the moves."""
    seen: dict[tuple[str, ...], None] = {}
    for child in raw_children(parse(component)):
        seen.setdefault(tuple(canonical_lands(child)), None)
    return tuple(seen)


# Canonical strings the core's memo keeps at most: two generations of half as many (the old
# one forgotten when the young one is full, a string met in the old one kept young again),
# ~150 bytes each with its str (core_memo.c), so 2¹⁶ hold ~10 MB. The memo was a flat
# table of ~275 bytes an entry, cleared whole at 2¹⁵. Paired, user CPU s and peak RSS,
# flat 2¹⁵ -> generations 2¹⁷: 0*18 79.8 -> 76.1 s, 107 -> 104 MB; 0*20 57.2 -> 57.1 s,
# 101 -> 102 MB. 2¹⁶ keeps 0*18 and 0*20 under 100 MB for ~2 % more CPU than 2¹⁷; 2¹⁵ saves
# another ~3 MB of a normal solve of 0*12..0*17 (issue 76: at most 1.5x SPOTS's memory), its
# CPU within the noise of a shared machine (bench/results/spots-side-by-side.json, "levers").
CORE_MEMO_KEPT = 1 << 15
# Once a land of LARGE_LAND_LIVES lives or more is asked (the root of 0*21 and up, solves of
# tens of CPU minutes), the memo keeps CORE_MEMO_KEPT_LARGE strings (~150 MB) for the rest
# of the process: 0*18 paired, 2¹⁶ / 2¹⁸ / 2²⁰: 170.9 / 156.4 / 145.7 CPU s, 84 / 115 /
# 222 MB (bench/solve.py has 0*21). It never shrinks back: one process, one C memo, and a
# new limit forgets it, so engines of two sizes would clear it at every turn.
CORE_MEMO_KEPT_LARGE = 1 << 20
LARGE_LAND_LIVES = 63
_memo_kept_at_least = 0  # raised by the first large land, or a long search (reserve_core_memo)


def core_memo_kept() -> int:
    """The canonical strings the core's memo keeps now."""
    return max(CORE_MEMO_KEPT, _memo_kept_at_least)


def reserve_core_memo(entries: int) -> None:
    """Let the core's memo keep at least `entries` canonical strings for good."""
    global _memo_kept_at_least
    _memo_kept_at_least = max(_memo_kept_at_least, entries)


def keep_a_larger_memo_for(component: str) -> None:
    """Raise the core's memo for good if `component` is a land of a large solve."""
    if _memo_kept_at_least < CORE_MEMO_KEPT_LARGE and text_lives(component) >= LARGE_LAND_LIVES:
        reserve_core_memo(CORE_MEMO_KEPT_LARGE)


def land_children(component: str) -> tuple[tuple[str, ...], ...]:
    """Children of a land by the active implementation. Text the core does not read
    (GLOP 1.x, sums, genus, invalid input) takes the Python path, which answers or raises
    the precise NotationError."""
    if _core is not None:
        core = _core
        found = _by_core(lambda: core.land_children(component))
        if found is not None:
            return found
    return python_land_children(component)


def _by_core(call: Callable[[], Made]) -> Made | None:
    """A C core call on a land's text, within the memo's current limit: None when the core
    does not read the text (the Python path then answers or raises the NotationError)."""
    assert _core is not None
    _core.set_memo_limit(core_memo_kept())  # free when unchanged; tests lower it
    try:
        return call()
    except _core.Unsupported:
        return None
    except ValueError as error:  # the core's refusal of too many splits
        raise TooManySplits(str(error)) from None


def text_lives(key: str) -> int:
    """notation.key_lives by the active implementation (the C scanner when it reads the
    text: the solvers ask it for every child land, and the regular expression was 8 % of
    a 0*17 solve)."""
    if _core is not None:
        try:
            return int(_core.key_lives(key))
        except _core.Unsupported:
            pass
    return key_lives(key)


def lives_of(raw: RawPosition) -> int:
    """Lives of a position: 3/2/1 for 0/1/2 spots, 1 per letter (half per occurrence)."""
    return sum(raw.lives[v] for v in {v for region in raw.regions for b in region for v in b})


class SproutsGame:
    """The game of Sprouts on the plane, in GLOP notation."""

    name = "sprouts"
    terminal = TERMINAL
    canon_version = CANON_VERSION

    def __init__(self, cache_size: int = 1 << 15) -> None:
        # The memo is bounded by the number of children it holds (a large land has hundreds,
        # a small one a few), so its memory is bounded whatever the lands: ~8 MB at most.
        # The normal solver keeps its own cache of the latest lands in front of this one,
        # which then saves little: 2¹⁷ children made 0.4 % fewer core calls than none at
        # 0*14, for ~5 MB of a solve's peak RSS.
        self._land_children: dict[str, tuple[tuple[str, ...], ...]] = {}
        self._cache_size = cache_size
        self._cached_children = 0

    # -- keys -----------------------------------------------------------------
    def parse(self, text: str) -> RawPosition:
        """Read a position in GLOP 2.x or 1.x notation (NotationError if unreadable)."""
        return parse(text)

    def format(self, raw: RawPosition) -> str:
        """Canonical GLOP 2.x string of a parsed position."""
        return self.join(canonical_lands(raw))

    def canonical(self, text: str) -> str:
        return self.format(parse(text))

    def components(self, key: str) -> tuple[str, ...]:
        if key == TERMINAL:
            return ()
        return tuple(key.split("+"))

    def join(self, components: Iterable[str]) -> str:
        lands = sorted(components)
        return "+".join(lands) if lands else TERMINAL

    def size(self, key: str) -> int:
        return 0 if key == TERMINAL else text_lives(key)

    def smaller_twins(self, land: str) -> tuple[str, ...]:
        """The lands written as `land` with TWIN_SHIFT fewer empty spots in one run of more
        than that, canonical: a df-pn hint (a twin's stored value often is the land's), never
        a fact."""
        if "0*" not in land:  # most lands deep in a search: no run to shorten
            return ()
        twins = []
        for run in SPOT_RUN.finditer(land):
            left = int(run.group(1) or 1) - TWIN_SHIFT
            if left >= 1:
                text = land[: run.start()] + (f"0*{left}" if left > 1 else "0") + land[run.end() :]
                lands = core_canonical_lands(text)
                twins.append(self.join(lands) if lands is not None else self.canonical(text))
        return tuple(dict.fromkeys(twins))

    def reserve_memo(self, entries: int) -> None:
        """ports.game.MemoHolder: the C core's memo of canonical strings (one per process)."""
        reserve_core_memo(entries)

    # -- moves ----------------------------------------------------------------
    def component_children(self, component: str) -> Sequence[tuple[str, ...]]:
        cached = self._land_children.get(component)
        if cached is not None:
            return cached
        result = land_children(component)
        keep_a_larger_memo_for(component)  # after: a text it refuses has refused already
        self._keep(component, result)
        return result

    def _keep(self, component: str, children: tuple[tuple[str, ...], ...]) -> None:
        """Cache a land's children, within the bound on the children held."""
        self._cached_children += len(children) + 1
        if self._cached_children > self._cache_size:
            self._land_children.clear()
            self._cached_children = len(children) + 1
        self._land_children[component] = children

    def child_values(self, land: str, values: Mapping[str, V]) -> frozenset[V]:
        """ports.game.ChildValues: the C core looks each child up in `values` as it makes
        them (a table check's inner loop); uncached, as a check meets each land once."""
        if _core is not None and isinstance(values, dict):
            core, table = _core, values
            found = _by_core(lambda: core.land_child_values(land, table, TERMINAL))
            if found is not None:
                keep_a_larger_memo_for(land)  # as component_children does
                return found
        return frozenset([values[self.join(child)] for child in self.component_children(land)])

    def component_children_until(
        self, component: str, accept: Callable[[tuple[str, ...]], bool]
    ) -> tuple[Sequence[tuple[str, ...]] | None, tuple[str, ...] | None]:
        """component_children(component), offering each new child to accept as it is
        made: (None, child) at the first one accept takes, whose later children the C core
        never makes (nothing is cached then), else (all the children, None), cached as
        component_children caches them. A cached list is returned whole, unoffered."""
        cached = self._land_children.get(component)
        if cached is not None:
            return cached, None
        if _core is not None:
            core = _core
            made = _by_core(lambda: core.land_children_until(component, accept))
            if made is not None:
                keep_a_larger_memo_for(component)
                children, found = made
                if children is None:
                    return None, found
                self._keep(component, children)
                return children, None
        return self.component_children(component), None

    def first_component_child(
        self,
        component: str,
        accept: Callable[[tuple[str, ...]], bool],
        *,
        memoised_first: bool = False,
    ) -> tuple[str, ...] | None:
        """The first of component_children(component) that accept takes, or None; the C
        core makes children only up to it (nothing is cached: a partial list). With
        `memoised_first`, the C core offers first the children whose lands it has met
        before (see `_core.first_child`): the child taken may be a later acceptable one."""
        cached = self._land_children.get(component)
        if cached is None and _core is not None:
            try:
                return _core.first_child(component, accept, memoised_first)
            except ValueError:  # Unsupported text, or too many splits: the path below
                pass
        for child in self.component_children(component) if cached is None else cached:
            if accept(child):
                return child
        return None

    def children(self, key: str) -> list[str]:
        return sum_children(self, key, self.component_children)
