"""What protects the service from requests it cannot afford, and the errors that say so.

Two kinds of protection. Budgets: a Children or Verify request whose work would take minutes
is refused (RESOURCE_EXHAUSTED) before it starts when its cost can be told from the text, and
cut when it runs past its time. Resources: a store that cannot take a write (map full, disk
full or read-only) or a read (LMDB's reader table full) answers RESOURCE_EXHAUSTED saying
which, instead of an internal error; the server keeps serving what it still can.

The cost of a position's children: a move that splits a boundary shares the region's other
boundaries between the two new regions in every way, so one region of b boundaries and v
vertices costs about v * 2**(b-1) children before canonicalisation (0*16: 2.5 s, 0*20: about
a minute on a loaded 2-core machine).
"""

from __future__ import annotations

import errno
import re
import time
from collections.abc import Sequence
from typing import Any

import grpc
import lmdb

from sproutsdb.errors import UserError
from sproutsdb.store.errors import StoreDiskError, StoreFullError

DEFAULT_MAX_CHILDREN_WORK = 1 << 21  # 0*17 (about 5 s) is allowed, 0*18 is refused
DEFAULT_REQUEST_SECONDS = 20.0  # of server time for one Children or Verify request

_SHORTHAND = re.compile(r"^0\*([0-9]+)$")
_VERTEX = re.compile(r"[012A-Za-z]")


class BudgetExceededError(UserError):
    """A request whose work is over the server's budget (RESOURCE_EXHAUSTED)."""


class StoreResourceError(UserError):
    """The store cannot serve the call for lack of a resource (RESOURCE_EXHAUSTED)."""


def children_work(key: str) -> int:
    """An upper estimate of the work of generating a canonical position's children."""
    work = 0
    for land in key.split("+"):
        for region in land.split("|"):
            region = region.split("@", 1)[0]
            boundaries = 0
            vertices = 0
            for boundary in region.split("."):
                shorthand = _SHORTHAND.match(boundary)
                if shorthand is not None:
                    k = min(int(shorthand.group(1)), 1 << 16)
                    boundaries += k
                    vertices += k
                else:
                    boundaries += 1
                    vertices += len(_VERTEX.findall(boundary))
            work += max(1, vertices) << min(max(boundaries - 1, 0), 64)
    return work


class Budget:
    """One request's allowance: a cap on the children work of any one position and a
    deadline (the server's per-request seconds or the client's deadline, if sooner)."""

    def __init__(
        self, what: str, max_work: int, seconds: float, context: grpc.ServicerContext | None = None
    ) -> None:
        remaining = context.time_remaining() if context is not None else None
        if remaining is not None:
            seconds = min(seconds, max(remaining, 0.0))
        self.what = what
        self.max_work = max_work
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def admit(self, key: str, index: int | None = None) -> None:
        """Refuse a position whose children would cost more than the cap."""
        work = children_work(key)
        if work > self.max_work:
            where = "" if index is None else f"position {index}: "
            raise BudgetExceededError(
                f"{self.what}: {where}the children of {key[:60]!r} would take about "
                f"{work:,} units of work, over this server's limit of {self.max_work:,} per "
                "position (ServerInfo.limits.max_children_work); compute them locally with "
                "the sproutsdb engine"
            )

    def tick(self, done: str = "") -> None:
        """Cut the request once it has run past its time."""
        if time.monotonic() > self.deadline:
            raise BudgetExceededError(
                f"{self.what}: over this server's budget of {self.seconds:.0f} s for one "
                f"request{done}; ask for less per request, or run it locally (sproutsdb "
                "check)"
            )


class BudgetedGame:
    """The game as the checker sees it in Verify: every land's children admitted by the
    budget first, and the clock checked on each."""

    def __init__(self, game: Any, budget: Budget) -> None:
        self._game = game
        self._budget = budget

    def component_children(self, component: str) -> Sequence[tuple[str, ...]]:
        self._budget.tick()
        self._budget.admit(component)
        return self._game.component_children(component)  # type: ignore[no-any-return]

    def children(self, key: str) -> list[str]:
        self._budget.tick()
        self._budget.admit(key)
        return self._game.children(key)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


class BudgetedSource:
    """The store as the checker reads it in Verify: the clock checked on every batch."""

    def __init__(self, store: Any, budget: Budget) -> None:
        self._store = store
        self._budget = budget

    def get(self, kind: Any, keys: Sequence[str]) -> Any:
        self._budget.tick()
        return self._store.get(kind, keys)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def resource_status(error: BaseException) -> tuple[grpc.StatusCode, str] | None:
    """RESOURCE_EXHAUSTED and what ran out, for the errors of a store out of room or
    readers and of budgets; None for any other error."""
    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    if isinstance(error, (BudgetExceededError, StoreResourceError)):
        return code, str(error)
    if isinstance(error, StoreDiskError):
        return code, f"{error}; reads are still served"

    if isinstance(error, (StoreFullError, lmdb.MapFullError)):
        return code, (
            f"{error}; nothing of this request was written, and reads are still served"
            if isinstance(error, StoreFullError)
            else "the store is full (its map_size is reached); nothing of this request "
            "was written, and reads are still served"
        )
    if isinstance(error, lmdb.ReadersFullError):
        return code, (
            "the store's reader table is full (every LMDB reader slot is taken by "
            "open read transactions); nothing was read, retry shortly"
        )
    number = getattr(error, "errno", None)
    text = str(error)
    if number == errno.ENOSPC or "No space left on device" in text:
        return code, (
            "the disk holding the store is full; nothing of this request was "
            "written, and reads are still served"
        )
    if number == errno.EROFS or "Read-only file system" in text:
        return code, (
            "the disk holding the store refuses writes (read-only file system); "
            "nothing of this request was written, and reads are still served"
        )
    if number == errno.EDQUOT or "Disk quota exceeded" in text:
        return code, (
            "the disk quota of the store is exhausted; nothing of this request "
            "was written, and reads are still served"
        )
    if isinstance(error, lmdb.DiskError):
        return code, (
            f"the disk holding the store refused a write ({text}); nothing of this "
            "request was written, and reads are still served"
        )
    return None


__all__ = [
    "DEFAULT_MAX_CHILDREN_WORK",
    "DEFAULT_REQUEST_SECONDS",
    "Budget",
    "BudgetExceededError",
    "BudgetedGame",
    "BudgetedSource",
    "StoreResourceError",
    "children_work",
    "resource_status",
]
