"""Counters of the Stats RPC: requests, errors, totals and commit latencies of one server."""

from __future__ import annotations

import collections
import threading
import time

LATENCY_SAMPLES = 10_000  # commit latencies kept for the percentiles


class Metrics:
    """Counters of the Stats RPC; cheap enough to update on every call."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self.requests: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()
        self.totals: collections.Counter[str] = collections.Counter()
        self.commit_ms: collections.deque[float] = collections.deque(maxlen=LATENCY_SAMPLES)
        self.in_flight = 0

    def begin(self, rpc: str) -> None:
        with self._lock:
            self.requests[rpc] += 1
            self.in_flight += 1

    def end(self, code: str | None) -> None:
        with self._lock:
            self.in_flight -= 1
            if code is not None:
                self.errors[code] += 1

    def error(self, code: str) -> None:
        with self._lock:
            self.errors[code] += 1

    def add(self, **amounts: int) -> None:
        with self._lock:
            self.totals.update(amounts)

    def commit(self, seconds: float) -> None:
        with self._lock:
            self.commit_ms.append(seconds * 1000.0)

    def latency(self) -> tuple[float, float, float]:
        with self._lock:
            samples = sorted(self.commit_ms)
        if not samples:
            return 0.0, 0.0, 0.0

        def at(q: float) -> float:
            return samples[min(len(samples) - 1, int(q * len(samples)))]

        return at(0.5), at(0.99), samples[-1]
