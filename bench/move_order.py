"""How well the misère search's move order finds the losing child, read off a certificate.

    python bench/move_order.py                  # the library's misère 0*17 certificate
    python bench/move_order.py --n 16

A misère proof shows every child of each losing node winning, each by one losing child. For
every such winning node of the certificate's proof tree, this ranks its children in the
search's order (`MisereSolver._sized_children`' sizes, as `_expand` sorts them) and reports
where the first child the certificate holds losing stands, beside a few other orders of the
same sizes. Offline and approximate: a child the certificate does not hold may lose too, and
the certificate was found by the current order, so the measure leans toward it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sproutsdb.ops.exchange import import_file
from sproutsdb.ops.results import read_manifest, shipped_library
from sproutsdb.ops.stores import open_proof_store
from sproutsdb.solver.misere.solver import MisereSolver, NodeParts, Size
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.trusted_tables import verified_rcts

TABLE = Path(__file__).resolve().parents[1] / "sproutsdb" / "data" / "s6.rcttable"

# Orders of a child's size (lives, -lands, nim flag, RCT height); the first is the search's.
ORDERS: dict[str, Callable[[Size], tuple[int, ...]]] = {
    "search (lives, -lands, nim, height)": lambda s: s,
    "nim flag first": lambda s: (s[2], s[0], s[1], s[3]),
    "lives, height, -lands, nim": lambda s: (s[0], s[3], s[1], s[2]),
    "lives + height, -lands, nim": lambda s: (s[0] + s[3], s[1], s[2]),
    "lives, -lands, nim, -height": lambda s: (s[0], s[1], s[2], -s[3]),
}


def losing_keys(n: int) -> set[str]:
    """The losing nodes of the library's misère certificate of 0*n."""
    library = shipped_library()
    entry = next(
        (e for e in read_manifest(library) if e.play == "misere" and e.position == f"0*{n}"),
        None,
    )
    if entry is None:
        raise SystemExit(f"the results library has no misère certificate of 0*{n}")
    with tempfile.TemporaryDirectory(prefix="move-order-") as folder:
        store: Any = open_proof_store(folder, game="sprouts")
        try:
            import_file(library / entry.file, store)
            return {k for k, v in store.iter_facts(FactKind.MISERE) if v == "L"}
        finally:
            store.close()


def winning_nodes(n: int) -> list[list[tuple[Size, bool]]]:
    """For each winning node of the proof tree of 0*n: its children's sizes, each with
    whether the certificate (or the rules) has it losing."""
    losing = losing_keys(n)
    solver = MisereSolver(SproutsGame(), MemoryProofStore(), verified_rcts(TABLE))

    def loses(key: str, node: NodeParts) -> bool:
        return key in losing or (not node[0] and solver._static(node) is True)

    rows: list[list[tuple[Size, bool]]] = []
    replies: dict[str, tuple[str, NodeParts]] = {}  # winning node -> its first losing child

    def winning(key: str, node: NodeParts) -> tuple[str, NodeParts]:
        """The first losing child of a winning node; its children counted once (a node
        several losing nodes lead to is one node of the tree)."""
        found = replies.get(key)
        if found is None:
            kids = solver._sized_children(node)
            rows.append([(size, loses(k, child)) for k, (size, child) in kids.items()])
            ranked = sorted(kids.items(), key=lambda item: item[1][0])
            found = next((k, child) for k, (_, child) in ranked if loses(k, child))
            replies[key] = found
        return found

    root = solver.node(f"0*{n}")
    key = solver.key(root)
    stack: list[tuple[str, NodeParts]] = [(key, root)] if loses(key, root) else [winning(key, root)]
    seen: set[str] = set()
    while stack:
        key, node = stack.pop()
        if key in seen or (not node[0] and solver._static(node) is not None):
            continue
        seen.add(key)
        for child_key, (_, child) in solver._sized_children(node).items():
            if child[0] or solver._static(child) is not False:  # not a win by the rules
                stack.append(winning(child_key, child))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=17, help="the certificate of 0*n (default 17)")
    args = parser.parse_args(argv)
    rows = winning_nodes(args.n)
    print(f"misère 0*{args.n}: {len(rows):,} winning nodes in the certificate's proof tree")
    print(f"{'order':38} {'first child loses':>18} {'mean rank':>10}")
    for name, order in ORDERS.items():
        ranks = []
        for children in rows:
            ranked = sorted(children, key=lambda child: order(child[0]))
            ranks.append(next(i for i, (_, loses) in enumerate(ranked) if loses))
        first = sum(rank == 0 for rank in ranks) / len(ranks)
        print(f"{name:38} {first:>17.1%} {statistics.mean(ranks):>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
