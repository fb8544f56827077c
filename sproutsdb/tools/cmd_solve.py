"""Solver commands on an embedded store: `solve`, `nimber`, `query`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sproutsdb.games import GameEntry
from sproutsdb.ops.deferred_interrupt import Deferred, deferred_interrupt
from sproutsdb.ops.solve import (
    FLUSH_SECONDS,
    SolveInterrupted,
    SolveReport,
    SolveSettings,
    Solving,
)
from sproutsdb.ops.solve_job import SEED_A_SERVER, solve_job
from sproutsdb.ops.stores import open_local_store
from sproutsdb.progress import status_line
from sproutsdb.solver.normal.solver import DEFAULT_TABLE_CAPACITY, SEARCHES, Progress
from sproutsdb.solver.ports.proofstore import ConflictError, ProofStore
from sproutsdb.solver.search.progress import ProgressFn, settled_counts
from sproutsdb.store.location import resolve_store_path
from sproutsdb.tools.cli import (
    Interrupted,
    UsageError,
    add_search_option,
    add_store_option,
    positions_from,
)
from sproutsdb.tools.game_option import add_game_option, game_of, open_game_store
from sproutsdb.tools.server_options import (
    add_client_options,
    client_from_args,
)
from sproutsdb.tools.stores import location_of

if TYPE_CHECKING:
    from sproutsdb.ops.seed import ResultSeed

EXIT_CONFLICT = 3
_PLAY_NAMES = {"normal": "normal-play", "misere": "misère"}


def _progress(line: Any, ctrl_c: Deferred | None = None) -> ProgressFn:
    """The progress line of a solve, on stderr; where a Ctrl-C is deferred (`ctrl_c`), the
    search takes it here, between two node visits, so its resume record is whole."""

    def report(p: Progress) -> None:
        if ctrl_c is not None:
            ctrl_c.check()
        root = ""
        if p.root_options is not None:  # the root's options settled so far
            won, lost, options = p.root_options
            root = f"  root options {won} W {lost} L of {options}"
        nodes = "1 node" if p.nodes == 1 else f"{p.nodes:,} nodes"
        line.show(
            f"{nodes}  {p.facts_stored:,} stored  depth {p.depth}  "
            f"{p.nodes_per_second:,.0f} nodes/s  {p.seconds:,.0f} s{root}"
        )

    return report


@contextmanager
def solving(
    args: argparse.Namespace, entry: GameEntry | None = None, *, json_report: bool = False
) -> Iterator[tuple[ProofStore, ProgressFn]]:
    """The store a solve works on (embedded, or the --server's) and its progress line,
    closed on every exit; the solver flushed before (Ctrl-C loses nothing proven, and the
    message says how many new facts were kept; with `json_report`, stdout has the report
    with outcome null)."""
    store = open_game_store(args, entry or game_of(args))
    with status_line(enabled=not args.quiet) as line, deferred_interrupt() as ctrl_c:
        try:
            yield store, _progress(line, ctrl_c)
        except SolveInterrupted as stop:
            if json_report:
                print(json.dumps(stop.to_json()), flush=True)
            raise Interrupted(_kept(args, stop)) from None
        finally:
            store.close()


def _kept(args: argparse.Namespace, stop: SolveInterrupted) -> str:
    """What Ctrl-C kept of a solve (with how far its root's options are settled: any
    misère root, a normal-play root of one land), and that a rerun resumes from it."""
    where = f"server {args.server}" if args.server else str(resolve_store_path(args.store))
    search = " with where the search stood" if stop.resume_saved else ""
    facts = "new losing nodes" if getattr(args, "misere", False) else "new facts"
    return (
        f"{stop.stored:,} {facts} proven so far are stored in {where}{search}"
        f"{_settled_note(stop.root_options)}; run the same command again to resume from there"
    )


def _settled_note(options: list[tuple[str, str | None]] | None) -> str:
    """How many of the root's options are settled, for the Ctrl-C message."""
    if options is None:
        return ""
    won, lost, total = settled_counts(options)
    note = f"; of the root's {total} options, {won} are proven winning"
    if lost:
        note += f" and {lost} losing (the root wins)"
    return f"{note}, {total - won - lost} open"


def _conflict(command: str, error: ConflictError) -> int:
    print(f"sproutsdb {command}: conflict: {error}", file=sys.stderr)
    return EXIT_CONFLICT


def _settings(args: argparse.Namespace, progress: ProgressFn, **extra: Any) -> SolveSettings:
    """The solve settings the flags ask for."""
    return SolveSettings(
        search=getattr(args, "search", SEARCHES[-1]),
        table_capacity=getattr(args, "table_capacity", None),
        flush_seconds=getattr(args, "flush_seconds", FLUSH_SECONDS),
        progress=progress,
        **extra,
    )


def _seeding(args: argparse.Namespace) -> Callable[[str], None]:
    """What `--seed-results` says as it begins (unless --quiet)."""

    def begins(play: str) -> None:
        if not args.quiet:
            print(
                f"sproutsdb solve: seeding the store with the results library's "
                f"{_PLAY_NAMES[play]} certificates below {args.key} (each re-derived from "
                "the rules the first time: minutes for the largest)",
                file=sys.stderr,
            )

    return begins


def _seed_told(args: argparse.Namespace, play: str) -> Callable[[ResultSeed], None]:
    """What `--seed-results` says of each certificate: seeded (unless --quiet), and always
    one refused or conflicting."""
    name = _PLAY_NAMES[play]

    def told(seed: ResultSeed) -> None:
        if seed.action == "seeded":
            if not args.quiet:
                print(
                    f"sproutsdb solve: seeded {name} {seed.position} "
                    f"({seed.facts:,} facts) in {seed.seconds:.1f} s",
                    file=sys.stderr,
                )
        elif seed.action != "present":  # refused or conflicting: always said
            print(
                f"sproutsdb solve: warning: {name} {seed.position} not seeded "
                f"({seed.action}): {seed.message}",
                file=sys.stderr,
            )

    return told


def _run_job(args: argparse.Namespace, entry: GameEntry, **extra: Any) -> int:
    """Solve `args.key` as the flags ask (sproutsdb.ops.solve_job), with the progress line
    on stderr; print the report. Ctrl-C keeps what was proven and says how to resume."""
    play = "misere" if extra.get("misere") else "normal"
    told = _seed_told(args, play)
    with status_line(enabled=not args.quiet) as line:
        settings = _settings(
            args,
            _progress(line),
            jobs=args.jobs,
            seed_results=args.seed_results,
            **extra,
        )
        try:
            report = solve_job(
                args.key,
                location_of(args, entry.name),
                settings,
                game=entry,
                on_seed=told,
                seeding=_seeding(args),
                rct_progress=not args.quiet,
            )
        except SolveInterrupted as stop:
            if args.json:
                print(json.dumps(stop.to_json()), flush=True)
            raise Interrupted(_kept(args, stop)) from None
        except ConflictError as error:
            return _conflict("solve", error)
    if play == "misere":
        derivation = report.rct_claims  # a DerivedRcts: what its claims came to
        for refuted in derivation.refuted[:10] if derivation is not None else ():
            print(
                f"sproutsdb solve: warning: a false position → RCT claim was not used: "
                f"{refuted.describe()}",
                file=sys.stderr,
            )
    _print_report(args, report)
    return 0


def run_solve(args: argparse.Namespace) -> int:
    if args.seed_results and args.server:  # said before the server is asked for its game
        raise UsageError(SEED_A_SERVER)
    entry = game_of(args, [args.position] if args.position is not None else [])
    game = entry.engine()
    flags = {  # a capability of the game's registry entry → its flag, and whether it is given
        "spots": ("--spots", args.spots is not None),
        "misere": ("--misere", args.misere),
        "parallel": ("--jobs", args.jobs != 1),
        "library": ("--seed-results", args.seed_results),
    }
    refused = entry.supports.missing({name: given for name, (_, given) in flags.items()})
    if refused:
        named = " and ".join(flags[name][0] for name in refused)
        verb = "is" if len(refused) == 1 else "are"
        raise UsageError(f"{named} {verb} not offered for {entry.name}")
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
    args.key = game.canonical(text)
    if args.table_capacity is not None and args.table_capacity < 1:
        raise UsageError(f"--table-capacity must be at least 1, got {args.table_capacity}")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if getattr(args, "misere", False):
        if args.no_rct_table and args.rct_table:
            raise UsageError("give --rct-table FILE|sN or --no-rct-table, not both")
        return _run_job(
            args,
            entry,
            misere=True,
            grundy=args.grundy,
            rct_table=args.rct_table,
            use_rcts=not args.no_rct_table,
        )
    if getattr(args, "grundy", False):
        raise UsageError(
            "--grundy is the misère Grundy value: add --misere (in normal play "
            "the nimber is printed anyway)"
        )
    if getattr(args, "rct_table", None) or getattr(args, "no_rct_table", False):
        raise UsageError("--rct-table and --no-rct-table are for misère play: add --misere")
    return _run_job(args, entry, outcome_only=args.outcome_only)


def _print_report(args: argparse.Namespace, report: SolveReport) -> None:
    """What `solve` prints of its report (either play; the same on a server or a store)."""
    if args.json:
        print(json.dumps(report.to_json(getattr(args, "jobs", 1))))
        return
    key, outcome, grundy = report.position, report.outcome, report.grundy
    who = "the player to move wins" if outcome == "W" else "the player to move loses"
    where = f"on server {args.server}" if args.server else f"in {resolve_store_path(args.store)}"
    if report.play == "normal":
        tail = f", nimber {report.nimber}" if report.nimber is not None else ""
        print(f"{key}: {outcome} ({who}){tail}")
        print(f"{report.stored:,} new facts stored {where} in {report.seconds:.2f} s")
        _print_unverified(args, report)
        return
    print(f"{key}: {outcome} in misère play ({who})")
    if grundy is not None:
        print(
            f"misère Grundy value {grundy}: {key} + *{grundy} is the first misère loss "
            f"among {key} + *g, g = 0, 1, …"
        )
    print(
        f"{report.stats.nodes:,} nodes searched, {report.stored:,} new losing nodes stored "
        f"{where} in {report.seconds:.2f} s"
    )
    source = report.rct_source
    if source is not None and source["where"] is not None:
        print(f"RCTs: {source['source']} ({source['where']})")
    _print_unverified(args, report)


def _print_unverified(args: argparse.Namespace, report: SolveReport) -> None:
    """Say when the answer may rest on facts the store held unverified before the run
    (imported, inserted, or stored by earlier runs): a check re-derives it from the rules."""
    held = report.unverified_before
    if not held:
        return
    kind = "misère" if report.play == "misere" else "nimber"
    misere = " --misere" if report.play == "misere" else ""
    print(
        f"this answer may rest on {held:,} {kind} facts the store held before this run "
        f"that no check has marked verified; `sproutsdb check --store "
        f"{resolve_store_path(args.store)} --root '{report.position}'{misere}` re-derives "
        "it from the rules"
    )


def run_nimber(args: argparse.Namespace) -> int:
    entry = game_of(args)  # the server's or store's game, read before this process opens it
    try:
        with (
            solving(args, entry) as (store, progress),
            Solving(store, game=entry, settings=_settings(args, progress)) as session,
        ):
            for text in positions_from(args.positions):
                key = session.game.canonical(text)
                value = session.solver.nimber(key)
                if args.json:
                    print(json.dumps({"position": key, "nimber": value}), flush=True)
                else:
                    who = "loses" if value == 0 else "wins"
                    print(f"{key}: nimber {value} (the player to move {who})", flush=True)
    except ConflictError as error:
        return _conflict("nimber", error)
    return 0


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
    scope = r1.get("scope")
    if scope is not None:
        print(f"  R1 scope: {scope['says']}")
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
    verified facts are used (claims are shown as such). The values are sproutsdb.ops.describe's."""
    from sproutsdb.ops.describe import describe  # here: solve needs none of its imports

    entry = game_of(args, [args.position])  # the store's or the server's game
    entry.engine().canonical(args.position)  # bad notation is said before any store opens
    access: dict[str, Any] | None = None  # how a local store was opened (--json)
    if args.server:
        with client_from_args(args) as client:
            values = describe(client, args.position, entry.name, verified_only=args.verified)
    else:
        with open_local_store(args.store, readonly=True) as store:
            values = describe(
                store,
                args.position,
                entry.name,
                verified_only=args.verified,
                shipped_rcts=entry.supports.rct_tables,  # the shipped S6 table is of Sprouts
            )
            access = store.access()
    if args.json:
        out = values.to_json()
        if access is not None:
            out["store"] = access
        print(json.dumps(out))
        return 0
    key = values.position
    if args.server:
        _print_query(
            values.report,
            f"position {key} (server {args.server})",
            f"sproutsdb solve {key} --server {args.server}",
        )
    else:
        _print_query(values.report, f"position {key}", "sproutsdb solve")
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
            "      # misère on a server: its RCT table, every losing node stored there\n"
            "  sproutsdb solve 0*19 --misere --seed-results --jobs 2 --store runs/19\n"
            "      # a long run: from the results library's proofs of 0*1..0*18, 2 cores\n"
            "  sproutsdb solve 0*18 --misere --jobs 2 --store runs/18\n"
            "      # a root of 54 lives or more on a new store: on S7 (built once into the\n"
            "      # cache: ~15 min, 5 GB); --rct-table s7 asks for it below that, s6 not"
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
        help="N processes on this machine, the N - 1 helpers proving "
        "the root's options (normal or misère play) into the same store (or server) "
        "while the main search runs; the answer is the same for every N (default 1)",
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
        '"nodes", "seconds", "rct_table", "jobs"}; stopped by Ctrl-C, {"position", '
        '"play", "outcome": null, "interrupted": true, "stored", "nodes", "seconds", '
        '"resume_saved", and for a root of one land (any misère root) "root_options" '
        '[{"position", "outcome"}] (each option "W", "L" or null: open); '
        'with --seed-results also "seeded_results" {"seeded", "present", "refused", '
        '"conflicts"} (certificates by what seeding did)',
    )
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    p.add_argument(
        "--seed-results",
        action="store_true",
        help="first store the shipped results library's certificates of this play "
        "(normal, or --misere) for positions smaller than POS, each re-derived from the "
        "rules (the first time; then a cached mark), as `serve` does: a run of 0*N starts "
        "from the proofs of 0*1..0*N-1 (misère 0*21 found one of its 12 options settled "
        "at once by 0*20's proof); embedded store only",
    )
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
        metavar="FILE|sN",
        default=None,
        help="with --misere: RCT table file from `rct-table build`, or a name: s6 the "
        "shipped table, s7 the table of 0*7's tree, built from the rules into the cache the "
        "first time (about 15 min, 5 GB; it pays from 0*15 on, bench/misere.py); a check "
        "of the proof needs the same table (default: the server's table; else the named "
        "table the store's earlier solves used; else, on a new store and a root of 0*18's "
        "54 lives or more, s7; else the store's RCTs, else the shipped S6 table)",
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
    add_game_option(p, store=True)
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
