"""Busy marks across the processes of one `--jobs` run (df-pn's `BusyMarks`).

Each process counts the nodes on its search path in a shared array of its own, by a hash of
their key, and reads the others': a search then leaves a child another one is in to that
one (normal and misère play alike). A hash collision only changes the order of a search.
The main search's marks (`MainBusy`) also count the root children left to the helpers as
busy while the one held back for it is undecided (`HeldBackRoot` in misère play,
`parallel_solve.RootClaims` in normal play).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

BUSY_SLOTS = 1 << 16  # slots of each process's marks (a path holds a few hundred nodes)

T = TypeVar("T")


def helpers_order(children: Sequence[T]) -> list[T]:
    """The order in which helpers take the main search's root children: from the far end of
    its order, but its last child last. Proven alone, without its siblings' facts, that one
    costs most (normal 0*14's 0*12.1a1a: 278,462 visits, the whole 0*14 150,064; misère
    99,363 against 46,306), so the helpers prove the siblings first and the main search has
    it beside their facts (`MainBusy` keeps it there)."""
    return [*reversed(children[:-1]), *children[-1:]]


def busy_tables(context: Any, processes: int) -> list[Any]:
    """One shared array of marks a process (the main search's first), from a
    multiprocessing `context`, to hand to the processes as they start."""
    return [context.Array("i", BUSY_SLOTS, lock=False) for _ in range(processes)]


class SharedBusy:
    """The marks of process ``me`` among ``tables`` (`busy_tables`), as df-pn's
    `BusyMarks`."""

    def __init__(self, tables: Sequence[Any], me: int) -> None:
        self.tables, self.me = list(tables), me
        self._mine = self.tables[me]
        self._others = [table for index, table in enumerate(self.tables) if index != me]

    @staticmethod
    def _slot(key: str) -> int:
        return zlib.crc32(key.encode()) & (BUSY_SLOTS - 1)

    def enter(self, key: str) -> None:
        self._mine[self._slot(key)] += 1

    def leave(self, key: str) -> None:
        self._mine[self._slot(key)] -= 1

    def elsewhere(self, key: str) -> bool:
        slot = self._slot(key)
        return any(table[slot] > 0 for table in self._others)


class HelperBusy(SharedBusy):
    """A helper's marks (process ``me`` > 0) that, while ``follow`` is set, also say where
    the main search (process 0) is, as df-pn's `LeaderMarks`: at a node that looks winning
    the helper then goes where the main search is. Set only in the main search's kept root
    child, once the helper's other options are proven: following it in the options of its
    own share too, misère 0*15 (a losing root, where the main search's visits to those
    options are detours) took 167, 191 and 129 s wall against 139 and 132 s, paired; as
    kept, 127 and 142 s against 139 and 115 s (bench/misere.py)."""

    follow = False

    def leading(self, key: str) -> bool:
        return self.follow and self.tables[0][self._slot(key)] > 0


class HelpersShare(Protocol):
    """Which root children the main search leaves to the helpers, for `MainBusy`."""

    def for_helpers(self, key: str) -> bool: ...


class MainBusy(SharedBusy):
    """The main search's marks (process 0): besides the nodes a helper is in, the root
    children left to the helpers (``root.for_helpers``). So at a root that looks losing the
    main search stays in the child held back for it while the helpers prove the others,
    instead of entering them ahead of the helpers (traced at normal 0*20: ~30 of its CPU s,
    on options a helper then proved again). Like every mark, it only steers."""

    def __init__(self, tables: Sequence[Any], root: HelpersShare) -> None:
        super().__init__(tables, 0)
        self._root = root

    def elsewhere(self, key: str) -> bool:
        return super().elsewhere(key) or self._root.for_helpers(key)


class HeldBackRoot:
    """df-pn's `RootShare` for a main search whose helpers take every root child but its
    last (misère `--jobs`): until that child is decided, the others are the helpers'."""

    def __init__(self) -> None:
        self._left: set[str] = set()
        self._kept: str | None = None
        self._offered = False

    def offer(self, children: Sequence[tuple[str, Any]]) -> None:
        if self._offered:
            return
        self._offered = True
        keys = [key for key, _ in children]
        if len(keys) > 1:
            self._kept, self._left = keys[-1], set(keys[:-1])

    def entering(self, key: str) -> None:
        """Nothing to tell: the helpers' shares are fixed (`parallel_misere.helper_share`)."""

    def decided(self, key: str) -> None:
        self._left.discard(key)
        if key == self._kept:
            self._kept = None

    def for_helpers(self, key: str) -> bool:
        return self._kept is not None and key in self._left
