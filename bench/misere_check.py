"""What re-deriving every position → RCT claim costs a misère check: `check --misere --root
0*n` on an LMDB store that `solve 0*n --misere` filled, CPU seconds of the command, run
alternately with this checkout and (optionally) a baseline checkout of the code before.

    python bench/misere_check.py [--from 12] [--to 14] [--rounds 2] [--baseline DIR] [--keep DIR]

Each n is solved once (into --keep DIR/0*n when given, so a later run reuses it), then each
round runs the check on a fresh copy of the store with each code base (the check writes its
verified marks into the store it reads, so every run starts from the same claims). The
baseline runs `python -m sproutsdb` with PYTHONPATH=DIR, e.g. a `git worktree` of the older
commit with its compiled core copied in. The first check of this checkout after an empty
mark cache also re-derives the shipped table whole (about 13 s); the rounds measure the
steady state, with the cache warmed before the first round.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(args: list[str], pythonpath: str | None = None) -> tuple[float, dict[str, object]]:
    """CPU seconds of one `sproutsdb` command and its JSON report."""
    env = dict(os.environ)
    env.pop("SPROUTSDB_STORE", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    else:
        env["PYTHONPATH"] = str(ROOT)
    before = _children_cpu()
    done = subprocess.run(
        [sys.executable, "-m", "sproutsdb", *args], capture_output=True, text=True, env=env
    )
    cpu = _children_cpu() - before
    if done.returncode not in (0, 1):
        raise SystemExit(f"sproutsdb {' '.join(args)} failed: {done.stderr.strip()}")
    return cpu, json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--from", dest="first", type=int, default=12)
    parser.add_argument("--to", dest="last", type=int, default=14)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--baseline", default=None, help="checkout of the code before")
    parser.add_argument("--keep", default=None, help="folder keeping the solved stores")
    args = parser.parse_args()
    keep = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="misere-check-"))
    work = Path(tempfile.mkdtemp(prefix="misere-check-copies-"))
    print(
        f"{'n':>3} {'outcome':>7} {'facts':>7} {'lands':>7} {'base CPU s':>11} "
        f"{'now CPU s':>10} {'ratio':>6}"
    )
    try:
        for n in range(args.first, args.last + 1):
            solved = keep / f"0x{n}"
            if not solved.exists():
                run(["solve", f"0*{n}", "--misere", "--store", str(solved), "--json", "--quiet"])
            check = ["check", "--misere", "--root", f"0*{n}", "--json"]
            copy = work / "copy"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(solved, copy)
            run([*check, "--store", str(copy)])  # warms the mark cache of the shipped table
            base: list[float] = []
            now: list[float] = []
            report: dict[str, object] = {}
            for _ in range(args.rounds):
                sides = [(args.baseline, base)] if args.baseline else []
                for code, times in [*sides, (None, now)]:
                    shutil.rmtree(copy, ignore_errors=True)
                    shutil.copytree(solved, copy)
                    cpu, got = run([*check, "--store", str(copy)], code)
                    times.append(cpu)
                    if code is None:
                        report = got
            claims = report.get("rct_claims") or {}
            lands = claims.get("claims_used", "-") if isinstance(claims, dict) else "-"
            best_base = min(base) if base else None
            best_now = min(now)
            ratio = f"{best_now / best_base:.2f}" if best_base else "-"
            print(
                f"{n:>3} {report.get('outcome')!s:>7} {report.get('facts_used')!s:>7} "
                f"{lands!s:>7} {f'{best_base:.2f}' if best_base is not None else '-':>11} "
                f"{best_now:>10.2f} {ratio:>6}",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
