"""Misère mutation fuzzer (run on demand; issue 26): a real misère proof attacked one fact at
a time, and the complete misère table of a small tree several facts at once.

    .venv/bin/python bench/misere_fuzz.py --all [--root 0*12] [--tree 0*5] [--json]
    .venv/bin/python bench/misere_fuzz.py --sample 20          # 20 mutations of each kind

Solves ROOT in misère play with the shipped S6 table's RCTs and prunes the proof as
`check --misere --prune` does (its losing nodes, position → RCT entries and RCT records),
then mutates every fact (tests/misere_mutations.py says how, and how each mutation is
checked in-process as `check --misere` checks a store): nodes deleted, stored as "W",
renamed (parity flipped, to a winning child, an RCT id swapped); entries deleted, pointed
to another real RCT of the other / the same outcome, or to an unknown id; records
corrupted field by field, or deleted; and `--fake-worlds` worlds wrong in one land only (a
forged entry and the losing nodes of a liar's solve under it). Then `--corruptions` random corruptions of k = 2..5
facts of the complete misère table of the tree of TREE (plain, and with RCTs), each
checked for `--roots` positions of the tree.

Prints, per kind: mutations tried, refused, accepted with the true outcome (a deletion the
proof does without, a fact it does not need), FALSE acceptances, seconds; exits 1 if any
false acceptance (each one is printed: the mutation and what the check said).

Figures of earlier runs, with their dates and machines: bench/history/misere_fuzz.md (a
run prints its own).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from misere_mutations import (
    Fuzzer,
    Tally,
    TreeFuzzer,
    build_proof,
    fuzz_claims,
    fuzz_fake_worlds,
    fuzz_nodes,
    fuzz_records,
    fuzz_tree,
    shipped_table,
    tree_table,
)
from sproutsdb.solver.ports.proofstore import FactKind


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    scope = parser.add_mutually_exclusive_group(required=True)
    scope.add_argument("--all", action="store_true", help="every mutation of every fact")
    scope.add_argument("--sample", type=int, metavar="N", help="N mutations of each kind")
    parser.add_argument("--root", default="0*12", help="the proof to mutate (default 0*12)")
    parser.add_argument("--tree", default="0*5", help="the tree whose table to corrupt")
    parser.add_argument("--corruptions", type=int, default=400, help="multi-fact, per mode")
    parser.add_argument("--roots", type=int, default=12, help="roots checked per corruption")
    parser.add_argument(
        "--end-to-end",
        type=int,
        default=20,
        help="record mutations also checked whole from a fresh algebra (seeded sample)",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="check every retargeted position → RCT entry whole too (slow: about 1 s each)",
    )
    parser.add_argument(
        "--fake-worlds", type=int, default=8, help="worlds wrong in one land (a solve each)"
    )
    parser.add_argument(
        "--skip", default="", help="comma-separated: nodes,claims,records,fake,tree"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    sample = None if args.all else args.sample

    started = time.perf_counter()
    table = shipped_table()
    proof = build_proof(args.root, table)
    fuzzer = Fuzzer(proof)
    built = time.perf_counter() - started
    sizes = {kind.value: len(proof.facts[kind]) for kind in FactKind if proof.facts[kind]}
    note(args, f"{args.root}: {proof.outcome}, proof of {sizes} built in {built:.1f} s")

    tally = Tally()
    if "nodes" not in skip:
        fuzz_nodes(fuzzer, tally, sample, args.seed)
        note(args, f"nodes done, {time.perf_counter() - started:.0f} s")
    if "claims" not in skip:
        fuzz_claims(fuzzer, tally, sample, args.seed, full=args.full)
        note(args, f"pos_rct done, {time.perf_counter() - started:.0f} s")
    if "records" not in skip:
        fuzz_records(fuzzer, tally, sample, args.seed, end_to_end=args.end_to_end)
        note(args, f"records done, {time.perf_counter() - started:.0f} s")
    if "fake" not in skip:
        fuzz_fake_worlds(fuzzer, tally, args.fake_worlds, args.seed)
        note(args, f"fake worlds done, {time.perf_counter() - started:.0f} s")
    tree_info: dict[str, int] = {}
    if "tree" not in skip:
        tree = tree_table(args.tree, table)
        tree_fuzzer = TreeFuzzer(tree, table)
        tree_info = {
            "positions": len(tree.positions),
            "plain_losing": len(tree.plain),
            **{f"rct_{k.value}": len(v) for k, v in tree.facts.items() if v},
        }
        for mode in ("plain", "rct"):
            fuzz_tree(tree_fuzzer, tally, args.corruptions, args.roots, args.seed, mode=mode)
        note(args, f"tree of {args.tree} done, {time.perf_counter() - started:.0f} s")

    seconds = time.perf_counter() - started
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    result = {
        "root": args.root,
        "outcome": proof.outcome,
        "proof": sizes,
        "tree": args.tree,
        "tree_table": tree_info,
        "scope": "all" if args.all else f"sample {args.sample}",
        "rows": tally.rows(),
        "tried": sum(tally.tried.values()),
        "false_acceptances": tally.total_false,
        "false": tally.false[:50],
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu.ru_utime + cpu.ru_stime, 1),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 1 if tally.total_false else 0


def note(args: argparse.Namespace, text: str) -> None:
    if not args.json:
        print(text, file=sys.stderr, flush=True)


def print_table(result: dict[str, object]) -> None:
    rows = result["rows"]
    assert isinstance(rows, list)
    print(f"{'kind':<24}{'tried':>8}{'refused':>9}{'acc-true':>9}{'FALSE':>7}{'s':>8}  how")
    for row in rows:
        how = ", ".join(f"{k} {n}" for k, n in row["how"].items())
        print(
            f"{row['kind']:<24}{row['tried']:>8}{row['refused']:>9}{row['accepted_true']:>9}"
            f"{row['false_acceptances']:>7}{row['seconds']:>8.1f}  {how}"
        )
    print(
        f"total: {result['tried']} mutations, {result['false_acceptances']} false acceptances, "
        f"{result['seconds']} s ({result['cpu_seconds']} CPU s); proof {result['proof']}; "
        f"tree table {result['tree_table']}"
    )
    false = result["false"]
    assert isinstance(false, list)
    for line in false:
        print(f"  FALSE ACCEPTANCE: {line}")


if __name__ == "__main__":
    sys.exit(main())
