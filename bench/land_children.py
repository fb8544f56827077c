"""Land-children benchmark: the compiled core's children of every land of the S6 RCT table.

Run on demand (not part of the test suite):
    .venv/bin/python bench/land_children.py --record-baseline   # once, before a change
    .venv/bin/python bench/land_children.py                     # after: figures and ratios
    .venv/bin/python bench/land_children.py --repeat 1 --no-solves   # a quick look
The lands are the 171,942 distinct lands of the positions of sproutsdb/data/s6.rcttable (4.15 M
child tuples in all). Each figure comes from a process of its own:

  lands default  land_children over all the lands, sorted, with the memo the engine keeps
                 by default (game.core_memo_kept()), starting empty
  lands 4M       the same with reserve_core_memo(4_000_000): no memo key is searched twice
  solve 0*13     `sproutsdb solve '0*13' --outcome-only` on a fresh temporary store (CPU s of
  solve 0*17     the CLI process, its visits; bench/solve.py runs solves the same way)

A lands figure is the least CPU seconds (process time of the loop alone) of --repeat runs, so
a busy machine shows less; a solve runs once (--solve-repeat). The children's count and a
digest of all of them are printed: they must equal the baseline's (the children are the
identity of every stored fact), as must the solves' visits. The run is saved to
bench/results/land-children.json (gitignored); --record-baseline saves it as the baseline too,
which later runs print their ratios against (baseline CPU / this run's: above 1 is faster).

On a shared machine the load of the hour moves CPU seconds by 5-10 %, more than a change
may gain: --against-core OLD.so runs every figure alternately with a compiled core built
from the old sources (each process loads OLD.so in place of the package's _core, the CLI of
the solves too), the same number of times, and prints the ratio of the two in this run:
    mkdir /tmp/old && for f in sproutsdb/solver/sprouts/{_core.c,core_*.c,core.h}; do
        git show HEAD:$f > /tmp/old/$(basename $f); done   # then build them (setup.py flags)
    .venv/bin/python bench/land_children.py --against-core /tmp/old/_core.so
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "land-children.json"
TABLE = ROOT / "sproutsdb" / "data" / "s6.rcttable"
SOLVES = ("0*13", "0*17")
BIG_MEMO = 4_000_000


def s6_lands() -> list[str]:
    """The distinct lands of the positions of the S6 RCT table, sorted."""
    from sproutsdb.formats.rcttable import table_from_bytes
    from sproutsdb.games import get_game

    table = table_from_bytes("s6", TABLE.read_bytes())
    engine = get_game().engine()
    return sorted({land for p in table.positions for land in engine.components(p)})


def load_core(path: str) -> None:
    """Make the compiled core at `path` this process's core: registered under the core's
    module name before the engine is first imported, so the engine's own import takes it."""
    import importlib.util

    name = "sproutsdb.solver.sprouts._core"
    if "sproutsdb.solver.sprouts.game" in sys.modules:
        raise RuntimeError("load_core runs before the engine is imported (a fresh process)")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def time_lands(lands_file: Path, memo: str, core: str | None = None) -> dict[str, Any]:
    """land_children over the lands in this (fresh) process: CPU and wall s, a digest."""
    if core is not None:
        load_core(core)
    from sproutsdb.solver.sprouts import game

    if game.compiled_core() is None:
        raise SystemExit("the compiled core is not active: build it first")
    if memo == "4M":
        game.reserve_core_memo(BIG_MEMO)
    lands = lands_file.read_text().split("\n")
    land_children = game.land_children
    cpu, wall = time.process_time(), time.perf_counter()
    out = [land_children(land) for land in lands]
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    digest = hashlib.sha256()
    for land, children in zip(lands, out, strict=True):
        digest.update(land.encode())
        for child in children:
            digest.update(b"\x01" + "+".join(child).encode())
        digest.update(b"\x00")
    return {
        "cpu": round(cpu, 3),
        "wall": round(wall, 3),
        "lands": len(lands),
        "children": sum(len(c) for c in out),
        "digest": digest.hexdigest()[:16],
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def run_lands(lands_file: Path, memo: str, core: str | None = None) -> dict[str, Any]:
    """time_lands in a process of its own."""
    done = subprocess.run(
        [sys.executable, __file__, "--one", memo, "--lands-file", str(lands_file)]
        + (["--core", core] if core else []),
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def run_solve(key: str, core: str | None = None) -> dict[str, Any]:
    """`sproutsdb solve KEY --outcome-only` on a fresh store: its CPU s, visits, outcome.
    With core, the CLI runs with that compiled core (load_core)."""
    command = [str(Path(sys.executable).with_name("sproutsdb"))]
    if core is not None:
        command = [sys.executable, __file__, "--cli-with-core", core]
    with tempfile.TemporaryDirectory(prefix="bench-land-children-") as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        done = subprocess.run(
            [
                *command,
                "solve",
                key,
                "--outcome-only",
                "--quiet",
                "--json",
                "--store",
                str(Path(tmp) / "store"),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        wall = time.perf_counter() - wall
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(done.stdout)
    return {
        "cpu": round((after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), 3),
        "wall": round(wall, 3),
        "visits": report["nodes"],
        "stored": report["stored"],
        "outcome": report["outcome"],
    }


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of least CPU, with every run's CPU s; the runs must agree on their output."""
    for field in ("children", "digest", "visits", "outcome"):
        values = {r.get(field) for r in runs}
        if len(values) > 1:
            raise SystemExit(f"runs disagree on {field}: {values}")
    least = dict(min(runs, key=lambda r: r["cpu"]))
    least["cpu_runs"] = [r["cpu"] for r in runs]
    return least


def run_record(label: str, **extra: Any) -> dict[str, Any]:
    """The head of one bench run's entry in the results file (when, on what, under what
    load); its figures are filled in as the jobs run."""
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "label": label,
        **extra,
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "figures": {},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each lands figure")
    parser.add_argument("--solve-repeat", type=int, default=1, help="runs of each solve")
    parser.add_argument("--no-solves", action="store_true", help="the lands figures only")
    parser.add_argument(
        "--record-baseline", action="store_true", help="save this run as the baseline too"
    )
    parser.add_argument("--label", default="", help="a note saved with the run")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument(
        "--against-core",
        metavar="OLD.so",
        help="run each figure alternately with this compiled core too: ratios in one run",
    )
    parser.add_argument("--one", choices=("default", "4M"), help=argparse.SUPPRESS)
    parser.add_argument("--lands-file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--core", help=argparse.SUPPRESS)
    if len(sys.argv) > 2 and sys.argv[1] == "--cli-with-core":  # a solve with another core
        load_core(sys.argv[2])
        from sproutsdb.tools.cli import main as cli_main

        raise SystemExit(cli_main(sys.argv[3:]))
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(time_lands(args.lands_file, args.one, args.core)))
        return
    if args.against_core is not None:
        against(args)
        return

    saved: dict[str, Any] = json.loads(args.results.read_text()) if args.results.exists() else {}
    baseline: dict[str, Any] | None = None if args.record_baseline else saved.get("baseline")
    run = run_record(args.label)
    with tempfile.TemporaryDirectory(prefix="bench-land-children-") as tmp:
        lands_file = Path(tmp) / "lands.txt"
        lands_file.write_text("\n".join(s6_lands()))
        jobs: list[tuple[str, Any]] = [
            ("lands default", lambda: run_lands(lands_file, "default")),
            ("lands 4M", lambda: run_lands(lands_file, "4M")),
        ]
        if not args.no_solves:
            jobs += [(f"solve {key}", lambda key=key: run_solve(key)) for key in SOLVES]
        print(f"{'figure':<14} {'cpu s':>8} {'runs':>24} {'base cpu':>9} {'ratio':>6}  output")
        for name, job in jobs:
            repeat = args.solve_repeat if name.startswith("solve") else args.repeat
            figure = best([job() for _ in range(repeat)])
            run["figures"][name] = figure
            base = (baseline or {}).get("figures", {}).get(name)
            ratio, check = "", ""
            if base is not None:
                ratio = f"{base['cpu'] / figure['cpu']:.2f}"
                for field in ("children", "digest", "visits", "outcome"):
                    if field in figure and figure[field] != base.get(field):
                        check += f" {field} DIFFERS from the baseline's {base.get(field)}!"
                check = check or " same as the baseline"
            output = (
                f"{figure['children']} children, digest {figure['digest']}"
                if "digest" in figure
                else f"{figure['outcome']}, {figure['visits']} visits"
            )
            runs = " ".join(f"{c:.2f}" for c in figure["cpu_runs"])
            base_cpu = f"{base['cpu']:.2f}" if base else ""
            print(
                f"{name:<14} {figure['cpu']:>8.2f} {runs:>24} {base_cpu:>9} {ratio:>6}  "
                f"{output}{check}",
                flush=True,
            )
    if args.record_baseline:
        saved = {"bench": "bench/land_children.py", "baseline": run}
    saved["latest"] = run
    if baseline is not None:
        saved["ratios"] = {
            name: round(baseline["figures"][name]["cpu"] / fig["cpu"], 3)
            for name, fig in run["figures"].items()
            if name in baseline["figures"]
        }
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(saved, indent=1) + "\n")
    print(f"saved to {args.results}")


def against(args: argparse.Namespace) -> None:
    """Each figure with the old core and the package's, alternately: ratios old / new."""
    old = str(Path(args.against_core).resolve())
    run = run_record(args.label, against_core=old)
    with tempfile.TemporaryDirectory(prefix="bench-land-children-") as tmp:
        lands_file = Path(tmp) / "lands.txt"
        lands_file.write_text("\n".join(s6_lands()))
        jobs: list[tuple[str, Any]] = [
            ("lands default", lambda core: run_lands(lands_file, "default", core)),
            ("lands 4M", lambda core: run_lands(lands_file, "4M", core)),
        ]
        if not args.no_solves:
            jobs += [(f"solve {key}", lambda core, key=key: run_solve(key, core)) for key in SOLVES]
        print(f"{'figure':<14} {'old cpu s':>9} {'new cpu s':>9} {'old/new':>7}  output")
        for name, job in jobs:
            repeat = args.solve_repeat if name.startswith("solve") else args.repeat
            olds, news = [], []
            for _ in range(repeat):
                olds.append(job(old))
                news.append(job(None))
            before, after = best(olds), best(news)
            same = all(
                before.get(f) == after.get(f) for f in ("children", "digest", "visits", "outcome")
            )
            run["figures"][name] = {"old": before, "new": after, "same_output": same}
            output = (
                f"{after['children']} children, digest {after['digest']}"
                if "digest" in after
                else f"{after['outcome']}, {after['visits']} visits"
            )
            print(
                f"{name:<14} {before['cpu']:>9.2f} {after['cpu']:>9.2f} "
                f"{before['cpu'] / after['cpu']:>7.2f}  {output}"
                + ("" if same else "  OUTPUT DIFFERS FROM THE OLD CORE'S!"),
                flush=True,
            )
    saved: dict[str, Any] = json.loads(args.results.read_text()) if args.results.exists() else {}
    saved["against_core"] = run
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(saved, indent=1) + "\n")
    print(f"saved to {args.results}")


if __name__ == "__main__":
    main()
