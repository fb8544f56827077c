"""What each df-pn refinement of the normal search saves: visits, CPU and peak RSS of the
outcome of 0*n with the refinement switched off, beside the search as built (issue 75).

    .venv/bin/python bench/levers.py --n 20 24                 # every lever, fresh stores
    .venv/bin/python bench/levers.py --n 33 --seed --lever as-built 'no 1+eps'
    .venv/bin/python bench/levers.py --n 12 --json
    .venv/bin/python bench/levers.py --n 27 --seed --lever guided

Each run is `solve 0*n --outcome-only` (the library's `solve_job`) in a fresh interpreter on
a fresh store, so no memo of one run helps the next; with --seed, the store first gets the
results library's proofs of every smaller 0*k (`solve --seed-results`), as the record runs
do. CPU is user + system of that process (os.wait4), RSS its peak. Every lever gives the
same outcome (exit 1 otherwise). The runs of one n alternate with the as-built run first,
so a slower hour shows in the baseline too. The table is printed and saved to
bench/results/levers.json (one entry per n and lever; --json prints it instead).

The levers (sproutsdb.solver.normal.dfpn.Levers):
  no 1+eps      thresholds second + 1 instead of second * (1 + 0.25) (Pawlewicz & Lew)
  flat delta    every unseen child starts at (1, 1) instead of δ = 1 + lives / 4 (df-pn+)
  move order    children of equal numbers in the engine's move order, not smallest first

Two levers are switched on instead, to see whether they pay before they become defaults:
  twins         a child whose smaller twin (six empty spots fewer in one run) has a stored
                nimber equal to its nim part starts at δ = 1: it is likely a loss too
  guided        bench/analogy.py first settles the option 0*(n-2).1a1a in the same store
                (shown losing for a winning 0*n, a losing reply found for a losing one),
                guided by the proof of 0*(n-8).1a1a in the library's certificates of smaller
                roots only; its solves' visits and CPU are counted with the solve's
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "levers.json"
GRACE = 120.0  # seconds a stopped run has to flush and report before it is killed

LEVERS: dict[str, dict[str, Any]] = {
    "as-built": {},
    "no 1+eps": {"epsilon": 0.0},
    "flat delta": {"sized_delta": False},
    "move order": {"tie_order": False},
    "guided": {},
    "twins": {"twins": True},
}
ANALOGY = ROOT / "bench" / "analogy.py"
# The guide's settings: the ones the record runs of 0*39, 0*44 and 0*45 used.
GUIDE_FLAGS = ["--quick", "20", "--budget", "240", "--depth", "3"]


@dataclass
class Run:
    """One solve of 0*n with one lever switched off."""

    n: int
    lever: str
    seeded: bool
    outcome: str | None  # None: stopped at --seconds
    visits: int | None
    cpu_s: float
    rss_mb: float
    wall_s: float
    settled: int | None = None  # a stopped run: the root's options shown winning or losing
    options: int | None = None  # ... of this many


def one(n: int, lever: str, seed: bool, store: str) -> dict[str, Any]:
    """Solve 0*n in this process (the child side of `measure`)."""
    from sproutsdb.ops.solve import SolveInterrupted, SolveSettings
    from sproutsdb.ops.solve_job import solve_job
    from sproutsdb.ops.stores import StoreLocation
    from sproutsdb.solver.normal.dfpn import Levers
    from sproutsdb.solver.search.progress import settled_counts

    guided, stopped = guide(n, store, seed) if lever == "guided" else (0, False)
    seeded_here = seed and lever != "guided"  # the guide seeded the store before its solves
    settings = SolveSettings(
        outcome_only=True, seed_results=seeded_here, levers=Levers(**LEVERS[lever])
    )
    if stopped:  # --seconds ran out while the guide worked: no solve
        return {"outcome": None, "visits": guided}
    try:
        report = solve_job(f"0*{n}", StoreLocation(path=store), settings, notice=lambda _: None)
    except SolveInterrupted as stop:  # --seconds: how far it got, to compare levers by
        won, lost, options = settled_counts(stop.root_options or [])
        visits = guided + stop.nodes
        return {"outcome": None, "visits": visits, "settled": won + lost, "options": options}
    return {"outcome": report.outcome, "visits": guided + report.stats.nodes}


def guide(n: int, store: str, seed: bool) -> tuple[int, bool]:
    """The guided lever's first step: the store seeded (as the solve would seed it), then
    bench/analogy.py on 0*(n-2).1a1a like 0*(n-8).1a1a, with only the certificates of roots
    smaller than 0*n as its proofs; the visits of its solves (their CPU is this process's
    children's, so os.wait4 counts it), and whether a Ctrl-C stopped it."""
    from sproutsdb.games import get_game
    from sproutsdb.ops.results import read_manifest, shipped_library
    from sproutsdb.ops.seed import seed_results_below
    from sproutsdb.ops.stores import open_local_store

    game = get_game("sprouts").engine()
    root = f"0*{n}"
    if seed:
        opened = open_local_store(store)
        try:
            seed_results_below(opened, game, root, "normal")
        finally:
            opened.close()
    library = shipped_library()
    proofs = [
        str(library / entry.file)
        for entry in read_manifest(library)
        if entry.game == "sprouts"
        and entry.play == "normal"
        and game.size(game.canonical(entry.position)) < game.size(root)
    ]
    # A losing 0*n (n = 0, 1, 2 mod 6) needs a losing reply to 0*(n-2).1a1a; the replies of
    # 0*14.1a1a, 0*20.1a1a, ... grow by 3 spots in each of two runs, so runs count mod 3.
    mod = "3" if n % 6 in (0, 1, 2) else "6"
    with tempfile.NamedTemporaryFile("r", suffix=".log") as log:
        command = [sys.executable, str(ANALOGY), f"0*{n - 2}.1a1a", "--like", f"0*{n - 8}.1a1a"]
        command += ["--store", store, "--mod", mod, *GUIDE_FLAGS, "--log", log.name]
        command += [flag for path in proofs for flag in ("--proof", path)]
        analogy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stopped = False
        try:
            analogy.wait()
        except KeyboardInterrupt:  # passed on: the guide stops its solve, which keeps its facts
            analogy.send_signal(signal.SIGINT)
            analogy.wait()
            stopped = True
        lines = [json.loads(line) for line in log.read().splitlines() if line.strip()]
    return sum(int(line.get("visits") or 0) for line in lines), stopped


def measure(n: int, lever: str, seed: bool, seconds: float) -> Run:
    """One run of 0*n in a fresh interpreter on a fresh store; past `seconds` it is stopped
    as Ctrl-C stops a solve (killed if that has not ended it within GRACE seconds), and
    says its visits and how many of the root's options it settled."""
    with tempfile.TemporaryDirectory(prefix="levers-") as folder:
        command = [sys.executable, __file__, "--one", str(n), lever, str(Path(folder) / "s")]
        command += ["--seed"] if seed else []
        start = time.perf_counter()
        with tempfile.TemporaryFile("w+") as out:
            child = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT)
            stop = threading.Timer(seconds, child.send_signal, (signal.SIGINT,))
            kill = threading.Timer(seconds + GRACE, child.kill)
            stop.start()
            kill.start()
            try:
                _, _, usage = os.wait4(child.pid, 0)  # reaps it: its CPU and peak RSS
            finally:
                stop.cancel()
                kill.cancel()
            child.returncode = 0  # reaped by wait4 above: Popen must not wait for it again
            out.seek(0)
            text = out.read().strip()
    wall = time.perf_counter() - start
    result = json.loads(text.splitlines()[-1]) if text else {}
    return Run(
        n,
        lever,
        seed,
        result.get("outcome"),
        result.get("visits"),
        round(usage.ru_utime + usage.ru_stime, 2),
        round(usage.ru_maxrss / 1024, 1),
        round(wall, 2),
        result.get("settled"),
        result.get("options"),
    )


def table(runs: list[Run]) -> list[str]:
    """Rows with each lever's visits and CPU as a ratio of the as-built run of its n."""
    lines = [
        f"{'root':>7} {'lever':12} {'outcome':>7} {'visits':>11} {'x':>6} "
        f"{'CPU s':>8} {'x':>6} {'RSS MB':>7} {'settled':>8}"
    ]
    base = {(r.n, r.seeded): r for r in runs if r.lever == "as-built"}
    for r in runs:
        b = base.get((r.n, r.seeded))
        vx = f"{r.visits / b.visits:.2f}" if b and b.visits and r.visits else "-"
        cx = f"{r.cpu_s / b.cpu_s:.2f}" if b and b.cpu_s else "-"
        root = f"0*{r.n}" + ("s" if r.seeded else "")
        visits = f"{r.visits:,}" if r.visits is not None else "killed"
        settled = f"{r.settled}/{r.options}" if r.options else ""
        lines.append(
            f"{root:>7} {r.lever:12} {r.outcome or 'stopped':>7} {visits:>11} {vx:>6} "
            f"{r.cpu_s:8.2f} {cx:>6} {r.rss_mb:7.1f} {settled:>8}"
        )
    return lines


def save(runs: list[Run], out: Path) -> dict[str, Any]:
    """Keep the runs of roots and seeding measured now; earlier ones of others stay."""
    kept: list[dict[str, Any]] = []
    notes: list[str] = []  # conditions and readings, written by hand, kept as they are
    if out.is_file():
        try:
            previous = json.loads(out.read_text())
            kept, notes = previous.get("runs", []), previous.get("notes", [])
        except (OSError, ValueError, AttributeError):
            kept = []
    fresh = {(r.n, r.seeded, r.lever) for r in runs}
    kept = [k for k in kept if (k.get("n"), k.get("seeded"), k.get("lever")) not in fresh]
    report = {
        "measured": "solve 0*n --outcome-only on a fresh store, fresh interpreter; "
        "CPU = user + system, RSS = peak (os.wait4)",
        "notes": notes,
        "runs": kept + [asdict(r) for r in runs],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    return report


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, nargs="+", default=[20], help="roots 0*n (default 20)")
    parser.add_argument(
        "--lever", nargs="+", choices=list(LEVERS), default=list(LEVERS), help="levers to run"
    )
    parser.add_argument("--seed", action="store_true", help="seed the library's smaller proofs")
    parser.add_argument(
        "--seconds", type=float, default=3600.0, help="stop a run after this, as Ctrl-C would"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--json", action="store_true", help="print the saved JSON")
    parser.add_argument("--one", nargs=3, metavar=("N", "LEVER", "STORE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        # a bench started in the background has SIGINT ignored, and so would its children:
        # --seconds (and a Ctrl-C) stop a run by SIGINT
        signal.signal(signal.SIGINT, signal.default_int_handler)
        n, lever, store = args.one
        print(json.dumps(one(int(n), lever, args.seed, store)))
        return 0
    if "guided" in args.lever and min(args.n) < 10:
        parser.error("the guided lever needs n >= 10 (its guide is the proof of 0*(n-8).1a1a)")
    levers = ["as-built", *(lever for lever in args.lever if lever != "as-built")]
    runs: list[Run] = []
    for n in args.n:
        for lever in levers:
            run = measure(n, lever, args.seed, args.seconds)
            runs.append(run)
            if not args.json:
                print(table([r for r in runs if r.n == n])[-1], flush=True)
            save(runs, args.out)  # kept if the bench is stopped
    report = save(runs, args.out)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print("\n".join(table(runs)))
    outcomes = {(r.n, r.outcome) for r in runs if r.outcome is not None}
    if len({n for n, _ in outcomes}) != len(outcomes):
        print("levers disagree on an outcome", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
