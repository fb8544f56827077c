"""Whether this machine has a core to spare for background work, from the kernel's count of
idle time (Linux `/proc/stat`); elsewhere the answer is always yes, so nothing waits."""

from __future__ import annotations

import os
import time

STAT = "/proc/stat"
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _idle_seconds() -> float | None:
    """Seconds every core of the machine has spent idle (or waiting on I/O) since boot."""
    try:
        with open(STAT) as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if len(fields) < 6 or fields[0] != "cpu":
        return None
    return (int(fields[4]) + int(fields[5])) / _TICK


class SpareCpu:
    """Idle cores measured between two calls, counting the calling thread's own CPU as
    idle: the question is whether a core would be free if this thread were not working."""

    WINDOW = 0.05  # seconds: calls closer together than this get the last figure again

    def __init__(self) -> None:
        self._since = time.monotonic()
        self._idle = _idle_seconds()
        self._mine = time.thread_time()
        self._last: float | None = None

    def cores(self) -> float | None:
        """Cores left idle, on average, since the last figure (None: not measurable here,
        or asked again too soon after the first call)."""
        now = time.monotonic()
        if now - self._since < self.WINDOW:
            return self._last
        idle, mine = _idle_seconds(), time.thread_time()
        if idle is None or self._idle is None:
            self._last = None
        else:
            self._last = (idle - self._idle + mine - self._mine) / (now - self._since)
        self._since, self._idle, self._mine = now, idle, mine
        return self._last
