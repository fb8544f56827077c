"""The misère algebra: reduced canonical trees (RCTs) behind small int handles.

This is the public face of ``sproutsdb.solver.cgt``. A game engine calls it bottom-up:
once the RCTs of a position's children are known, ``reduce_children`` gives the RCT of
the position. Handles are only meaningful within one Algebra; content ids are the
names that survive a run (``content_id``/``handle``, ``records``/``from_records``).
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable, Iterator, Mapping

from sproutsdb.solver.cgt import labels, notation, records
from sproutsdb.solver.cgt.factor import NONE
from sproutsdb.solver.cgt.reduce import IRREDUCIBLE, reduction_of
from sproutsdb.solver.cgt.sums import Sums
from sproutsdb.solver.cgt.table import ZERO, TreeTable
from sproutsdb.solver.ports.proofstore import RctRecord

ONE = 1
# The TreeTable lists a snapshot holds, in this order (by_children and by_cid are rebuilt).
_SNAPSHOT_LISTS = (
    "children", "height", "win", "nimber", "nim", "partner", "factor_of", "serial", "cid",
    "heaps",
)  # fmt: skip
SNAPSHOT_VERSION = 1  # handle of *1: interned second by every Algebra


class Algebra:
    """A growing, hash-consed set of RCTs with reduction, sums, ids, labels and notation."""

    ZERO = ZERO
    ONE = ONE

    def __init__(self) -> None:
        self.table = TreeTable()  # read-only for callers: the facts behind the accessors
        self._memo: dict[frozenset[int], int] = {frozenset(): ZERO}
        self._sums = Sums(self.table, self.reduce_children, self.nim)
        self._text: dict[int, str] = {}
        self.nim(1)

    # -- building trees ---------------------------------------------------------------

    def reduce_children(self, children: Iterable[int]) -> int:
        """Handle of the RCT of a position whose children have the RCTs ``children``.

        Duplicates are merged; the result is memoised on the set of children. Interns
        the tree when it is new and irreducible.
        """
        kids = children if type(children) is frozenset else frozenset(children)
        done = self._memo.get(kids)
        if done is None:
            done = self._reduce_new(kids)
        return done

    def _reduce_new(self, kids: frozenset[int]) -> int:
        self._check(kids)
        table = self.table
        result = reduction_of(table, kids)
        if result == IRREDUCIBLE:
            known = table.by_children.get(kids)
            result = table.intern(kids) if known is None else known
        self._memo[kids] = result
        return result

    def is_reduced(self, children: Iterable[int]) -> bool:
        """Whether the tree with exactly these (distinct) children is an RCT; interns nothing."""
        kids = children if type(children) is frozenset else frozenset(children)
        self._check(kids)
        return reduction_of(self.table, kids) == IRREDUCIBLE

    def _check(self, kids: frozenset[int]) -> None:
        size = len(self.table)
        for c in kids:
            if type(c) is not int or not 0 <= c < size:
                raise ValueError(f"{c!r} is not a tree handle of this algebra")

    def nim(self, n: int) -> int:
        """Handle of the nim-heap *n (creating *0..*n as needed; *n has n children)."""
        heaps = self.table.heaps
        if n < len(heaps):
            if n < 0:
                raise ValueError(f"a nim-heap has a size ≥ 0, not {n}")
            return heaps[n]
        for k in range(len(heaps), n + 1):
            kids = frozenset(heaps[:k])
            self._memo[kids] = self.table.intern(kids)
        return heaps[n]

    def add(self, a: int, b: int) -> int:
        """Handle of the RCT of the disjunctive sum a + b (memoised)."""
        self._check(frozenset((a, b)))
        return self._sums.add(a, b)

    def sum(self, terms: Iterable[int]) -> int:
        """Handle of the RCT of the sum of ``terms`` (0 for no terms)."""
        total = ZERO
        for term in terms:
            total = self.add(total, term)
        return total

    def clear_caches(self) -> None:
        """Forget memoised reductions, sums and texts to free memory; trees and handles stay."""
        self._memo = {self.table.children[h]: h for h in self.handles()}
        self._sums.clear()
        self._text.clear()

    def plus1(self, handle: int) -> int:
        """Handle of RCT(handle + *1)."""
        return self.add(handle, ONE)

    def parse(self, text: str) -> int:
        """Handle of the tree written ``text`` (``*3``, ``{0;2;{3}}``, ``2+{2}``…).

        Raises sproutsdb.solver.ports.game.NotationError saying where the text is wrong.
        """
        return notation.parse(text, self)

    # -- facts about one tree -----------------------------------------------------------

    def height(self, handle: int) -> int:
        """Length of the longest play of the tree."""
        return self.table.height[handle]

    def outcome(self, handle: int) -> str:
        """Misère outcome for the player to move: "W" or "L" (0 is a W)."""
        return "W" if self.table.win[handle] else "L"

    def nimber(self, handle: int) -> int:
        """Normal-play nimber (mex of the children's nimbers)."""
        return self.table.nimber[handle]

    def nim_value(self, handle: int) -> int | None:
        """n when the tree is the nim-heap *n, else None."""
        n = self.table.nim[handle]
        return None if n == NONE else n

    def children(self, handle: int) -> frozenset[int]:
        """Handles of the tree's children (shared, immutable)."""
        return self.table.children[handle]

    def plus1_of(self, handle: int) -> int | None:
        """H when the tree is H + *1 with H one shorter (its *1 factor), else None."""
        base = self.table.factor_of[handle]
        return None if base == NONE else base

    def content_id(self, handle: int) -> str:
        """Stable content id: ``*n`` for nim-heaps, ``rct1:<hex>`` otherwise."""
        return self.table.cid[handle]

    def handle(self, content_id: str) -> int:
        """Handle of the tree with this content id; KeyError if it is not in this algebra."""
        return self.table.by_cid[content_id]

    def label(self, handle: int, style: str = "short") -> str:
        """Paper-style label ``h-k-O`` / ``h-k+1-O`` in discovery order (styles: see labels)."""
        return labels.label(self.table, handle, style)

    def format(self, handle: int, limit: int | None = 1_000_000) -> str:
        """Compact text like ``{0;2;{3};{1;3;{2}}}``; FormatLimitError beyond ``limit`` chars."""
        table = self.table
        return notation.format_tree(
            handle, table.children, table.height, table.nim, self._text, limit
        )

    # -- the whole set --------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.table)

    def handles(self) -> range:
        """Every handle, in creation (topological) order."""
        return range(len(self.table))

    def record(self, handle: int) -> RctRecord:
        """The store record of one tree."""
        return records.record_of(self.table, handle)

    def records(self) -> Iterator[tuple[str, RctRecord]]:
        """(content id, record) of every tree reached, children before parents."""
        return records.export(self.table)

    def load_records(
        self, items: Iterable[tuple[str, RctRecord]] | Mapping[str, RctRecord]
    ) -> list[int]:
        """Intern trees from records, re-deriving each; RctRecordError on any mismatch."""
        return records.load(self, items)

    def snapshot(self) -> bytes:
        """Every tree of the algebra as bytes (marshal), for ``from_snapshot`` to take back
        without re-deriving anything: only for trees re-derived already (a verified table)."""
        table = self.table
        lists = tuple(tuple(getattr(table, name)) for name in _SNAPSHOT_LISTS)
        return marshal.dumps((SNAPSHOT_VERSION, lists, dict(table._per_height)))

    @classmethod
    def from_snapshot(cls, data: bytes) -> Algebra:
        """The algebra a ``snapshot`` was taken of, trusted as it stands (its records are not
        re-derived: the caller vouches for the bytes, e.g. by a digest kept in a verified
        mark, checked first, as marshal is not safe on arbitrary bytes). ValueError when the
        bytes are not a snapshot of this version."""
        try:
            version, lists, per_height = marshal.loads(data)
        except (EOFError, TypeError, ValueError) as error:
            raise ValueError(f"not an algebra snapshot: {error}") from None
        if version != SNAPSHOT_VERSION or len(lists) != len(_SNAPSHOT_LISTS):
            raise ValueError(f"algebra snapshot of version {version}, not {SNAPSHOT_VERSION}")
        sizes = {len(values) for name, values in zip(_SNAPSHOT_LISTS, lists) if name != "heaps"}
        algebra = cls()
        table = algebra.table
        if len(sizes) != 1:
            raise ValueError("algebra snapshot with lists of different lengths")
        if lists[-1][:2] != tuple(table.heaps[:2]):
            raise ValueError("algebra snapshot that does not start with 0 and *1")
        for name, values in zip(_SNAPSHOT_LISTS, lists, strict=True):
            getattr(table, name)[:] = values  # in place: the sums hold the table
        table.by_children.update((kids, h) for h, kids in enumerate(table.children))
        table.by_cid.update((cid, h) for h, cid in enumerate(table.cid))
        table._per_height.clear()
        table._per_height.update(per_height)
        algebra._memo.update(table.by_children)
        return algebra

    @classmethod
    def from_records(
        cls, items: Iterable[tuple[str, RctRecord]] | Mapping[str, RctRecord]
    ) -> Algebra:
        """A new algebra holding exactly the trees of ``items`` (plus 0 and *1)."""
        algebra = cls()
        algebra.load_records(items)
        return algebra
