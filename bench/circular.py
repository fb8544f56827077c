"""Circular sprouts against the Brussels-sprout theory paper: η[CS4(P4: p,1,q,1)] beside
Theorem 5.1 for 0 ≤ p ≤ q ≤ N, and η[BS2(P4: p,q)] through the paper's §6 reduction.

Run on demand (not part of the test suite):
    .venv/bin/python bench/circular.py                     # q ≤ 40, BS2 for 3 ≤ p ≤ q ≤ 12
    .venv/bin/python bench/circular.py --max-q 20 --budget 60
    .venv/bin/python bench/circular.py --store /tmp/cs.lmdb # keep the store (game "circular")
The nimbers are solved by the normal-play solver into a real LMDB store, q by q, until
--max-q or the CPU budget; then every stored fact is checked (check_facts, one memo), and the
certificates of a few roots, and of every disagreement, are re-derived from the store alone
(Checker.check, which searches a small proof: about a second per root at q = 24). A disagreement with the
formula is listed with its certificate's verdict: it is a finding, not something to hide.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from sproutsdb.solver.circular.game import CANON_VERSION, CircularGame
from sproutsdb.solver.circular.paper import bs2_first_move_nimber, bs2_nimber, cs4_text, theorem_5_1
from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore

GAME = CircularGame()


def solve_square(solver: NormalSolver, max_q: int, budget: float) -> dict[tuple[int, int], int]:
    """η[CS4(p,1,q,1)] for 0 ≤ p ≤ q, q = 0, 1, … until max_q or the CPU budget runs out."""
    values: dict[tuple[int, int], int] = {}
    started = time.process_time()
    for q in range(max_q + 1):
        if time.process_time() - started > budget:
            break
        for p in range(q + 1):
            values[p, q] = solver.nimber(GAME.canonical(cs4_text(p, q)))
    return values


def print_square(values: dict[tuple[int, int], int]) -> list[tuple[int, int, int, int]]:
    """One line per q: the computed η for p = 0..q, a `*` after any that differs from the
    formula. Returns the disagreements (p, q, computed, formula)."""
    wrong: list[tuple[int, int, int, int]] = []
    last_q = max(q for _, q in values)
    print("η[CS4(P4: p,1,q,1)] for p = 0..q ('*' marks a value that differs from Theorem 5.1)")
    for q in range(last_q + 1):
        cells = []
        for p in range(q + 1):
            value, formula = values[p, q], theorem_5_1(p, q)
            cells.append(f"{value}{'*' if value != formula else ''}")
            if value != formula:
                wrong.append((p, q, value, formula))
        print(f"  q={q:>2}: " + " ".join(cells))
    return wrong


def check_store(store: LmdbProofStore) -> tuple[int, int, float]:
    """Check every stored fact with one memo (a whole-store check): each root CS(p,1,q,1) is
    one land, so its own stored nimber is among them. Returns (facts, verified, CPU s)."""
    started = time.process_time()
    facts = [key for key, _ in store.iter_facts(FactKind.NIMBER)]
    verified = len(Checker(GAME, store).check_facts(facts).verified)
    return len(facts), verified, time.process_time() - started


def certificate(store: LmdbProofStore, p: int, q: int) -> str:
    """Re-derive CS(p,1,q,1)'s nimber from the store alone, as `check` does for one root."""
    started = time.process_time()
    report = Checker(GAME, store).check(GAME.canonical(cs4_text(p, q)))
    verdict = f"η = {report.nimber} proved" if report.proved == "nimber" else "FAILS"
    return (
        f"CS({p},1,{q},1): {verdict} from {len(report.used)} stored facts "
        f"in {time.process_time() - started:.1f} CPU s"
    )


def sample_roots(top: int) -> list[tuple[int, int]]:
    """A few roots of the square, one per case of the formula, the largest reached."""
    middle = [(p, q) for q in range(top + 1) for p in range(q) if q < 2 * p - abs(p - 2) // 2]
    return [(top, top), (top // 2, top), *middle[-1:]]


def print_bs2(values: dict[tuple[int, int], int], solver: NormalSolver, top: int) -> None:
    """η[BS2(P4: p,q)] for 3 ≤ p ≤ q ≤ top and η of its only child, from the solver."""

    def cs4(a: int, c: int) -> int:
        low, high = min(a, c), max(a, c)
        if (low, high) in values:
            return values[low, high]
        return solver.nimber(GAME.canonical(cs4_text(low, high)))

    print(f"\nη[BS2(P4: p,q)] by §6 (after the first move: η in brackets), 3 ≤ p ≤ q ≤ {top}")
    nonzero = []
    for p in range(3, top + 1):
        cells = []
        for q in range(p, top + 1):
            root, child = bs2_nimber(p, q, cs4), bs2_first_move_nimber(p, q, cs4)
            cells.append(f"q={q}:{root}[{child}]")
            if root != 0:
                nonzero.append((p, q))
        print(f"  p={p:>2}: " + " ".join(cells))
    print(f"  Theorem 6.1 (η = 0): {'holds' if not nonzero else f'fails at {nonzero}'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-q", type=int, default=40)
    parser.add_argument("--budget", type=float, default=540.0, help="CPU seconds for solving")
    parser.add_argument("--bs2", type=int, default=12, help="largest q of the BS2 table")
    parser.add_argument("--store", type=Path, help="LMDB store to use (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = args.store if args.store is not None else Path(scratch) / "circular"
        with LmdbProofStore.open(
            path, game="circular", canon_version=CANON_VERSION, durable=False
        ) as store:
            solver = NormalSolver(GAME, store)
            started = time.process_time()
            values = solve_square(solver, args.max_q, args.budget)
            solve_seconds = time.process_time() - started
            store.flush()
            reached = max(q for _, q in values)
            wrong = print_square(values)
            stats = solver.stats
            print(
                f"\nsolved 0 ≤ p ≤ q ≤ {reached} ({len(values)} positions) in "
                f"{solve_seconds:.1f} CPU s; {stats.nodes:,} nodes, "
                f"{stats.facts_stored:,} facts stored"
            )
            facts, verified, check_seconds = check_store(store)
            print(
                f"whole-store check: {verified:,}/{facts:,} stored facts verified "
                f"in {check_seconds:.1f} CPU s (every root above is one of them)"
            )
            print(f"disagreements with Theorem 5.1: {len(wrong)}")
            for p, q, value, formula in wrong:
                print(f"  computed {value}, formula {formula}; {certificate(store, p, q)}")
            print("root certificates re-derived one by one (one root per case of the formula):")
            for p, q in sample_roots(reached):
                print(f"  {certificate(store, p, q)}")
            if args.bs2 >= 3:
                print_bs2(values, solver, args.bs2)
            store.flush()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS {peak:.0f} MB; total CPU {time.process_time():.1f} s")


if __name__ == "__main__":
    main()
