"""Check benchmark: proof sizes after pruning with random check cycles, beside the paper's,
and import / check throughput with the projected time for a 12 GB `.spr` database.

Run on demand (not part of the test suite):
    .venv/bin/python bench/check.py                  # normal 0*2 .. 0*11, 10 cycles
    .venv/bin/python bench/check.py --max 9 --cycles 3
    .venv/bin/python bench/check.py --scale /tmp/scale-store   # check --all throughput only
Each 0*n is solved (outcome only, as in the paper) on a fresh LMDB store in a temp
directory; `check --cycles K` then keeps the smallest proof of the outcome that the
stored facts allow. The checker can only prune what the solver stored, so its sizes are
bounded below by the solver's own tree, not by the paper's hand-tuned searches.

Figures of earlier runs, with their dates and machines: bench/history/check.md (a run
prints its own).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sproutsdb.formats.spr import write_spr
from sproutsdb.ops import CHECK_BATCH, export_store, import_file, import_spr
from sproutsdb.solver.normal.check import Checker, check_with_cycles
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore

# The smallest known pruned proofs of 0*n (losing couples), and GLOP's own counts of 2010
# ("Nimbers are inevitable", §6: the solution tree at the end of its computation, pruned).
PAPER_NORMAL = {2: 3, 3: 6, 4: 15, 5: 15, 6: 43, 7: 65, 8: 137, 9: 58, 10: 110, 11: 113}
GLOP_2010 = {2: 3, 3: 6, 4: 16, 5: 38, 6: 64, 7: 103, 8: 205, 9: 63, 10: 140, 11: 140}
# Misère 0*7..0*12: positions beyond the S6 table.
PAPER_MISERE = {
    7: 7,
    8: 24,
    9: 44,
    10: 114,
    11: 79,
    12: 983,
    13: 1082,
    14: 3517,
    15: 6906,
    16: 8981,
    17: 17583,
}
TWELVE_GB = 12 * 10**9


def store_at(path: Path) -> LmdbProofStore:
    return LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION, durable=False)


def proof_sizes(work: Path, top: int, cycles: int, budget: float) -> Path | None:
    """Print the table of proof sizes; return the largest store made (for throughput)."""
    game = SproutsGame()
    print(f"normal play, outcome proofs, check --prune --cycles {cycles}")
    print(
        f"{'pos':>5} {'out':>3} {'stored':>7} {'first':>6} {'best':>6} {'paper':>6} "
        f"{'GLOP10':>6} {'solve s':>8} {'check s':>8}"
    )
    started = time.perf_counter()
    largest: Path | None = None
    for n in range(2, top + 1):
        if time.perf_counter() - started > budget:
            print(f"  (stopped before 0*{n}: the {budget:.0f} s budget is spent)")
            break
        path = work / f"s{n}"
        with store_at(path) as store:
            solver = NormalSolver(game, store)
            t0 = time.perf_counter()
            outcome = solver.outcome(f"0*{n}")
            solver.flush()
            solve_s = time.perf_counter() - t0
            stored = store.count(FactKind.NIMBER)
            t0 = time.perf_counter()
            best, sizes = check_with_cycles(
                game, store, f"0*{n}", cycles=cycles, seed=n, outcome_only=True
            )
            check_s = time.perf_counter() - t0
        assert best.ok and best.outcome == outcome, (n, best.missing, best.inconsistent)
        print(
            f"{'0*' + str(n):>5} {outcome:>3} {stored:>7} {sizes[0]:>6} {len(best.used):>6} "
            f"{PAPER_NORMAL[n]:>6} {GLOP_2010[n]:>6} {solve_s:>8.1f} {check_s:>8.1f}",
            flush=True,
        )
        if largest is None or stored > _count(largest):
            largest = path
    return largest


def _count(path: Path) -> int:
    with store_at(path) as store:
        return store.count(FactKind.NIMBER)


def throughput(work: Path, source: Path) -> None:
    """Import (.spr and native) and full-check rates on the largest store made."""
    game = SproutsGame()
    with store_at(source) as store:
        facts = store.count(FactKind.NIMBER)
        spr, native = work / "big.spr", work / "big.spdbx"
        write_spr(store.iter_facts(FactKind.NIMBER), spr)  # nimbers only
        export_store(store, native)
        keys = [land for land, _ in store.iter_facts(FactKind.NIMBER)]
        t0 = time.perf_counter()
        report = Checker(game, store).check_facts(keys)  # every fact, one shared memo
        verified = len(report.verified)
        check_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    import_spr(spr, str(work / "from-spr"), dialect="auto", quiet=True)
    spr_s = time.perf_counter() - t0
    with store_at(work / "from-native") as target:
        t0 = time.perf_counter()
        import_file(native, target)
        native_s = time.perf_counter() - t0
    size = spr.stat().st_size
    per_line = size / facts
    lines_12gb = TWELVE_GB / per_line
    print(f"\nthroughput on {facts:,} facts ({size / facts:.0f} bytes per .spr line):")
    print(
        f"  import .spr   {facts / spr_s:>10,.0f} facts/s  -> 12 GB (~{lines_12gb / 1e6:,.0f} M "
        f"lines) in {lines_12gb / (facts / spr_s) / 3600:,.1f} h"
    )
    print(f"  import native {facts / native_s:>10,.0f} facts/s")
    print(
        f"  check every fact {facts / check_s:>9,.0f} facts/s, {verified:,}/{facts:,} "
        f"verified -> 12 GB in {lines_12gb / (facts / check_s) / 3600:,.1f} h"
    )
    check_all_rates(work, source, lines_12gb)


def check_all_rates(work: Path, source: Path, lines_12gb: float, batch: int = 500) -> None:
    """`sproutsdb check --all` with 1 and 2 processes, each run a fresh command on a fresh
    unverified copy of the store (this process is warm: the engine memoises canonical lands,
    which makes an in-process check up to 1.8x faster than a new process). CPU seconds
    include the workers', so the work done can be told apart from the share of a busy
    machine's cores the run got."""
    rates: dict[int, float] = {}
    for jobs in (1, 2):
        copy = work / f"check-all-{jobs}"
        with store_at(source) as store, store_at(copy) as target:
            target.put(FactKind.NIMBER, dict(store.iter_facts(FactKind.NIMBER)))
        cpu0 = _cpu_seconds()
        done = subprocess.run(
            check_all_command(copy, batch, "--jobs", str(jobs)),
            capture_output=True,
            text=True,
            check=True,
        )
        cpu = _cpu_seconds() - cpu0
        totals = json.loads(done.stdout)
        rates[jobs] = totals["facts"] / totals["seconds"]
        ratio = "" if jobs == 1 else f", x{rates[jobs] / rates[1]:.2f} the rate of 1"
        print(
            f"  check --all --jobs {totals['jobs']} {rates[jobs]:>6,.0f} facts/s, "
            f"{totals['verified_now']:,}/{totals['facts']:,} verified, {cpu:.1f} s CPU "
            f"-> 12 GB in {lines_12gb / rates[jobs] / 3600:,.1f} h{ratio} (batch {batch})"
        )


CERTIFICATE_FACTS = 656e6  # SPOTS's largest certificate, 12 GB, left unverified
CORES = (2, 32, 1024)


def check_all_command(store: Path, batch: int, *extra: str) -> list[str]:
    """The command line of `sproutsdb check --all --json --quiet` on `store` (a new
    process, as users run it), with `extra` options."""
    return [
        sys.executable, "-m", "sproutsdb", "check", "--store", str(store), "--all",
        "--json", "--quiet", "--batch", str(batch), *extra,
    ]  # fmt: skip


SCALE_SOLVES = (("0*11",), ("0*12", "--search", "dfs"), ("0*13", "--search", "dfs"))


def solve_scale_store(path: Path) -> None:
    """The store of the --scale figures, when `path` does not exist yet: 0*11, then 0*12
    and 0*13 with --search dfs (which stores far more facts than df-pn), 269,090 facts
    in about 7 CPU-minutes."""
    for solve in SCALE_SOLVES:
        started = time.perf_counter()
        cmd = [sys.executable, "-m", "sproutsdb", "solve", *solve, "--store", str(path)]
        subprocess.run([*cmd, "--quiet"], check=True)
        print(f"  solve {' '.join(solve)}: {time.perf_counter() - started:.0f} s", flush=True)


def fresh_copy(source: Path, to: Path, max_lives: int | None) -> int:
    """An unverified copy of the nimber facts of `source` (those of at most `max_lives`
    lives: a closed set, since a fact's check uses only lands of fewer lives)."""
    from sproutsdb.solver.sprouts.notation import key_lives

    count = 0
    with (
        LmdbProofStore.open(
            source, game="sprouts", canon_version=CANON_VERSION, create=False, readonly=True
        ) as store,
        store_at(to) as target,
    ):
        chunk: dict[str, int] = {}
        for land, value in store.iter_facts(FactKind.NIMBER):
            if max_lives is None or key_lives(land) <= max_lives:
                chunk[land] = value
            if len(chunk) >= 50_000:
                count += len(chunk)
                target.put(FactKind.NIMBER, chunk)
                chunk = {}
        count += len(chunk)
        target.put(FactKind.NIMBER, chunk)
    return count


def _tree_usage(root: int, seen: dict[int, tuple[float, int]]) -> int:
    """Record CPU seconds and RSS of `root` and its descendants from /proc (the Ray
    processes a command starts are its descendants); the RSS summed over the tree now."""
    tick, page = os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE")
    parents: dict[int, int] = {}
    stats: dict[int, tuple[float, int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
        stats[int(entry)] = ((int(fields[11]) + int(fields[12])) / tick, int(fields[21]) * page)
    total = 0
    for pid, (cpu, rss) in stats.items():
        walk = pid
        while walk not in (0, 1, root) and walk in parents:
            walk = parents[walk]
        if walk == root:
            old_cpu, old_rss = seen.get(pid, (0.0, 0))
            seen[pid] = (max(cpu, old_cpu), max(rss, old_rss))
            total += rss
    return total


def check_scale(source: Path, work: Path, max_lives: int | None, batch: int) -> None:
    """`check --all` with --jobs 1, --jobs 2 and --ray (a local Ray instance, 2 workers),
    each a new command on a fresh unverified copy of the same store: facts/s (wall and per
    CPU-second of the whole process tree, workers and Ray's own processes included), peak
    RSS, and the hours 656 M facts would take on 2, 32 and 1 024 cores at each mode's
    facts per CPU-second (linear scaling assumed: workers share nothing but the store)."""
    modes = [
        ("--jobs 1", ["--jobs", "1"]),
        ("--jobs 2", ["--jobs", "2"]),
        ("--ray", ["--ray", "--jobs", "2"]),
    ]
    header = (
        f"{'mode':>9} {'facts':>8} {'wall s':>7} {'CPU s':>7} {'facts/s':>8} "
        f"{'/CPU-s':>7} {'RSS MB':>14} " + " ".join(f"{c:>6}c h" for c in CORES)
    )
    print(f"check --all on {source} (lives <= {max_lives or 'all'}), batch {batch}")
    print(header)
    base: float | None = None
    for label, extra in modes:
        copy = work / f"scale{label.replace(' ', '').replace('-', '')}"
        facts = fresh_copy(source, copy, max_lives)
        seen: dict[int, tuple[float, int]] = {}
        peak_tree = 0
        started = time.perf_counter()
        proc = subprocess.Popen(
            check_all_command(copy, batch, *extra),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        while proc.poll() is None:
            peak_tree = max(peak_tree, _tree_usage(proc.pid, seen))
            time.sleep(0.2)
        wall = time.perf_counter() - started
        out, err = proc.communicate()
        if proc.returncode != 0:
            print(f"{label:>9} failed ({proc.returncode}): {err.strip()[-300:]}")
            continue
        totals = json.loads(out)
        assert totals["facts"] == facts and totals["ok"], totals
        cpu = sum(c for c, _ in seen.values())
        own = seen.get(proc.pid, (0.0, 0))[1]
        worker = max((r for pid, (_, r) in seen.items() if pid != proc.pid), default=0)
        per_cpu = facts / max(cpu, 1e-9)
        hours = " ".join(f"{CERTIFICATE_FACTS / (per_cpu * c) / 3600:>8,.1f}" for c in CORES)
        ratio = "" if base is None else f"  x{(facts / wall) / base:.2f} the wall rate of --jobs 1"
        base = base or facts / wall
        print(
            f"{label:>9} {facts:>8,} {wall:>7.1f} {cpu:>7.1f} {facts / wall:>8,.0f} "
            f"{per_cpu:>7,.0f} {own >> 20:>4}/{worker >> 20:>4}/{peak_tree >> 20:>4} {hours}"
            f"{ratio}",
            flush=True,
        )
    print(
        "  RSS MB: the command's peak / the largest other process's peak (a worker, or a "
        "Ray daemon) / the tree's peak sum"
    )


def _cpu_seconds() -> float:
    """CPU time of this process's finished children (a command and its workers)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def misere_sizes(table_path: Path, top: int, cycles: int, budget: float) -> None:
    """Misère 0*7..0*top solved with the S6 RCT table, then checked with cycles: the
    losing nodes the proof uses (the paper counts positions beyond the S6 table)."""
    from sproutsdb.formats.rcttable import load_table
    from sproutsdb.solver.misere.check import check_misere_with_cycles
    from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
    from sproutsdb.solver.ports.proofstore import MemoryProofStore

    game = SproutsGame()
    t0 = time.perf_counter()
    table = load_table(table_path)
    print(
        f"\nmisère play with {table_path} ({time.perf_counter() - t0:.1f} s to load and "
        f"re-derive), check --misere --prune --cycles {cycles}"
    )
    print(
        f"{'pos':>5} {'out':>3} {'stored':>7} {'first':>6} {'best':>6} {'paper':>6} "
        f"{'GLOP10':>6} {'solve s':>8} {'check s':>8}"
    )
    started = time.perf_counter()
    for n in range(7, top + 1):
        if time.perf_counter() - started > budget:
            print(f"  (stopped before 0*{n}: the {budget:.0f} s budget is spent)")
            break
        store, rcts = MemoryProofStore(), TableRcts(table)
        solver = MisereSolver(game, store, rcts)
        t0 = time.perf_counter()
        outcome = solver.outcome(f"0*{n}")
        solver.flush()
        solve_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        engine = MisereSolver(game, MemoryProofStore(), rcts)
        best, sizes = check_misere_with_cycles(engine, store, f"0*{n}", cycles=cycles, seed=n)
        check_s = time.perf_counter() - t0
        assert best.ok and best.outcome == outcome, (n, best.missing, best.inconsistent)
        print(
            f"{'0*' + str(n):>5} {outcome:>3} {store.count(FactKind.MISERE):>7} {sizes[0]:>6} "
            f"{len(best.used):>6} {PAPER_MISERE.get(n, '-'):>6} {solve_s:>8.1f} {check_s:>8.1f}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=11, help="largest n of 0*n (≤ 11)")
    parser.add_argument("--cycles", type=int, default=10)
    parser.add_argument("--budget", type=float, default=300, help="seconds for the size table")
    parser.add_argument(
        "--misere-max",
        type=int,
        default=12,
        help="largest misère 0*n (0*13 and 0*14 take 1-3 min each to solve)",
    )
    parser.add_argument(
        "--table",
        type=Path,
        default=Path(__file__).parent.parent / "data" / "s6.rcttable",
        help="RCT table for the misère runs",
    )
    parser.add_argument(
        "--scale",
        type=Path,
        metavar="STORE",
        default=None,
        help="only the check --all scaling table, on copies of STORE (a solved store; "
        "when STORE does not exist, first solved as in the figures above: 0*11, 0*12 and "
        "0*13 --search dfs, about 7 min)",
    )
    parser.add_argument(
        "--max-lives",
        type=int,
        default=None,
        help="with --scale: copy only the facts of at most this many lives",
    )
    parser.add_argument(
        "--batch",
        type=int,
        default=CHECK_BATCH,
        help="with --scale: facts per batch (default: check --all's, %(default)s)",
    )
    args = parser.parse_args()
    if args.scale is not None:
        if not args.scale.exists():
            print(f"solving the --scale store into {args.scale}", flush=True)
            solve_scale_store(args.scale)
        with tempfile.TemporaryDirectory(prefix="bench-check-") as tmp:
            check_scale(args.scale, Path(tmp), args.max_lives, args.batch)
        return
    with tempfile.TemporaryDirectory(prefix="bench-check-") as tmp:
        work = Path(tmp)
        largest = proof_sizes(work, min(args.max, 11), args.cycles, args.budget)
        if largest is not None:
            throughput(work, largest)
    if args.misere_max >= 7:
        misere_sizes(args.table, args.misere_max, args.cycles, args.budget)


if __name__ == "__main__":
    main()
