"""Ctrl-C taken at a point of the search's choosing, so that what it saves is whole.

A search stopped in the middle of an update (a node decided but not yet recorded, a
children list half pruned) saves a resume record a rerun cannot follow exactly. Within
`deferred_interrupt`, the first SIGINT only raises a flag, which the search's progress
callback turns into KeyboardInterrupt between two node visits (`Deferred.check`); a second
SIGINT interrupts at once, as usual.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["Deferred", "deferred_interrupt"]


class Deferred:
    """Whether a Ctrl-C is waiting to be taken."""

    def __init__(self) -> None:
        self.pending = False

    def check(self) -> None:
        """Raise the waiting Ctrl-C, if any (call where stopping leaves things whole)."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


@contextmanager
def deferred_interrupt() -> Iterator[Deferred]:
    """Within the block, SIGINT is taken at `Deferred.check` (outside the main thread,
    where no handler can be set, Ctrl-C is left as it is)."""
    deferred = Deferred()
    if threading.current_thread() is not threading.main_thread():
        yield deferred
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if deferred.pending:  # asked twice: stop now
            raise KeyboardInterrupt
        deferred.pending = True

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield deferred
    finally:
        signal.signal(signal.SIGINT, previous)
