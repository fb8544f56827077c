"""An RCT table's positions re-derived on every core: each helper process reads the file
itself (refusing bytes whose SHA-256 is not the caller's), checks its share of the positions
against the whole table, and reports the faulty ones; the caller gathers them in order.

The caller has re-derived the table's RCT records already; it hands the helpers those trees
as a snapshot (a private temporary file, refused unless its digest is the one written), so
that each takes them back instead of re-deriving the records again. Re-deriving a position
means listing its children, whose canonical forms the engine's memo keeps; each helper
raises its memo for the check (the S6 table's 226 809 positions have about as many
distinct child lands) and then exits with it. Helpers are new interpreters
(`python -m sproutsdb.table_check_workers`), never forks, so a caller with threads (a
server) or without a main guard (a script) is safe; none outlives the call.
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sproutsdb.formats.rctindex import read_trees, write_trees
from sproutsdb.formats.rcttable import RctTable, RctTableError, table_from_bytes
from sproutsdb.games import get_game
from sproutsdb.solver.misere.rctsearch import check_positions
from sproutsdb.solver.ports.game import MemoHolder

CHECK_MEMO = 1 << 20  # canonical strings a helper's engine keeps while it checks
REPORTS_PER_HELPER = 8  # a helper reports its progress this many times
SMALLEST_FOR_HELPERS = 20_000  # a table with fewer positions is checked in the caller
MOST_HELPERS = 8


def helpers_for(positions: int) -> int:
    """How many helper processes check a table of `positions` positions (0: the caller)."""
    if positions < SMALLEST_FOR_HELPERS:
        return 0
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:
        cores = os.cpu_count() or 1
    return min(cores, MOST_HELPERS) if cores > 1 else 0


def balanced_shares(keys: list[str], helpers: int) -> list[tuple[int, int]]:
    """`helpers` runs of consecutive positions, cut so that each holds about the same work:
    a position's work is listing its children, which grows with its size, so its key's
    length squared stands for it. (Cut by count, the S6 table's second half, of larger
    lands, left the first helper idle while the second finished.)"""
    weights = [len(key) ** 2 for key in keys]
    total = sum(weights)
    cuts, reached, index = [0], 0, 0
    for share in range(1, helpers):
        while index < len(keys) and reached < total * share / helpers:
            reached += weights[index]
            index += 1
        cuts.append(index)
    cuts.append(len(keys))
    return list(itertools.pairwise(cuts))


def check_on_helpers(
    path: str | Path,
    digest: str,
    table: RctTable,
    helpers: int,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[str], float]:
    """(faulty positions in table order, the helpers' CPU seconds): `table`'s positions,
    read from `path` (whose SHA-256 is `digest`) by `helpers` processes. `table` is that
    file as table_from_bytes read it: its records re-derived here, which the helpers trust."""
    with tempfile.TemporaryDirectory(prefix="sproutsdb-trees-") as folder:
        trees = Path(folder) / "trees"
        trees_digest = write_trees(trees, table.algebra.snapshot())
        return _run_helpers(path, digest, (str(trees), trees_digest), table, helpers, progress)


def _run_helpers(
    path: str | Path,
    digest: str,
    trees: tuple[str, str],
    table: RctTable,
    helpers: int,
    progress: Callable[[int], None] | None,
) -> tuple[list[str], float]:
    """check_on_helpers with the trees' snapshot written: (path, blake2b digest)."""
    shares = balanced_shares(list(table.positions), helpers)
    lines: queue.Queue[tuple[int, str | None]] = queue.Queue()
    started = [
        subprocess.Popen(
            [sys.executable, "-m", __name__, str(path), digest, *trees, str(start), str(stop)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for start, stop in shares
    ]
    try:
        readers = [
            threading.Thread(target=_read_lines, args=(i, p, lines), daemon=True)
            for i, p in enumerate(started)
        ]
        for reader in readers:
            reader.start()
        found: list[list[str]] = [[] for _ in started]
        cpu = 0.0
        done, running = 0, len(started)
        while running:
            index, line = lines.get()
            if line is None:
                running -= 1
                continue
            report: dict[str, Any] = json.loads(line)
            found[index].extend(report.get("problems", []))
            done += int(report.get("done", 0))
            cpu += float(report.get("cpu", 0.0))
            if progress is not None and report.get("done"):
                progress(done)
        for helper in started:
            if helper.wait() != 0:
                said = (helper.stderr.read() if helper.stderr else "").strip().splitlines()
                why = said[-1] if said else f"exit status {helper.returncode}"
                raise RctTableError(f"{path}: a helper checking the table failed: {why}")
        return [p for share in found for p in share], cpu
    finally:
        for helper in started:
            if helper.poll() is None:
                helper.kill()
            helper.wait()
            for stream in (helper.stdout, helper.stderr):
                if stream is not None:
                    stream.close()


def _read_lines(
    index: int, helper: subprocess.Popen[str], lines: queue.Queue[tuple[int, str | None]]
) -> None:
    """Hand each line a helper prints to the caller, then None when it has said all."""
    assert helper.stdout is not None
    for line in helper.stdout:
        lines.put((index, line))
    lines.put((index, None))


def _helper(path: str, digest: str, trees: str, trees_digest: str, start: int, stop: int) -> None:
    """One helper: its share keys[start:stop] of the table at `path`, checked in a few
    steps, each printed as a JSON line ({"done": n, "problems": [...]}), then its CPU. The
    records' trees come from the caller's snapshot at `trees`."""
    data = Path(path).read_bytes()
    if hashlib.sha256(data).hexdigest() != digest:
        raise RctTableError(f"{path} changed while it was being checked")
    table = table_from_bytes(path, data, algebra=read_trees(trees, trees_digest))
    gc.freeze()  # the table's objects live until the helper exits: no collection walks them
    engine = get_game(table.game).engine()
    if isinstance(engine, MemoHolder):
        engine.reserve_memo(CHECK_MEMO)
    keys = list(table.positions)[start:stop]
    steps = max(1, min(REPORTS_PER_HELPER, len(keys)))
    for step in range(steps):
        part = keys[len(keys) * step // steps : len(keys) * (step + 1) // steps]
        problems = check_positions(engine, table.algebra, table.positions, keys=part)
        print(json.dumps({"done": len(part), "problems": problems}), flush=True)
    print(json.dumps({"cpu": time.process_time()}), flush=True)


if __name__ == "__main__":
    try:
        path, digest, trees, trees_digest, start, stop = sys.argv[1:7]
        _helper(path, digest, trees, trees_digest, int(start), int(stop))
    except RctTableError as error:
        print(error, file=sys.stderr)
        sys.exit(2)
