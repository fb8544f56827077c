"""Engine benchmark: children per second and whole-tree exploration, C core vs Python.

Run on demand (not part of the test suite):
    .venv/bin/python bench/engine.py            # 0*4 and 0*5
    .venv/bin/python bench/engine.py --six      # also the whole tree of 0*6 (minutes)
Figures are CPU seconds (time.process_time) so a busy machine distorts them less; the
pure-Python reference runs in the same process as the baseline of every ratio.
"""

from __future__ import annotations

import argparse
import random
import time

from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.game import SproutsGame, python_land_children
from sproutsdb.solver.treestats import explore


class PythonSprouts(SproutsGame):
    """Sprouts with the pure-Python reference forced, as the baseline."""

    def component_children(self, component: str):  # type: ignore[override]
        cached = self._land_children.get(component)
        if cached is None:
            cached = self._land_children[component] = python_land_children(component)
        return cached


def sample_lands(count: int, seed: int = 2026) -> list[str]:
    """A fixed sample of lands met in random games from 0*5 .. 0*9."""
    rng = random.Random(seed)
    game = SproutsGame()
    lands: list[str] = []
    while len(lands) < count:
        key = game.canonical(f"0*{rng.randint(5, 9)}")
        for _ in range(rng.randint(1, 20)):
            children = game.children(key)
            if not children:
                break
            key = rng.choice(children)
        lands.extend(game.components(key))
    return lands[:count]


def children_rate(function, lands: list[str]) -> tuple[float, int]:
    start = time.process_time()
    total = 0
    for land in lands:
        total += len(function(land))
    return time.process_time() - start, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--six", action="store_true", help="also explore the tree of 0*6")
    parser.add_argument("--sample", type=int, default=400, help="lands in the children sample")
    args = parser.parse_args()
    print(f"implementation: {sprouts_game.IMPLEMENTATION}")

    lands = sample_lands(args.sample)
    py_s, children = children_rate(python_land_children, lands)
    print(f"children, python: {len(lands)} lands, {children} children, {py_s:.2f} s CPU, "
          f"{len(lands) / py_s:,.0f} lands/s")
    if sprouts_game._core is not None:
        c_s, c_children = children_rate(sprouts_game._core.land_children, lands)
        assert c_children == children
        print(f"children, c:      {len(lands)} lands, {c_children} children, {c_s:.3f} s CPU, "
              f"{len(lands) / c_s:,.0f} lands/s, x{py_s / c_s:.0f} vs python")

    roots = ["0*4", "0*5"] + (["0*6"] if args.six else [])
    for root in roots:
        stats, _, _ = explore(SproutsGame(), root)
        line = (f"tree-stats {root}: {stats.positions} positions, {stats.lands} lands, "
                f"{stats.canonical_trees} canonical trees, {stats.seconds:.2f} s wall")
        if root == "0*4":
            start = time.process_time()
            explore(PythonSprouts(), root)
            line += f" (python reference: {time.process_time() - start:.2f} s CPU)"
        print(line)
    print("paper (GLOP 2.2): 24 784 positions stored for 0*5; 393 103 for 0*6; "
          "the whole 0*6 table took ~1 740 s CPU")


if __name__ == "__main__":
    main()
