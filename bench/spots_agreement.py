"""SPOTS and sproutsdb on the same positions: every value must agree (issue 76).

    .venv/bin/python bench/spots_agreement.py --spots /tmp/spots-venv/bin/spots-solver \\
        [--sample 200] [--seed 1] [--large] [--json]

SPOTS ships no test data; its README's examples are its own positions: `0*12` (outcome),
`0*10` (nimber, --compute_nimber) and `0*18|1a1a` (outcome; with --large, minutes of
CPU). Beside them, a seeded sample of positions of the shipped S6 table (the game tree of
0*6: sums, several regions, boundaries with dead and shared spots), written in this project's
canonical notation, which SPOTS reads as it is. For each, SPOTS's nimber (its
--compute_nimber asks p+*0, p+*1, … until one is a loss) or outcome, and sproutsdb's, proven
in this process on a memory store. Prints a table and saves bench/results/spots-agreement.json;
exits 1 on any disagreement, or when SPOTS cannot read a position sproutsdb reads.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from pathlib import Path

from spots_side_by_side import add_spots_arguments, build_spots, measured

from sproutsdb.formats.rcttable import load_table
from sproutsdb.games import get_game
from sproutsdb.shipped import shipped_table
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import MemoryProofStore

ROOT = Path(__file__).resolve().parent.parent
README_EXAMPLES = [("0*12", "outcome"), ("0*10", "nimber")]
README_LARGE = [("0*18|1a1a", "outcome")]


def spots_value(solver: str, position: str, kind: str, work: Path, seconds: float) -> str | None:
    """SPOTS's nimber ("*k", from its last "p+*k is Loss") or outcome ("W"/"L"); None when
    it gave none within `seconds`."""
    command = [solver, position, "--algorithm", "dfpn", "--capacity", "100000", "--seed", "0"]
    if kind == "nimber":
        command.append("--compute_nimber")
    text, _, _, _, finished = measured(command, seconds, work)
    answers = re.findall(r"\+\*(\d+) is (Win|Loss):", text)
    if not finished or not answers:
        return None
    if kind == "nimber":
        losses = [k for k, verdict in answers if verdict == "Loss"]
        return f"*{losses[-1]}" if losses else None
    return answers[-1][1][0]


def ours(solver: NormalSolver, position: str, kind: str) -> str:
    """sproutsdb's nimber ("*k") or normal-play outcome of a canonical position."""
    if kind == "nimber":
        return f"*{solver.nimber(position)}"
    return solver.outcome(position)


def sample_positions(count: int, seed: int) -> list[str]:
    """`count` positions of the shipped S6 table, drawn with `seed` (the table sorted first)."""
    path = shipped_table()
    if path is None:
        raise SystemExit("this install lacks the shipped S6 table")
    positions = sorted(load_table(path).positions)
    return random.Random(seed).sample(positions, min(count, len(positions)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_spots_arguments(parser)
    parser.add_argument("--sample", type=int, default=200, help="positions of S6 (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="of the sample (default 1)")
    parser.add_argument("--large", action="store_true", help="also 0*18|1a1a (minutes)")
    parser.add_argument("--seconds", type=float, default=900.0, help="per SPOTS run")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "spots-agreement.json"
    )
    args = parser.parse_args()
    game = get_game().engine()
    wanted = README_EXAMPLES + (README_LARGE if args.large else [])
    cases = [(text, kind, "SPOTS README") for text, kind in wanted]
    cases += [
        (p, "nimber", f"S6 sample (seed {args.seed})")
        for p in sample_positions(args.sample, args.seed)
    ]
    solver = NormalSolver(game, MemoryProofStore())
    rows = []
    with tempfile.TemporaryDirectory(prefix="spots-agreement-") as folder:
        work = Path(folder)  # SPOTS writes database.spr and stats.csv where it runs
        spots = args.spots or build_spots(args.build_from, work, args.pybind11)
        for count, (text, kind, source) in enumerate(cases, 1):
            theirs = spots_value(spots, text, kind, work, args.seconds)
            mine = ours(solver, game.canonical(text), kind)
            rows.append({"position": text, "kind": kind, "source": source, "spots": theirs,
                         "sproutsdb": mine, "agree": theirs == mine})  # fmt: skip
            if not args.json and (source == "SPOTS README" or count % 50 == 0):
                print(f"  {count} of {len(cases)}: {text} {kind} SPOTS {theirs} sproutsdb {mine}",
                      flush=True)  # fmt: skip
    disagree = [row for row in rows if not row["agree"]]
    report = {"rows": rows, "positions": len(rows), "disagree": len(disagree)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    if args.json:
        print(json.dumps(report))
    else:
        kinds = {(r["source"], r["kind"]) for r in rows}
        for source, kind in sorted(kinds):
            mine = [r for r in rows if (r["source"], r["kind"]) == (source, kind)]
            same = sum(r["agree"] for r in mine)
            print(f"{source}: {kind}s of {len(mine)} positions, {same} agree")
        print(f"saved {args.out}")
    for row in disagree:
        print(f"{row['position']}: SPOTS {row['spots']}, sproutsdb {row['sproutsdb']}",
              file=sys.stderr)  # fmt: skip
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
