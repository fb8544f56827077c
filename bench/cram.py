"""Cram benchmark: the Python engine and the compiled core side by side on empty boards' nimbers.

Run on demand (not part of the test suite):
    .venv/bin/python bench/cram.py                          # 4x7 5x6 5x7 4x9 6x6 5x8, 600 s each
    .venv/bin/python bench/cram.py 4x7 5x6 --limit 120      # a quick look
    .venv/bin/python bench/cram.py 6x7 --engines c --limit 3600
Each board is solved once by each engine, each run in a process of its own on a new LMDB store
of the game `cram`, so its CPU seconds and peak RSS are its own: `python` is the engine of
canon.py and game.py (the child runs with SPROUTSDB_PURE_PYTHON=1), `c` the compiled core
(_cram.c; the bench stops if it is not built). The engines run alternately, board by board.
Then the store's facts are re-derived by the checker from the rules (solver.normal.check), in
the same process: the row says whether every certificate checks clean. The two engines make
the same children in the same order, so their nodes and facts must agree (the row says when
they do not). A run not done within --limit seconds of wall time is reported as not reached.

CPU s is the solve's (process time), peak MB the child's peak RSS (solve and check), ratio
Python / C of each. The table is printed and saved to bench/results/cram.json (gitignored;
rewritten after each board). Earlier runs: bench/history/cram.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# published values (Lemoine & Viennot; Uiterwijk) and the even x even boards, lost by the
# second player's point reflection: a failing one is a bug
EXPECTED = {"4x7": 3, "5x6": 2, "5x7": 1, "4x9": 1, "5x8": 1, "6x6": 0, "4x8": 0, "6x8": 0}
DEFAULT_BOARDS = ["4x7", "5x6", "5x7", "4x9", "6x6", "5x8"]
ENGINES = ("python", "c")
RESULTS = Path(__file__).resolve().parent / "results" / "cram.json"


def solve_one(board: str, store_dir: str, search: str) -> dict[str, Any]:
    """Solve one board into a new store at `store_dir`, check it; the figures as a dict."""
    from sproutsdb.solver.cram import CANON_VERSION, CramGame
    from sproutsdb.solver.cram import game as cram_game
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
        "engine": cram_game.IMPLEMENTATION,
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


def run_board(board: str, engine: str, limit: float, search: str) -> dict[str, Any] | None:
    """`solve_one` by one engine in a child process; None when it is not done within
    `limit` seconds of wall time."""
    environment = {**os.environ, "SPROUTSDB_PURE_PYTHON": "1" if engine == "python" else "0"}
    with tempfile.TemporaryDirectory(prefix="cram-bench-") as scratch:
        command = [sys.executable, __file__, "--one", board, "--search", search]
        command += ["--store", str(Path(scratch) / "store")]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=limit, env=environment
            )
        except subprocess.TimeoutExpired:
            return None
        if done.returncode != 0:
            raise SystemExit(f"bench/cram.py: {board} ({engine}) failed:\n{done.stderr}")
        result: dict[str, Any] = json.loads(done.stdout)
        if result["engine"] != engine:
            raise SystemExit(
                f"bench/cram.py: asked for the {engine} engine, the child ran {result['engine']}"
                " (is the core built? pip install -e . with a C compiler)"
            )
        return result


def ratio(python: dict[str, Any] | None, c: dict[str, Any] | None, field: str) -> float | None:
    """Python's figure over C's, when both runs were done."""
    if python is None or c is None or not c[field]:
        return None
    return round(python[field] / c[field], 2)


def compare(board: str, runs: dict[str, dict[str, Any] | None]) -> dict[str, Any]:
    """One row of the table: both engines' runs, the ratios and what disagrees."""
    expected = EXPECTED.get(board)
    done = [run for run in runs.values() if run is not None]
    problems = []
    for run in done:
        if expected is not None and run["nimber"] != expected:
            problems.append(f"{run['engine']} says {run['nimber']}, expected {expected}")
        if run["check"] != "clean":
            problems.append(f"{run['engine']}'s certificate does not check")
    if len(done) == 2:
        for field in ("nimber", "nodes", "facts"):
            if done[0][field] != done[1][field]:
                problems.append(f"the engines' {field} differ")
    python, c = runs.get("python"), runs.get("c")
    return {
        "board": board,
        "expected": expected,
        "python": python,
        "c": c,
        "cpu_ratio": ratio(python, c, "cpu_seconds"),
        "rss_ratio": ratio(python, c, "peak_rss_mb"),
        "problems": problems,
    }


def cell(run: dict[str, Any] | None, field: str, width: int, form: str) -> str:
    return f"{'-' if run is None else format(run[field], form):>{width}}"


def print_row(row: dict[str, Any]) -> None:
    python, c = row["python"], row["c"]
    either = c if c is not None else python
    value = "-" if either is None else either["nimber"]
    expected = "-" if row["expected"] is None else row["expected"]
    line = (
        f"{row['board']:>6} {value!s:>6} {expected!s:>6} {cell(either, 'nodes', 10, ',')} "
        f"{cell(either, 'facts', 8, ',')} "
        f"{cell(python, 'cpu_seconds', 8, '.2f')} {cell(c, 'cpu_seconds', 7, '.2f')} "
        f"{'-' if row['cpu_ratio'] is None else format(row['cpu_ratio'], '.2f'):>6} "
        f"{cell(python, 'peak_rss_mb', 8, '.0f')} {cell(c, 'peak_rss_mb', 7, '.0f')} "
        f"{'-' if row['rss_ratio'] is None else format(row['rss_ratio'], '.2f'):>6} "
        f"{cell(python, 'check', 6, '')} {cell(c, 'check', 6, '')}"
    )
    print(line + "".join(f"  {problem}" for problem in row["problems"]), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("boards", nargs="*", default=DEFAULT_BOARDS, help="boards like 5x7")
    parser.add_argument("--limit", type=float, default=600.0, help="wall seconds per run")
    parser.add_argument("--search", choices=("dfpn", "dfs"), default="dfpn")
    parser.add_argument(
        "--engines", default=",".join(ENGINES), help="python, c or both (default python,c)"
    )
    parser.add_argument("--save", type=Path, default=RESULTS, help="where the JSON goes")
    parser.add_argument("--one", metavar="BOARD", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(solve_one(args.one, args.store, args.search)))
        return
    engines = [name.strip() for name in args.engines.split(",") if name.strip()]
    if not engines or any(name not in ENGINES for name in engines):
        parser.error(f"--engines: a comma-separated choice of {', '.join(ENGINES)}")
    print(f"search: {args.search}; limit {args.limit:g} s of wall time a run; engines: {engines}")
    print(
        f"{'board':>6} {'nimber':>6} {'expect':>6} {'nodes':>10} {'facts':>8} "
        f"{'py cpu s':>8} {'c cpu s':>7} {'ratio':>6} {'py MB':>8} {'c MB':>7} {'ratio':>6} "
        f"{'py chk':>6} {'c chk':>6}"
    )
    table: dict[str, Any] = {
        "bench": "bench/cram.py",
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "search": args.search,
        "limit_seconds": args.limit,
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "rows": [],
    }
    failed = False
    for board in args.boards:
        runs = {engine: run_board(board, engine, args.limit, args.search) for engine in engines}
        row = compare(board, runs)
        failed |= bool(row["problems"])
        print_row(row)
        table["rows"].append(row)
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(json.dumps(table, indent=1) + "\n")
    print(f"(- : not run, or not reached within {args.limit:g} s; saved to {args.save})")
    if failed:
        raise SystemExit("bench/cram.py: a value, a certificate or an engine disagrees")


if __name__ == "__main__":
    main()
