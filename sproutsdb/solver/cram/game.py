"""The Cram engine behind the `Game` interface: canonical keys, lands and moves.

A move places a domino on two free cells side by side (in a row or a column); the player
with no move loses. A key is the `+`-joined sorted keys of its lands (canonical shapes,
see canon), `!` when no two free cells touch. The hot path is `component_children`: every
domino of a land is one pair of bits of its grid mask, the rest is split into lands by
flood fills on the mask, and each land is cut and canonicalised through two memos (one by
the land's position-free mask, one by its shape).

That path is the Python definition. With the compiled core (canon.CORE) a board that fits
one 64-bit grid mask (h·(w+1) ≤ 64, e.g. up to 7x7, 7x8, 5x11, 4x15) goes through
`_cram.land_children` and `_cram.board_keys` instead, which give the same keys, children
and order (tests/test_cram_core.py); larger boards, and `CramGame(core=False)`, take the
Python path. IMPLEMENTATION says which one a default engine uses: "c" or "python".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sproutsdb.solver.cram.canon import CORE, canonical_shape, cut, fits, grid_mask, lands_of
from sproutsdb.solver.cram.notation import TERMINAL, Shape, format_shape, key_cells, parse_terms

IMPLEMENTATION = "python" if CORE is None else "c"
MEMO_LIMIT = 1 << 17  # entries of each canonicalisation memo before it is cleared

Children = tuple[tuple[str, ...], ...]


class CramGame:
    """Sums of Cram boards; each land a connected set of at least two free cells."""

    name = "cram"
    terminal = TERMINAL

    def __init__(self, cache_size: int = 1 << 14, *, core: bool = True) -> None:
        self._cache_size = cache_size  # lands whose children are memoised (0: none)
        self._core = CORE if core else None  # core=False: the Python definitions only
        self._children: dict[str, Children] = {}
        self._shapes: dict[str, Shape] = {}  # land key -> its canonical shape
        self._mask_keys: dict[int, dict[int, str]] = {}  # stride -> {mask moved to row 0: key}
        self._shape_keys: dict[Shape, str] = {}  # any image of a land -> its key

    # ----------------------------------------------------------------- the Game interface

    def canonical(self, text: str) -> str:
        keys: list[str] = []
        core = self._core
        for shape in parse_terms(text):
            height, width = shape[0], shape[1]
            if core is not None and fits(min(height, width), max(height, width)):
                found = core.board_keys(*shape)
                if found is not None:
                    keys.extend(found)
                    continue
            mask, stride = grid_mask(shape)
            keys.extend(self._land_key(land, stride) for land in lands_of(mask, stride))
        return self.join(keys)

    def components(self, key: str) -> tuple[str, ...]:
        if key == TERMINAL:
            return ()
        return tuple(key.split("+"))

    def join(self, components: Iterable[str]) -> str:
        parts = sorted(part for part in components if part != TERMINAL)
        return "+".join(parts) if parts else TERMINAL

    def component_children(self, component: str) -> Sequence[tuple[str, ...]]:
        known = self._children.get(component)
        if known is not None:
            return known
        found = self._land_children(component)
        if self._cache_size:
            if len(self._children) >= self._cache_size:
                self._children.clear()
            self._children[component] = found
        return found

    def children(self, key: str) -> list[str]:
        from sproutsdb.solver.ports.game import sum_children

        return sum_children(self, key, self.component_children)

    def size(self, key: str) -> int:
        """Free cells: every move fills two."""
        return key_cells(key)

    # ----------------------------------------------------------------- the hot path

    def shape(self, component: str) -> Shape:
        """The canonical shape of a land key (read once, then memoised)."""
        shape = self._shapes.get(component)
        if shape is None:
            shapes = parse_terms(component)
            if len(shapes) != 1:
                raise ValueError(f"cram: {component!r} is not one land")
            shape = shapes[0]
            if len(self._shapes) >= MEMO_LIMIT:
                self._shapes.clear()
            self._shapes[component] = shape
        return shape

    def _land_children(self, component: str) -> Children:
        """Distinct children of one land: each domino placed, the rest split and keyed.

        canon.lands_of and the land-key memo are inlined: this loop is the engine's hot path
        (the compiled core's when the land fits it).
        """
        if self._core is not None:
            found = self._core.land_children(component)
            if found is not None:
                return found
        mask, stride = grid_mask(self.shape(component))
        memo = self._mask_keys.get(stride)
        if memo is None:
            memo = self._mask_keys[stride] = {}
        seen: dict[tuple[str, ...], None] = {}
        for step in (1, stride):
            starts = mask & (mask >> step)  # cells whose neighbour at +step is free too
            while starts:
                low = starts & -starts
                starts ^= low
                rest = mask ^ (low | (low << step))
                # the cells with a free neighbour: lone cells are dropped
                rest &= (rest << 1) | (rest >> 1) | (rest << stride) | (rest >> stride)
                child: list[str] = []
                while rest:
                    land = rest & -rest
                    bottom = land.bit_length() - 1
                    while True:  # flood fill from the lowest cell
                        grown = (
                            land | (land << 1) | (land >> 1) | (land << stride) | (land >> stride)
                        ) & rest
                        if grown == land:
                            break
                        land = grown
                    rest ^= land
                    moved = land >> (bottom - bottom % stride)  # to row 0: the memo's key
                    key = memo.get(moved)
                    if key is None:
                        key = self._memo_land(memo, moved, stride)
                    child.append(key)
                if len(child) > 1:
                    child.sort()
                seen[tuple(child)] = None
        return tuple(seen)

    def _land_key(self, land: int, stride: int) -> str:
        """The canonical key of a land given as a grid mask."""
        memo = self._mask_keys.get(stride)
        if memo is None:
            memo = self._mask_keys[stride] = {}
        low = (land & -land).bit_length() - 1
        moved = land >> (low - low % stride)
        key = memo.get(moved)
        return key if key is not None else self._memo_land(memo, moved, stride)

    def _memo_land(self, memo: dict[int, str], moved: int, stride: int) -> str:
        """Key a land moved to row 0 (a memo miss) and remember it in `memo`."""
        key = self._shape_key(cut(moved, stride))
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        memo[moved] = key
        return key

    def _shape_key(self, shape: Shape) -> str:
        """The key of a shape cut to its bounding box, in any of its 8 orientations."""
        memo = self._shape_keys
        key = memo.get(shape)
        if key is None:
            best = canonical_shape(shape)
            key = format_shape(best)
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            memo[shape] = key
            self._shapes.setdefault(key, best)
        return key
