"""`sproutsdb check`: verify the proof of a position held in a store, optionally prune it.

The checking logic is `solver.check`; this module opens stores, marks verified facts,
writes the pruned store and prints the report. A root is proven as strongly as the store
allows: its nimber when its lands' facts are stored, else its outcome (`proved` says
which). Exit 0 only for a complete, consistent proof; 1 when the proof has holes or
inconsistencies; 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sproutsdb.facts import CHECK_MISERE_ROOT, CHECK_ROOT
from sproutsdb.games import get_game
from sproutsdb.ops.parallel_check import (
    CheckPool,
    Tally,
    check_batch,
    level_batches,
    lives_order,
    new_checker,
)
from sproutsdb.progress import counter_bar
from sproutsdb.server.store import LmdbProofStore
from sproutsdb.solver.check import CheckReport, check_with_cycles
from sproutsdb.solver.proofstore import FactKind
from sproutsdb.solver.rct_trust import DEFAULT_DERIVE_LIVES as DEFAULT_DERIVE_RCT_LIVES
from sproutsdb.solver.rct_trust import DerivedRcts
from sproutsdb.tools.cli import UsageError, add_store_option
from sproutsdb.tools.stores import new_store, open_existing

EXIT_BAD_PROOF = 1
MARK_BATCH = 10_000
CHECK_BATCH = 20_000  # facts per memo of `check --all`: bounds its memory
DERIVED_SHOWN = 10  # lands derived from the rules named in a report
# Lands with no stored fact and at most this many lives are taken from the rules (SPOTS
# evaluates such lands on the fly and may not store them). Measured: import each SPOTS
# certificate of tests/fixtures/spots into a fresh store and run `sproutsdb check --root
# 0*N --derive-lives K --json` (N = 10, 12, 16) for K = 0, 1, 2, ...; the default is the
# smallest K for which all three exit 0. With canonical form v2 (Python reference and C
# core) K = 0 checks all three, so the default derives nothing.
DEFAULT_DERIVE_LIVES = 0
LOCAL_RAY = ""  # `--ray` with no address: start a local Ray instance


def report_dict(report: CheckReport, sizes: list[int], seconds: float) -> dict[str, Any]:
    """The JSON form of a check report."""
    return {
        "position": report.root,
        "ok": report.ok,
        "proved": getattr(report, "proved", "outcome" if report.ok else None),
        "nimber": report.nimber,
        "outcome": report.outcome,
        "facts_used": len(report.used),
        "derived": len(getattr(report, "derived", {})),
        "derived_lands": list(getattr(report, "derived", {}))[:DERIVED_SHOWN],
        "facts_verified": len(report.verified),
        "facts_unproven": report.unproven,
        "missing": [
            {"couple": h.couple, "needed_by": h.needed_by, "missing": list(h.missing)}
            for h in report.missing
        ],
        "inconsistent": [
            {"land": i.land, "stored": i.stored, "reason": i.reason} for i in report.inconsistent
        ],
        "cycle_sizes": sizes,
        "seconds": round(seconds, 3),
    }


def default_jobs() -> int:
    """The CPUs this process may run on (its affinity), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_store(
    store: LmdbProofStore,
    *,
    batch: int = CHECK_BATCH,
    quiet: bool = True,
    jobs: int | None = 1,
    derive_lives: int = 0,
    ray: str | None = None,
    recheck: bool = False,
    auto_jobs: bool = False,
) -> dict[str, Any]:
    """Check every nimber fact of a store, fewest lives first (see `lives_order`), `batch`
    facts per memo (bounded memory), marking verified ones as it goes; facts already
    verified are trusted, so an interrupted run resumes where it stopped. With `recheck`,
    no mark made before the run is trusted: every fact is re-derived and re-marked, and a
    fact that does not re-derive loses its mark (`withdrawn`).

    With `jobs` > 1, batches are checked by that many worker processes (never more than
    there are facts; with `auto_jobs`, a default rather than the user's number, never more
    than there are batches) and this process alone writes; the totals are the same as
    with one. `jobs` in the result is the number of processes that checked.
    `already_verified` counts the facts marked before this run, `unproven` those neither
    verified nor inconsistent; `missing` and `inconsistent` list the first SHOWN of each,
    sorted by land. With `derive_lives` K, unstored lands of at most K lives are taken
    from the rules; `derived` counts those the verified facts used (`derived_lands`: the
    first few).

    With `ray` (LOCAL_RAY: a new local instance; else a cluster's address), batches go
    to Ray workers instead, `jobs` of them (None: one per CPU of the cluster); the
    totals are again the same.
    """
    if ray is not None:
        return _check_store_on_ray(
            store,
            batch=batch,
            quiet=quiet,
            workers=jobs,
            derive_lives=derive_lives,
            address=ray or None,
            recheck=recheck,
        )
    jobs = 1 if jobs is None else jobs
    if batch < 1 or jobs < 1:
        raise UsageError("the batch size and the number of jobs must be at least 1")
    total = store.count(FactKind.NIMBER)
    jobs = _jobs_used(jobs, total, batch, auto_jobs)
    tally = Tally(recheck=recheck)
    with (
        lives_order(store, quiet=quiet) as spill,
        counter_bar("facts", enabled=not quiet, total=total) as bar,
    ):

        def done(lands: list[str], digest: Any) -> None:
            tally.add(store, lands, digest)
            bar.update_to(tally.facts)

        work = level_batches(spill, batch, jobs)
        if jobs == 1:
            marked_by = tally.run_marks if recheck else None
            checker = new_checker(store, derive_lives=derive_lives, marked_by=marked_by)
            for lands in work:
                done(lands, check_batch(checker, lands))
        else:
            run_marks = tally.run_marks if recheck else None
            with CheckPool(
                str(store.path), jobs, derive_lives=derive_lives, run_marks=run_marks
            ) as pool:
                pool.run(work, done)
    return _totals(store, tally, jobs)


def _jobs_used(jobs: int, facts: int, batch: int, auto: bool) -> int:
    """The processes a check uses: the number asked, but no more than there are facts (a
    default, `auto`: no more than there are batches, so a small store costs no workers)."""
    limit = -(-facts // batch) if auto else facts
    return max(1, min(jobs, limit))


def _totals(store: LmdbProofStore, tally: Tally, jobs: int) -> dict[str, Any]:
    """The nimber part of a whole-store check's report."""
    return {
        **tally.as_dict(),
        "jobs": jobs,
        "recheck": tally.recheck,
        "trusted_marks": tally.trusted_by_check(store),
        "withdrawn": tally.withdrawn_count,
        "withdrawn_first": tally.withdrawn,
    }


def _check_store_on_ray(
    store: LmdbProofStore,
    *,
    batch: int,
    quiet: bool,
    workers: int | None,
    derive_lives: int,
    address: str | None,
    recheck: bool = False,
) -> dict[str, Any]:
    """`check_store` with Ray workers (tools/ray_check.py), this process alone marking."""
    if batch < 1 or (workers is not None and workers < 1):
        raise UsageError("the batch size and the number of jobs must be at least 1")
    from sproutsdb.ops.ray_session import cluster_cpus, ray_session

    tally = Tally(recheck=recheck)
    with ray_session(address, num_cpus=workers) as ray:
        from sproutsdb.ops.ray_check import RayCheckPool

        count = workers or cluster_cpus(ray)
        count = _jobs_used(count, store.count(FactKind.NIMBER), batch, auto=False)
        with (
            lives_order(store, quiet=quiet) as spill,
            counter_bar("facts", enabled=not quiet, total=store.count(FactKind.NIMBER)) as bar,
            RayCheckPool(
                str(store.path),
                count,
                derive_lives=derive_lives,
                run_marks=tally.run_marks if recheck else None,
            ) as pool,
        ):

            def done(lands: list[str], digest: Any) -> None:
                tally.add(store, lands, digest)
                bar.update_to(tally.facts)

            pool.run(level_batches(spill, batch, count), done)
    return _totals(store, tally, count)


def run_check_all(args: argparse.Namespace) -> int:
    """`check --all`: every nimber (in batches, --jobs/--ray), then the RCT records, the
    position → RCT entries and the misère nodes (in this process; see tools/check_kinds)."""
    from sproutsdb.ops.check_kinds import KindChecks

    started = time.perf_counter()
    if args.ray is not None:
        jobs = args.jobs  # None: one worker per CPU of the Ray cluster
    else:
        jobs = default_jobs() if args.jobs is None else args.jobs
    with open_existing(args.store) as store:
        totals = check_store(
            store,
            batch=args.batch,
            quiet=args.quiet,
            jobs=jobs,
            derive_lives=args.derive_lives,
            ray=args.ray,
            recheck=args.recheck,
            auto_jobs=args.jobs is None,
        )
        nimber_seconds = time.perf_counter() - started
        others = KindChecks(store, recheck=args.recheck).run()
    seconds = time.perf_counter() - started
    done = totals["verified_now"] + totals["already_verified"]
    nimbers_ok = done == totals["facts"] and not totals.get("bad")
    ok = nimbers_ok and all(kind.ok for kind in others)
    totals.pop("bad", None)
    totals.pop("rechecked", None)  # work done, which depends on the jobs: for benchmarks
    kinds = [
        {
            "kind": "nimber",
            "facts": totals["facts"],
            "verified_now": totals["verified_now"],
            "already_verified": totals["already_verified"],
            "unproven": totals["unproven"],
            "ok": nimbers_ok,
        },
        *(kind.as_dict() for kind in others),
    ]
    report = {
        "ok": ok,
        **totals,
        "kinds": kinds,
        "seconds": round(seconds, 3),
        "facts_per_second": round(totals["facts"] / max(nimber_seconds, 1e-9)),
    }
    code = 0 if ok else EXIT_BAD_PROOF
    with _reader_may_stop():
        if args.json:
            print(json.dumps(report))
        else:
            timings = [nimber_seconds, *(kind.seconds for kind in others)]
            _print_all_text(report, seconds, timings)
    return code


def _print_all_text(report: dict[str, Any], seconds: float, timings: list[float]) -> None:
    """The text form of a whole-store check's report: a verdict naming the kinds covered,
    then one line per kind (with the seconds it took, `timings`) and its problems. (The
    JSON report keeps timings out of `kinds`: the same store gives the same `kinds`.)"""
    mode = " (recheck: no earlier mark trusted)" if report.get("recheck") else ""
    kinds = report.get("kinds", [])
    covered = ", ".join(_KIND_NAMES.get(k["kind"], k["kind"]) for k in kinds)
    print(
        f"{'all facts verified' if report['ok'] else 'NOT ALL FACTS VERIFIED'}{mode}: "
        f"{covered}; {seconds:.2f} s, {report['jobs']} job{'s' if report['jobs'] > 1 else ''}"
        " (nimbers; the other kinds in this process)"
    )
    if kinds:
        _print_kind(kinds[0], timings[0])
    if report.get("trusted_marks"):
        print(
            "    marks trusted (--recheck trusts none): "
            + ", ".join(f"{n:,} by {check}" for check, n in report["trusted_marks"].items())
        )
    if report.get("withdrawn"):
        print(
            f"    {report['withdrawn']:,} mark(s) of other checks withdrawn (not "
            f"re-derived): {', '.join(report['withdrawn_first'])}"
        )
    for hole in report["missing"]:
        print(
            f"    missing: ({hole['couple']}) needed by {hole['needed_by']}; a nimber of "
            f"any of: {', '.join(hole['missing']) or '(no candidate)'}"
        )
    if report.get("derived"):
        print(
            f"    {report['derived']:,} lands derived from the rules, not stored: "
            f"{', '.join(report['derived_lands'])}"
        )
    for bad in report["inconsistent"]:
        print(f"    inconsistent: {bad['land']} stored nimber {bad['stored']}: {bad['reason']}")
    for kind, spent in zip(kinds[1:], timings[1:], strict=True):
        _print_kind(kind, spent)


_KIND_NAMES = {
    "nimber": "nimbers",
    "rct": "RCT records",
    "pos_rct": "pos_rct entries",
    "misere": "misère nodes",
}


def _print_kind(kind: dict[str, Any], seconds: float) -> None:
    """One kind of fact (rct, pos_rct, misere) of a whole-store check, and its problems."""
    head = f"  {_KIND_NAMES.get(kind['kind'], kind['kind'])}: {kind['facts']:,}"
    if not kind["facts"]:
        print(f"{head} (none stored)")
        return
    parts = [
        f"{kind['verified_now']:,} verified now",
        f"{kind['already_verified']:,} already verified",
        f"{kind['unproven']:,} unproven",
    ]
    if kind.get("not_checked"):
        parts.append(f"{kind['not_checked']:,} not checked (over 18 lives)")
    print(f"{head} ({', '.join(parts)}, {seconds:.2f} s)")
    for bad in kind.get("inconsistent", []):
        print(f"    inconsistent: {bad['land']}: {bad['reason']}")
    if kind.get("not_checked_first"):
        print(f"    not checked: {', '.join(kind['not_checked_first'])}")
    if kind.get("withdrawn"):
        print(f"    {kind['withdrawn']:,} mark(s) of other checks withdrawn")


@contextmanager
def _reader_may_stop() -> Iterator[None]:
    """Printing a report to a reader that stops early (`| head`) keeps the exit status of
    the check (it would otherwise end as an OSError, exit 2: bad input)."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def run_check_misere(args: argparse.Namespace) -> int:
    """`check --misere`: the misère outcome of --root from stored losing nodes.

    The lands the checker replaces by RCTs come from the store's `pos_rct` claims or from
    --rct-table; each one is re-derived from the rules before it is used (solver.rct_trust),
    so a forged position → RCT entry is refuted (exit 1), never believed.
    """
    from sproutsdb.solver.check_misere import check_misere_with_cycles
    from sproutsdb.solver.misere import MisereSolver
    from sproutsdb.solver.proofstore import MemoryProofStore

    game = get_game().engine()
    if args.prune is not None:
        out = Path(args.prune).expanduser()
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise UsageError(f"--prune {out}: already exists and is not empty")
    started = time.perf_counter()
    with open_existing(args.store) as store:
        rcts, table_source = _misere_rct_source(args, store)
        # the solver class only as the engine (nodes, children, rules); it never searches
        engine = MisereSolver(game, MemoryProofStore(), rcts)
        report, sizes = check_misere_with_cycles(
            engine, store, args.root, cycles=args.cycles, seed=args.seed
        )
        if rcts is not None:
            report.inconsistent.extend(rcts.report.inconsistencies())
        verified = list(report.verified)
        for start in range(0, len(verified), MARK_BATCH):
            store.mark_verified(
                FactKind.MISERE, verified[start : start + MARK_BATCH], check=CHECK_MISERE_ROOT
            )
        if rcts is not None and table_source == "store" and not report.inconsistent:
            _mark_rcts_rederived(rcts, store)
    if args.prune is not None and report.ok:
        with new_store(args.prune) as pruned:
            keys = sorted(report.used)
            for start in range(0, len(keys), MARK_BATCH):
                pruned.put(
                    FactKind.MISERE,
                    {k: "L" for k in keys[start : start + MARK_BATCH]},
                    verified=True,
                )
            if rcts is not None:
                _copy_rcts_read(rcts, pruned)
    extra: dict[str, Any] = {"rct_source": table_source}
    if rcts is not None:
        extra["rct_claims"] = rcts.report.to_json()
    return _finish(args, report, sizes, started, play="misere", extra=extra)


def _misere_rct_source(
    args: argparse.Namespace, store: LmdbProofStore
) -> tuple[DerivedRcts | None, str]:
    """The RCTs a misère check may use, every one re-derived before use, and where the
    claims come from: --rct-table (the table re-derived whole, or its cached mark), the
    store's `pos_rct` facts (each land re-derived from its children), or none."""
    from sproutsdb.ops.shipped_rcts import say_on_stderr, shipped_rct_table
    from sproutsdb.solver.misere import StoreRcts, TableRcts
    from sproutsdb.trusted_tables import verified_table

    game = get_game().engine()
    if args.rct_table:
        table = verified_table(args.rct_table, notice=say_on_stderr)
        return DerivedRcts(game, TableRcts(table), trusted=table.rct_id_of), "file"
    if store.count(FactKind.RCT) or store.count(FactKind.POS_RCT):
        shipped = shipped_rct_table()  # re-derived whole once per install: a fast path
        trusted = shipped[0].rct_id_of if shipped is not None else None
        claims = StoreRcts(store)
        return DerivedRcts(game, claims, trusted=trusted, max_lives=args.derive_rct_lives), "store"
    return None, "none"


def _mark_rcts_rederived(rcts: DerivedRcts, store: LmdbProofStore) -> None:
    """Mark verified the store's `pos_rct` claims this check re-derived, and the records of
    the RCTs they name (records are re-derived whenever they are loaded)."""
    algebra = rcts.algebra
    lands = sorted(rcts.looked_up())
    for start in range(0, len(lands), MARK_BATCH):
        store.mark_verified(
            FactKind.POS_RCT, lands[start : start + MARK_BATCH], check=CHECK_MISERE_ROOT
        )
    cids = [algebra.content_id(h) for h in rcts.closure()]
    for start in range(0, len(cids), MARK_BATCH):
        store.mark_verified(FactKind.RCT, cids[start : start + MARK_BATCH], check=CHECK_MISERE_ROOT)


def _copy_rcts_read(rcts: DerivedRcts, pruned: LmdbProofStore) -> None:
    """Give a pruned misère proof the RCTs the check used: the losing nodes name RCTs and
    replace lands by them, so without these the pruned store cannot be checked on its own.
    Records are re-derived whenever they are loaded; the position → RCT entries were
    re-derived by this check, and the next check re-derives them again (claims)."""
    algebra = rcts.algebra
    records = [(algebra.content_id(h), algebra.record(h)) for h in rcts.closure()]
    for start in range(0, len(records), MARK_BATCH):  # children first: handle order
        pruned.put(FactKind.RCT, dict(records[start : start + MARK_BATCH]), verified=True)
    # every position the check replaced by its RCT
    mapped = sorted((land, algebra.content_id(h)) for land, h in rcts.looked_up().items())
    for start in range(0, len(mapped), MARK_BATCH):
        pruned.put(FactKind.POS_RCT, dict(mapped[start : start + MARK_BATCH]))


def run_check(args: argparse.Namespace) -> int:
    if args.cycles < 1:
        raise UsageError("--cycles must be at least 1")
    if args.recheck and (not args.all or args.misere):
        raise UsageError("--recheck is for --all (a whole-store check)")
    if args.jobs is not None and (not args.all or args.misere or args.jobs < 1):
        raise UsageError("--jobs N (N ≥ 1) is for --all")
    if args.ray is not None and (not args.all or args.misere):
        raise UsageError("--ray is for --all (normal play)")
    if args.derive_lives is not None and args.derive_lives < 0:
        raise UsageError("--derive-lives K needs K ≥ 0 (0: derive nothing)")
    if args.derive_rct_lives is not None and (not args.misere or args.derive_rct_lives < 0):
        raise UsageError("--derive-rct-lives K (K ≥ 0) is for --misere")
    if args.misere:
        if args.derive_rct_lives is None:
            args.derive_rct_lives = DEFAULT_DERIVE_RCT_LIVES
        if args.all or args.root is None or args.outcome_only or args.derive_lives is not None:
            raise UsageError(
                "--misere checks one --root (no --all, no --outcome-only, no --derive-lives)"
            )
        return run_check_misere(args)
    if args.derive_lives is None:
        args.derive_lives = DEFAULT_DERIVE_LIVES
    if args.rct_table is not None:
        raise UsageError("--rct-table is for misère play: add --misere")
    if args.all:
        if args.root is not None or args.prune is not None:
            raise UsageError("--all checks every fact: give no --root and no --prune")
        return run_check_all(args)
    if args.root is None:
        raise UsageError("give --root POS (or --all to check every fact of the store)")
    game = get_game().engine()
    key = game.canonical(args.root)
    if args.prune is not None:
        out = Path(args.prune).expanduser()
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise UsageError(f"--prune {out}: already exists and is not empty")
    started = time.perf_counter()
    with open_existing(args.store) as store:
        report, sizes = check_with_cycles(
            game,
            store,
            key,
            cycles=args.cycles,
            seed=args.seed,
            outcome_only=args.outcome_only,
            derive_lives=args.derive_lives,
        )
        verified = list(report.verified)
        for start in range(0, len(verified), MARK_BATCH):
            store.mark_verified(
                FactKind.NIMBER, verified[start : start + MARK_BATCH], check=CHECK_ROOT
            )
    if args.prune is not None and report.ok:
        with new_store(args.prune) as pruned:
            items = sorted(report.used.items())
            for start in range(0, len(items), MARK_BATCH):
                pruned.put(
                    FactKind.NIMBER,
                    dict(items[start : start + MARK_BATCH]),
                    verified_by=pruned.provenance.for_check(CHECK_ROOT),
                )
    return _finish(args, report, sizes, started)


def _finish(
    args: argparse.Namespace,
    report: Any,
    sizes: list[int],
    started: float,
    play: str | None = None,
    extra: dict[str, Any] | None = None,
) -> int:
    """Print a root check's report (text or JSON) and return its exit status."""
    data = report_dict(report, sizes, time.perf_counter() - started)
    if play is not None:
        data["play"] = play
    data.update(extra or {})
    data["pruned"] = args.prune if args.prune is not None and report.ok else None
    with _reader_may_stop():
        if args.json:
            print(json.dumps(data))
        else:
            _print_text(data)
    if args.prune is not None and not report.ok:
        print(
            "sproutsdb check: not pruned: the proof is not complete and consistent", file=sys.stderr
        )
    return 0 if report.ok else EXIT_BAD_PROOF


def _print_text(data: dict[str, Any]) -> None:
    result = (
        "unknown"
        if data["outcome"] is None
        else f"{data['outcome']}" + ("" if data["nimber"] is None else f", nimber {data['nimber']}")
    )
    verdict = "proof complete and consistent" if data["ok"] else "PROOF NOT VALID"
    proved = f" ({data['proved']} proven)" if data.get("proved") else ""
    print(f"{data['position']}: {result}: {verdict}{proved}")
    print(
        f"  {data['facts_used']:,} facts used, {data['facts_verified']:,} verified, "
        f"{data['facts_unproven']:,} unproven, {data['seconds']:.2f} s"
    )
    if data.get("derived"):
        print(
            f"  {data['derived']:,} lands derived from the rules, not stored: "
            f"{', '.join(data['derived_lands'])}"
        )
    if len(data["cycle_sizes"]) > 1:
        print(f"  proof sizes over {len(data['cycle_sizes'])} cycles: {data['cycle_sizes']}")
    for hole in data["missing"]:
        names = ", ".join(hole["missing"]) or "(no candidate)"
        print(
            f"  missing: ({hole['couple']}) needed by {hole['needed_by']} "
            f"is not shown winning; a stored fact for any of: {names}"
        )
    for bad in data["inconsistent"]:
        print(f"  inconsistent: {bad['land']} stored nimber {bad['stored']}: {bad['reason']}")
    claims = data.get("rct_claims")
    if claims:
        print(
            f"  RCTs from the {data['rct_source']}: {claims['claims_used']:,} land(s) replaced, "
            f"each re-derived ({claims['positions_derived']:,} positions derived here in "
            f"{claims['derive_seconds']:.2f} s, {claims['from_rederived_table']:,} from the "
            "re-derived table)"
        )
        for line in claims["refuted_first"]:
            print(f"  refuted: {line}")
        if claims["no_record"]:
            print(
                f"  not used: {claims['no_record']:,} position → RCT claim(s) naming an RCT "
                f"the store holds no record of: {', '.join(claims['no_record_first'])}"
            )
        if claims["not_derived"]:
            print(
                f"  not used: {claims['not_derived']:,} RCT claim(s) on lands too large to "
                f"re-derive (--derive-rct-lives): {', '.join(claims['not_derived_first'])}"
            )
    if data.get("pruned"):
        print(f"  pruned proof written to {data['pruned']}")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `check` to the `sproutsdb` parser."""
    p = subparsers.add_parser(
        "check",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="verify the stored proof of a position; optionally prune the store to it",
        description=(
            "Re-derive the result of POS using only facts in the store: each nimber is\n"
            "accepted only when its children (recomputed by the engine) justify it. The\n"
            "strongest statement is proven: the nimber of POS when its lands' facts are\n"
            "stored, else its outcome (a win: one option of value 0; a loss needs (POS, 0)\n"
            "stored). Reports missing facts (holes) and inconsistent ones. Exit 0 only for\n"
            "a complete, consistent proof, 1 otherwise. Checked facts are marked verified;\n"
            "lands derived from the rules (--derive-lives) are never stored or marked."
        ),
        epilog=(
            "examples:\n  sproutsdb check --store data --root 0*7\n"
            "  sproutsdb check --store data --root 0*9 --prune small --cycles 10 --json\n"
            "  sproutsdb check --store big --all --jobs 8   # every fact, 8 processes; "
            "rerun to resume\n"
            "  sproutsdb check --store big --all --ray head:6379   # on a Ray cluster\n"
            "  sproutsdb check --store received --all --recheck   # trust none of its marks"
        ),
    )
    add_store_option(p)
    p.add_argument("--root", metavar="POS", help="position whose proof to check")
    p.add_argument(
        "--all",
        action="store_true",
        help="check every fact of the store: nimbers in batches, fewest lives first "
        "(sorted through compressed temporary files in $TMPDIR), then RCT records, "
        "position → RCT entries and misère nodes; facts already verified are "
        "trusted, so an interrupted run resumes",
    )
    p.add_argument(
        "--recheck",
        action="store_true",
        help="with --all: trust no verified mark made before this run (a store received "
        "from elsewhere): re-derive every fact, re-mark it as this check's, and withdraw "
        "the mark of any fact that does not re-derive",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="with --all: check the nimbers' batches in N worker processes, each reading "
        "the store; this process alone marks facts verified, and checks the RCT and "
        "misère facts (default: the CPUs available to this process, here "
        f"{default_jobs()}, no more than there are batches; 1: no workers)",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const=LOCAL_RAY,
        default=None,
        metavar="ADDRESS",
        help="with --all: check batches on Ray workers (pip install "
        "'sproutsdb[cluster]'), one per CPU unless --jobs N; no ADDRESS: a "
        "new local Ray instance on this machine's CPUs; ADDRESS: join that "
        "cluster, whose every node must see the store (a read-only copy) at "
        "the same path; this process alone marks facts verified",
    )
    p.add_argument("--batch", type=int, default=CHECK_BATCH, help=argparse.SUPPRESS)
    p.add_argument("--quiet", action="store_true", help="no progress bar (--all)")
    p.add_argument(
        "--misere",
        action="store_true",
        help="misère play: the outcome of --root from stored losing nodes",
    )
    p.add_argument(
        "--rct-table",
        metavar="FILE",
        default=None,
        help="with --misere: the RCT table the solve used (default: the store's "
        "RCTs, else none); nodes are keyed by it. The table is re-derived whole before use "
        "(about 13 s for S6; the verdict is cached per file checksum)",
    )
    p.add_argument(
        "--derive-rct-lives",
        type=int,
        default=None,
        metavar="K",
        help="with --misere: re-derive the store's position → RCT claims of lands of at most "
        "K lives from the rules (default 18, the lands of the S6 tree); a claim on a larger "
        "land is not used",
    )
    p.add_argument(
        "--outcome-only",
        action="store_true",
        help="prove only the outcome even when the root's nimber is stored (a win "
        "needs one losing option: a smaller proof); without it, a root with "
        "no stored fact is already checked for its outcome",
    )
    p.add_argument(
        "--derive-lives",
        type=int,
        default=None,
        metavar="K",
        help="take lands the proof needs that have no stored fact and at most K "
        "lives from the rules (a mex search), as certificate writers evaluate "
        "them on the fly; reported as derived, never stored or marked "
        f"(default {DEFAULT_DERIVE_LIVES}; 0: off; also with --all)",
    )
    p.add_argument(
        "--prune",
        metavar="OUT",
        default=None,
        help="write a new store holding only the facts the proof used",
    )
    p.add_argument(
        "--cycles",
        type=int,
        default=1,
        metavar="K",
        help="repeat with random choices and keep the smallest proof",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random cycles")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=run_check)
