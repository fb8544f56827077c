"""Normal-play solver benchmark: nodes, stored facts and CPU seconds on Sprouts positions.

Run on demand (not part of the test suite):
    .venv/bin/python bench/normal.py                          # outcomes of 0*6 .. 0*9
    .venv/bin/python bench/normal.py 0*8 0*9 --nimber         # nimbers instead
    .venv/bin/python bench/normal.py 0*7 --order engine       # compare move orders
Each position is solved by a fresh solver on a fresh in-memory store, so figures do not
depend on what ran before (the engine's own children memo is the only shared state).
"""

from __future__ import annotations

import argparse
import time

from sproutsdb.solver.normal.solver import NormalSolver, engine_order, fewest_lives_first
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.game import SproutsGame

ORDERS = {"lives": fewest_lives_first, "engine": engine_order}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("positions", nargs="*", default=["0*6", "0*7", "0*8", "0*9"])
    parser.add_argument("--nimber", action="store_true", help="compute nimbers, not outcomes")
    parser.add_argument("--order", choices=sorted(ORDERS), default="lives")
    args = parser.parse_args()
    game = SproutsGame()
    engine = getattr(sprouts_game, "IMPLEMENTATION", "?")
    print(f"engine: {engine}; order: {args.order}; {'nimber' if args.nimber else 'outcome'}")
    print(f"{'position':>14} {'answer':>6} {'nodes':>9} {'stored':>8} {'cpu s':>8} {'nodes/s':>8}")
    for text in args.positions:
        solver = NormalSolver(game, MemoryProofStore(), order=ORDERS[args.order])
        key = game.canonical(text)
        started = time.process_time()
        answer = solver.nimber(key) if args.nimber else solver.outcome(key)
        seconds = time.process_time() - started
        stats = solver.stats
        rate = stats.nodes / seconds if seconds else 0.0
        print(
            f"{text:>14} {answer!s:>6} {stats.nodes:>9,} {stats.facts_stored:>8,} "
            f"{seconds:>8.2f} {rate:>8,.0f}"
        )


if __name__ == "__main__":
    main()
