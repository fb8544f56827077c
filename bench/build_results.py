"""Build (or extend) the results library: one pruned, checked certificate per statement.

Each statement is solved into a fresh store of its own (here, or earlier with `--from DIR`),
then `sproutsdb.ops.results.build_certificate` prunes the proof (`--cycles K`), exports it
natively, checks the file alone in a fresh store and adds it to the manifest. Statements the
manifest already holds are skipped (`--rebuild` makes them again), so rerunning the same
command adds what was not ready the last time.

    python bench/build_results.py --from /work/results-build           # stores solved already
    python bench/build_results.py --work /tmp/solves --normal 0-12     # solve from scratch
    python bench/build_results.py --from DIR --normal 27 --misere '' --solve-flags '--seed-results --jobs 2'
    python bench/build_results.py --work /tmp/cram --normal '' --misere '' --cram 4x7,5x6,4x9,5x8

`--cram BOARDS` certifies the nimbers of empty Cram boards (`sproutsdb solve --game cram RxC`,
each into a store of the game cram; entries with "game": "cram", files cram-normal-RxC.spdbx);
`--cram-outcome-only BOARDS` their outcome only (`--outcome-only`: 5x9 and 7x7, whose nimbers
are not known).

`--from DIR` reads DIR/normal-N and DIR/misere-N (stores; DIR/cram-normal-RxC for Cram), with N.json (the solve's --json
output, written when the solve finished) and N.time (`/usr/bin/time -v`); a store whose .json
is missing is still being solved and is left for a later run. A solve resumed over several
runs leaves one time file a run, N.time.1, N.time.2, … beside N.time: their CPU seconds are
summed and the largest peak RSS kept (misère 0*20 ran six times).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from sproutsdb.errors import UserError
from sproutsdb.ops.results import (
    DEFAULT_CYCLES,
    ManifestEntry,
    build_certificate,
    outcome_of,
    read_manifest,
    shipped_library,
)

NIMBER_UP_TO = 10  # 0*0..0*10 are solved with their nimber, larger ones --outcome-only


@dataclass
class Solved:
    """A solved store and what its solve cost."""

    store: Path
    command: str
    cpu_seconds: float | None
    max_rss_kb: int | None
    outcome: str | None


def solve_command(n: int, play: str, nimber_up_to: int, flags: list[str]) -> list[str]:
    """The `sproutsdb solve` arguments of 0*n (after `sproutsdb`; --store is added), with
    the extra `flags` the solves use (such as --seed-results --jobs 2)."""
    if play == "misere":
        return ["solve", f"0*{n}", "--misere", *flags]
    return ["solve", f"0*{n}"] + ([] if n <= nimber_up_to else ["--outcome-only"]) + flags


def cram_solve_command(board: str, flags: list[str], outcome_only: bool = False) -> list[str]:
    """The `sproutsdb solve` arguments of the nimber (or only the outcome) of an empty Cram
    board (--store added)."""
    return ["solve", "--game", "cram", board, *(["--outcome-only"] if outcome_only else []), *flags]


def from_existing(
    folder: Path, n: int, play: str, nimber_up_to: int, flags: list[str]
) -> Solved | None:
    """The store `folder`/play-n, if its solve finished (its .json exists)."""
    return finished_solve(folder, f"{play}-{n}", solve_command(n, play, nimber_up_to, flags))


def finished_solve(folder: Path, stem: str, arguments: list[str]) -> Solved | None:
    """The store `folder`/stem solved by `sproutsdb ARGUMENTS`, if its solve finished (its
    .json exists), with the CPU and peak RSS its runs took."""
    store = folder / stem
    finished = folder / f"{stem}.json"
    if not finished.is_file() or not store.is_dir():
        return None
    solved = json.loads(finished.read_text())
    cpu, rss = read_time_files(sorted(folder.glob(f"{stem}.time*")))
    cpu, rss = solved.get("cpu_seconds", cpu), solved.get("max_rss_kb", rss)  # --work's
    command = " ".join(["sproutsdb", *arguments, "--store SOLVED"])
    return Solved(store, command, cpu, rss, solved.get("outcome"))


def read_time_files(paths: list[Path]) -> tuple[float | None, int | None]:
    """The summed CPU seconds and the largest peak RSS of the runs of one resumed solve;
    None for a figure some run's file lacks."""
    figures = [read_time_file(path) for path in paths]
    if not figures:
        return None, None
    cpus = [cpu for cpu, _ in figures]
    rsses = [rss for _, rss in figures]
    cpu = None if None in cpus else round(sum(c for c in cpus if c is not None), 2)
    rss = None if None in rsses else max(r for r in rsses if r is not None)
    return cpu, rss


def read_time_file(path: Path) -> tuple[float | None, int | None]:
    """User + system CPU seconds and max RSS (KiB) from `/usr/bin/time -v` output."""
    if not path.is_file():
        return None, None
    text = path.read_text()

    def number(label: str) -> float | None:
        match = re.search(rf"{re.escape(label)}: ([0-9.]+)", text)
        return float(match.group(1)) if match else None

    user, system = number("User time (seconds)"), number("System time (seconds)")
    rss = number("Maximum resident set size (kbytes)")
    cpu = None if user is None or system is None else round(user + system, 2)
    return cpu, None if rss is None else int(rss)


def solve_fresh(work: Path, n: int, play: str, nimber_up_to: int, flags: list[str]) -> Solved:
    """Solve 0*n into a new store under `work`, measuring the child's CPU and peak RSS, and
    write play-n.json as `--from` reads it (a solve that did not finish is started again)."""
    return solve_into(work, f"{play}-{n}", solve_command(n, play, nimber_up_to, flags))


def solve_into(work: Path, stem: str, arguments: list[str]) -> Solved:
    """`sproutsdb ARGUMENTS` into the new store `work`/stem, measuring the child's CPU and
    peak RSS, and write stem.json as `--from` reads it (a solve that did not finish is
    started again)."""
    done = finished_solve(work, stem, arguments)
    if done is not None:
        return done
    store = work / stem
    if store.exists():
        shutil.rmtree(store)
    args = [
        *arguments,
        "--store",
        str(store),
        "--json",
        "--quiet",
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "sproutsdb", *args], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise UserError(f"sproutsdb {' '.join(args)} failed (exit {process.returncode})")
    solved = json.loads(output)
    solved["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 2)
    solved["max_rss_kb"] = int(usage.ru_maxrss)
    (work / f"{stem}.json").write_text(json.dumps(solved) + "\n")
    done = finished_solve(work, stem, arguments)
    assert done is not None
    return done


def spots(text: str) -> list[int]:
    """`0-21` or `3,5,7-9`: the n to build."""
    out: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return out


def build_one(args: argparse.Namespace, n: int, play: str, done: set[tuple[str, str, str]]) -> None:
    """Solve (or find) and certify 0*n in `play`, unless the manifest holds it already."""
    position = f"0*{n}"
    if ("sprouts", play, position) in done and not args.rebuild:
        print(f"{play:6} {position:5} in the manifest already (--rebuild to make it again)")
        return
    if args.from_dir is not None:
        solved = from_existing(args.from_dir, n, play, args.nimber_up_to, args.solve_flags)
        if solved is None:
            print(f"{play:6} {position:5} not solved yet in {args.from_dir}: left for a rerun")
            return
    else:
        solved = solve_fresh(args.work, n, play, args.nimber_up_to, args.solve_flags)
    entry = build_certificate(
        solved.store,
        position,
        play,
        args.out,
        args.cycles,
        solve_command=solved.command,
        solve_cpu_seconds=solved.cpu_seconds,
        solve_max_rss_kb=solved.max_rss_kb,
        quiet=False,
    )
    proved = entry.statement.get("outcome") or ("L" if entry.statement["nimber"] == 0 else "W")
    if solved.outcome is not None and proved != solved.outcome:
        raise UserError(f"{play} {position}: the solve said {solved.outcome}, the proof {proved}")
    report(entry)


def build_cram(args: argparse.Namespace, board: str, done: set[tuple[str, str, str]]) -> None:
    """Solve (or find) and certify the nimber of the empty Cram board `board` (RxC) in a
    store of the game cram, unless the manifest holds it already."""
    if ("cram", "normal", board) in done and not args.rebuild:
        print(f"cram   {board:5} in the manifest already (--rebuild to make it again)")
        return
    outcome_only = board in args.cram_outcome_only
    stem = f"cram-normal-{board}"
    arguments = cram_solve_command(board, args.solve_flags, outcome_only)
    if args.from_dir is not None:
        solved = finished_solve(args.from_dir, stem, arguments)
        if solved is None:
            print(f"cram   {board:5} not solved yet in {args.from_dir}: left for a rerun")
            return
    else:
        solved = solve_into(args.work, stem, arguments)
    entry = build_certificate(
        solved.store,
        board,
        "normal",
        args.out,
        args.cycles,
        solve_command=solved.command,
        solve_cpu_seconds=solved.cpu_seconds,
        solve_max_rss_kb=solved.max_rss_kb,
        quiet=False,
        game="cram",
    )
    if solved.outcome is not None and outcome_of(entry.statement) != solved.outcome:
        raise UserError(f"cram {board}: the solve said {solved.outcome}, the proof otherwise")
    report(entry)


def report(entry: ManifestEntry) -> None:
    game = "" if entry.game == "sprouts" else f"{entry.game} "
    print(
        f"{game}{entry.play:6} {entry.position:5} {entry.statement_text():10} "
        f"{entry.facts:>7,} facts "
        f"(cycles {entry.cycle_sizes}), solve {entry.solve_cpu_seconds} CPU s, "
        f"prune {entry.prune_cpu_seconds} CPU s -> {entry.file}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="from_dir", type=Path, help="folder of solved stores")
    source.add_argument("--work", type=Path, help="solve from scratch into this folder")
    parser.add_argument("--normal", default="0-21", help="n of normal play (default 0-21)")
    parser.add_argument("--misere", default="1-19", help="n of misère play (default 1-19)")
    parser.add_argument(
        "--cram", default="", metavar="BOARDS", help="Cram boards to certify: 4x7,5x6 (none)"
    )
    parser.add_argument(
        "--cram-outcome-only",
        type=lambda text: [b for b in text.split(",") if b],
        default=[],
        metavar="BOARDS",
        help="of the --cram boards, those solved --outcome-only (5x9,7x7: their outcome only)",
    )
    parser.add_argument("--nimber-up-to", type=int, default=NIMBER_UP_TO, metavar="N")
    parser.add_argument("--cycles", type=int, default=DEFAULT_CYCLES, metavar="K")
    parser.add_argument("--out", type=Path, default=None, help="default: the package's library")
    parser.add_argument("--rebuild", action="store_true", help="remake entries already there")
    parser.add_argument(
        "--solve-flags",
        type=str.split,
        default=[],
        metavar="'FLAGS'",
        help="more `sproutsdb solve` flags the solves use (--work) or used (--from), recorded"
        " in the manifest's command: '--seed-results --jobs 2'",
    )
    args = parser.parse_args(argv)
    args.out = args.out or shipped_library()
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
    done = {entry.ident for entry in read_manifest(args.out)}
    plan = [("normal", n) for n in (spots(args.normal) if args.normal else [])]
    plan += [("misere", n) for n in (spots(args.misere) if args.misere else [])]
    try:
        for play, n in plan:
            build_one(args, n, play, done)
        for board in [b for b in args.cram.split(",") if b] + [
            b for b in args.cram_outcome_only if b not in args.cram.split(",")
        ]:
            build_cram(args, board, done)
    except UserError as error:
        print(f"build_results: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
