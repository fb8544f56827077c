"""Normal play against SPOTS on the same machine in the same run: CPU seconds, visits, peak
RSS and their ratios for the outcome of 0*n (issue 76).

    .venv/bin/python bench/spots_side_by_side.py --build-from https://github.com/cizektom/spots
    .venv/bin/python bench/spots_side_by_side.py --spots /tmp/spots-venv/bin/spots-solver \\
        --from 12 --to 20 --seconds 600 [--n 12 13 17] [--repeat 2] [--json]

SPOTS is built from its public source into a temporary folder outside this repository when
--build-from (a git URL or a local clone) is given, or taken from --spots (its
`spots-solver`); its code never enters the project. Each n runs both programs one after the
other, alternating which goes first, each in a fresh process on one thread:
`sproutsdb solve 0*n --outcome-only` on a fresh store, and `spots-solver 0*n --algorithm
dfpn --capacity 100000 --seed 0`. CPU is user + system of that process (os.wait4), RSS its
peak; sproutsdb's visits are its df-pn node visits, SPOTS's its df-pn iterations. Outcomes
must agree (exit 1 otherwise). A run past --seconds is stopped and reported as such. The
table is printed and saved to bench/results/spots-side-by-side.json, whose "levers" (what each
change to the solve gained, measured on its own) are kept from the file's previous version.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPROUTSDB = [sys.executable, "-m", "sproutsdb"]


@dataclass
class Run:
    """One program's run on one root."""

    program: str
    n: int
    outcome: str | None  # "W" / "L", None when it did not finish
    cpu_s: float
    wall_s: float
    rss_mb: float
    visits: int | None


def measured(
    command: list[str], seconds: float, cwd: Path
) -> tuple[str, float, float, float, bool]:
    """(stdout, CPU s, wall s, peak RSS MB, finished) of one child process."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        child = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, start_new_session=True
        )
        deadline = start + seconds
        finished = True
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                os.killpg(child.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(child.pid, 0)
                finished = False
                break
            time.sleep(0.05)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read()
    if finished and child.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {child.returncode}: {text[-400:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return text, cpu, wall, usage.ru_maxrss / 1024, finished


def run_sproutsdb(n: int, seconds: float, work: Path) -> Run:
    store = work / f"store-{n}-{time.monotonic_ns()}"
    command = [*SPROUTSDB, "solve", f"0*{n}", "--outcome-only", "--store", str(store)]
    text, cpu, wall, rss, done = measured([*command, "--json", "--quiet"], seconds, work)
    answer = json.loads(text.strip().splitlines()[-1]) if done else {}
    return Run("sproutsdb", n, answer.get("outcome"), cpu, wall, rss, answer.get("nodes"))


def run_spots(solver: str, n: int, seconds: float, work: Path) -> Run:
    command = [solver, f"0*{n}", "--algorithm", "dfpn", "--capacity", "100000", "--seed", "0"]
    text, cpu, wall, rss, done = measured(command, seconds, work)
    return Run("SPOTS", n, spots_outcome(text) if done else None, cpu, wall, rss,
               spots_iterations(text) if done else None)  # fmt: skip


def spots_outcome(text: str) -> str | None:
    """W or L from SPOTS's report ("0*9+*0 is Win:")."""
    found = re.search(r" is (Win|Loss):", text)
    return None if found is None else found.group(1)[0]


def spots_iterations(text: str) -> int | None:
    """SPOTS's df-pn iterations ("Iterations:       1660")."""
    found = re.search(r"^\s*Iterations:\s*([\d,]+)", text, re.MULTILINE)
    return int(found.group(1).replace(",", "")) if found else None


def build_spots(source: str, into: Path, pybind11: str | None) -> str:
    """SPOTS built from `source` (a git URL or folder) into a venv under `into`; its CMake
    fetches pybind11 from GitHub unless `pybind11` names a local checkout of it (v2.13.1)."""
    clone = into / "spots"
    subprocess.run(["git", "clone", "-q", "--depth", "1", source, str(clone)], check=True)
    venv = into / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ)
    if pybind11:
        env["CMAKE_ARGS"] = (
            f"-DFETCHCONTENT_SOURCE_DIR_PYBIND11={pybind11} -DFETCHCONTENT_FULLY_DISCONNECTED=ON"
        )
    subprocess.run([str(venv / "bin/pip"), "install", "-q", str(clone)], check=True, env=env)
    return str(venv / "bin/spots-solver")


def add_spots_arguments(parser: argparse.ArgumentParser) -> None:
    """Where SPOTS comes from: --spots (built) or --build-from (built now), and --pybind11."""
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--spots", help="SPOTS's spots-solver, already built")
    where.add_argument("--build-from", help="git URL or folder of SPOTS's source, built in /tmp")
    parser.add_argument("--pybind11", help="a local pybind11 checkout for --build-from")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_spots_arguments(parser)
    parser.add_argument("--from", dest="first", type=int, default=12)
    parser.add_argument("--to", dest="last", type=int, default=20)
    parser.add_argument(
        "--n", dest="roots", type=int, nargs="+", help="these n only (instead of --from/--to)"
    )
    parser.add_argument("--seconds", type=float, default=600.0, help="per run (default 600)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each program per n")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "spots-side-by-side.json"
    )
    args = parser.parse_args()
    levers = kept_levers(args.out)
    with tempfile.TemporaryDirectory(prefix="spots-side-by-side-") as folder:
        work = Path(folder)
        solver = args.spots or build_spots(args.build_from, work, args.pybind11)
        runs: list[Run] = []
        for n in args.roots or range(args.first, args.last + 1):
            for turn in range(args.repeat):
                pair = [
                    partial(run_sproutsdb, n, args.seconds, work),
                    partial(run_spots, solver, n, args.seconds, work),
                ]
                if (n + turn) % 2:
                    pair.reverse()  # alternate which goes first
                for go in pair:
                    runs.append(go())
                    if not args.json:
                        r = runs[-1]
                        print(f"  0*{n} {r.program}: {r.outcome or 'unfinished'} "
                              f"{r.cpu_s:.1f} CPU s, {r.rss_mb:.0f} MB", flush=True)  # fmt: skip
                    save(runs, args.seconds, levers, args.out)  # kept if the bench is stopped
    report = save(runs, args.seconds, levers, args.out)
    rows = report["rows"]
    disagree = [row for row in rows if row["agree"] is False]
    if args.json:
        print(json.dumps(report))
    else:
        print(f"\n{'n':>3} {'sproutsdb CPU s':>16} {'SPOTS CPU s':>12} {'ratio':>6} "
              f"{'visits':>9} {'iterations':>11} {'RSS MB':>7} {'SPOTS MB':>9} {'RSS ratio':>9}")  # fmt: skip
        for row in rows:
            print(
                f"{row['n']:>3} {fmt(row['sproutsdb_cpu_s']):>16} {fmt(row['spots_cpu_s']):>12} "
                f"{fmt(row['cpu_ratio'], 2):>6} {row['sproutsdb_visits'] or '-':>9} "
                f"{row['spots_iterations'] or '-':>11} {fmt(row['sproutsdb_rss_mb'], 0):>7} "
                f"{fmt(row['spots_rss_mb'], 0):>9} {fmt(row['rss_ratio'], 2):>9}"
            )
        print(f"saved {args.out}")
    for row in disagree:
        print(f"0*{row['n']}: the outcomes disagree", file=sys.stderr)
    return 1 if disagree else 0


def table(runs: list[Run]) -> list[dict[str, object]]:
    """Per n: the best (least CPU) finished run of each program and the ratios."""
    rows = []
    for n in sorted({r.n for r in runs}):
        best = {}
        for program in ("sproutsdb", "SPOTS"):
            mine = [r for r in runs if r.n == n and r.program == program]
            done = [r for r in mine if r.outcome is not None]
            best[program] = min(done, key=lambda r: r.cpu_s) if done else None
        ours, theirs = best["sproutsdb"], best["SPOTS"]
        rows.append({
            "n": n,
            "sproutsdb_cpu_s": ours and ours.cpu_s, "spots_cpu_s": theirs and theirs.cpu_s,
            "cpu_ratio": ours.cpu_s / theirs.cpu_s if ours and theirs else None,
            "sproutsdb_visits": ours and ours.visits, "spots_iterations": theirs and theirs.visits,
            "sproutsdb_rss_mb": ours and ours.rss_mb, "spots_rss_mb": theirs and theirs.rss_mb,
            "rss_ratio": ours.rss_mb / theirs.rss_mb if ours and theirs else None,
            "agree": ours.outcome == theirs.outcome if ours and theirs else None,
        })  # fmt: skip
    return rows


def save(runs: list[Run], seconds: float, levers: list[object], out: Path) -> dict[str, Any]:
    """The report of the runs so far, written to `out`."""
    report = {
        "runs": [asdict(r) for r in runs],
        "rows": table(runs),
        "seconds_limit": seconds,
        "levers": levers,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    return report


def kept_levers(path: Path) -> list[object]:
    """The "levers" of the results file (each change measured on its own, written by hand:
    what it gained), kept across runs of the bench."""
    try:
        levers = json.loads(path.read_text()).get("levers", [])
    except (OSError, ValueError, AttributeError):
        return []
    return levers if isinstance(levers, list) else []


def fmt(value: object, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


if __name__ == "__main__":
    sys.exit(main())
