"""Time building the RCT tables of S5 and S6, as `sproutsdb rct-table build` does.

For each root: compute the RCT of every position of its game tree, write the table file,
load it back (which re-derives every RCT record). Prints wall and CPU seconds per phase,
the file size and the peak memory, and compares the S6 build with GLOP 2.2, which needed
about 1 740 s of CPU for the same table (docs/architecture.md §9; its canonical form stores
393 103 positions where ours stores 345 562, and both find 25 458 RCTs).

    .venv/bin/python bench/rct.py [--roots 0*5 0*6] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path
from typing import Self

from sproutsdb.formats.rcttable import load_table, make_header, table_from_positions, write_table
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.sprouts.game import IMPLEMENTATION, SproutsGame

GLOP_S6_CPU = 1740.0


class Clock:
    """Wall and CPU seconds of one phase."""

    def __enter__(self) -> Self:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def bench(root: str, folder: Path) -> float:
    """Build, write and reload one table; print its figures; return the build CPU seconds."""
    game = SproutsGame()
    key = game.canonical(root)
    with Clock() as compute:
        search = game_tree_rcts(game, key)
    table = table_from_positions(search.algebra, search.positions())
    path = folder / f"{root.replace('*', 'x')}.rcttable"
    with Clock() as write:
        size = write_table(path, table, make_header(table, game="sprouts", root=key))
    with Clock() as load:
        loaded = load_table(path)
    assert len(loaded.positions) == len(search.positions())
    counts = loaded.counts
    build_cpu = compute.cpu + write.cpu
    print(
        f"{root}: {counts['positions']:>7} positions  {counts['rcts']:>6} RCTs  "
        f"file {size / 1e6:6.2f} MB  (body {loaded.header['body']['raw_bytes'] / 1e6:.1f} MB raw)"
    )
    print(f"    compute  {compute.cpu:7.1f} s CPU  {compute.wall:7.1f} s wall")
    print(f"    write    {write.cpu:7.1f} s CPU  {write.wall:7.1f} s wall")
    print(f"    load     {load.cpu:7.1f} s CPU  {load.wall:7.1f} s wall  (every record re-derived)")
    print(f"    build    {build_cpu:7.1f} s CPU  (compute + write)")
    return build_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roots", nargs="+", default=["0*5", "0*6"])
    parser.add_argument("--dir", default=None, help="where to write the tables (default: temp)")
    args = parser.parse_args()
    print(f"engine: {IMPLEMENTATION} core")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.dir or tmp)
        for root in args.roots:
            cpu = bench(root, folder)
            if root == "0*6":
                print(
                    f"    GLOP 2.2: ~{GLOP_S6_CPU:.0f} s CPU for the S6 table; "
                    f"sproutsdb is {GLOP_S6_CPU / cpu:.0f}x faster in CPU"
                )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory: {peak:.0f} MB")


if __name__ == "__main__":
    main()
