"""The R1 note's misère rule (solver/extras/r1.py) measured on Sprouts: random sums of 2-4 lands
of the S6 tree (every land of a position of the game tree of 0*6, from the shipped table),
the rule applied from each land's class, and the position its move reaches solved exactly.

    python bench/r1.py [--samples 2000] [--seed 1] [--minutes 3] [--max-lives N] [--json]

Nimbers come from the normal solver (solver/normal/solver.py), misère outcomes from the exact
misère solver on the verified shipped S6 table (MisereSolver + TableRcts), for the lands,
their children, the sums and the positions the rule moves to. A *failure* is a sum where a
case applies and the rule's move is not a misère loss for the opponent, or where a case
applies but allows no move; each is listed. Seeded and bounded by --samples and --minutes.

Figures of 2026-11-25 (2-core VM shared with other sessions; the full listings are in
bench/baselines/r1-seed1.txt and r1-seed1-max6.txt):

    pool              sums  a case applies   exact W  failures (on exact W)  higher inv.
    all 171,942 lands 2,000  1,634 (81.7 %)    1,609     313 (233)            359 sums
    ≤ 6 lives (988)   2,000  1,586 (79.3 %)    1,581      20 (13)               0 sums

All: per case 816/316/367/135 applies, 213/15/79/6 fail; 28 sums where the case allows no
move; 103 failures where another move the case allows would have won; 74 of the failures
have a higher inverter. Sums of two lands of at most 5 lives (20,301) and of three of at
most 4 (18,424): no failure (tests/test_r1.py pins the pairs of ≤ 4 lives).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class Values:
    """Nimbers (normal solver) and misère outcomes (exact misère solver, S6 table) of
    positions of the S6 tree, and the children of its lands as `Part`s, memoised."""

    def __init__(self, table_path: str) -> None:
        from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
        from sproutsdb.solver.normal.solver import NormalSolver
        from sproutsdb.solver.ports.proofstore import MemoryProofStore
        from sproutsdb.solver.sprouts.game import SproutsGame
        from sproutsdb.trusted_tables import verified_table

        self.table = verified_table(table_path)  # every position re-derived (or cached mark)
        self.game = SproutsGame()
        self.normal = NormalSolver(self.game, MemoryProofStore())
        self.misere = MisereSolver(self.game, MemoryProofStore(), TableRcts(self.table))
        self._parts: dict[str, Any] = {}
        self._children: dict[str, list[Any]] = {}

    def lands(self, max_lives: int | None) -> list[str]:
        """Every land of a position of the table, sorted (at most max_lives lives)."""
        found = {land for p in self.table.positions for land in self.game.components(p)}
        if max_lives is not None:
            found = {land for land in found if self.game.size(land) <= max_lives}
        return sorted(found)

    def part(self, key: str) -> Any:
        from sproutsdb.solver.extras.r1 import Part

        known = self._parts.get(key)
        if known is None:
            nimber = self.normal.position_nimber(key)
            known = self._parts[key] = Part(key, nimber, self.misere.outcome(key))
        return known

    def children(self, land: Any) -> list[Any]:
        known = self._children.get(land.key)
        if known is None:
            kids = self.game.component_children(land.key)
            known = self._children[land.key] = [self.part(self.game.join(c)) for c in kids]
        return known


def measure(values: Values, sample: list[str]) -> dict[str, Any]:
    """One sum: its classes, the case, the move, and the exact outcomes."""
    from sproutsdb.solver.extras.r1 import allowed_moves, r1_rule

    game = values.game
    key = game.join(sample)
    lands = [values.part(land) for land in game.components(key)]
    verdict = r1_rule(lands, values.children)
    row: dict[str, Any] = {
        "position": key,
        "exact": values.misere.outcome(key),
        **verdict.as_json(lands),
    }
    if verdict.land is not None and verdict.child is not None:
        rest = [p.key for i, p in enumerate(lands) if i != verdict.land]
        moved = game.join([*rest, *game.components(verdict.child.key)])
        row["moved_to"] = moved
        row["moved_to_exact"] = values.misere.outcome(moved)
    if failed(row):  # would another move the case allows have won?
        row["allowed"] = row["allowed_winning"] = 0
        for index, child, _ in allowed_moves(lands, values.children):
            rest = [p.key for i, p in enumerate(lands) if i != index]
            reached = game.join([*rest, *game.components(child.key)])
            row["allowed"] += 1
            row["allowed_winning"] += values.misere.outcome(reached) == "L"
    return row


def failed(row: dict[str, Any]) -> bool:
    """A case applies but its move is not a misère loss for the opponent (or is missing)."""
    return bool(row["applies"] and row.get("moved_to_exact") != "L")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=2000, help="sums to sample")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=3.0, help="stop sampling after this")
    parser.add_argument("--max-lives", type=int, default=None, help="only lands this small")
    parser.add_argument("--table", default=str(ROOT / "data" / "s6.rcttable"))
    parser.add_argument("--json", action="store_true", help="one JSON object per sum")
    args = parser.parse_args()
    start = time.perf_counter()
    values = Values(args.table)
    pool = values.lands(args.max_lives)
    rng = random.Random(args.seed)
    deadline = time.monotonic() + args.minutes * 60
    rows = []
    while len(rows) < args.samples and time.monotonic() < deadline:
        sample = [rng.choice(pool) for _ in range(rng.randint(2, 4))]
        row = measure(values, sample)
        rows.append(row)
        if args.json:
            print(json.dumps(row), flush=True)
    summary = summarise(rows, len(pool), args, time.perf_counter() - start)
    print(json.dumps(summary) if args.json else render(summary), flush=True)
    return 0


def summarise(rows: list[dict[str, Any]], pool: int, args: Any, seconds: float) -> dict[str, Any]:
    applied = [r for r in rows if r["applies"]]
    failures = [r for r in rows if failed(r)]
    by_case = Counter(r["case"] for r in applied)
    fail_case = Counter(r["case"] for r in failures)
    classes = Counter(c["r1"] for r in rows for c in r["classes"])
    return {
        "seed": args.seed,
        "lands_in_pool": pool,
        "max_lives": args.max_lives,
        "sums": len(rows),
        "applies": len(applied),
        "share_applies": round(len(applied) / len(rows), 4) if rows else None,
        "exact_W": sum(1 for r in rows if r["exact"] == "W"),
        "none_applies_but_W": sum(1 for r in rows if not r["applies"] and r["exact"] == "W"),
        "applies_but_L": sum(1 for r in applied if r["exact"] == "L"),
        "per_case": {str(c): by_case[c] for c in sorted(by_case)},
        "failures_per_case": {str(c): fail_case[c] for c in sorted(fail_case)},
        "move_not_loss_by_note": sum(1 for r in applied if r["result_loses_by_note"] is False),
        "no_move": sum(1 for r in applied if r["land"] is None),
        "failures_another_allowed_move_wins": sum(1 for r in failures if r.get("allowed_winning")),
        "classes": dict(classes.most_common()),
        "sums_with_higher_inverter": sum(1 for r in rows if _higher_inverter(r)),
        "failures_with_higher_inverter": sum(1 for r in failures if _higher_inverter(r)),
        "failures_on_exact_wins": sum(1 for r in failures if r["exact"] == "W"),
        "failures": [
            {
                k: r.get(k)
                for k in ("position", "exact", "case", "classes", "land", "to", "moved_to")
            }
            | {k: r.get(k) for k in ("moved_to_exact", "allowed", "allowed_winning", "reason")}
            for r in failures
        ],
        "seconds": round(seconds, 1),
    }


def _higher_inverter(row: dict[str, Any]) -> bool:
    """Whether a land of the sum is a higher inverter (which an R1 game cannot have)."""
    return any(c["r1"] == "higher inverter" for c in row["classes"])


def render(s: dict[str, Any]) -> str:
    lines = [
        f"R1 rule on {s['sums']:,} sums of 2-4 lands of the S6 tree (seed {s['seed']}, "
        f"{s['lands_in_pool']:,} lands in the pool, {s['seconds']} s)",
        f"  a case applies: {s['applies']:,} ({100 * (s['share_applies'] or 0):.1f} %); "
        f"exact misère wins: {s['exact_W']:,}",
        f"  per case: {s['per_case']}; failures per case: {s['failures_per_case']}",
        f"  no case applies but the sum is an exact win: {s['none_applies_but_W']}; a case "
        f"applies but the sum is an exact loss: {s['applies_but_L']}",
        f"  a case applies but allows no move: {s['no_move']}; the move reaches a position "
        f"the note itself does not call a loss: {s['move_not_loss_by_note']}",
        f"  land classes met: {s['classes']}",
        f"  sums with a higher inverter (not R1): {s['sums_with_higher_inverter']}, of which "
        f"failures: {s['failures_with_higher_inverter']}",
        f"  failures where another move the case allows is a misère loss for the opponent: "
        f"{s['failures_another_allowed_move_wins']}",
        f"  failures (the rule's move is not a misère loss for the opponent): "
        f"{len(s['failures'])} ({s['failures_on_exact_wins']} on exact wins; the others are "
        "exact losses, where no move wins)",
    ]
    for f in s["failures"]:
        classes = ", ".join(f"{c['land']}={c['r1']}" for c in f["classes"])
        lines.append(
            f"    {f['position']}  (exact {f['exact']}; case {f['case']}; {classes}): "
            f"{f['land']} -> {f['to']}, reaching {f['moved_to']} = {f['moved_to_exact']}; "
            f"{f['allowed_winning']} of {f['allowed']} allowed moves win  [{f['reason']}]"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
