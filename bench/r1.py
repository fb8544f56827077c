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

The note claims its rule for R1 games only, so each sum's lands also go through the
hereditary test (solver/extras/r1_hereditary.py: conditions 1-3 in every position of a
land's tree). Figures of 2026-12-05, the same 2,000 sums (seed 1):

    sums with a land failing a condition   1,941 of 2,000; failures: 313 of 313
    ... somewhere in its tree, by condition  1: 1,870  2: 1,931  3: 1,615; failures 312 / 313 / 288
    ... in the land itself (the top)         1: 359    2: 217    3: 143;   failures  74 / 104 /  42
    failures by the conditions failed        1+2+3: 288, 1+2: 24, 2: 1
    sums of hereditarily R1 lands            59, failures among them: 0

So these failures only say that Sprouts is not an R1 game. The note is still wrong inside R1
games: its argument never rules out a gremlin moving to a null (1+2aA2Ba|AC|BC, tests/
test_r1_hereditary.py). `--exhaustive ROOT` measures that on the lands of ROOT's tree that
pass the test (`--conditions 1,2,3`, or `1,2,3,4` adding "no gremlin has a move to a null"):

    python bench/r1.py --exhaustive 0*5 [--sizes 2,3,4] [--conditions 1,2,3] [--limit N]

The note's criterion (loss iff nim-sum 0 with a trap or switch, or none and an odd number
of inverters) is checked on every multiset of the lands' RCTs, which is every sum (a sum's
classes and exact outcome depend on its lands' RCTs only), a seeded sample of them re-solved
by the exact misère solver; its moves on multisets of signatures (lands alike in everything
the cases read), all of them up to --limit of one size, else a seeded sample of --limit.
Figures of 2026-12-05 (seed 1, land sums counted as multisets of lands):

    0*4, 1,008 of 1,188 lands (all also meet condition 4): criterion right on every sum of
      2-4 lands (990 RCT multisets, all re-solved: no disagreement); moves: every pair and
      triple of the 138 signatures and 450,000 of 15.8 M quadruples, no failure.
    0*5, conditions 1-3, 6,965 lands: criterion wrong on 4,379 of 135,710 RCT multisets
      (2,536 exact wins called losses, 1,843 exact losses called wins); moves: all 283,881
      pairs and 300,000 of each larger size, 33,551 failures (4,267 wins called losses,
      3,051 losses given a case, 26,233 moves into a note's loss that is an exact win),
      every one with a gremlin that can move to a null: that move wins the sum (2,772) or
      the position the note's move reaches (20,147); else such a gremlin is a land of the
      sum (6,315) or stands below one (4,317).
    0*5, conditions 1-4, 6,854 lands: criterion right on every sum of 2-4 lands (27,378 RCT
      multisets, 2,000 re-solved: no disagreement); moves: all 243,253 pairs and 300,000 of
      each larger size, no failure.

With condition 4 the note's own argument goes through (its only gap is that move), and
nothing mends the rule on classes alone: two gremlins with a move to a null can beat the
same higher switch the opposite ways (tests/test_r1_hereditary.py).
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


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
        self._hereditary: Any = None

    def hereditary(self) -> Any:
        """The hereditary R1 test (solver/extras/r1_hereditary.py) on the table: every land of
        the S6 tree is a position of it (its RCT gives the nimber and misère outcome); a sum
        that is not gets the nim-sum of its lands' nimbers and the exact misère solver's
        outcome (summing the lands' RCTs instead took over 15 CPU minutes on large ones;
        the whole pool's closure this way takes about 40 s)."""
        if self._hereditary is None:
            from sproutsdb.solver.extras.r1_hereditary import HereditaryR1
            from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
            from sproutsdb.solver.ports.proofstore import MemoryProofStore

            positions, algebra = self.table.positions, self.table.algebra
            # its own solver: each call of a solver reads every fact of its memory store,
            # so the test's many sums would slow every later outcome the bench asks
            misere = MisereSolver(self.game, MemoryProofStore(), TableRcts(self.table))

            def value(key: str) -> tuple[int | None, str | None]:
                handle = positions.get(key)
                if handle is not None:
                    return algebra.nimber(handle), algebra.outcome(handle)
                nim_sum = 0
                for land in self.game.components(key):
                    nim_sum ^= algebra.nimber(positions[land])
                return nim_sum, misere.outcome(key)

            self._hereditary = HereditaryR1(self.game, value)
        return self._hereditary

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
    row["hereditary"] = hereditary_of(values, lands)
    if failed(row):  # would another move the case allows have won?
        row["allowed"] = row["allowed_winning"] = 0
        for index, child, _ in allowed_moves(lands, values.children):
            rest = [p.key for i, p in enumerate(lands) if i != index]
            reached = game.join([*rest, *game.components(child.key)])
            row["allowed"] += 1
            row["allowed_winning"] += values.misere.outcome(reached) == "L"
    return row


def hereditary_of(values: Values, lands: list[Any]) -> list[dict[str, Any]]:
    """Each land's hereditary R1 verdict: its class by the table's RCT (`rct_class`, to set
    beside the solvers' `r1`) and, per condition failed in its tree, the nearest land that
    fails it and how many moves below the top it stands."""
    test = values.hereditary()
    out = []
    for part in lands:
        verdict = test.check(part.key)
        out.append(
            {
                "land": part.key,
                "r1": part.r1,
                "rct_class": verdict.land_class,
                "hereditary": verdict.hereditary,
                "violations": {
                    str(c): {"land": v.land, "class": v.land_class, "depth": v.depth}
                    | ({"option": v.option} if v.option is not None else {})
                    for c, v in verdict.violations.items()
                },
            }
        )
    return out


def _conditions(row: dict[str, Any], top_only: bool = False) -> set[str]:
    """The conditions failed somewhere in the tree of a land of the sum (at the top only)."""
    return {
        c
        for land in row["hereditary"]
        for c, v in land["violations"].items()
        if not top_only or v["depth"] == 0
    }


def hereditary_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The sums sorted by the hereditary test: which have a land that is not hereditarily R1,
    by condition (a sum counts under every condition one of its lands' trees fails; `at top`
    when a land itself fails it), and the failures left on sums of hereditarily R1 lands."""
    failures = [r for r in rows if failed(r)]
    pure = [r for r in rows if not _conditions(r)]
    pure_failures = [r for r in failures if not _conditions(r)]

    def by_condition(group: list[dict[str, Any]], top_only: bool = False) -> dict[str, int]:
        counts = Counter(c for r in group for c in _conditions(r, top_only))
        return {c: counts[c] for c in sorted(counts)}

    combos = Counter("+".join(sorted(_conditions(r))) or "none" for r in failures)
    return {
        "sums_not_hereditary": len(rows) - len(pure),
        "sums_by_condition": by_condition(rows),
        "sums_by_condition_at_top": by_condition(rows, True),
        "failures_not_hereditary": len(failures) - len(pure_failures),
        "failures_by_condition": by_condition(failures),
        "failures_by_condition_at_top": by_condition(failures, True),
        "failures_by_conditions_failed": dict(combos.most_common()),
        "failures_only_higher_inverter_at_top": sum(
            1
            for r in failures
            if _conditions(r) and _conditions(r) == _conditions(r, True) == {"1"}
        ),
        "hereditary_sums": len(pure),
        "hereditary_sums_case_applies": sum(1 for r in pure if r["applies"]),
        "hereditary_sums_no_case_but_exact_W": sum(
            1 for r in pure if not r["applies"] and r["exact"] == "W"
        ),
        "hereditary_sums_case_but_exact_L": sum(
            1 for r in pure if r["applies"] and r["exact"] == "L"
        ),
        "failures_on_hereditary_sums": [r["position"] for r in pure_failures],
        "rct_class_disagreements": sum(
            1 for r in rows for land in r["hereditary"] if land["rct_class"] != land["r1"]
        ),
    }


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
    parser.add_argument("--out", default=None, help="name of the JSON under bench/results/")
    parser.add_argument(
        "--exhaustive",
        metavar="ROOT",
        default=None,
        help="instead: every sum of --sizes hereditarily R1 lands of the tree of ROOT",
    )
    parser.add_argument("--sizes", default="2,3,4", help="lands per sum (--exhaustive)")
    parser.add_argument(
        "--conditions", default="1,2,3", help="the hereditary test's conditions (1,2,3,4)"
    )
    parser.add_argument(
        "--limit", type=int, default=100_000, help="multisets of one size beyond this: sampled"
    )
    parser.add_argument("--cross", type=int, default=1000, help="sums re-solved (--exhaustive)")
    args = parser.parse_args()
    if args.exhaustive is not None:
        conditions = tuple(int(c) for c in args.conditions.split(","))
        sizes = [int(x) for x in args.sizes.split(",")]
        result = exhaustive(
            args.exhaustive, conditions, sizes, args.limit, args.seed, args.cross
        ) | {"seed": args.seed, "limit": args.limit}
        print(json.dumps(result) if args.json else render_exhaustive(result), flush=True)
        tag = "".join(map(str, conditions))
        save(result, args.out or f"r1-exhaustive-{args.exhaustive.replace('*', 'x')}-c{tag}")
        return 0
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
    save(
        summary,
        args.out or f"r1-seed{args.seed}" + (f"-max{args.max_lives}" if args.max_lives else ""),
    )
    return 0


def save(summary: dict[str, Any], name: str) -> None:
    """Write the result as JSON under bench/results/ (gitignored), and say where."""
    path = RESULTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"saved {path.relative_to(ROOT)}", file=sys.stderr)


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
        "hereditary": hereditary_summary(rows),
        "seconds": round(seconds, 1),
    }


def _higher_inverter(row: dict[str, Any]) -> bool:
    """Whether a land of the sum is a higher inverter (which an R1 game cannot have)."""
    return any(c["r1"] == "higher inverter" for c in row["classes"])


class Tree:
    """The lands of the game tree of a root that pass the hereditary test (conditions 1-3,
    or 1-4), with RCTs computed from the rules (RctSearch), grouped by *signature*: the
    land's RCT, whether it is a gremlin with a move to a null, and the set of its children
    as (RCT of the child sum, those two of each of its lands). Lands of one signature are
    interchangeable here: the note's classes, cases and moves and the exact outcomes of a sum
    and of every position a move reaches depend on nothing else."""

    def __init__(self, root: str, conditions: tuple[int, ...]) -> None:
        from sproutsdb.solver.extras.r1_hereditary import HereditaryR1, rct_values, tree_lands
        from sproutsdb.solver.misere.rctsearch import RctSearch
        from sproutsdb.solver.sprouts.game import SproutsGame

        self.game = game = SproutsGame()
        self.search = RctSearch(game)
        self.algebra = self.search.algebra
        self.test = HereditaryR1(game, rct_values(self.search))
        strict = HereditaryR1(game, rct_values(self.search), conditions)
        self.lands = tree_lands(self.search, root)
        self.good = [x for x in self.lands if strict.check(x).hereditary]
        self.token = {x: self._token(x) for x in self.good}
        groups: dict[Any, list[str]] = {}
        self.kids: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        for land in self.good:
            kids = [(self.search.rct(game.join(c)), c) for c in game.component_children(land)]
            self.kids[land] = kids
            key = (self.token[land], frozenset((h, self.tokens(c)) for h, c in kids))
            groups.setdefault(key, []).append(land)
        ordered = sorted(groups.values(), key=lambda lands: lands[0])
        self.representative = [lands[0] for lands in ordered]
        self.weight = [len(lands) for lands in ordered]
        by_rct: dict[int, list[str]] = {}
        for land in self.good:
            by_rct.setdefault(self.token[land][0], []).append(land)
        self.rct_lands = sorted(by_rct.values(), key=lambda lands: lands[0])
        self._outcome: dict[tuple[int, ...], str] = {}

    def _token(self, land: str) -> tuple[int, bool]:
        wild = self.test.class_of(land) == "gremlin" and self.test.has_option(land, ["null"])
        return self.search.rct(land), wild

    def tokens(self, lands: tuple[str, ...]) -> tuple[tuple[int, bool], ...]:
        return tuple(sorted(self.token[x] for x in lands))

    def part(self, key: str, handle: int) -> Any:
        from sproutsdb.solver.extras.r1 import Part

        return Part(key, self.algebra.nimber(handle), self.algebra.outcome(handle))

    def outcome(self, lands: list[str]) -> str:
        """Exact misère outcome of a sum from its lands' RCTs (the RCT algebra's sum)."""
        key = tuple(sorted(self.token[x][0] for x in lands))
        known = self._outcome.get(key)
        if known is None:
            known = self._outcome[key] = self.algebra.outcome(self.algebra.sum(key))
        return known

    def note(self, lands: list[str]) -> tuple[list[Any], bool]:
        """(the lands as Parts, whether the note's criterion calls the sum a loss)."""
        from sproutsdb.solver.extras.r1 import note_says_loss

        parts = [self.part(str(i), self.token[x][0]) for i, x in enumerate(lands)]
        nim_sum = 0
        for p in parts:
            nim_sum ^= p.nimber
        return parts, note_says_loss([p.r1 for p in parts], nim_sum)

    def gremlin_to_null_wins(self, lands: list[str]) -> bool:
        """Whether some move of a gremlin land to a null reaches an exact misère loss."""
        for i, land in enumerate(lands):
            if self.part("", self.token[land][0]).r1 != "gremlin":
                continue
            rest = lands[:i] + lands[i + 1 :]
            for handle, child in self.kids[land]:
                if self.part("", handle).r1 == "null" and self.outcome(rest + list(child)) == "L":
                    return True
        return False

    def wild_below(self, lands: list[str]) -> bool:
        """Whether a gremlin with a move to a null stands somewhere in a land's tree."""
        strict = getattr(self, "_strict", None)
        if strict is None:
            from sproutsdb.solver.extras.r1_hereditary import HereditaryR1, rct_values

            strict = self._strict = HereditaryR1(self.game, rct_values(self.search), (1, 2, 3, 4))
        return any(not strict.check(x).hereditary for x in lands)


def check_sum(tree: Tree, lands: list[str]) -> tuple[str, str] | None:
    """The note on one sum against exact outcomes: None when right, else (what went wrong,
    its cause). Right means: its criterion gives the exact outcome, and when a case applies
    there is a move the case allows into a position the criterion calls a loss, and every
    such move reaches an exact loss (the note's claim for each of them)."""
    from sproutsdb.solver.extras.r1 import allowed_moves

    exact = tree.outcome(lands)
    parts, note_loss = tree.note(lands)
    if note_loss and exact == "W":
        what = "the note calls an exact win a loss"
        cause = "a gremlin's move to a null wins" if tree.gremlin_to_null_wins(lands) else ""
    elif not note_loss and exact == "L":
        what, cause = "a case applies to an exact loss", ""
    elif note_loss:
        return None
    else:
        children = {
            str(i): [tree.part(f"{i}:{j}", h) for j, (h, _) in enumerate(tree.kids[x])]
            for i, x in enumerate(lands)
        }
        endorsed = []
        for index, child, loses in allowed_moves(parts, lambda p: children[p.key]):
            if loses:
                j = int(child.key.split(":")[1])
                rest = lands[:index] + lands[index + 1 :]
                endorsed.append(rest + list(tree.kids[lands[index]][j][1]))
        bad = [after for after in endorsed if tree.outcome(after) == "W"]
        if endorsed and not bad:
            return None
        if not endorsed:
            what, cause = "the case allows no move into what the note calls a loss", ""
        else:
            what = "a move the case allows into what the note calls a loss reaches an exact win"
            if all(tree.gremlin_to_null_wins(after) for after in bad):
                cause = "there a gremlin's move to a null wins"
            else:
                cause = ""
    if not cause:
        if any(tree.token[x][1] for x in lands):
            cause = "a land is a gremlin with a move to a null (condition 4 fails at the top)"
        elif tree.wild_below(lands):
            cause = "a gremlin with a move to a null stands below a land (condition 4 fails)"
        else:
            cause = "none found"
    return what, cause


def exhaustive(
    root: str, conditions: tuple[int, ...], sizes: list[int], limit: int, seed: int, cross: int
) -> dict[str, Any]:
    """The note on sums of `sizes` lands of the tree of `root` that pass the hereditary test:
    its criterion on every multiset of their RCTs (which is all it reads), its moves on every
    multiset of signatures, or on a seeded sample of `limit` of each size with more; land sums
    are counted as the multisets stand for them. RCT sums give the exact outcomes; the exact
    misère solver (S6 table) re-solves a seeded `cross` of the RCT multisets' representatives."""
    import itertools
    import math

    start = time.perf_counter()
    tree = Tree(root, conditions)
    rng = random.Random(seed)

    def multisets(count: int, size: int) -> tuple[Any, bool, int]:
        total = math.comb(count + size - 1, size)
        if total <= limit:
            return itertools.combinations_with_replacement(range(count), size), False, total
        sample = (tuple(sorted(rng.randrange(count) for _ in range(size))) for _ in range(limit))
        return sample, True, total

    def weight(sizes_of: list[int], combo: tuple[int, ...]) -> int:
        return math.prod(math.comb(sizes_of[i] + m - 1, m) for i, m in Counter(combo).items())

    # the criterion: every multiset of RCTs (a representative land of each)
    rct_reps = [lands[0] for lands in tree.rct_lands]
    rct_sizes = [len(lands) for lands in tree.rct_lands]
    criterion: Counter[str] = Counter()
    criterion_sums: Counter[str] = Counter()
    checked_rct: dict[str, Any] = {}
    representatives = []
    for size in sizes:
        combos, sampled, total = multisets(len(rct_reps), size)
        done = 0
        for combo in combos:
            lands = [rct_reps[i] for i in combo]
            representatives.append(lands)
            _, note_loss = tree.note(lands)
            exact = tree.outcome(lands)
            done += 1
            if note_loss != (exact == "L"):
                what = "calls an exact win a loss" if note_loss else "calls an exact loss a win"
                criterion[what] += 1
                criterion_sums[what] += weight(rct_sizes, combo)
        checked_rct[str(size)] = {"multisets": done, "of": total, "sampled": sampled}
    # the exact misère solver on a seeded sample of those sums
    solver = cross_solver()
    picked = rng.sample(representatives, min(cross, len(representatives)))
    disagree = [
        tree.game.join(lands)
        for lands in picked
        if solver.outcome(tree.game.join(lands)) != tree.outcome(lands)
    ]
    # the moves: every multiset of signatures (or a sample)
    failures: Counter[tuple[str, str]] = Counter()
    failure_sums: Counter[tuple[str, str]] = Counter()
    examples: dict[str, list[str]] = {}
    checked_sig: dict[str, Any] = {}
    represented = 0
    for size in sizes:
        combos, sampled, total = multisets(len(tree.representative), size)
        done = 0
        for combo in combos:
            lands = [tree.representative[i] for i in combo]
            w = weight(tree.weight, combo)
            represented += w
            done += 1
            found = check_sum(tree, lands)
            if found is not None:
                failures[found] += 1
                failure_sums[found] += w
                examples.setdefault(" / ".join(found), []).append(tree.game.join(lands))
        checked_sig[str(size)] = {"multisets": done, "of": total, "sampled": sampled}
    kinds = [" / ".join(k) for k in failures]
    return {
        "root": root,
        "conditions": list(conditions),
        "lands": len(tree.lands),
        "lands_passing": len(tree.good),
        "rcts": len(rct_reps),
        "signatures": len(tree.representative),
        "criterion_multisets": checked_rct,
        "criterion_failures": dict(criterion),
        "criterion_failures_land_sums": dict(criterion_sums),
        "cross_checked_by_misere_solver": len(picked),
        "cross_check_disagreements": disagree,
        "move_multisets": checked_sig,
        "land_sums_represented": represented,
        "failures": sum(failures.values()),
        "failures_land_sums": sum(failure_sums.values()),
        "failures_by_kind": {k: n for k, n in zip(kinds, failures.values(), strict=True)},
        "failures_by_kind_land_sums": {
            k: n for k, n in zip(kinds, failure_sums.values(), strict=True)
        },
        "examples": {k: sorted(v)[:4] for k, v in examples.items()},
        "seconds": round(time.perf_counter() - start, 1),
    }


@functools.cache
def cross_solver() -> Any:
    """The exact misère solver on the verified shipped S6 table (every land of the trees of
    0*4 and 0*5 is a position of it), as Values uses it."""
    from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
    from sproutsdb.solver.ports.proofstore import MemoryProofStore
    from sproutsdb.solver.sprouts.game import SproutsGame
    from sproutsdb.trusted_tables import verified_table

    table = verified_table(ROOT / "data" / "s6.rcttable")
    return MisereSolver(SproutsGame(), MemoryProofStore(), TableRcts(table))


def render_exhaustive(s: dict[str, Any]) -> str:
    conditions = ", ".join(map(str, s["conditions"]))
    lines = [
        f"The note on sums of lands of the tree of {s['root']} meeting conditions "
        f"{conditions} hereditarily ({s['lands_passing']:,} of {s['lands']:,} lands; "
        f"{s['rcts']} RCTs, {s['signatures']} signatures; {s['seconds']} s)",
        f"  criterion, multisets of RCTs per size: {s['criterion_multisets']}",
        f"    wrong: {s['criterion_failures'] or 0} (land sums: "
        f"{s['criterion_failures_land_sums'] or 0}); re-solved by the exact misère solver: "
        f"{s['cross_checked_by_misere_solver']}, disagreeing: "
        f"{len(s['cross_check_disagreements'])}",
        f"  moves, multisets of signatures per size: {s['move_multisets']} "
        f"({s['land_sums_represented']:,} land sums)",
        f"    failures: {s['failures']:,} ({s['failures_land_sums']:,} land sums)",
    ]
    for kind, n in s["failures_by_kind"].items():
        lines.append(
            f"      {n:,} ({s['failures_by_kind_land_sums'][kind]:,} land sums): {kind}; "
            f"e.g. {s['examples'][kind][:2]}"
        )
    return "\n".join(lines)


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
    h = s["hereditary"]
    lines += [
        "  hereditary R1 (conditions 1-3 in every position of a land's tree; solver/extras/"
        "r1_hereditary.py):",
        f"    sums with a land that is not hereditarily R1: {h['sums_not_hereditary']:,} of "
        f"{s['sums']:,}; by condition failed somewhere below: {h['sums_by_condition']}, by a "
        f"land itself: {h['sums_by_condition_at_top']}",
        f"    failures with such a land: {h['failures_not_hereditary']} of {len(s['failures'])}; "
        f"by condition: {h['failures_by_condition']}, by a land itself: "
        f"{h['failures_by_condition_at_top']}; by the set of conditions failed: "
        f"{h['failures_by_conditions_failed']}",
        f"    sums of hereditarily R1 lands: {h['hereditary_sums']:,}; a case applies to "
        f"{h['hereditary_sums_case_applies']:,}; no case but exact W: "
        f"{h['hereditary_sums_no_case_but_exact_W']}; a case but exact L: "
        f"{h['hereditary_sums_case_but_exact_L']}; failures: "
        f"{len(h['failures_on_hereditary_sums'])} {h['failures_on_hereditary_sums']}",
        f"    lands whose class by the table's RCT differs from the solvers': "
        f"{h['rct_class_disagreements']}",
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
