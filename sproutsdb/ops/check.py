"""The check verbs: a root's proof (normal or misère play), a whole store, an RCT table file.

The checking logic is `solver.normal.check` and `solver.misere.check`; these verbs take an open
store, mark the facts they verify, and return reports (`report_dict` is a root check's JSON
form). A root is proven as strongly as the store allows: its nimber when its lands' facts
are stored, else its outcome (`proved` says which). The command `sproutsdb check` and
`check-table` (tools/cmd_check*.py) parse flags, open stores and print; bench/, tests/ and
any other door call these.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import zstandard

from sproutsdb.errors import UsageError
from sproutsdb.facts import CHECK_MISERE_ROOT, CHECK_ROOT
from sproutsdb.formats.rcttable import RctTableError, parse_body, read_header
from sproutsdb.games import DEFAULT_GAME, get_game
from sproutsdb.ops.parallel_check import (
    CheckPool,
    Tally,
    check_batch,
    level_batches,
    lives_order,
    new_checker,
)
from sproutsdb.ops.solved_on import named_table_file, solved_on_comment, tables_solved_on
from sproutsdb.progress import counter_bar
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.cgt.records import RctRecordError, load_one
from sproutsdb.solver.misere.rct_trust import DEFAULT_DERIVE_LIVES as DEFAULT_DERIVE_RCT_LIVES
from sproutsdb.solver.misere.rct_trust import DerivedRcts
from sproutsdb.solver.misere.rctsearch import children_trees
from sproutsdb.solver.normal.check import (
    Checker,
    CheckProgress,
    CheckReport,
    Verdict,
    check_with_cycles,
)
from sproutsdb.solver.ports.game import ChildValues, MemoHolder, NotationError
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore
from sproutsdb.table_check_workers import CHECK_MEMO

MARK_BATCH = 10_000
# facts of a certificate its root's check did not reach that are each checked as their own
# root before the certificate is refused (seen: 41 at misère 0*21); more refuse it at once
LEFTOVER_CHECKS = 1_000
CHECK_BATCH = 20_000  # facts per memo of `check --all`: bounds its memory
DERIVED_SHOWN = 10  # lands derived from the rules named in a report
TABLE_EXAMPLES = 20  # faulty entries of an RCT table file named in its report
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
                pool.run(work, done, level=get_game(store.identity.game).lives)
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

            pool.run(
                level_batches(spill, batch, count), done, level=get_game(store.identity.game).lives
            )
    return _totals(store, tally, count)


def check_all(
    store: LmdbProofStore,
    *,
    batch: int = CHECK_BATCH,
    quiet: bool = True,
    jobs: int | None = None,
    derive_lives: int = DEFAULT_DERIVE_LIVES,
    ray: str | None = None,
    recheck: bool = False,
) -> StoreCheck:
    """Every fact of a store: the nimbers (`check_store`; `jobs` None: one process per
    CPU, no more than there are batches, or with `ray` one worker per CPU of the cluster),
    then the RCT records, the position → RCT entries and the misère nodes (in this
    process; see ops/check_kinds)."""
    from sproutsdb.ops.check_kinds import KindChecks

    started = time.perf_counter()
    auto_jobs = jobs is None
    if ray is None and jobs is None:
        jobs = default_jobs()
    totals = check_store(
        store,
        batch=batch,
        quiet=quiet,
        jobs=jobs,
        derive_lives=derive_lives,
        ray=ray,
        recheck=recheck,
        auto_jobs=auto_jobs,
    )
    nimber_seconds = time.perf_counter() - started
    others = KindChecks(store, recheck=recheck).run()
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
    return StoreCheck(report, seconds, [nimber_seconds, *(kind.seconds for kind in others)])


@dataclass
class StoreCheck:
    """A whole-store check: its report (the JSON form: the same store gives the same
    `kinds`), the seconds it took, and the seconds of each kind (nimbers first)."""

    report: dict[str, Any]
    seconds: float
    timings: list[float]

    @property
    def ok(self) -> bool:
        return bool(self.report["ok"])


@dataclass
class RootCheck:
    """A root check: the checker's report, the proof size of each cycle, the play checked
    (None: normal play), the RCTs a misère check used, and what the JSON form adds."""

    report: CheckReport
    sizes: list[int]
    play: str | None = None
    rcts: DerivedRcts | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    game: str = DEFAULT_GAME  # of the store checked (a pruned proof is a store of it)

    @property
    def ok(self) -> bool:
        return self.report.ok

    def as_dict(self, seconds: float) -> dict[str, Any]:
        """The JSON form of the check (`report_dict`, with the play and its extras)."""
        data = report_dict(self.report, self.sizes, seconds)
        if self.play is not None:
            data["play"] = self.play
        data.update(self.extra)
        return data


def check_root(
    store: LmdbProofStore,
    root: str,
    *,
    cycles: int = 1,
    seed: int = 0,
    outcome_only: bool = False,
    derive_lives: int = DEFAULT_DERIVE_LIVES,
    quiet: bool = True,
) -> RootCheck:
    """The normal-play proof of `root` from the store's facts (`cycles` random cycles keep
    the smallest proof); the facts it verified are marked. NotationError for a bad root.
    Unless `quiet`, the facts checked so far are shown on stderr."""
    if cycles < 1:
        raise UsageError("the number of cycles must be at least 1")
    game = get_game(store.identity.game).engine()  # the store's game
    key = game.canonical(root)
    with root_check_progress(cycles, quiet) as progress:
        report, sizes = check_with_cycles(
            game,
            store,
            key,
            cycles=cycles,
            seed=seed,
            outcome_only=outcome_only,
            derive_lives=derive_lives,
            progress=progress,
        )
    _mark(store, FactKind.NIMBER, list(report.verified), CHECK_ROOT)
    return RootCheck(report, sizes, game=store.identity.game)


@contextmanager
def root_check_progress(cycles: int, quiet: bool) -> Iterator[CheckProgress | None]:
    """A root check's progress on stderr: the facts checked over all its cycles so far and
    the cycle it is in (a misère check of 0*20 runs for an hour); None when `quiet`."""
    if quiet:
        yield None
        return
    with counter_bar("facts", enabled=True) as bar:
        earlier = 0  # facts checked by the cycles before the current one
        current, last = 0, 0  # the current cycle and its facts checked so far

        def tick(cycle: int, checked: int) -> None:
            nonlocal earlier, current, last
            if cycle != current:
                earlier, current = earlier + last, cycle
                bar.set_postfix(cycle=f"{cycle} of {cycles}")
            last = checked
            bar.update_to(earlier + checked)

        yield tick


def check_misere_root(
    store: LmdbProofStore,
    root: str,
    *,
    cycles: int = 1,
    seed: int = 0,
    rct_table: str | Path | None = None,
    use_rcts: bool = True,
    derive_rct_lives: int = DEFAULT_DERIVE_RCT_LIVES,
    quiet: bool = True,
) -> RootCheck:
    """The misère outcome of `root` from the store's losing nodes.

    The lands the checker replaces by RCTs come from `rct_table`, the store's `pos_rct`
    claims, the table the store names or the shipped S6 (`misere_rct_source`; none with
    `use_rcts=False`); each one is re-derived from the rules before it is used
    (solver.misere.rct_trust), so a forged position → RCT entry is refuted (the check
    fails), never believed. The JSON form's `rct_table` says which and why. Unless
    `quiet`, the nodes checked so far are shown on stderr.
    """
    from sproutsdb.solver.misere.check import check_misere_with_cycles
    from sproutsdb.solver.misere.solver import MisereSolver
    from sproutsdb.solver.ports.proofstore import MemoryProofStore

    if cycles < 1:
        raise UsageError("the number of cycles must be at least 1")
    game = get_game().engine()
    choice = misere_rct_source(
        store, rct_table, derive_rct_lives, use_rcts=use_rcts, progress=not quiet
    )
    rcts = choice.rcts
    # the solver class only as the engine (nodes, children, rules); it never searches
    engine = MisereSolver(game, MemoryProofStore(), rcts)
    with root_check_progress(cycles, quiet) as progress:
        report, sizes = check_misere_with_cycles(
            engine, store, root, cycles=cycles, seed=seed, progress=progress
        )
    if rcts is not None:
        report.inconsistent.extend(rcts.report.inconsistencies())
    _mark(store, FactKind.MISERE, list(report.verified), CHECK_MISERE_ROOT)
    if (
        rcts is not None
        and choice.source == "store"
        and not report.inconsistent
        and not store.readonly
    ):
        _mark_rcts_rederived(rcts, store)
    extra: dict[str, Any] = {"rct_source": choice.source, "rct_table": choice.as_dict()}
    if choice.named_file is not None:
        extra["rct_table_file"] = choice.named_file
    extra["solved_on_tables"] = tables_solved_on(store)
    if rcts is not None:
        extra["rct_claims"] = rcts.report.to_json()
    return RootCheck(report, sizes, play="misere", rcts=rcts, extra=extra)


def _mark(store: LmdbProofStore, kind: FactKind, keys: list[str], check: str) -> None:
    """Mark verified what a root check re-derived, in batches; a store open read-only (a
    read-only copy) keeps no marks: the check's report says the same either way."""
    if store.readonly:
        return
    for start in range(0, len(keys), MARK_BATCH):
        store.mark_verified(kind, keys[start : start + MARK_BATCH], check=check)


def check_leftovers(store: LmdbProofStore, check: RootCheck, facts: dict[str, Any]) -> int:
    """Check on the same store each of `facts` (key -> stored value, of the check's play)
    that the root's complete check did not verify, as its own root, trusting what that check
    verified, and add to its report those re-derived with their stored value. Which facts a
    root's check walks through depends on its path (the same table loaded from its snapshot
    or re-derived gives the same outcomes through other nodes), so a proof's fact the path
    skipped is re-derived on its own rather than refused. None checked when more than
    LEFTOVER_CHECKS are left; the number checked."""
    verified = check.report.verified
    left = {key: value for key, value in facts.items() if key not in verified}
    if not check.ok or not left or len(left) > LEFTOVER_CHECKS:
        return 0
    if check.play != "misere":
        game = get_game(store.identity.game).engine()
        try:
            report = Checker(game, store, derive_lives=DEFAULT_DERIVE_LIVES).check_facts(left)
        except NotationError:
            return len(left)
        verified.update(
            (key, value) for key, value in left.items() if report.verified.get(key) == value
        )
        return len(left)
    from sproutsdb.solver.misere.check import MisereChecker, NodeKeyEngine
    from sproutsdb.solver.misere.solver import MisereSolver
    from sproutsdb.solver.ports.proofstore import MemoryProofStore

    engine = NodeKeyEngine(MisereSolver(get_game().engine(), MemoryProofStore(), check.rcts))

    def settled(key: str) -> Verdict | None:  # what this store's checks verified already
        return Verdict.OK if key in verified else None

    for key, value in left.items():
        try:
            report = MisereChecker(engine, store, settled=settled).check(key)
        except NotationError:
            continue
        if value == "L" and report.ok and report.outcome == "L":
            verified.update(report.verified)
            verified[key] = 0
    return len(left)


def write_pruned(check: RootCheck, pruned: LmdbProofStore) -> None:
    """Write into `pruned` (a new store) only the facts a complete root check used: the
    nimbers (verified by this check), or the misère losing nodes and the RCTs they need."""
    if not check.ok:
        raise ValueError("only a complete, consistent proof is pruned")
    if check.play == "misere":
        keys = sorted(check.report.used)
        table_file = check.extra.get("rct_table_file")
        who = pruned.provenance
        if table_file:  # the proof's nodes are keyed by that table: a check of it needs it
            who = replace(who, comment=solved_on_comment(table_file))
        for start in range(0, len(keys), MARK_BATCH):
            pruned.put(
                FactKind.MISERE,
                {k: "L" for k in keys[start : start + MARK_BATCH]},
                provenance=who,
                verified=True,
            )
        if check.rcts is not None:
            _copy_rcts_read(check.rcts, pruned)
        return
    items = sorted(check.report.used.items())
    for start in range(0, len(items), MARK_BATCH):
        pruned.put(
            FactKind.NIMBER,
            dict(items[start : start + MARK_BATCH]),
            verified_by=pruned.provenance.for_check(CHECK_ROOT),
        )


@dataclass(frozen=True)
class RctChoice:
    """The RCTs a misère check reads and why it took them: `source` (file, store, shipped,
    none), `where` (the table's or the store's path), `named_file` (`s6.rcttable (sha256
    …)`, which a pruned proof's provenance repeats), `why`, the reason the check's text
    gives on its first line (a check with the wrong table only finds holes), and `default`:
    chosen by the check, not by --rct-table or --no-rct-table."""

    rcts: DerivedRcts | None
    source: str
    where: str | None
    named_file: str | None
    why: str
    default: bool = True

    def as_dict(self) -> dict[str, str | bool | None]:
        """The `rct_table` entry of a misère check's JSON."""
        return {
            "source": self.source,
            "where": self.where,
            "file": self.named_file,
            "why": self.why,
            "default": self.default,
        }


def misere_rct_source(
    store: LmdbProofStore,
    rct_table: str | Path | None,
    derive_rct_lives: int,
    *,
    use_rcts: bool = True,
    progress: bool = True,
) -> RctChoice:
    """The RCTs a misère check may use, every one re-derived before use, as `solve --misere`
    picks them: `rct_table` (re-derived whole, or its cached mark and index; a name built
    first, its counter on stderr if `progress`); else the store's `pos_rct` facts (each
    land re-derived from its children, up to `derive_rct_lives` lives); else the named
    table (`s7`) the store's solves ran on, when it is here (a check never builds one);
    else, when the store names no table, the shipped S6 table, which `solve --misere`
    takes on such a store and the results library's certificates were proven on; none
    with `use_rcts=False` (`--no-rct-table`), or when the table the store names is not here."""
    from sproutsdb.ops.rct_tables import rct_table_file, table_the_store_names
    from sproutsdb.ops.shipped_rcts import say_on_stderr, shipped_rct_table
    from sproutsdb.solver.misere.solver import StoreRcts, TableRcts
    from sproutsdb.trusted_tables import file_digest, verified_rcts

    game = get_game().engine()
    if not use_rcts:
        return RctChoice(None, "none", None, None, "--no-rct-table", default=False)
    holds_rcts = store.count(FactKind.RCT) or store.count(FactKind.POS_RCT)
    why, default = f"--rct-table {rct_table}", not rct_table
    if (
        not rct_table
        and not holds_rcts
        and (named := table_the_store_names(store, built_only=True))
    ):
        say_on_stderr(f"this store's misère facts were solved on {named}: checking with it")
        rct_table = named
        why = f"this store's misère facts were solved on {named}"
    if rct_table:
        # a name (s7): built once
        path = rct_table_file(rct_table, notice=say_on_stderr, progress=progress)
        rcts = verified_rcts(path, notice=say_on_stderr)  # a large one: in place
        named_file = named_table_file(Path(path).name, file_digest(path))
        derived = DerivedRcts(game, rcts, trusted=rcts.rct_id_of)
        where = str(Path(path).resolve())
        return RctChoice(derived, "file", where, named_file, why, default=default)
    if holds_rcts:
        shipped = shipped_rct_table()  # re-derived whole once per install: a fast path
        trusted = shipped[0].rct_id_of if shipped is not None else None
        # its trees are re-derived already: the store's records of them are not loaded again
        claims = StoreRcts(store, shipped[0].algebra if shipped is not None else None)
        derived = DerivedRcts(game, claims, trusted=trusted, max_lives=derive_rct_lives)
        why = "the store holds RCTs (each claim re-derived before use)"
        return RctChoice(derived, "store", str(store.path), None, why)
    if named_here := tables_solved_on(store):
        why = (
            f"this store's misère facts were solved on {' and on '.join(named_here)}, "
            "which is not here (a check builds no table)"
        )
        return RctChoice(None, "none", None, None, why)
    shipped = shipped_rct_table()
    if shipped is None:
        why = "the store names no table and holds no RCTs, and this install lacks S6"
        return RctChoice(None, "none", None, None, why)
    table, path = shipped
    why = (
        "the store names no table and holds no RCTs, so the default of `solve --misere` "
        "(--rct-table FILE|sN or --no-rct-table to choose)"
    )
    named_file = named_table_file(path.name, file_digest(path))
    derived = DerivedRcts(game, TableRcts(table), trusted=table.rct_id_of)
    return RctChoice(derived, "shipped", str(path.resolve()), named_file, why)


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


def check_table(path: str, *, quiet: bool = True) -> dict[str, Any]:
    """Check every record and position of a table file; a report of what failed."""
    header, packed = read_header(path)  # framing and checksum: unreadable files stop here
    try:
        raw = int(header["body"]["raw_bytes"])
        body = zstandard.ZstdDecompressor().decompress(packed, max_output_size=raw)
        ids, records, positions = parse_body(body.decode().split("\n"))
    except (KeyError, TypeError, ValueError, IndexError, zstandard.ZstdError) as error:
        raise RctTableError(f"{path}: malformed body: {error}") from None
    algebra = Algebra()
    table = algebra.table
    bad_records: list[str] = []
    unproven = 0
    handles: dict[str, int] = {}
    for cid, record in records:  # children-first order: each record's children come before
        if any(child not in handles for child in record.children) or (
            record.plus1_of is not None and record.plus1_of not in handles
        ):
            unproven += 1
            continue
        try:
            handles[cid] = load_one(algebra, table, cid, record)
        except RctRecordError as error:
            bad_records.append(str(error))
    game = get_game().engine()
    if isinstance(game, MemoHolder):  # a whole tree's lands: as a table check's helper does
        game.reserve_memo(CHECK_MEMO)
    by_position = {position: ids[index] for position, index in positions}
    handle_of = {position: handles.get(cid, -1) for position, cid in by_position.items()}
    looks_up = isinstance(game, ChildValues)  # the C core looks a land's children up
    bad_positions: list[str] = []
    skipped = 0
    with counter_bar("positions", enabled=not quiet) as bar:
        for count, (position, cid) in enumerate(by_position.items(), 1):
            handle = handles.get(cid)
            land = len(game.components(position)) == 1
            kid_handles = children_trees(game, position, land, looks_up, handle_of)
            if isinstance(kid_handles, str):
                bad_positions.append(f"{position}: child {kid_handles} is not in the table")
                continue
            if handle is None or -1 in kid_handles:
                skipped += 1  # its RCT or a child's record is faulty: reported above
                continue
            derived = algebra.reduce_children(kid_handles)
            if derived != handle:
                bad_positions.append(
                    f"{position}: stored {cid}, its children give {algebra.content_id(derived)}"
                )
            if count % 1000 == 0:
                bar.update_to(count)
    ok = not bad_records and not bad_positions and not unproven and not skipped
    return {
        "file": path,
        "ok": ok,
        "rcts": len(records),
        "positions": len(positions),
        "bad_records": len(bad_records),
        "unproven_records": unproven,
        "bad_positions": len(bad_positions),
        "unchecked_positions": skipped,
        "examples": (bad_records + bad_positions)[:TABLE_EXAMPLES],
    }
