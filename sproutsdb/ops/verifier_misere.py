"""The verifier's decisions on misère and RCT claims (ops/verifier.py runs them).

Same trust model as for nimbers: a claim is decided on verified facts and the rules alone.

- An RCT record (content id → record) is re-derived when it is loaded: its children's
  records are loaded first (any status: each is itself re-derived on load) and the record
  must equal the reduction of its children. Equal: verified; different: refuted with the
  recomputation; a child the store lacks (or a false child record): it waits.
- A ``pos_rct`` claim (position → content id) is re-derived from the position's children:
  the RCT of each child land comes from a verified ``pos_rct`` fact, or from the rules
  (``RctSearch``) when the land has at most ``max_lives`` lives. The same content id:
  verified; another: refuted, the derived id is the evidence (and the proven value). A
  child land too large to derive with no verified fact: the claim waits (so a claim on a
  land like ``0*12`` is never verified before its children are).
- A misère claim (node key → L/W) is checked by the misère checker on a view serving only
  the claim, verified misère facts and the rules (terminal nodes, lone RCTs, misère Nim);
  verified losing nodes are taken as checked, as the nimber verifier does. Lands are
  replaced by the RCTs of the table the server streams (its positions were re-derived
  whole when it was loaded), so the verifier builds the same node keys as the solvers that
  use that table. L shown: verified; a checked losing option: an L claim is refuted (W
  proven); every option shown winning: a W claim is refuted (L proven); else it waits.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sproutsdb.errors import UserError
from sproutsdb.games import get_game
from sproutsdb.ops.seed import TableShelf
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.cgt.ident import nim_value_of_id
from sproutsdb.solver.cgt.records import RctRecordError, load_one, record_of
from sproutsdb.solver.misere.check import MisereChecker, NodeKeyEngine
from sproutsdb.solver.misere.keys import EMPTY_POSITION, split_node_key
from sproutsdb.solver.misere.rct_trust import DEFAULT_DERIVE_LIVES
from sproutsdb.solver.misere.rctsearch import RctSearch
from sproutsdb.solver.misere.solver import MisereSolver, NoRcts
from sproutsdb.solver.normal.check import Verdict
from sproutsdb.solver.ports.game import Game, NotationError
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore, RctRecord
from sproutsdb.store import LmdbProofStore

TERMINAL = get_game().terminal

WAIT_PRIORITY = 1 << 30  # a claim whose size cannot be told yet goes last
# Claims on positions with more lives than this (0*20) are set aside, neither decided nor
# retried: expanding such a node (or a land's children) may take longer than any step may,
# and no misère proof reaches that far.
MAX_CHECK_LIVES = 60
ENGINE_LANDS = 500_000  # lands the misère engine may memoise before it is rebuilt


@dataclass
class Decision:
    """The verdict on one claim: "verified", "refuted" (with evidence and, when
    re-derived, the proven value) or "waiting"; `rct_loaded` are RCT records this decision
    re-derived (marked verified with it)."""

    verdict: str  # or "set aside": too large to examine (MAX_CHECK_LIVES), not retried
    evidence: str = ""
    proven: Any = None
    rct_loaded: list[str] = field(default_factory=list)


class _RecordStore:
    """RCT records from the store (any status: a record is re-derived when loaded) loaded
    into one algebra, children first; remembers the ids it re-derived."""

    def __init__(self, store: LmdbProofStore, algebra: Algebra) -> None:
        self.store = store
        self.algebra = algebra
        self.loaded: list[str] = []  # ids re-derived since the last `take_loaded`

    def take_loaded(self) -> list[str]:
        out, self.loaded = self.loaded, []
        return out

    def ensure(self, cids: Iterable[str]) -> str | None:
        """Load these trees (and every tree below them) unless loaded: None, or why not
        (a record the store lacks, or one that does not re-derive)."""
        algebra = self.algebra
        by_cid = algebra.table.by_cid
        records: dict[str, RctRecord] = {}
        todo = set()
        for cid in cids:
            n = nim_value_of_id(cid)
            if n is not None:
                algebra.nim(n)
            elif cid not in by_cid:
                todo.add(cid)
        while todo:
            got = self.store.get(FactKind.RCT, sorted(todo))
            missing = todo - got.keys()
            if missing:
                return f"RCT {min(missing)} is not stored"
            todo = set()
            for cid, record in got.items():
                records[cid] = record
                for child in record.children:
                    if child not in by_cid and child not in records:
                        n = nim_value_of_id(child)
                        if n is not None:
                            algebra.nim(n)
                        else:
                            todo.add(child)
        return self._load(records)

    def _load(self, records: Mapping[str, RctRecord]) -> str | None:
        """Load records children first, one by one (so the first false one is named)."""
        algebra = self.algebra
        table = algebra.table
        pending = dict(records)
        while pending:
            ready = [
                cid
                for cid, record in pending.items()
                if all(c in table.by_cid for c in record.children)
            ]
            if not ready:
                return f"RCT {min(pending)}: its children lead back to it"
            for cid in sorted(ready):
                try:
                    load_one(algebra, table, cid, pending.pop(cid))
                except RctRecordError as error:
                    return str(error)
                self.loaded.append(cid)
        return None


class _ServedMap:
    """The RctSource of the verifier's misère engine: a land has the RCT the served table
    gives it (re-derived whole when loaded), interned in the verifier's algebra."""

    def __init__(self, algebra: Algebra, table: Any) -> None:
        self.algebra = algebra
        self._table = table

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        table, by_cid = self._table, self.algebra.table.by_cid
        out: dict[str, int] = {}
        for land in lands:
            handle = table.positions.get(land)
            if handle is None:
                continue
            cid = table.algebra.content_id(handle)
            mine = by_cid.get(cid)
            if mine is None:
                mine = self._copy(handle)
            out[land] = mine
        return out

    def _copy(self, handle: int) -> int:
        """Intern a table tree (and those below it) here, re-deriving each record."""
        source = self._table.algebra
        children = source.table.children
        by_cid = self.algebra.table.by_cid
        seen: set[int] = set()
        stack = [handle]
        while stack:
            h = stack.pop()
            if h not in seen and source.content_id(h) not in by_cid:
                seen.add(h)
                stack.extend(children[h])
        records = [(source.content_id(h), source.record(h)) for h in sorted(seen)]
        self.algebra.load_records(records)  # creation order: children first
        return by_cid[source.content_id(handle)]


class _MisereView:
    """A FactSource for the misère checker: the claim under test (under its key and its
    normalised key), verified misère facts, and those verified earlier in this step."""

    def __init__(
        self,
        store: LmdbProofStore,
        claim_keys: Iterable[str],
        value: str,
        just_verified: Mapping[str, str],
    ) -> None:
        self.store = store
        self.claim_keys = frozenset(claim_keys)
        self.value = value
        self.just_verified = just_verified
        self.trusted_losing: set[str] = set()  # verified losing nodes met (never the claim)

    def get(self, kind: FactKind, keys: Sequence[str]) -> Mapping[str, Any]:
        if kind is not FactKind.MISERE:
            return {}
        keys = list(keys)
        found: dict[str, Any] = self.store.get(FactKind.MISERE, keys, verified_only=True)
        for key in keys:
            if key in self.claim_keys:
                found[key] = self.value
            elif key in self.just_verified:
                found[key] = self.just_verified[key]
        self.trusted_losing.update(
            k for k, v in found.items() if v == "L" and k not in self.claim_keys
        )
        return found


def _claim_checker(engine: NodeKeyEngine, view: _MisereView) -> MisereChecker:
    """The misère checker taking verified losing nodes as checked (their justification
    rests on verified facts already), so a claim costs one expansion of its node."""
    trusted = view.trusted_losing
    return MisereChecker(engine, view, settled=lambda key: Verdict.OK if key in trusted else None)


class MisereClaims:
    """Decides misère, ``pos_rct`` and RCT claims for the verifier (one thread)."""

    def __init__(
        self,
        store: LmdbProofStore,
        game: Game,
        *,
        tables: TableShelf | None = None,
        max_lives: int = DEFAULT_DERIVE_LIVES,
    ) -> None:
        self.store = store
        self.game = game
        self.tables = tables
        self.max_lives = max_lives
        self.algebra = Algebra()
        self.records = _RecordStore(store, self.algebra)
        self._search = RctSearch(game, self.algebra, via_lands=True)
        self._engine: NodeKeyEngine | None = None
        self.checks = 0

    # --- order -----------------------------------------------------------------------------

    def priority(self, kind: FactKind, key: str) -> int:
        """Smaller claims first, so that what a claim needs is decided before it: records
        and maps before nodes; a node's lives + parity + RCT heights (a move lowers it)."""
        if kind is FactKind.RCT:
            return 0
        try:
            if kind is FactKind.POS_RCT:
                return self._lives(key)
            position, parity, cids = split_node_key(key)
            if self.records.ensure(cids) is not None:
                return WAIT_PRIORITY
            algebra = self.algebra
            heights = sum(algebra.height(algebra.handle(c)) for c in cids)
            return self._lives(position) + parity + heights
        except (NotationError, KeyError, ValueError):
            return WAIT_PRIORITY

    def _lives(self, position: str) -> int:
        if position in (EMPTY_POSITION, TERMINAL):
            return 0
        return self.game.size(self.game.canonical(position))

    # --- deciding --------------------------------------------------------------------------

    def decide(
        self, kind: FactKind, key: str, value: Any, just_verified: Mapping[str, str]
    ) -> Decision:
        """The verdict on the claim `key` = `value` of this kind (a claim the engine cannot
        expand, e.g. too many ways to split a region, is set aside)."""
        self.checks += 1
        self.records.take_loaded()
        try:
            if kind is FactKind.RCT:
                decision = self._decide_rct(key, value)
            elif self._too_large(kind, key):
                decision = Decision("set aside", f"more than {MAX_CHECK_LIVES} lives")
            elif kind is FactKind.POS_RCT:
                decision = self._decide_pos_rct(key, str(value))
            else:
                decision = self._decide_misere(key, str(value), just_verified)
        except (UserError, RecursionError) as error:
            decision = Decision("set aside", f"cannot be expanded: {error}")
        decision.rct_loaded = self.records.take_loaded()
        return decision

    def _too_large(self, kind: FactKind, key: str) -> bool:
        try:
            position = key if kind is FactKind.POS_RCT else split_node_key(key)[0]
            return self._lives(position) > MAX_CHECK_LIVES
        except (NotationError, ValueError):
            return False  # decided (refuted as malformed) by the check itself

    def _decide_rct(self, cid: str, record: RctRecord) -> Decision:
        handle = self.algebra.table.by_cid.get(cid)
        if handle is None:
            why = self.records.ensure(record.children)
            if why is not None:
                return Decision("waiting")  # a child record is missing or false: decided alone
            try:
                load_one(self.algebra, self.algebra.table, cid, record)
            except RctRecordError as error:
                return Decision("refuted", f"RCT record {cid} does not re-derive: {error}")
            return Decision("verified")
        mine = record_of(self.algebra.table, handle)
        if mine == record:
            return Decision("verified")
        return Decision("refuted", f"RCT record {cid} does not re-derive: its children give {mine}")

    def _decide_pos_rct(self, key: str, cid: str) -> Decision:
        derived = self._derive(key)
        if derived is None:
            return Decision("waiting")
        derived_id = self.algebra.content_id(derived)
        if derived_id == cid:
            return Decision("verified")
        return Decision(
            "refuted",
            f"the RCT of {key} re-derived from its children is {derived_id}, not {cid}",
            derived_id,
        )

    def _derive(self, key: str) -> int | None:
        """The RCT handle of a canonical position from its children (the lands' RCTs from
        verified facts or the rules), or None when a land is too large to derive."""
        game, algebra = self.game, self.algebra
        lands = game.components(key)
        if len(lands) != 1:
            known = self._lands(lands)
            if known is None:
                return None
            return algebra.sum(known[land] for land in lands)
        kids = [game.components(child) for child in game.children(key)]
        known = self._lands({land for parts in kids for land in parts})
        if known is None:
            return None
        return algebra.reduce_children(
            frozenset(algebra.sum(known[land] for land in parts) for parts in kids)
        )

    def _lands(self, lands: Iterable[str]) -> dict[str, int] | None:
        """The RCT handle of each land: memo, verified facts, or the rules."""
        search = self._search
        out: dict[str, int] = {}
        unknown: list[str] = []
        for land in lands:
            handle = search.known(land)
            if handle is None:
                unknown.append(land)
            else:
                out[land] = handle
        if unknown:
            found = self.store.get(FactKind.POS_RCT, unknown, verified_only=True)
            if found and self.records.ensure(str(v) for v in found.values()) is None:
                by_cid = self.algebra.table.by_cid
                verified = {land: by_cid[str(cid)] for land, cid in found.items()}
                search.preload(verified)
                out.update(verified)
            rest = [land for land in unknown if land not in out]
            size = self.game.size
            if any(size(land) > self.max_lives for land in rest):
                return None  # before any derivation: a claim that waits costs little
            for land in rest:
                out[land] = search.rct(land)
        return out

    def _decide_misere(self, key: str, value: str, just_verified: Mapping[str, str]) -> Decision:
        if value not in ("L", "W"):
            return Decision("refuted", f"a misère outcome is L or W, not {value!r}")
        try:
            _, _, cids = split_node_key(key)
        except NotationError as error:
            return Decision("refuted", f"{key!r} is no misère node key: {error}")
        if self.records.ensure(cids) is not None:
            return Decision("waiting")
        engine = self._misere_engine()
        node = engine.node(key)
        view = _MisereView(self.store, {key, engine.key(node)}, value, just_verified)
        report = _claim_checker(engine, view).check(key)
        if report.outcome == value:
            return Decision("verified")
        if value == "L":
            if report.outcome == "W" or report.inconsistent:
                reason = report.inconsistent[0].reason if report.inconsistent else "by rule"
                return Decision("refuted", f"{key} = L contradicts verified facts: {reason}", "W")
            return Decision("waiting")
        if report.outcome == "L":
            return Decision("refuted", f"{key} = W: it is a misère loss by rule", "L")
        view = _MisereView(self.store, {key, engine.key(node)}, "L", just_verified)
        if _claim_checker(engine, view).check(key).outcome == "L":
            return Decision(
                "refuted",
                f"{key} = W contradicts verified facts: every option of it is shown winning "
                "by verified losing nodes",
                "L",
            )
        return Decision("waiting")

    def _misere_engine(self) -> NodeKeyEngine:
        """The engine (nodes, children, rules), rebuilt when its land memo grows large."""
        engine = self._engine
        if engine is None or len(getattr(engine.solver, "_land_rct", ())) > ENGINE_LANDS:
            source: Any = NoRcts(self.algebra)
            table = self._served_table()
            if table is not None:
                source = _ServedMap(self.algebra, table)
            engine = self._engine = NodeKeyEngine(
                MisereSolver(self.game, MemoryProofStore(), source)
            )
        return engine

    def _served_table(self) -> Any:
        """The table the server streams by default (solvers of this server replace lands
        by its RCTs), re-derived whole on load or by its cached mark; None if none."""
        if self.tables is None:
            return None
        entry = self.tables.get("")
        if entry is None:
            return None
        from sproutsdb.trusted_tables import verified_table

        return verified_table(entry.path)


__all__ = ["Decision", "MisereClaims"]
