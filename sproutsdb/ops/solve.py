"""Solve a position: the verb that assembles game, store, RCT source, progress and solver.

`solve(position, store, game=..., settings=SolveSettings(...))` proves the normal-play
outcome of a position (and the nimber of a single land), or with `misere=True` its misère
outcome (and with `grundy=True` its misère Grundy value), storing every fact it proves in
`store` (any ProofStore: `open_proof_store`'s local or remote one, or a MemoryProofStore).
The Ray fleet, `nimber` and bench/ call it on a store they opened; `sproutsdb solve` calls
the whole job around it (sproutsdb.ops.solve_job: seeding, RCT table, helper processes).

Ctrl-C flushes what was proven and raises `SolveInterrupted` with the count of new facts
kept, so the caller can say that a rerun resumes from them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sproutsdb.errors import UsageError, UserError
from sproutsdb.games import DEFAULT_GAME, GameEntry, get_game
from sproutsdb.ops.solved_on import (
    named_table_file,
    solved_on_comment,
    table_file_digest,
    table_file_name,
    tables_solved_on,
)
from sproutsdb.solver.normal.solver import SEARCHES, Levers, NormalSolver
from sproutsdb.solver.ports.game import Game
from sproutsdb.solver.ports.proofstore import FactKind, ListedProofStore, ProofStore
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.search.progress import ProgressFn, SolverStats
from sproutsdb.solver.search.resume import ResumeSlots

if TYPE_CHECKING:
    from sproutsdb.store import LmdbProofStore

FLUSH_SECONDS = 5.0  # proven facts are committed at least this often (and every 1 000)
MISERE_LAND_CACHE = 1 << 17  # lands whose children the engine memoises in a misère solve
GRUNDY_LIMIT = 64  # a misère Grundy search tries P + *g for g up to this
# A server's RCT table as streamed and rebuilt, per server address and the tables it says it
# serves (root, counts, checksum): a process that solves many positions as a client of one
# server (a Ray worker of `fleet solve --misere`, one task per position) streams and rebuilds
# it once, not once per position (~5 s each for S6, minutes on a loaded machine). Rebuilding
# re-derived its records; every position -> RCT claim is still re-derived on use.
_SERVER_TABLES: dict[tuple[str, tuple[tuple[Any, ...], ...]], Any] = {}
SERVER_TABLES_KEPT = 2


class SolveInterrupted(KeyboardInterrupt):
    """Ctrl-C during a solve, raised after the solver flushed: `stored` new facts are kept
    in the store (and, with `resume_saved`, a resume record of where the search stood), and
    the same solve run again resumes from them."""

    def __init__(
        self,
        stored: int,
        *,
        resume_saved: bool = False,
        root_options: list[tuple[str, str | None]] | None = None,
        position: str | None = None,
        play: str = "normal",
        nodes: int = 0,
        seconds: float = 0.0,
    ) -> None:
        super().__init__(stored)
        self.stored = stored
        self.resume_saved = resume_saved
        # the root's options, each "L", "W" or None (open), as the table and store have them
        self.root_options = root_options
        self.position, self.play, self.nodes, self.seconds = position, play, nodes, seconds

    def to_json(self) -> dict[str, Any]:
        """What `solve --json` prints when stopped: the report's fields, outcome null."""
        out: dict[str, Any] = {
            "position": self.position,
            "play": self.play,
            "outcome": None,
            "interrupted": True,
            "stored": self.stored,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
            "resume_saved": self.resume_saved,
        }
        if self.root_options is not None:
            out["root_options"] = [
                {"position": key, "outcome": outcome} for key, outcome in self.root_options
            ]
        return out


@dataclass(frozen=True)
class SolveSettings:
    """How to solve (None: the solver's own default). `rcts` is the RCT source of a misère
    solve (`misere_rct_source`); None searches with the rules alone."""

    misere: bool = False
    grundy: bool = False  # misère: the least g such that P + *g is a misère loss
    outcome_only: bool = False  # normal play, one land: stop at W/L, no nimber
    search: str = SEARCHES[-1]
    table_capacity: int | None = None
    flush_seconds: float = FLUSH_SECONDS
    progress: ProgressFn | None = None
    progress_interval: float | None = None
    share_seconds: float | None = None  # how often to meet other solvers' facts (--jobs)
    reprove_roots: bool = True  # prove a root again even when the store holds its fact
    rcts: Any = None
    resume: ResumeSlots | None = None  # where a search's resume record is kept (either play)
    root_share: Any = None  # --jobs (either play): the root's children shared with helpers
    news: Any = None  # --jobs (either play): the keys the solvers of one store put (FactNews)
    busy: Any = None  # --jobs (either play): the nodes the other searches are in (BusyMarks)
    # what a whole job (sproutsdb.ops.solve_job) does around the search
    jobs: int = 1  # processes: the main search and jobs - 1 helpers
    rct_table: str | None = None  # misère: a table file or name (None: the store's default)
    use_rcts: bool = True  # misère: False searches with the rules alone
    seed_results: bool = False  # seed the results library's certificates below the root first
    levers: Levers = field(
        default_factory=Levers
    )  # normal play: the df-pn refinements (bench/levers.py)

    def options(self) -> SolveOptions:
        """The solver options these settings ask for."""
        extra: dict[str, Any] = {}
        if self.progress_interval is not None:
            extra["progress_interval"] = self.progress_interval
        return SolveOptions(
            progress=self.progress,
            table_capacity=self.table_capacity,
            flush_seconds=self.flush_seconds,
            reprove_roots=self.reprove_roots,
            **extra,
        )


@dataclass
class SolveReport:
    """What a solve proved: the outcome (W/L for the player to move), the nimber (normal
    play, a single land), the misère Grundy value (when asked), and its work."""

    position: str
    play: str  # "normal" or "misere"
    outcome: str
    stats: SolverStats
    seconds: float
    nimber: int | None = None
    grundy: int | None = None
    rct_source: dict[str, str | None] | None = None  # misère: which RCTs, from where
    rct_claims: Any = None  # misère: what the position → RCT claims came to (DerivedRcts)
    # facts of the play's kind the store held before the run and no check had marked
    # verified: the answer may rest on them (None: the store cannot say)
    unverified_before: int | None = None
    # `solve --seed-results`: certificates of the results library by what seeding did to
    # them ("seeded", "present", "refused", "conflicts"); None: not asked
    seeded_results: dict[str, int] | None = None

    @property
    def stored(self) -> int:
        """New facts the solve stored."""
        return self.stats.facts_stored

    def to_json(self, jobs: int = 1) -> dict[str, Any]:
        """The report as `sproutsdb solve --json` prints it."""
        seeded = {} if self.seeded_results is None else {"seeded_results": self.seeded_results}
        if self.play == "normal":
            return {
                "position": self.position,
                "outcome": self.outcome,
                "nimber": self.nimber,
                "stored": self.stored,
                "nodes": self.stats.nodes,
                "seconds": round(self.seconds, 3),
                "jobs": jobs,
                "unverified_store_facts": self.unverified_before,
                **seeded,
            }
        out: dict[str, Any] = {"position": self.position, "play": "misere"}
        if self.grundy is not None:
            out["grundy"] = self.grundy
        out.update(
            outcome=self.outcome,
            stored=self.stored,
            nodes=self.stats.nodes,
            seconds=round(self.seconds, 3),
            rct_table=self.rct_source,
            jobs=jobs,
            unverified_store_facts=self.unverified_before,
        )
        if self.rct_claims is not None:
            out["rct_claims"] = self.rct_claims.to_json()
        out.update(seeded)
        return out


def normal_solver(game: Game, store: ProofStore, settings: SolveSettings) -> NormalSolver:
    """The normal-play solver of `settings` on `store`."""
    return NormalSolver(
        game,
        store,
        options=settings.options(),
        search=settings.search,
        share_seconds=settings.share_seconds,
        resume=settings.resume,
        root_share=settings.root_share,
        news=settings.news,
        busy=settings.busy,
        levers=settings.levers,
    )


class Solving:
    """One solver of `game` on `store` for any number of positions (`nimber` asks one
    solver many), flushed on leaving its `with` block, where Ctrl-C becomes
    SolveInterrupted. The store stays open: it is the caller's."""

    def __init__(
        self,
        store: ProofStore,
        *,
        game: str | GameEntry | None = None,
        settings: SolveSettings = SolveSettings(),
    ) -> None:
        entry = game if isinstance(game, GameEntry) else get_game(game or DEFAULT_GAME)
        capacity = settings.table_capacity
        if capacity is not None and capacity < 1:
            raise UsageError(f"--table-capacity must be at least 1, got {capacity}")
        self.entry, self.settings = entry, settings
        kind = FactKind.MISERE if settings.misere else FactKind.NIMBER
        self.unverified_before = unverified_facts(store, kind)  # before anything is proven
        self._asked: str | None = None  # the position of the last `solve`, and when
        self._started = time.perf_counter()
        self.solver: Any
        if settings.misere:
            from sproutsdb.solver.misere.solver import MisereSolver

            if not entry.supports.misere:
                raise UsageError(f"misère play is not offered for {entry.name}")
            # the solver keeps its hot lands' moves in an LRU of its own: the engine's memo
            # of land children is only a second level: 2^17 lands at most (about 2 GB if
            # every one were a 15 kB land of 0*12 and up; a few MB in practice)
            self.game = entry.engine(cache_size=MISERE_LAND_CACHE)
            self.solver = MisereSolver(
                self.game,
                store,
                settings.rcts,
                options=settings.options(),
                share_seconds=settings.share_seconds,
                resume=settings.resume,
                busy=settings.busy,
                root_share=settings.root_share,
                news=settings.news,
            )
        else:
            self.game = entry.engine()
            self.solver = normal_solver(self.game, store, settings)

    @property
    def stats(self) -> SolverStats:
        """The solver's counters over every position it was asked."""
        return self.solver.stats  # type: ignore[no-any-return]

    def solve(self, position: str) -> SolveReport:
        """Prove one position (see `solve`)."""
        key = self.game.canonical(position)
        started = time.perf_counter()
        settings = self.settings
        self._asked, self._started = key, started
        if settings.misere:
            grundy = _misere_grundy(self.solver, key) if settings.grundy else None
            # P + *0 is P: the search for g has decided the outcome already
            if grundy is None:
                outcome = self.solver.outcome(key)
            else:
                outcome = "L" if grundy == 0 else "W"
            return SolveReport(
                key,
                "misere",
                outcome,
                self.stats,
                time.perf_counter() - started,
                grundy=grundy,
                rct_claims=getattr(settings.rcts, "report", None),  # a DerivedRcts' claims
                unverified_before=self.unverified_before,
            )
        if len(self.game.components(key)) <= 1 and not settings.outcome_only:
            nimber: int | None = self.solver.nimber(key)
            outcome = "L" if nimber == 0 else "W"
        else:
            nimber = None
            outcome = self.solver.outcome(key)
        return SolveReport(
            key,
            "normal",
            outcome,
            self.stats,
            time.perf_counter() - started,
            nimber=nimber,
            unverified_before=self.unverified_before,
        )

    def flush(self) -> None:
        """Commit every fact proven so far."""
        self.solver.flush()

    def __enter__(self) -> Solving:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: object, tb: object) -> None:
        self.solver.flush()
        interrupted = kind is not None and issubclass(kind, KeyboardInterrupt)
        if interrupted and not isinstance(error, SolveInterrupted):
            raise SolveInterrupted(
                self.stats.facts_stored,
                resume_saved=bool(self.stats.resume_saves),
                root_options=self._settled_options(),
                position=self._asked,
                play="misere" if self.settings.misere else "normal",
                nodes=self.stats.nodes,
                seconds=time.perf_counter() - self._started,
            ) from None

    def _settled_options(self) -> list[tuple[str, str | None]] | None:
        """After Ctrl-C: what the table and the store settle of the asked position's
        options (None without a position, for a normal-play sum of lands, on a second
        Ctrl-C meanwhile, or when the store cannot be read: the report of what was kept
        must come all the same)."""
        if self._asked is None:
            return None
        try:
            return self.solver.settled_options(self._asked)  # type: ignore[no-any-return]
        except (KeyboardInterrupt, Exception):  # noqa: BLE001 - a report, never the error
            return None


def unverified_facts(store: ProofStore, kind: FactKind) -> int | None:
    """How many facts of `kind` a solver may read from `store` as proven that no check has
    marked verified (imported files, Inserts, earlier runs' own facts): 0 for a server's
    facts of a kind read verified only (`RemoteProofStore.trusted_kinds`), None when the
    store cannot say (an in-memory store)."""
    trusted = getattr(store, "trusted_kinds", None)
    if trusted is not None:
        return 0 if kind in trusted else None
    verified_count = getattr(store, "verified_count", None)
    if verified_count is None or not isinstance(store, ListedProofStore):
        return None
    return max(0, store.count(kind) - int(verified_count(kind)))


def solve(
    position: str,
    store: ProofStore,
    *,
    game: str | GameEntry | None = None,
    settings: SolveSettings = SolveSettings(),
) -> SolveReport:
    """Prove `position` of `game` (default Sprouts) on `store`, storing what is proven;
    the store stays open (the caller's). SolveInterrupted on Ctrl-C, after a flush."""
    with Solving(store, game=game, settings=settings) as solving:
        return solving.solve(position)


def _misere_grundy(solver: Any, key: str) -> int:
    try:
        return int(solver.grundy(key, GRUNDY_LIMIT))
    except ValueError as error:
        if isinstance(error, UserError) or not str(error).startswith("no g"):
            raise
        raise UserError(f"{error} (the limit of --grundy)") from None


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def misere_rct_source(
    store: ProofStore,
    *,
    table_file: str | None = None,
    use_rcts: bool = True,
    notice: Callable[[str], None] = _say,
    who: str = "sproutsdb solve",
    progress: bool = True,
) -> tuple[Any, dict[str, str | None]]:
    """The RCT source of a misère solve on `store` and its description ({source, where}):
    `table_file`, else the server's streamed table, else the store's RCTs, else the shipped
    S6 table (seeded into a local store first, so that every RCT its misère facts name is
    stored beside them); (None, none) with `use_rcts=False` or when there is none (said
    through `notice`). A table file is re-derived whole before its first use, and a large
    one is opened in place after that (sproutsdb.trusted_tables); the positions a server or a store maps to RCTs are claims,
    each re-derived before use (solver.misere.rct_trust). `progress`: a named table's
    build shows its counter on stderr (off under `--quiet`)."""
    from sproutsdb.ops.rct_tables import rct_table_file
    from sproutsdb.ops.shipped_rcts import describe_source, say_on_stderr, shipped_rct_table
    from sproutsdb.solver.misere.rct_trust import DerivedRcts
    from sproutsdb.solver.misere.solver import StoreRcts, TableRcts
    from sproutsdb.store import LmdbProofStore
    from sproutsdb.trusted_tables import verified_rcts

    def rederived(claims: Any) -> DerivedRcts:
        shipped = shipped_rct_table()  # re-derived whole once per install: a fast path
        trusted = shipped[0].rct_id_of if shipped is not None else None
        return DerivedRcts(get_game().engine(), claims, trusted=trusted)

    if not use_rcts:
        return None, describe_source("none", None)
    if table_file:
        # a name (s7): built once, cached
        path = rct_table_file(table_file, notice=notice, progress=progress)
        rcts = verified_rcts(path, notice=say_on_stderr)  # all re-derived, once
        if isinstance(store, LmdbProofStore):
            _name_the_table(store, path, notice=notice, who=who)
        return rcts, describe_source("file", str(path.resolve()))
    client = getattr(store, "client", None)  # a RemoteProofStore: its server's table
    if client is not None:
        if served := client.server_info().get("rct_tables"):
            return rederived(TableRcts(_server_table(client, served))), describe_source(
                "server", client.address
            )
        where = f"server {client.address}"
    else:
        assert isinstance(store, LmdbProofStore), "a local store or a server's"
        if store.count(FactKind.RCT) or store.count(FactKind.POS_RCT):
            shipped = shipped_rct_table()
            # the shipped table's trees were re-derived when it loaded: the store's records
            # of the same content ids are not loaded again (an algebra is only added to)
            claims = StoreRcts(store, shipped[0].algebra if shipped is not None else None)
            return rederived(claims), describe_source("store", str(store.path))
        where = f"the store {store.path}"
        shipped = shipped_rct_table()
        if shipped is not None:
            from sproutsdb.ops.seed import seed_store

            table, path = shipped
            seed_store(store, path, load=lambda: table, who=f"{who} --misere")
            _name_the_table(store, path, notice=notice, who=who)
            return TableRcts(table), describe_source("shipped", str(path))
    notice(
        f"{who}: no RCT table in {where}; solving without RCTs (slow beyond "
        "0*7). Give --rct-table FILE, or serve the store seeded (`sproutsdb serve`)."
    )
    return None, describe_source("none", None)


def _name_the_table(
    store: LmdbProofStore, table: Path, *, notice: Callable[[str], None], who: str
) -> None:
    """Name `table` in the provenance of what this misère solve stores (a check needs the
    same table), after saying so when the store's misère facts were solved on another: a
    proof may then need both tables while a check reads one (the outcome is still right)."""
    from sproutsdb.shipped import SHIPPED_TABLE, shipped_table
    from sproutsdb.trusted_tables import file_digest

    digest = file_digest(table)
    if store.count(FactKind.MISERE):
        named = {table_file_digest(t): table_file_name(t) for t in tables_solved_on(store)}
        shipped = shipped_table()
        if shipped is not None and _holds_library(store):
            named.setdefault(file_digest(shipped), SHIPPED_TABLE)  # its certificates' table
        others = [f"{name} (sha256 {sha[:12]}…)" for sha, name in named.items() if sha != digest]
        if others:
            notice(
                f"{who}: warning: this store's misère facts were solved on "
                f"{', '.join(others)}; a search on {table.name} takes them as proven, and "
                "its proof may need both tables while a check reads one (the outcome is "
                f"still right). Give a new --store to prove it on {table.name}."
            )
    if not store.readonly:
        store.provenance = replace(
            store.provenance, comment=solved_on_comment(named_table_file(table.name, digest))
        )


def _holds_library(store: LmdbProofStore) -> bool:
    """Whether the results library's misère certificates were seeded into `store`."""
    return any(
        record.tool == "results library" and " misere " in record.comment
        for record in store.provenance_records().values()
    )


def refuse_seeding_across_tables(table_file: str | None, *, use_rcts: bool = True) -> None:
    """UsageError for `solve --misere --seed-results` on another RCT table than the
    library's. Its certificates' losing nodes name the trees of the shipped S6 table: a
    search on another table (or none) takes them as proven, so its outcome is right, but
    its proof needs both tables while a check reads one (0*9 on S5, 0*14 and 0*19 on S7)."""
    from sproutsdb.ops.rct_tables import rct_table_file, table_name_spots
    from sproutsdb.shipped import SHIPPED_TABLE, shipped_table
    from sproutsdb.trusted_tables import file_digest

    if use_rcts and table_file is None:
        return  # the store's or the shipped table: the library's own
    if not use_rcts:
        searched_on = "no RCT table (--no-rct-table)"
    else:
        assert table_file is not None
        spots = table_name_spots(table_file)
        if spots == 6:
            return  # the name of the library's table
        if spots is not None:
            searched_on = f"{table_file} (the table of 0*{spots})"
        else:
            path = rct_table_file(table_file)  # refuses a missing file
            shipped = shipped_table()
            if shipped is not None and file_digest(path) == file_digest(shipped):
                return  # a copy of the library's table
            searched_on = path.name
    raise UsageError(
        "--seed-results stores the results library's misère certificates, whose losing "
        f"nodes name the trees of the shipped S6 table ({SHIPPED_TABLE}); a search on "
        f"{searched_on} would take them as proven, and its proof would need both tables "
        "while a check reads one: solve on it from an empty store, or drop --seed-results"
    )


def _server_table(client: Any, served: list[dict[str, Any]]) -> Any:
    """The server's default RCT table, streamed once per process while the server says it
    serves the same tables (see _SERVER_TABLES)."""
    key = (
        str(client.address),
        tuple((t["root"], t["rcts"], t["positions"], t["checksum"]) for t in served),
    )
    table = _SERVER_TABLES.get(key)
    if table is None:
        table = client.rct_table()
        while len(_SERVER_TABLES) >= SERVER_TABLES_KEPT:
            del _SERVER_TABLES[next(iter(_SERVER_TABLES))]
        _SERVER_TABLES[key] = table
    return table


__all__ = [
    "FLUSH_SECONDS",
    "GRUNDY_LIMIT",
    "MISERE_LAND_CACHE",
    "SolveInterrupted",
    "SolveReport",
    "SolveSettings",
    "Solving",
    "misere_rct_source",
    "normal_solver",
    "refuse_seeding_across_tables",
    "solve",
    "unverified_facts",
]
