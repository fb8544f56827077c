"""Misère on the fleet: `fleet solve --misere ROOT --ray --jobs N` against a fresh server,
its outcome against the results library's, and `check --misere --root` of the server's
store afterwards.

Run on demand (not part of the test suite; tests/test_fleet_misere.py runs 0*9):
    .venv/bin/python bench/fleet_misere.py                    # 0*15 and 0*16, 2 workers
    .venv/bin/python bench/fleet_misere.py --mode options     # the task-per-option fleet
    .venv/bin/python bench/fleet_misere.py --roots 0*12 --one # and one process beside it
Each root gets a fresh `serve --no-results` (the shipped S6 table served and seeded, the
results library not: its certificates would answer for the fleet), started before the
clock. `--mode helpers` (default): ROOT solved in the command's process with N - 1 Ray
helpers proving its options (ops/jobs/ray_misere_helpers.py); `--mode options`:
`--options-of ROOT`, the options handed out as Ray tasks (ops/jobs/ray_fleet_misere.py),
then ROOT solved from what they stored. Wall and CPU seconds of the fleet's whole process
tree and the server (sampled from /proc), the load average before and after; with --one,
`solve ROOT --misere` in one process on a fresh store too. The expected outcome is the
results library's (sproutsdb/data/results/manifest.json). Saves
bench/results/fleet_misere.json (runs of other roots and modes already there are kept).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from fleet_faults import COMMAND, ROOT, Server, TreeCpu, _env, save_runs

RESULTS = ROOT / "bench" / "results" / "fleet_misere.json"
MANIFEST = ROOT / "sproutsdb" / "data" / "results" / "manifest.json"


def library_outcome(root: str) -> tuple[str | None, float | None]:
    """The results library's misère outcome of `root` and its solve's CPU seconds."""
    for entry in json.loads(MANIFEST.read_text())["results"]:
        if entry.get("play") == "misere" and entry.get("position") == root:
            return entry["statement"]["outcome"], entry.get("solve_cpu_seconds")
    return None, None


def _timed(command: list[str], *also: int) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run `command`; (its result, wall seconds, CPU seconds of its tree and of `also`)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env()
    )
    cpu = TreeCpu(proc.pid).start()
    extra = [TreeCpu(pid).start() for pid in also]
    out, err = proc.communicate(timeout=14400)
    wall = time.perf_counter() - started
    seconds = cpu.stop() + sum(e.stop() for e in extra)
    done = subprocess.CompletedProcess(command, proc.returncode, out, err)
    return done, wall, seconds


def fleet_run(root: str, work: Path, jobs: int, mode: str) -> dict[str, Any]:
    """`fleet solve --misere` of ROOT (`mode` "helpers") or `--options-of ROOT`
    ("options") on a fresh server, then the check."""
    work.mkdir(parents=True, exist_ok=True)
    server = Server(work / "store", "--no-results").start(timeout=900)
    try:
        base = TreeCpu(server.proc.pid if server.proc else 0).start()
        seeding = base.stop()  # the server's CPU before the clock (its seeding)
        load = os.getloadavg()[0]
        what = ["--options-of", root] if mode == "options" else [root]
        command = [
            *COMMAND, "fleet", "solve", "--misere", *what, "--server",
            server.address, "--ray", "--jobs", str(jobs), "--json", "--quiet",
        ]  # fmt: skip
        done, wall, cpu = _timed(command, server.proc.pid if server.proc else 0)
    finally:
        server.stop()
    if done.returncode != 0:
        raise RuntimeError(f"fleet solve --misere ({mode}) {root}: {done.stderr[-3000:]}")
    report = json.loads(done.stdout)
    solved = report["root"] if mode == "options" else report["positions"][0]
    checked = subprocess.run(
        [*COMMAND, "check", "--misere", "--store", str(work / "store"), "--root", root],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=14400,
    )
    lines = checked.stdout.strip().splitlines()
    return {
        "mode": f"fleet{jobs}-{mode}",
        "root": root,
        "outcome": solved["outcome"] if solved else None,
        "options": {p["position"]: p.get("outcome") for p in report["positions"]}
        if mode == "options"
        else None,
        "helpers": solved.get("helpers") if mode == "helpers" else None,
        "lost_helpers": solved.get("lost_helpers") if mode == "helpers" else None,
        "nodes": solved.get("nodes") if solved else None,
        "stored": report["stored"],
        "workers": report["workers"],
        "seconds": round(wall, 2),
        "cpu_seconds": round(cpu - seeding, 2),
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "check_rc": checked.returncode,
        "check": lines[:2],
    }


def one_run(root: str, work: Path) -> dict[str, Any]:
    """`solve ROOT --misere` in one process on a fresh store."""
    work.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]
    command = [*COMMAND, "solve", root, "--misere", "--store", str(work / "one"), "--json"]
    done, wall, cpu = _timed(command)
    if done.returncode != 0:
        raise RuntimeError(f"solve {root} --misere: {done.stderr[-3000:]}")
    return {
        "mode": "one",
        "root": root,
        "outcome": json.loads(done.stdout)["outcome"],
        "seconds": round(wall, 2),
        "cpu_seconds": cpu,
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roots", nargs="+", default=["0*15", "0*16"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--mode", choices=("helpers", "options"), default="helpers")
    parser.add_argument("--one", action="store_true", help="one process beside each fleet run")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="fleet-misere-") as tmp:
        for root in args.roots:
            expected, library_cpu = library_outcome(root)
            modes = [lambda r=root: fleet_run(r, Path(tmp) / f"fleet-{r}", args.jobs, args.mode)]
            if args.one:
                modes.append(lambda r=root: one_run(r, Path(tmp) / f"one-{r}"))
            for mode in modes:
                run = mode()
                run["library_outcome"] = expected
                run["library_solve_cpu_seconds"] = library_cpu
                run["same_outcome"] = run["outcome"] == expected
                print(json.dumps(run), flush=True)
                runs.append(run)
    if not args.no_save:
        if RESULTS.exists():  # the runs of other roots and modes stay
            done = {(r["root"], r["mode"]) for r in runs}
            kept = json.loads(RESULTS.read_text())["runs"]
            runs = [r for r in kept if (r["root"], r["mode"]) not in done] + runs
        save_runs(RESULTS, "fleet_misere", "bench/fleet_misere.py, one invocation a mode", runs)


if __name__ == "__main__":
    main()
