"""Solver commands on an embedded store: `solve`, `nimber`, `query`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sproutsdb.errors import UserError
from sproutsdb.games import get_game
from sproutsdb.progress import status_line
from sproutsdb.server.store import LmdbProofStore
from sproutsdb.server.store.location import resolve_store_path
from sproutsdb.server.store.resume_file import FileResumeSlots
from sproutsdb.solver.extras.r1 import Part, R1Verdict, r1_rule
from sproutsdb.solver.normal.solver import DEFAULT_TABLE_CAPACITY, SEARCHES, NormalSolver, Progress
from sproutsdb.solver.ports.game import Game
from sproutsdb.solver.ports.proofstore import ConflictError, FactKind
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.search.progress import SolverStats
from sproutsdb.tools.cli import (
    Interrupted,
    UsageError,
    add_search_option,
    add_store_option,
    positions_from,
)
from sproutsdb.tools.deferred_interrupt import deferred_interrupt
from sproutsdb.tools.game_option import add_game_option, game_of, open_game_store
from sproutsdb.tools.parallel_solve import SHARE_SECONDS, helpers_running
from sproutsdb.tools.server_options import add_client_options, client_from_args
from sproutsdb.tools.stores import open_solve_store, open_store

EXIT_CONFLICT = 3
MISERE_LAND_CACHE = 1 << 17  # lands whose children the engine memoises in `solve --misere`
GRUNDY_LIMIT = 64  # `solve --misere --grundy` tries P + *g for g up to this
FLUSH_SECONDS = 5.0  # proven facts are committed at least this often (and every 1 000)


@contextmanager
def solving(args: argparse.Namespace) -> Iterator[tuple[Game, NormalSolver, LmdbProofStore]]:
    """A solver on the embedded store (or the --server's), flushed on every exit (Ctrl-C
    loses nothing proven)."""
    entry = game_of(args)
    game = entry.engine()
    store = open_game_store(args, entry)
    jobs = getattr(args, "jobs", 1)
    with status_line(enabled=not args.quiet) as line, deferred_interrupt() as ctrl_c:

        def report(p: Progress) -> None:
            ctrl_c.check()  # between two node visits: the resume record is whole
            line.show(
                f"{p.nodes:,} nodes  {p.facts_stored:,} stored  depth {p.depth}  "
                f"{p.nodes_per_second:,.0f} nodes/s  {p.seconds:,.0f} s"
            )

        options = SolveOptions(
            progress=report,
            table_capacity=getattr(args, "table_capacity", None),
            flush_seconds=getattr(args, "flush_seconds", FLUSH_SECONDS),
        )
        solver = NormalSolver(
            game,
            store,
            options=options,
            search=getattr(args, "search", SEARCHES[-1]),
            share_seconds=SHARE_SECONDS if jobs > 1 else None,
            resume=None if args.server else FileResumeSlots(resolve_store_path(args.store)),
        )
        interrupted = False
        try:
            yield game, solver, store
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            try:
                solver.flush()
            finally:
                store.close()
            if interrupted:
                raise Interrupted(_kept(args, solver.stats)) from None


def _kept(args: argparse.Namespace, stats: SolverStats) -> str:
    """What Ctrl-C kept of a normal-play solve, and that a rerun resumes from it."""
    where = f"server {args.server}" if args.server else str(resolve_store_path(args.store))
    search = " with where the search stood" if stats.resume_saves else ""
    return (
        f"{stats.facts_stored:,} new facts proven so far are stored in {where}{search}; run "
        "the same command again to resume from there"
    )


def _conflict(command: str, error: ConflictError) -> int:
    print(f"sproutsdb {command}: conflict: {error}", file=sys.stderr)
    return EXIT_CONFLICT


def run_solve(args: argparse.Namespace) -> int:
    entry = game_of(args)
    game = entry.engine()
    if entry.name != "sprouts" and (args.spots is not None or args.misere or args.jobs != 1):
        raise UsageError(f"--spots, --misere and --jobs are for Sprouts, not {entry.name}")
    if args.spots is not None:
        if args.position is not None:
            raise UsageError("give a position or --spots N, not both")
        if args.spots < 0:
            raise UsageError("--spots must be at least 0")
        text = f"0*{args.spots}" if args.spots else "!"
    elif args.position is None:
        raise UsageError("give a position (e.g. 0*8) or --spots N")
    else:
        text = args.position
    key = game.canonical(text)
    lands = game.components(key)
    if getattr(args, "misere", False):
        return run_solve_misere(args, key)
    if getattr(args, "grundy", False):
        raise UsageError(
            "--grundy is the misère Grundy value: add --misere (in normal play "
            "the nimber is printed anyway)"
        )
    if getattr(args, "rct_table", None) or getattr(args, "no_rct_table", False):
        raise UsageError("--rct-table and --no-rct-table are for misère play: add --misere")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.table_capacity is not None and args.table_capacity < 1:
        raise UsageError(f"--table-capacity must be at least 1, got {args.table_capacity}")
    start = time.perf_counter()
    try:
        with solving(args) as (game, solver, _store), helpers_running(args, key, args.jobs):
            if len(lands) <= 1 and not args.outcome_only:
                nimber: int | None = solver.nimber(key)
                outcome = "L" if nimber == 0 else "W"
            else:
                nimber = None
                outcome = solver.outcome(key)
            stored = solver.stats.facts_stored
            nodes = solver.stats.nodes
    except ConflictError as error:
        return _conflict("solve", error)
    seconds = time.perf_counter() - start
    if args.json:
        print(
            json.dumps(
                {
                    "position": key,
                    "outcome": outcome,
                    "nimber": nimber,
                    "stored": stored,
                    "nodes": nodes,
                    "seconds": round(seconds, 3),
                    "jobs": args.jobs,
                }
            )
        )
    else:
        who = "the player to move wins" if outcome == "W" else "the player to move loses"
        tail = f", nimber {nimber}" if nimber is not None else ""
        print(f"{key}: {outcome} ({who}){tail}")
        where = (
            f"on server {args.server}" if args.server else f"in {resolve_store_path(args.store)}"
        )
        print(f"{stored:,} new facts stored {where} in {seconds:.2f} s")
    return 0


def _misere_rcts(args: argparse.Namespace, store: object) -> tuple[object, dict[str, Any]]:
    """The RCT source of a misère solve and its --json description: --rct-table FILE,
    else the server's streamed table, else the store's, else the shipped S6 table. A table
    file is re-derived whole before use (sproutsdb.trusted_tables); the positions a server
    or a store maps to RCTs are claims, each re-derived before use (solver.misere.rct_trust)."""
    from sproutsdb.ops.shipped_rcts import describe_source, say_on_stderr, shipped_rct_table
    from sproutsdb.solver.misere.rct_trust import DerivedRcts
    from sproutsdb.solver.misere.solver import StoreRcts, TableRcts
    from sproutsdb.trusted_tables import verified_table

    def rederived(claims: Any) -> DerivedRcts:
        shipped = shipped_rct_table()  # re-derived whole once per install: a fast path
        trusted = shipped[0].rct_id_of if shipped is not None else None
        return DerivedRcts(get_game().engine(), claims, trusted=trusted)

    if args.no_rct_table:
        if args.rct_table:
            raise UsageError("give --rct-table FILE or --no-rct-table, not both")
        return None, describe_source("none", None)
    if args.rct_table:
        rcts = TableRcts(
            verified_table(args.rct_table, notice=say_on_stderr)
        )  # every record and position re-derived
        return rcts, describe_source("file", str(Path(args.rct_table).resolve()))
    if args.server:
        client = store.client  # type: ignore[attr-defined]
        if client.server_info().get("rct_tables"):
            return rederived(TableRcts(client.rct_table())), describe_source("server", args.server)
        where = f"server {args.server}"
    else:
        assert isinstance(store, LmdbProofStore)  # no --server: open_solve_store's own store
        if store.count(FactKind.RCT) or store.count(FactKind.POS_RCT):
            where = str(resolve_store_path(args.store))
            return rederived(StoreRcts(store)), describe_source("store", where)
        where = f"the store {resolve_store_path(args.store)}"
        shipped = shipped_rct_table()
        if shipped is not None:
            # the store takes the table first, so that every RCT its misère facts name
            # is stored beside them (as `serve` seeds an RCT-less store)
            from sproutsdb.server.seed import seed_store

            table, path = shipped
            seed_store(
                store,
                path,
                load=lambda: table,
                who="sproutsdb solve --misere",
            )
            return TableRcts(table), describe_source("shipped", str(path))
    print(
        f"sproutsdb solve: no RCT table in {where}; solving without RCTs (slow beyond "
        "0*7). Give --rct-table FILE, or serve the store seeded (`sproutsdb serve`).",
        file=sys.stderr,
    )
    return None, describe_source("none", None)


def _misere_grundy(solver: object, key: str) -> int:
    try:
        return solver.grundy(key, GRUNDY_LIMIT)  # type: ignore[attr-defined,no-any-return]
    except ValueError as error:
        if isinstance(error, UserError) or not str(error).startswith("no g"):
            raise
        raise UserError(f"{error} (the limit of --grundy)") from None


def run_solve_misere(args: argparse.Namespace, key: str) -> int:
    """`solve --misere`: the misère outcome (and with --grundy the least g making
    P + *g a misère loss), storing the losing nodes it proves."""
    from sproutsdb.solver.misere.solver import MisereSolver

    # the solver keeps its hot lands' moves in an LRU of its own: the engine's memo of
    # land children (about 15 kB a land of 0*12 and up) is only a second level, bounded
    # to about 2 GB on long runs
    game = get_game().engine(cache_size=MISERE_LAND_CACHE)
    capacity = getattr(args, "table_capacity", None)
    if capacity is not None and capacity < 1:
        raise UsageError(f"--table-capacity must be at least 1, got {capacity}")
    start = time.perf_counter()
    store = open_solve_store(args)
    try:
        rcts, rct_source = _misere_rcts(args, store)
        with status_line(enabled=not args.quiet) as line:

            def report(p: Progress) -> None:
                line.show(
                    f"{p.nodes:,} nodes  {p.facts_stored:,} stored  depth {p.depth}  "
                    f"{p.nodes_per_second:,.0f} nodes/s  {p.seconds:,.0f} s"
                )

            options = SolveOptions(
                progress=report, flush_seconds=args.flush_seconds, table_capacity=capacity
            )
            solver = MisereSolver(
                game,
                store,
                rcts,  # type: ignore[arg-type]
                options=options,
            )
            try:
                grundy = _misere_grundy(solver, key) if args.grundy else None
                # P + *0 is P: the search for g has decided the outcome already
                if grundy is None:
                    outcome = solver.outcome(key)
                else:
                    outcome = "L" if grundy == 0 else "W"
            finally:
                solver.flush()
            stats = solver.stats
    except ConflictError as error:
        return _conflict("solve", error)
    finally:
        store.close()
    seconds = time.perf_counter() - start
    derivation = getattr(rcts, "report", None)  # a DerivedRcts: what its claims came to
    for refuted in derivation.refuted[:10] if derivation is not None else ():
        print(
            f"sproutsdb solve: warning: a false position → RCT claim was not used: "
            f"{refuted.describe()}",
            file=sys.stderr,
        )
    if args.json:
        report_json: dict[str, object] = {"position": key, "play": "misere"}
        if grundy is not None:
            report_json["grundy"] = grundy
        report_json.update(
            outcome=outcome,
            stored=stats.facts_stored,
            nodes=stats.nodes,
            seconds=round(seconds, 3),
            rct_table=rct_source,
        )
        if derivation is not None:
            report_json["rct_claims"] = derivation.to_json()
        print(json.dumps(report_json))
    else:
        who = "the player to move wins" if outcome == "W" else "the player to move loses"
        print(f"{key}: {outcome} in misère play ({who})")
        if grundy is not None:
            print(
                f"misère Grundy value {grundy}: {key} + *{grundy} is the first misère loss "
                f"among {key} + *g, g = 0, 1, …"
            )
        where = (
            f"on server {args.server}" if args.server else f"in {resolve_store_path(args.store)}"
        )
        print(
            f"{stats.nodes:,} nodes searched, {stats.facts_stored:,} new losing nodes stored "
            f"{where} in {seconds:.2f} s"
        )
        if rct_source["where"] is not None:
            print(f"RCTs: {rct_source['source']} ({rct_source['where']})")
    return 0


def run_nimber(args: argparse.Namespace) -> int:
    try:
        with solving(args) as (game, solver, _store):
            for text in positions_from(args.positions):
                key = game.canonical(text)
                value = solver.nimber(key)
                if args.json:
                    print(json.dumps({"position": key, "nimber": value}), flush=True)
                else:
                    who = "loses" if value == 0 else "wins"
                    print(f"{key}: nimber {value} (the player to move {who})", flush=True)
    except ConflictError as error:
        return _conflict("nimber", error)
    return 0


def _derive_from_rcts(
    source: Any, lands: list[str], rct_ids: dict[str, str]
) -> tuple[Any, dict[str, int]] | None:
    """(algebra, {land: handle}) of the lands whose RCT the store (or server) maps them
    to, read with StoreRcts (records re-derived); None, with a warning, when the store's
    RCT records are missing or wrong. Reads only: nothing is ever written."""
    from sproutsdb.solver.cgt.records import RctRecordError
    from sproutsdb.solver.misere.solver import MisereConflictError, StoreRcts, TableRcts

    wanted = [land for land in lands if land in rct_ids]
    if not wanted:
        return None
    mapped: Any = _Mapped(source, rct_ids)
    rcts = source if isinstance(source, TableRcts) else StoreRcts(mapped)
    try:
        handles = rcts.lookup(wanted)
    except (MisereConflictError, RctRecordError) as error:
        print(f"sproutsdb query: cannot read the RCTs of the store: {error}", file=sys.stderr)
        return None
    return rcts.algebra, handles


class _Mapped:
    """A store (or client) whose position → RCT map is the one `query` decided to use (only
    verified entries with --verified); RCT records are read as stored (re-derived on load)."""

    def __init__(self, source: Any, rct_ids: dict[str, str]) -> None:
        self.source = source
        self.rct_ids = rct_ids

    def get(self, kind: FactKind, keys: Any) -> dict[str, Any]:
        if kind is FactKind.POS_RCT:
            return {k: self.rct_ids[k] for k in keys if k in self.rct_ids}
        return dict(self.source.get(kind, list(keys)))


def _status_name(record: Any) -> str | None:
    """ "claimed", "verified" or "refuted" of a record (None: nothing stored)."""
    if record is None:
        return None
    return str(getattr(record.status, "value", record.status))


def _usable(record: Any, verified_only: bool) -> bool:
    """Whether a record's value may be used: never a refuted claim, and a claim only when
    the reader accepts claims."""
    status = _status_name(record)
    return status == "verified" or (status == "claimed" and not verified_only)


def _refutation_of(record: Any) -> Any:
    refutation = record.refutation
    if refutation is not None and not isinstance(refutation, dict):
        refutation = refutation.to_json()
    return refutation


def _provenance_json(provenance: dict[int, Any], pid: int | None) -> dict[str, Any] | None:
    """A provenance record as JSON: who, token name, tool, version, when, comment."""
    record = provenance.get(pid) if pid else None
    return None if record is None or pid is None else record.as_dict(pid)


def _land_entry(
    land: str,
    record: Any,
    provenance: dict[int, Any],
    known: dict[str, int],
    verified_only: bool,
) -> dict[str, Any]:
    """One land of the report: its nimber fact (or claim, or refuted claim)."""
    entry: dict[str, Any] = {"land": land, "nimber": None}
    status = _status_name(record)
    if record is not None and status == "refuted":
        entry.update(
            status="refuted",
            claimed=record.value,
            refutation=_refutation_of(record),
            claimed_by=_provenance_json(provenance, record.provenance),
            refuted_by=_provenance_json(provenance, record.verified_by),
        )
    elif record is not None and (status == "verified" or not verified_only):
        known[land] = int(record.value)
        source_of = provenance.get(record.provenance)
        entry.update(
            nimber=record.value,
            status=status,
            provenance=None if source_of is None else source_of.describe(),
            provenance_record=_provenance_json(provenance, record.provenance),
            verified_by=_provenance_json(provenance, record.verified_by),
        )
    elif record is not None:
        entry.update(
            status=status,
            claimed=record.value,
            provenance_record=_provenance_json(provenance, record.provenance),
        )
    return entry


def _rct_fields(record: Any, verified_only: bool) -> dict[str, Any]:
    """What the report says of a position → RCT fact: the id used (None when it may not
    be used), its status, and the id of a claim not used or refuted."""
    status = _status_name(record)
    fields: dict[str, Any] = {"rct": None, "rct_status": status}
    if record is None:
        return fields
    if _usable(record, verified_only):
        fields["rct"] = str(record.value)
    elif status == "refuted":
        fields["rct_refuted"] = str(record.value)
        fields["rct_refutation"] = _refutation_of(record)
    else:
        fields["rct_claimed"] = str(record.value)
    return fields


def _query_report(
    key: str,
    lands: list[str],
    records: dict[str, Any],
    provenance: dict[int, Any],
    rct_records: dict[str, Any],
    misere: Any,
    source: Any,
    *,
    verified_only: bool = False,
) -> dict[str, Any]:
    """The report of `query`: stored facts first, each with its status; values derived
    from stored RCTs are added under keys of their own (``*_from_rct``), never in place of
    stored ones. A refuted claim is shown with its evidence, never as a value; with
    `verified_only` neither is a claim (nimber, misère outcome or position → RCT map)."""
    lands_out: list[dict[str, Any]] = []
    report: dict[str, Any] = {
        "position": key,
        "lands": lands_out,
        "trust": "verified facts only" if verified_only else "verified facts and claims",
    }
    known: dict[str, int] = {}
    rct_ids: dict[str, str] = {}
    for land in lands:
        entry = _land_entry(land, records.get(land), provenance, known, verified_only)
        entry.update(_rct_fields(rct_records.get(land), verified_only))
        if entry["rct"] is not None:
            rct_ids[land] = entry["rct"]
        lands_out.append(entry)
    key_rct = _rct_fields(rct_records.get(key), verified_only)
    if key_rct["rct"] is not None:
        rct_ids[key] = key_rct["rct"]
    if len(known) == len(lands):
        total = 0
        for value in known.values():
            total ^= value
        report["nimber"], report["outcome"] = total, ("L" if total == 0 else "W")
    else:
        report["nimber"] = report["outcome"] = None

    derived = _derive_from_rcts(source, lands, rct_ids)
    algebra: Any = None
    handles: dict[str, int] = {}
    if derived is not None:
        algebra, handles = derived
    from_rct: dict[str, int] = {}
    for entry in lands_out:
        land = entry["land"]
        handle = handles.get(land)
        if handle is not None:
            entry["rct_height"] = algebra.height(handle)
            if entry["nimber"] is None:
                from_rct[land] = algebra.nimber(handle)
                entry["nimber_from_rct"] = from_rct[land]
    if report["nimber"] is None and all(land in known or land in from_rct for land in lands):
        total = 0
        for land in lands:
            total ^= known.get(land, from_rct.get(land, 0))
        report["nimber_from_rct"] = total
        report["outcome_from_rct"] = "L" if total == 0 else "W"
    report["misere"] = _misere_part(key, misere, key_rct, algebra, handles, report, verified_only)
    land_misere = {land: algebra.outcome(h) for land, h in handles.items() if land in lands}
    if len(lands) == 1 and report["misere"]["stored"] is not None:
        land_misere[lands[0]] = report["misere"]["stored"]
    nimbers = {**from_rct, **known}
    parts = [Part(land, nimbers.get(land), land_misere.get(land)) for land in lands]
    for entry, part in zip(lands_out, parts, strict=True):
        entry["misere_from_rct"] = land_misere.get(entry["land"])
        entry["r1"] = part.r1
    report["r1"] = _r1_part(key, parts, source, algebra, verified_only)
    return report


class _Reads:
    """A store or client read with the query's trust (only verified facts with --verified)."""

    def __init__(self, source: Any, verified_only: bool) -> None:
        self.source = source
        self.verified_only = verified_only

    def get(self, kind: FactKind, keys: Any) -> dict[str, Any]:
        return dict(self.source.get(kind, list(keys), verified_only=self.verified_only))


def _r1_part(
    key: str, parts: list[Part], source: Any, algebra: Any, verified_only: bool
) -> dict[str, Any]:
    """The R1 note's rule on the position (solver/extras/r1.py): each land's class, the case that
    applies and its move. The values of the lands' children come from their RCTs (the
    query's RCT source) and stored nimbers; the rule is the note's claim, not a proof."""
    from sproutsdb.solver.cgt.records import RctRecordError
    from sproutsdb.solver.misere.solver import MisereConflictError, StoreRcts, TableRcts

    game = get_game().engine()
    known = all(p.r1 is not None for p in parts) and (algebra is not None or not parts)
    if not known:
        why = "a land's nimber or misère outcome is unknown"
        return _r1_json(parts, R1Verdict(tuple(p.r1 for p in parts), None, None, reason=why), None)
    rcts: Any = source if isinstance(source, TableRcts) else None
    reads: Any = None if rcts is not None else _Reads(source, verified_only)  # a read-only store
    if reads is not None:
        rcts = StoreRcts(reads, algebra)

    def children(land: Part) -> list[Part]:
        kids = [game.join(c) for c in game.component_children(land.key)]
        inside = sorted({x for k in kids for x in game.components(k)})
        found = rcts.lookup(sorted(set(inside) | set(kids)))
        stored = {} if reads is None else reads.get(FactKind.NIMBER, inside)
        return [_child_part(game, algebra, k, found, stored) for k in kids]

    try:
        verdict = r1_rule(parts, children)
    except (MisereConflictError, RctRecordError, UserError) as error:
        why = f"the values of the lands' children could not be read: {error}"
        verdict = R1Verdict(tuple(p.r1 for p in parts), None, None, reason=why)
    moved = None
    if verdict.land is not None and verdict.child is not None:
        rest = [p.key for i, p in enumerate(parts) if i != verdict.land]
        moved = game.join([*rest, *game.components(verdict.child.key)])
    return _r1_json(parts, verdict, moved)


def _r1_json(parts: list[Part], verdict: R1Verdict, moved: str | None) -> dict[str, Any]:
    """The `r1` entry of the report: the verdict, and the position the rule's move reaches."""
    return {**verdict.as_json(parts), "moved_to": moved}


def _child_part(
    game: Any, algebra: Any, key: str, found: dict[str, int], stored: dict[str, Any]
) -> Part:
    """A land's child with its nimber (stored, else from RCTs) and misère outcome (its RCT,
    else the sum of its lands' RCTs); None where a land of it has neither."""
    nimber: int | None = 0
    handles: list[int] | None = []
    for land in game.components(key):
        h = found.get(land)
        value = stored.get(land)
        if value is None and h is not None:
            value = algebra.nimber(h)
        nimber = None if nimber is None or value is None else nimber ^ int(value)
        handles = None if handles is None or h is None else [*handles, h]
    handle = found.get(key)
    if handle is None and handles is not None:
        handle = algebra.sum(handles)
    return Part(key, nimber, None if handle is None else algebra.outcome(handle))


def _misere_part(
    key: str,
    misere: Any,
    key_rct: dict[str, Any],
    algebra: Any,
    handles: dict[str, int],
    report: dict[str, Any],
    verified_only: bool,
) -> dict[str, Any]:
    """The misère part of the report: the stored outcome with its status (a claim not used
    with --verified, a refuted claim with its evidence), else the outcome of the position's
    RCT; the RCT map's status."""
    stored = str(misere.value) if _usable(misere, verified_only) else None
    status = _status_name(misere)
    misere_from_rct = None
    height = None
    position_rct = key_rct["rct"]
    if position_rct is not None and key in handles:
        height = algebra.height(handles[key])
        if stored is None:
            misere_from_rct = algebra.outcome(handles[key])
            report["misere_outcome_from_rct"] = misere_from_rct
    part: dict[str, Any] = {
        "outcome": stored if stored is not None else misere_from_rct,
        "stored": stored,
        "status": status,
        "from_rct": stored is None and misere_from_rct is not None,
        "rct": position_rct,
        "rct_status": key_rct["rct_status"],
        "rct_height": height,
    }
    if status == "refuted":
        part["refuted"] = str(misere.value)
        part["refutation"] = _refutation_of(misere)
    elif misere is not None and stored is None:
        part["claimed"] = str(misere.value)
    for name in ("rct_claimed", "rct_refuted", "rct_refutation"):
        if name in key_rct:
            part[name] = key_rct[name]
    return part


def _rct_text(entry: dict[str, Any]) -> str | None:
    """How a land's position → RCT fact is printed (None: there is none)."""
    if entry.get("rct"):
        height = entry.get("rct_height")
        inside = f"height {height}, " if height is not None else ""
        return f"RCT {entry['rct']} ({inside}{entry.get('rct_status')})"
    if entry.get("rct_refuted"):
        why = (entry.get("rct_refutation") or {}).get("evidence")
        return f"RCT claim {entry['rct_refuted']} REFUTED: {why}"
    if entry.get("rct_claimed"):
        return f"RCT claim {entry['rct_claimed']} not yet verified (not used: --verified)"
    return None


def _print_query(report: dict[str, Any], header: str, solve_hint: str) -> None:
    print(header)
    for entry in report["lands"]:
        rct = _rct_text(entry)
        if entry.get("status") == "refuted":
            r = entry["refutation"] or {}
            who = (entry.get("claimed_by") or {}).get("token") or (
                entry.get("claimed_by") or {}
            ).get("who")
            proven = f"; proven nimber {r['proven']}" if r.get("proven") is not None else ""
            print(
                f"  land {entry['land']}: claim nimber {entry['claimed']} REFUTED (claimed "
                f"by {who}): {r.get('evidence')}{proven}"
            )
        elif entry["nimber"] is None and entry.get("status") == "claimed":
            print(
                f"  land {entry['land']}: claim nimber {entry['claimed']} not yet verified "
                "(not counted: --verified)"
            )
        elif entry["nimber"] is not None:
            tail = f"; {rct}" if rct else ""
            print(
                f"  land {entry['land']}: nimber {entry['nimber']} ({entry['status']}; "
                f"{entry['provenance']}){tail}"
            )
        elif "nimber_from_rct" in entry:
            print(
                f"  land {entry['land']}: no stored nimber; {rct}: nimber "
                f"{entry['nimber_from_rct']} from its RCT"
            )
        elif rct:
            print(f"  land {entry['land']}: no stored nimber; {rct}")
        else:
            print(f"  land {entry['land']}: not in the store")
    if report["nimber"] is not None:
        print(f"  nimber {report['nimber']}, outcome {report['outcome']}")
    elif "nimber_from_rct" in report:
        print(
            f"  nimber {report['nimber_from_rct']}, outcome {report['outcome_from_rct']} "
            "(from the lands' RCTs, not a stored proof)"
        )
    else:
        print(f"  outcome unknown: solve it with `{solve_hint}`")
    source = report.get("rct_table")
    if source is not None and source["source"] == "shipped":
        print(f"  RCTs from the shipped S6 table ({source['where']}): the store has none")
    _print_misere(report["misere"])
    _print_r1(report.get("r1"))


def _print_r1(r1: dict[str, Any] | None) -> None:
    """The R1 lines of `query`: each land's class, the case of the note's rule, its move."""
    if r1 is None:
        return
    classes = ", ".join(f"{c['land']} {c['r1'] or 'unknown'}" for c in r1["classes"])
    if classes:
        print(f"  R1 classes: {classes}")
    if r1["case"] is None:
        print(f"  R1 rule: no case applies ({r1['reason']})")
        return
    print(f"  R1 rule: case {r1['case']} applies ({r1['reason']})")
    if r1["moved_to"] is not None:
        note = "" if r1["result_loses_by_note"] else "; the note does not call it a loss"
        print(
            f"  R1 move: {r1['land']} ({r1['land_class']}) -> {r1['to']} ({r1['to_class']}), "
            f"reaching {r1['moved_to']}{note} (the note's claim, not a proof)"
        )


def _print_misere(m: dict[str, Any]) -> None:
    """The misère lines of `query`: the outcome and the status of what it comes from."""
    if m["stored"] is not None:
        how = "verified" if m["status"] == "verified" else "claimed, not yet verified"
        print(f"  misère: outcome {m['stored']} (stored) — {how}")
    elif m.get("refuted") is not None:
        r = m.get("refutation") or {}
        proven = f"; proven {r['proven']}" if r.get("proven") is not None else ""
        print(f"  misère: claim {m['refuted']} REFUTED: {r.get('evidence')}{proven}")
    elif m.get("claimed") is not None:
        print(f"  misère: claim {m['claimed']} not yet verified (not used: --verified)")
    if m["from_rct"]:
        how = "verified" if m["rct_status"] == "verified" else "claimed, not yet verified"
        print(
            f"  misère: outcome {m['outcome']} from its RCT {m['rct']} (height "
            f"{m['rct_height']}; the position → RCT map is {how})"
        )
    elif m.get("rct_refuted"):
        why = (m.get("rct_refutation") or {}).get("evidence")
        print(f"  misère: RCT claim {m['rct_refuted']} of the position REFUTED: {why}")


def run_query(args: argparse.Namespace) -> int:
    """`sproutsdb query POS`: the stored nimber, RCT id of each land and the stored misère
    outcome of the position, each with its status; nimbers and misère outcome derived from
    stored RCTs (never written back) where the store holds no fact. With --verified, only
    verified facts are used (claims are shown as such)."""
    if args.server:
        return _run_remote_query(args)
    game = get_game().engine()
    key = game.canonical(args.position)
    lands = list(game.components(key))
    from sproutsdb.ops.shipped_rcts import describe_source, shipped_rct_table
    from sproutsdb.solver.misere.solver import TableRcts

    with open_store(args.store, readonly=True) as store:
        records: dict[str, Any] = dict(store.get_records(FactKind.NIMBER, lands, refuted=True))
        provenance = store.provenance_records()
        wanted = sorted(set(lands) | {key})
        source: Any = store
        rct_source = describe_source("store", str(resolve_store_path(args.store)))
        shipped = None
        if not (store.count(FactKind.RCT) or store.count(FactKind.POS_RCT)):
            shipped = shipped_rct_table()  # a store without RCTs: the shipped S6 table
        if shipped is not None:
            table, path = shipped
            rct_records: dict[str, Any] = {
                k: _TableEntry(cid) for k in wanted if (cid := table.rct_id_of(k)) is not None
            }
            source, rct_source = TableRcts(table), describe_source("shipped", str(path))
        else:
            rct_records = dict(store.get_records(FactKind.POS_RCT, wanted, refuted=True))
        misere = store.get_records(FactKind.MISERE, [key], refuted=True).get(key)
        report = _query_report(
            key,
            lands,
            records,
            provenance,
            rct_records,
            misere,
            source,
            verified_only=args.verified,
        )
        report["rct_table"] = rct_source
    if args.json:
        print(json.dumps(report))
        return 0
    _print_query(report, f"position {key}", "sproutsdb solve")
    return 0


class _TableEntry:
    """A position → RCT entry of a table re-derived whole before use: verified."""

    status = "verified"

    def __init__(self, cid: str) -> None:
        self.value = cid


def _run_remote_query(args: argparse.Namespace) -> int:
    """`sproutsdb query POS --server ADDR`: the same lookups through the client (MISERE
    looked up alone, as the service requires of misère keys), with each fact's status."""
    game = get_game().engine()
    key = game.canonical(args.position)
    lands = list(game.components(key))
    with client_from_args(args) as client:
        records: dict[str, Any] = {}
        provenance: dict[int, Any] = {}
        if lands:
            nimbers = client.lookup(lands, with_records=True)
            records = {
                land: r for land, r in zip(lands, nimbers.records[FactKind.NIMBER]) if r is not None
            }
            provenance = dict(nimbers.provenance)
        wanted = sorted(set(lands) | {key})
        maps = client.lookup(wanted, (FactKind.POS_RCT,), with_records=True)
        rct_records = {
            k: r for k, r in zip(wanted, maps.records[FactKind.POS_RCT]) if r is not None
        }
        looked = client.lookup([key], (FactKind.MISERE,), with_records=True)
        misere = looked.records[FactKind.MISERE][0]
        report = _query_report(
            key,
            lands,
            records,
            provenance,
            rct_records,
            misere,
            client,
            verified_only=args.verified,
        )
    report = {"position": report.pop("position"), "server": args.server, **report}
    if args.json:
        print(json.dumps(report))
        return 0
    _print_query(
        report,
        f"position {key} (server {args.server})",
        f"sproutsdb solve {key} --server {args.server}",
    )
    return 0


def _positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive number of seconds")
    return seconds


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the solver commands to the `sproutsdb` parser."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "solve",
        formatter_class=fmt,
        help="prove the outcome (and nimber) of a position, storing what it proves",
        description=(
            "Prove the normal-play outcome of a position with the couple algorithms of\n"
            "'Nimbers are inevitable', and its nimber when it is a single land. Every\n"
            "proven nimber of a land is kept in the store, so a second run (or a run of a\n"
            "larger position) starts from what is known; an interrupted run resumes.\n\n"
            "With --misere, the misère outcome instead (the last player to move loses),\n"
            "from the RCT table of the store, the server or --rct-table; every losing\n"
            "node proven is stored, those with *1 or RCT parts included. --grundy adds the\n"
            "misère Grundy value: the least g such that POS + *g is a misère loss."
        ),
        epilog=(
            "examples:\n"
            "  sproutsdb solve 0*8                    # outcome and nimber of 8 spots\n"
            "  sproutsdb solve --spots 11 --json\n"
            "  sproutsdb solve '0*3+0.A|0.A' --store /data/sprouts\n"
            "  sproutsdb solve 0*9 --server 127.0.0.1:50051   # on a shared server\n"
            "  sproutsdb solve 0*9 --misere --rct-table data/s6.rcttable   # misère play\n"
            "  sproutsdb solve 0*5 --misere --grundy --json    # least g: 0*5 + *g loses\n"
            "  sproutsdb solve 0*9 --misere --server 127.0.0.1:50051\n"
            "      # misère on a server: its RCT table, every losing node stored there"
        ),
    )
    p.add_argument("position", nargs="?", metavar="POS", help="position in GLOP notation")
    add_game_option(p, store=True)
    p.add_argument("--spots", type=int, metavar="N", help="solve the starting position 0*N")
    p.add_argument(
        "--outcome-only",
        action="store_true",
        help="for a single land, stop at W/L instead of finding the nimber",
    )
    add_search_option(p)
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="normal play: N processes on this machine, the N - 1 helpers proving "
        "the root's options into the same store (or server) while the main "
        "search runs; the answer is the same for every N (default 1)",
    )
    p.add_argument(
        "--table-capacity",
        type=int,
        default=None,
        metavar="N",
        help="bounds memory: normal play clears each in-memory table (nimbers and "
        "exclusions; df-pn numbers) at N entries, after storing what it "
        f"proved (default {DEFAULT_TABLE_CAPACITY:,}, a few hundred MB); "
        "--misere keeps at most N proven winning nodes and N proof numbers "
        "(default 4194304, about 1-2 GB at the most), dropped and proven "
        "again if met (losing nodes stay, and the store has them)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"position", "outcome", "nimber", "stored", "seconds", "jobs"}; with '
        '--misere {"position", "play", ["grundy",] "outcome", "stored", '
        '"nodes", "seconds"}',
    )
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    p.add_argument(
        "--flush-seconds",
        type=_positive_seconds,
        default=FLUSH_SECONDS,
        metavar="S",
        help="commit proven facts to the store at least every S "
        f"seconds (default {FLUSH_SECONDS:g}; a kill loses at "
        "most the last S seconds of work)",
    )
    p.add_argument(
        "--misere",
        action="store_true",
        help="misère play: the last player to move loses (prints the outcome)",
    )
    p.add_argument(
        "--grundy",
        action="store_true",
        help="with --misere: also print the misère Grundy value, the least g "
        'such that POS + *g is a misère loss (JSON: "grundy")',
    )
    p.add_argument(
        "--rct-table",
        metavar="FILE",
        default=None,
        help="with --misere: RCT table file from `rct-table build` (default: the "
        "server's table, else the store's RCTs, else the shipped S6 table)",
    )
    p.add_argument(
        "--no-rct-table",
        action="store_true",
        help="with --misere: search with the rules alone, no RCTs (slow beyond 0*7)",
    )
    add_store_option(p)
    add_client_options(p)
    p.set_defaults(handler=run_solve)

    p = subparsers.add_parser(
        "nimber",
        formatter_class=fmt,
        help="print the nimber of positions (a sum: the nim-sum of its lands)",
        description=(
            "Compute (or read from the store) the nimber (Grundy value) of each position:\n"
            "for a sum, the nim-sum of its lands' nimbers. Nimber 0: the player to move\n"
            "loses in normal play; any other: wins. Prints `POS: nimber N (...)` per\n"
            "position, or with --json one object per line."
        ),
        epilog="examples:\n  sproutsdb nimber 0*5 1a1a '0.AB|AB'\n  sproutsdb nimber - < lands.txt --json",
    )
    p.add_argument("positions", nargs="+", metavar="POS", help="positions, or - for stdin")
    add_game_option(p, store=True)
    add_search_option(p)
    p.add_argument("--json", action="store_true", help='one {"position", "nimber"} object per line')
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    add_store_option(p)
    add_client_options(p)
    p.set_defaults(handler=run_nimber)

    p = subparsers.add_parser(
        "query",
        formatter_class=fmt,
        help="print what the store knows about a position",
        description=(
            "Print the canonical form of a position, the stored nimber of each of\n"
            "its lands with status and provenance, and the outcome when all are known."
        ),
        epilog=(
            "examples:\n  sproutsdb query 0*8\n  sproutsdb query '0.AB|AB+0*2' --json\n"
            "  sproutsdb query 0*6 --server 127.0.0.1:50051"
        ),
    )
    p.add_argument(
        "position",
        metavar="POS",
        help="position in GLOP notation: 2.x (0*3, 0.AB|AB, lands joined by +) or 1.x",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (each land's status and provenance: who, "
        "token, tool, version, when; a refuted claim with its evidence)",
    )
    p.add_argument(
        "--verified",
        action="store_true",
        help="count verified facts only (claims are shown, not used)",
    )
    add_store_option(p)
    add_client_options(p, writes=False)
    p.set_defaults(handler=run_query)
