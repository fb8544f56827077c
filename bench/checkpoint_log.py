"""Keep the record of a resumable record run beside its checkpoint: one entry per run (the
solve's own JSON and `/usr/bin/time -v` figures), so a checkpoint says how far its search got
and what it cost without anyone re-reading old logs (issue 75).

    sproutsdb solve 0*45 --outcome-only --seed-results --store S --json > run.json
    # (run under `/usr/bin/time -v -o run.time`, stopped by Ctrl-C or a timeout)
    .venv/bin/python bench/checkpoint_log.py bench/checkpoints/normal-0x45.spdbx \\
        --solve-json run.json --time run.time --command "sproutsdb solve 0*45 ..."
    .venv/bin/python bench/checkpoint_log.py bench/checkpoints/normal-0x45.spdbx --show

A run guided by bench/analogy.py is recorded from its log (--guide-log, one JSON line a
solve): its visits summed, its CPU from --time (the bench's own, which holds its solves'),
else its solves' summed; the root's options stay as the last run left them.

The record is CHECKPOINT with `.runs.json` for `.spdbx`: the checkpoint's size and fact
count as it is now, and the runs, oldest first, each with its visits, search seconds, CPU
(user + system), peak RSS, new facts and the root's options as that run left them. --show
prints the totals and which options are settled.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_results import read_time_file

from sproutsdb.formats.exchange import verify


def record_path(checkpoint: Path) -> Path:
    """Where the runs of `checkpoint` are kept."""
    return checkpoint.with_name(checkpoint.name.removesuffix(".spdbx") + ".runs.json")


def checkpoint_facts(checkpoint: Path) -> dict[str, int]:
    """The checkpoint's facts by kind, as its checked trailer counts them."""
    return {kind: n for kind, n in verify(checkpoint).counts.items() if n}


def run_entry(solved: dict[str, Any], time_file: Path | None, command: str) -> dict[str, Any]:
    """One run's entry from the solve's JSON and its `/usr/bin/time -v` file."""
    cpu, rss = read_time_file(time_file) if time_file is not None else (None, None)
    options = solved.get("root_options") or []
    return {
        "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": command,
        "outcome": solved.get("outcome"),
        "interrupted": bool(solved.get("interrupted")),
        "visits": solved.get("nodes"),
        "search_seconds": solved.get("seconds"),
        "cpu_seconds": cpu,
        "max_rss_kb": rss,
        "new_facts": solved.get("stored"),
        "root_options": [[o["position"], o.get("outcome")] for o in options],
    }


def guide_entry(
    log: Path, time_file: Path | None, command: str, runs: list[dict[str, Any]]
) -> dict[str, Any]:
    """One guided run's entry from bench/analogy.py's log of its solves."""
    solves = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    cpu, rss = read_time_file(time_file) if time_file is not None else (None, None)
    if cpu is None:
        cpu = round(sum(s.get("cpu_s") or 0 for s in solves), 2)
    return {
        "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": command,
        "outcome": None,
        "interrupted": True,
        "visits": sum(s.get("visits") or 0 for s in solves),
        "search_seconds": round(sum(s.get("wall_s") or 0 for s in solves), 1),
        "cpu_seconds": cpu,
        "max_rss_kb": rss,
        "new_facts": None,
        "root_options": runs[-1]["root_options"] if runs else [],
        "guided_solves": len(solves),
        "guided_losses": sum(1 for s in solves if s.get("outcome") == "L"),
    }


def summary(record: dict[str, Any]) -> list[str]:
    """What --show prints: totals over the runs and the root's options after the last (none
    when the last run decided the root without listing them)."""
    runs = record["runs"]
    visits = sum(r["visits"] or 0 for r in runs)
    cpu = sum(r["cpu_seconds"] or 0 for r in runs)
    last = runs[-1] if runs else {"root_options": [], "outcome": None}
    settled = [(p, o) for p, o in last["root_options"] if o is not None]
    lines = [
        f"{record['checkpoint']}: {record['bytes']:,} bytes, "
        + ", ".join(f"{n:,} {kind}" for kind, n in record["facts"].items()),
        f"{len(runs)} run(s): {visits:,} visits, {cpu:,.0f} CPU s"
        + (f", outcome {last['outcome']}" if last["outcome"] else ", undecided"),
    ]
    if last["outcome"] and not last["root_options"]:
        return lines  # decided before it listed the root's options: nothing is open
    lines += [f"root options settled: {len(settled)} of {len(last['root_options'])}"]
    lines += [f"  {outcome}  {position}" for position, outcome in settled]
    lines += [f"  open  {p}" for p, o in last["root_options"] if o is None]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path, help="the .spdbx checkpoint the run left")
    parser.add_argument("--solve-json", type=Path, help="what `solve --json` printed")
    parser.add_argument("--time", type=Path, help="the run's `/usr/bin/time -v -o` file")
    parser.add_argument("--command", default="", help="the solve command, as run")
    parser.add_argument("--guide-log", type=Path, help="bench/analogy.py's log of a guided run")
    parser.add_argument("--show", action="store_true", help="print the totals (no new run)")
    args = parser.parse_args(argv)
    path = record_path(args.checkpoint)
    if not args.checkpoint.is_file():
        parser.error(f"{args.checkpoint}: no such checkpoint")
    record = json.loads(path.read_text()) if path.is_file() else {"runs": []}
    if args.solve_json is not None:
        try:
            solved = json.loads(args.solve_json.read_text())
        except (OSError, ValueError) as error:
            parser.error(f"{args.solve_json}: not a solve's JSON ({error})")
        record["runs"].append(run_entry(solved, args.time, args.command))
    elif args.guide_log is not None:
        try:
            entry = guide_entry(args.guide_log, args.time, args.command, record["runs"])
        except (OSError, ValueError) as error:
            parser.error(f"{args.guide_log}: not bench/analogy.py's log ({error})")
        record["runs"].append(entry)
    elif not args.show:
        parser.error("give --solve-json or --guide-log (a run to record) or --show")
    record["checkpoint"] = args.checkpoint.name
    record["bytes"] = args.checkpoint.stat().st_size
    record["facts"] = checkpoint_facts(args.checkpoint)
    if args.solve_json is not None or args.guide_log is not None:
        path.write_text(json.dumps(record, indent=1) + "\n")
    print("\n".join(summary(record)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
