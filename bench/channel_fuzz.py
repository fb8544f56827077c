"""Channel fuzzer (run on demand; issue 72): forged facts through every door a fact enters a
store by, then every check a user runs, then every verified fact audited against the rules.

    .venv/bin/python bench/channel_fuzz.py                     # all six channels
    .venv/bin/python bench/channel_fuzz.py --channel import --channel table --json

Channels: import (an export stream), Insert (gRPC, the server's verifier on), pull (peers
serving forged facts), library (a forged results certificate, its manifest blessed), checkpoint
(an export resumed by solve) and table (forged RCT tables, with and without a forged cache
mark). For each fact kind: a fact of the other kind whose key collides with a key of this kind,
a fact of another game, and a false value (tests/channel_forgeries.py builds them from a real
0*5 proof). Prints per channel and kind the forgeries tried, refused at the door, stored as
claims, and FALSE VERIFIED (stored with the forged value and marked verified), then the audit:
the verified facts of every store re-derived by a fresh solver. Exits 1 on any false mark. A
forged table mark in the user's own private cache is believed by design (the cache is as
trusted as the install); what it makes served is printed apart.
Saves the table to bench/results/channel-fuzz.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from channel_forgeries import CHANNELS, build_world, run_channel, table_rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--channel", action="append", choices=CHANNELS, help="a channel to run (default: all)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "channel-fuzz.json"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    world = build_world()
    runs = []
    with tempfile.TemporaryDirectory(prefix="channel-fuzz-") as work:
        for channel in args.channel or CHANNELS:
            run = run_channel(channel, world, Path(work) / channel)
            runs.append(run)
            if not args.json:
                print(f"{channel}: {run.seconds:.1f} s, {len(run.commands)} commands", flush=True)
    rows = list(table_rows(runs))
    false_marks = [line for run in runs for line in run.false_marks]
    report = {
        "forgeries": [f.describe() for f in world.forgeries],
        "rows": rows,
        "audited_verified_facts": {run.channel: dict(run.marked) for run in runs},
        "false_marks": false_marks,
        "believed_private_forged_marks": [line for run in runs for line in run.trusted],
        "seconds": round(time.perf_counter() - started, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    if args.json:
        print(json.dumps(report))
    else:
        print(f"\n{'channel':<11}{'kind':<9}{'tried':>6}{'refused':>9}{'claims':>8}{'FALSE':>7}")
        for row in rows:
            print(
                f"{row['channel']:<11}{row['kind']:<9}{row['tried']:>6}{row['refused']:>9}"
                f"{row['claims']:>8}{row['false_verified']:>7}"
            )
        audited = sum(sum(run.marked.values()) for run in runs)
        print(f"\nverified facts audited against the rules: {audited:,}")
        print(f"false verified marks: {len(false_marks)}")
        for line in false_marks:
            print(f"  {line}")
        believed = report["believed_private_forged_marks"]
        print(
            f"forged marks in the user's own cache (believed by the trust model: whoever "
            f"can write it can change the install): {len(believed)} false facts served"
        )
        for line in believed:
            print(f"  {line}")
        print(f"{report['seconds']} s in all; saved {args.out}")
    return 1 if false_marks else 0


if __name__ == "__main__":
    sys.exit(main())
