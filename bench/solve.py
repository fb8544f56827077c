"""Solve benchmark: 0*n on a fresh LMDB store, then again on the warm store.

Run on demand (not part of the test suite):
    .venv/bin/python bench/solve.py                 # n = 5..12, 10 minutes per n at most
    .venv/bin/python bench/solve.py --max-n 10 --limit 120
    .venv/bin/python bench/solve.py --min-n 8 --baseline bench/baselines/solve-canon-v1.json
--save keeps the figures as JSON; --baseline prints the node and time ratios to a saved run
(e.g. the release with canon v1, run with that release's interpreter and --save).
For each n: wall seconds, couples expanded (nodes) and losing couples stored, on a fresh
durable store; then the same question on the now warm store, as the in-process baseline
of the warm/fresh ratio. The paper's program kept 140 losing couples for 0*11 and 475 for
0*12 after pruning (its best later figures: 113 for 0*11, 137 for 0*8); `sproutsdb check
--prune --cycles` (bench/check.py) gives our pruned sizes.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

from sproutsdb.server.store import LmdbProofStore
from sproutsdb.solver.normal import SEARCHES, NormalSolver, Progress
from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame

PAPER_PRUNED = {11: 140, 12: 475}
# SPOTS on one core of this machine kind, outcome of 0*n, seconds (DESIGN §7): low, high.
SPOTS_SECONDS = {12: (21, 26), 13: (25, 25), 14: (136, 136), 15: (298, 298), 16: (38, 38),
                 17: (15, 15), 18: (437, 437), 19: (280, 280), 20: (466, 466)}


class OutOfTime(Exception):
    """Raised from the progress callback when a run exceeds its limit."""


def run(store_dir: Path, key: str, limit: float,
        search: str = "dfpn") -> tuple[str, float, int, int]:
    """Outcome, wall seconds, nodes, facts stored; raises OutOfTime past the limit."""
    game = SproutsGame()
    started = time.perf_counter()

    def watchdog(progress: Progress) -> None:
        if time.perf_counter() - started > limit:
            raise OutOfTime

    with LmdbProofStore.open(store_dir, game="sprouts", canon_version=CANON_VERSION) as store:
        solver = NormalSolver(game, store, progress=watchdog, progress_interval=1.0,
                              search=search)
        try:
            outcome = solver.outcome(key)
        finally:
            solver.flush()
        stats = solver.stats
    return outcome, time.perf_counter() - started, stats.nodes, stats.facts_stored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-n", type=int, default=5)
    parser.add_argument("--max-n", type=int, default=12)
    parser.add_argument("--limit", type=float, default=600.0, help="seconds per fresh run")
    parser.add_argument("--search", choices=SEARCHES, default="dfpn",
                        help="normal-play search (default dfpn)")
    parser.add_argument("--save", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--baseline", type=Path, help="a saved run to print ratios against")
    args = parser.parse_args()
    baseline = json.loads(args.baseline.read_text()) if args.baseline else {}
    figures: dict[str, object] = {"canon_version": CANON_VERSION,
                                  "implementation": sprouts_game.IMPLEMENTATION}
    print(f"engine: {sprouts_game.IMPLEMENTATION}, canon_version {CANON_VERSION}, "
          f"search {args.search}")
    print(f"{'n':>3} {'outcome':>7} {'fresh s':>9} {'nodes':>9} {'stored':>8} "
          f"{'warm s':>8} {'warm nodes':>10} {'warm/fresh':>10}  paper (pruned)")
    for n in range(args.min_n, args.max_n + 1):
        with tempfile.TemporaryDirectory(prefix=f"bench-solve-{n}-") as tmp:
            store_dir = Path(tmp) / "store"
            try:
                outcome, fresh, nodes, stored = run(store_dir, f"0*{n}", args.limit,
                                                    args.search)
            except OutOfTime:
                print(f"{n:>3} {'-':>7} {'>' + str(int(args.limit)):>9}  (stopped at the limit)")
                continue
            _, warm, warm_nodes, _ = run(store_dir, f"0*{n}", args.limit, args.search)
            peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
            paper = PAPER_PRUNED.get(n, "")
            print(f"{n:>3} {outcome:>7} {fresh:>9.2f} {nodes:>9} {stored:>8} {warm:>8.3f} "
                  f"{warm_nodes:>10} {warm / fresh:>10.4f}  {paper}", flush=True)
            figures[f"0*{n}"] = {"outcome": outcome, "seconds": fresh, "nodes": nodes,
                                 "stored": stored, "peak_rss_mb": peak_mb}
            spots = SPOTS_SECONDS.get(n)
            if spots is not None:
                print(f"    peak RSS {peak_mb} MB (process); SPOTS {spots[0]}-{spots[1]} s: "
                      f"ours/SPOTS {fresh / spots[1]:.2f}-{fresh / spots[0]:.2f}", flush=True)
            before = baseline.get(f"0*{n}")
            if isinstance(before, dict):
                print(f"    against canon v{baseline.get('canon_version')}: nodes "
                      f"{before['nodes']} -> {nodes} (x{nodes / before['nodes']:.3f}), seconds "
                      f"{before['seconds']:.2f} -> {fresh:.2f} (x{fresh / before['seconds']:.3f})",
                      flush=True)
            if args.save:
                args.save.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
