"""A fleet run's trace (`fleet solve --trace FILE`): what each solver did, for the
simulator that replays it on more workers (bench/fleet_simulator.py).

One gzip JSON-lines file a run. Its records, by "kind":
  run     the run: position, play, workers, answer, visits, wall seconds
  task    a couple a helper took from the hub: solver, couple (root child index, key, n,
          depth), wall and process-CPU seconds at its start and end, visits, how it ended
          (done, split, stopped), the couples it was split into, facts it learned from the
          others and facts it shared while it ran
  main    a stretch of the main search in one root child (index -1: at the root itself),
          wall and CPU seconds at its start and end
  costs   a solver's measured latencies in ms (dispatch: the hub's `take`; sharing: an
          Insert batch to the server; sync: a hub round trip), and its process CPU
  hub     the hub's calls and its own CPU
  server  the server's Stats after the run (commits, commit latency p50/p99, facts)
Wall seconds count from the run's start (one clock for all: `origin`); CPU seconds are each
process's own `time.process_time()`.
"""

from __future__ import annotations

import gzip
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

__all__ = ["MainTrace", "TaskLog", "misere_records", "read_trace", "write_trace"]

SAMPLES = 4000  # latencies kept per solver and kind (the first ones)
VERSION = 1


def _now(origin: float) -> tuple[float, float]:
    """(wall seconds since origin, this process's CPU seconds)."""
    return round(time.time() - origin, 4), round(time.process_time(), 4)


def samples_ms(samples: Sequence[float]) -> list[float]:
    """Latencies in seconds as ms, rounded, at most SAMPLES of them (small files)."""
    return [round(1000 * s, 2) for s in samples[:SAMPLES]]


class TaskLog:
    """One helper's couples, begun and ended as the helper takes and finishes them."""

    def __init__(self, solver: int, origin: float) -> None:
        self.solver, self.origin = solver, origin
        self.records: list[dict[str, Any]] = []
        self._open: dict[str, Any] | None = None

    def begin(self, couple: Sequence[Any], visits: int, learned: int, shared: int) -> None:
        """The helper starts on `couple` (index, key, n, depth) with these counters."""
        wall, cpu = _now(self.origin)
        index, key, n, depth = couple
        self._open = {
            "kind": "task",
            "solver": self.solver,
            "index": index,
            "key": key,
            "n": n,
            "depth": depth,
            "w0": wall,
            "c0": cpu,
            "v0": visits,
            "l0": learned,
            "s0": shared,
        }

    def end(
        self,
        how: str,
        visits: int,
        learned: int,
        shared: int,
        parts: Iterable[Sequence[Any]] = (),
    ) -> None:
        """The couple begun last ended `how` (done, split, stopped); `parts`: its split."""
        record, self._open = self._open, None
        if record is None:
            return
        wall, cpu = _now(self.origin)
        record.update(
            w1=wall,
            c1=cpu,
            visits=visits - record.pop("v0"),
            learned=learned - record.pop("l0"),
            shared=shared - record.pop("s0"),
            end=how,
            parts=[list(p) for p in parts],
        )
        self.records.append(record)


class MainTrace:
    """The main search's stretches in each root child (`RootShare.entering` marks them)."""

    def __init__(self, origin: float) -> None:
        self.origin = origin
        self.records: list[dict[str, Any]] = []
        self._index = -1
        self._start = _now(origin)

    def entering(self, index: int) -> None:
        """The main search enters root child `index` (-1: none of them): a stretch ends."""
        if index == self._index:
            return
        self.close()
        self._index = index

    def close(self) -> None:
        """End the stretch under way (at the end of the run too)."""
        wall, cpu = _now(self.origin)
        w0, c0 = self._start
        if cpu > c0 or wall > w0:
            self.records.append(
                {"kind": "main", "index": self._index, "w0": w0, "w1": wall, "c0": c0, "c1": cpu}
            )
        self._start = (wall, cpu)


def misere_records(
    results: Sequence[Mapping[str, Any]], root: Mapping[str, Any] | None, workers: int
) -> list[dict[str, Any]]:
    """A misère fleet's trace (it has no hub: each position handed out is one task, the
    root of --options-of a `main` stretch after them all), from its tasks' results."""
    every = [*results, *([root] if root is not None else [])]
    origin = min((float(r["began"]) for r in every if "began" in r), default=0.0)
    records: list[dict[str, Any]] = [
        {
            "kind": "run",
            "version": VERSION,
            "position": root["position"] if root is not None else None,
            "play": "misere",
            "workers": workers,
            "outcome": root.get("outcome") if root is not None else None,
            "visits": sum(int(r.get("nodes", 0)) for r in every),
            "main_visits": int(root.get("nodes", 0)) if root is not None else 0,
        }
    ]
    for index, r in enumerate(results):
        w0 = round(float(r.get("began", origin)) - origin, 4)
        records.append(
            {
                "kind": "task",
                "solver": r.get("worker"),
                "index": index,
                "key": r["position"],
                "w0": w0,
                "w1": round(w0 + float(r.get("seconds", 0.0)), 4),
                "c0": 0.0,
                "c1": float(r.get("cpu", r.get("seconds", 0.0))),
                "visits": int(r.get("nodes", 0)),
                "end": "error" if "error" in r else "done",
                "outcome": r.get("outcome"),
                "parts": [],
            }
        )
    if root is not None:
        w0 = round(float(root.get("began", origin)) - origin, 4)
        records.append(
            {
                "kind": "main",
                "index": -1,
                "w0": w0,
                "w1": round(w0 + float(root.get("seconds", 0.0)), 4),
                "c0": 0.0,
                "c1": float(root.get("cpu", root.get("seconds", 0.0))),
                "visits": int(root.get("nodes", 0)),
            }
        )
    return records


def write_trace(path: str | os.PathLike[str], records: Iterable[Mapping[str, Any]]) -> int:
    """Write the records as gzip JSON lines (the `run` record first); their count."""
    count = 0
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
            count += 1
    return count


def read_trace(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The records of a trace file, in order."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)
