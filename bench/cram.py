"""Cram benchmark: nimbers of empty boards proven into a real store, each certificate checked.

Run on demand (not part of the test suite):
    .venv/bin/python bench/cram.py                         # 4x7, 5x6, 5x7
    .venv/bin/python bench/cram.py 6x6 5x8 --limit 300     # larger boards, 5 min each
Each board is solved in a process of its own on a new LMDB store of the game `cram` (so
its CPU seconds and peak RSS are its own), then the store's facts are re-derived by the
checker from the rules (solver.normal.check): the row says whether the certificate checks clean.
A board not solved within --limit seconds is reported as not reached.

Figures on the project's 2-core machine (shared, pure-Python engine, dfpn; CPU seconds of
the solve, facts = NIMBER facts stored, every certificate checked clean):
    4x7 = 3     40 801 nodes   2 082 facts    3.4 s   110 MB
    5x6 = 2     75 803 nodes   3 152 facts   10.6 s   165 MB
    5x7 = 1    229 351 nodes   7 675 facts   56.0 s   417 MB
    4x9 = 1    287 272 nodes  11 298 facts   61.4 s   517 MB
    6x6 = 0    288 327 nodes   9 321 facts   90.7 s   474 MB
    5x8, 4x10: not reached within 300 s of wall time
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# published values (Lemoine & Viennot; Uiterwijk) and the even x even boards, lost by the
# second player's point reflection: a failing one is a bug
EXPECTED = {"4x7": 3, "5x6": 2, "5x7": 1, "6x6": 0, "4x8": 0, "6x8": 0}
DEFAULT_BOARDS = ["4x7", "5x6", "5x7"]


def solve_one(board: str, store_dir: str, search: str) -> dict[str, Any]:
    """Solve one board into a new store at `store_dir`, check it; the figures as a dict."""
    from sproutsdb.solver.cram import CANON_VERSION, CramGame
    from sproutsdb.solver.normal.check import Checker
    from sproutsdb.solver.normal.solver import NormalSolver
    from sproutsdb.solver.ports.proofstore import FactKind
    from sproutsdb.store import LmdbProofStore

    game = CramGame()
    key = game.canonical(board)
    store = LmdbProofStore.open(store_dir, game="cram", canon_version=CANON_VERSION, durable=False)
    try:
        solver = NormalSolver(game, store, search=search)
        started = time.process_time()
        nimber = solver.nimber(key)
        solve_seconds = time.process_time() - started
        solver.flush()
        store.flush()
        stats = solver.stats
        started = time.process_time()
        report = Checker(game, store).check(key)
        check_seconds = time.process_time() - started
        facts = store.count(FactKind.NIMBER)
    finally:
        store.close()
    return {
        "board": board,
        "key": key,
        "nimber": nimber,
        "nodes": stats.nodes,
        "facts": facts,
        "cpu_seconds": round(solve_seconds, 2),
        "check": "clean" if report.ok and report.nimber == nimber else "FAILED",
        "check_facts_used": len(report.used),
        "check_cpu_seconds": round(check_seconds, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def run_board(board: str, limit: float, search: str) -> dict[str, Any] | None:
    """`solve_one` in a child process; None when it is not done within `limit` seconds."""
    with tempfile.TemporaryDirectory(prefix="cram-bench-") as scratch:
        command = [sys.executable, __file__, "--one", board, "--search", search]
        command += ["--store", str(Path(scratch) / "store")]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            return None
        if done.returncode != 0:
            raise SystemExit(f"bench/cram.py: {board} failed:\n{done.stderr}")
        result: dict[str, Any] = json.loads(done.stdout)
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("boards", nargs="*", default=DEFAULT_BOARDS, help="boards like 5x7")
    parser.add_argument("--limit", type=float, default=300.0, help="seconds per board")
    parser.add_argument("--search", choices=("dfpn", "dfs"), default="dfpn")
    parser.add_argument("--json", action="store_true", help="one JSON object per board")
    parser.add_argument("--one", metavar="BOARD", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(solve_one(args.one, args.store, args.search)))
        return
    print(f"search: {args.search}; limit {args.limit:g} s a board; engine: python")
    print(
        f"{'board':>6} {'nimber':>6} {'expect':>6} {'nodes':>10} {'facts':>8} {'cpu s':>8} "
        f"{'check':>6} {'chk s':>7} {'peak MB':>8}"
    )
    failed = False
    for board in args.boards:
        result = run_board(board, args.limit, args.search)
        expected = EXPECTED.get(board)
        if result is None:
            print(f"{board:>6}  not reached within {args.limit:g} s")
            continue
        wrong = expected is not None and result["nimber"] != expected
        failed |= wrong or result["check"] != "clean"
        if args.json:
            print(json.dumps({**result, "expected": expected}))
            continue
        print(
            f"{board:>6} {result['nimber']:>6} {'-' if expected is None else expected:>6} "
            f"{result['nodes']:>10,} {result['facts']:>8,} {result['cpu_seconds']:>8.2f} "
            f"{result['check']:>6} {result['check_cpu_seconds']:>7.2f} "
            f"{result['peak_rss_mb']:>8.1f}" + ("  WRONG" if wrong else "")
        )
    if failed:
        raise SystemExit("bench/cram.py: a value or a certificate is wrong")


if __name__ == "__main__":
    main()
