"""Busy marks across the processes of one `--jobs` run (df-pn's `BusyMarks`).

Each process counts the nodes on its search path in a shared array of its own, by a hash of
their key, and reads the others': a search then leaves a child another one is in to that
one (normal and misère play alike). A hash collision only changes the order of a search.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

BUSY_SLOTS = 1 << 16  # slots of each process's marks (a path holds a few hundred nodes)


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
