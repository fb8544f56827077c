"""The hash-consed DAG of reduced canonical trees: each distinct tree stored once.

A tree is the set of its children, so a tree is keyed by the frozenset of its children's
handles (small ints, in creation order; handle 0 is the empty tree). Only reduced trees
are interned here, and only when their children already are, so the table is always
closed under children and handle order is a topological order. Per-tree facts live in
parallel lists indexed by handle, which keeps lookups cheap on the hot path.
"""

from __future__ import annotations

from sproutsdb.solver.cgt import ident
from sproutsdb.solver.cgt.factor import NONE, plus1_base

ZERO = 0  # handle of the empty tree 0 = *0 (always the first one interned)


def mex(values: set[int] | frozenset[int]) -> int:
    """Least natural number not in ``values``."""
    m = 0
    while m in values:
        m += 1
    return m


class TreeTable:
    """Interned reduced trees and their facts; the algebra is the only writer."""

    __slots__ = (
        "_per_height",
        "by_children",
        "by_cid",
        "children",
        "cid",
        "factor_of",
        "heaps",
        "height",
        "nim",
        "nimber",
        "partner",
        "serial",
        "win",
    )

    def __init__(self) -> None:
        self.children: list[frozenset[int]] = []  # children handles
        self.height: list[int] = []  # length of the longest play
        self.win: list[bool] = []  # misère outcome is W (player to move wins)
        self.nimber: list[int] = []  # normal-play nimber
        self.nim: list[int] = []  # n if the tree is *n, else NONE
        self.partner: list[int] = []  # RCT(tree + *1) when in the table, else NONE
        self.factor_of: list[int] = []  # H when tree = H + *1 and H is smaller
        self.serial: list[int] = []  # k of the paper label h-k-O (0: heap/factored)
        self.cid: list[str] = []  # content id
        self.by_children: dict[frozenset[int], int] = {}
        self.by_cid: dict[str, int] = {}
        self.heaps: list[int] = []  # heaps[n] = handle of *n
        self._per_height: dict[int, int] = {}  # trees numbered so far per height
        self.intern(frozenset())

    def __len__(self) -> int:
        return len(self.children)

    def intern(self, kids: frozenset[int]) -> int:
        """Store the reduced tree whose children are ``kids`` and return its new handle.

        The caller guarantees that ``kids`` are valid handles, that the tree is reduced
        and that it is not stored yet.
        """
        assert kids not in self.by_children
        heights = self.height
        handle = len(self.children)
        height = 1 + max(heights[c] for c in kids) if kids else 0
        win_list = self.win
        win = not kids or not all(win_list[c] for c in kids)
        nimber = mex({self.nimber[c] for c in kids})
        nim_list = self.nim
        n = len(kids)
        is_heap = all(nim_list[c] != NONE for c in kids) and (
            n == 0 or max(nim_list[c] for c in kids) == n - 1
        )
        base = plus1_base(kids, height, heights, self.children, self.partner)

        self.children.append(kids)
        heights.append(height)
        win_list.append(win)
        self.nimber.append(nimber)
        nim_list.append(n if is_heap else NONE)
        self.partner.append(NONE)
        self.factor_of.append(base)
        if base != NONE:
            assert self.partner[base] == NONE, "a tree has one partner by *1"
            self.partner[base] = handle
            self.partner[handle] = base
        if is_heap:
            assert n == len(self.heaps), "heaps are interned in increasing order"
            self.heaps.append(handle)
            cid = ident.nim_id(n)
            serial = 0
        else:
            cid = ident.tree_id(self.cid[c] for c in kids)
            serial = 0
            if base == NONE:
                serial = self._per_height.get(height, 0) + 1
                self._per_height[height] = serial
        self.serial.append(serial)
        self.cid.append(cid)
        self.by_children[kids] = handle
        if cid in self.by_cid:  # a 128-bit collision, or a bug: never silently merge
            raise RuntimeError(f"content id {cid} names two different trees")
        self.by_cid[cid] = handle
        return handle
