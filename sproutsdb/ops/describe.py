"""Describe a position: the one report of what a store (or a server) holds of it.

`Describer` computes a position's report: each land's nimber (stored, else from its RCT)
and misère outcome, the nimber, normal outcome and misère outcome they give, the position's
RCT (its own, else the sum of its lands') and tree, the R1 note's rule, and, for the web
page, every child with its values, what verified values imply and the proof the store holds.
Every value carries a source (`stored`, `rct`, `lands`, `inferred`, `rules`) and a status
(`verified`, `claimed`; a `refuted` claim is never a value): a value is verified only when
every fact it rests on is. With `verified_only`, claims are shown but never used.

RCTs come from the store's verified position → RCT map first, then a table (the shipped S6
table), then the store's claimed map; their records are re-derived when loaded. Nothing is
ever written. The records are read by the one reader of stored values, `sproutsdb.values`.

The web page (server/position_view.py) serves `Describer.report` as its JSON, with children
listed by its worker under a time limit; `describe(store, position)` is the `query`
command's: `PositionValues.to_json()` is its JSON, shaped from the same report.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sproutsdb.errors import UserError
from sproutsdb.facts import Provenance
from sproutsdb.games import DEFAULT_GAME, get_game
from sproutsdb.solver.cgt import ONE, ZERO, Algebra
from sproutsdb.solver.extras.r1 import Part, R1Verdict, r1_class, r1_rule
from sproutsdb.solver.extras.r1_hereditary import NOTE_CONDITIONS, HereditaryR1, rct_values
from sproutsdb.solver.misere.keys import EMPTY_POSITION, join_node_key
from sproutsdb.solver.misere.rctsearch import RctSearch
from sproutsdb.solver.misere.solver import MisereConflictError, StoreRcts
from sproutsdb.solver.ports.game import sum_children
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore
from sproutsdb.values import (
    CLAIMED,
    REFUTED,
    VERIFIED,
    RecordSource,
    StoredValues,
    read_values,
    refutation_json,
    status_name,
    usable,
)

ListChildren = Callable[[Sequence[str]], Mapping[str, Iterable[Sequence[str]]]]
"""The children of each land, each a sequence of lands; UserError when they cannot be
listed (the message says why: the engine's refusal, or a door's time limit)."""


@dataclass(frozen=True)
class ReportLimits:
    """What one report may cost: children listed, tree drawn, replies searched, RCT sums."""

    max_children: int = 500  # children listed; more are cut with a message
    max_tree_nodes: int = 120  # RCT drawn as a tree up to this many nodes
    max_replies: int = 200  # children of a loss searched for a refuting reply
    max_sum_pairs: int = 10_000  # pairs of subtrees a sum of lands' RCTs may visit (~0.5 s)
    view_sum_pairs: int = 40_000  # and all the sums of one report together (~2 s)
    r1_tree_size: int = 12  # the hereditary R1 test runs on lands this small (0*4: ~0.1 s)


def worst(statuses: list[str | None]) -> str | None:
    """The status of a value resting on several facts: verified only if all are."""
    if not statuses or any(s is None for s in statuses):
        return None
    return VERIFIED if all(s == VERIFIED for s in statuses) else CLAIMED


class _ClientRecords:
    """A server's facts read as records (Lookup with_records, one kind a call), and the
    provenance records those lookups named."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.provenance: dict[int, Provenance] = {}

    def get_records(
        self, kind: FactKind, keys: Iterable[str], *, refuted: bool = False
    ) -> dict[str, Any]:
        keys = list(keys)
        looked = self.client.lookup(keys, (kind,), with_records=True)
        self.provenance.update(looked.provenance)
        return {k: r for k, r in zip(keys, looked.records[kind]) if r is not None}

    def provenance_records(self) -> dict[int, Provenance]:
        return self.provenance


class _Mapped:
    """A store (or client) whose position → RCT map is the one the report decided to use
    (only usable entries); RCT records are read as stored (re-derived when loaded)."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.rct_ids: dict[str, str] = {}

    def get(self, kind: FactKind, keys: Any) -> dict[str, Any]:
        if kind is FactKind.POS_RCT:
            return {k: self.rct_ids[k] for k in keys if k in self.rct_ids}
        return dict(self.source.get(kind, list(keys)))


@dataclass
class _Facts:
    """The stored records of a set of lands and positions (`stored`, refuted claims
    included), the position → RCT maps the report may use, and the RCTs they give."""

    stored: StoredValues
    pos_rct: dict[str, Any]  # usable maps only
    handles: dict[str, int]  # key -> RCT handle (store or table)
    from_table: set[str]  # keys whose RCT is the table's
    problems: dict[str, str]  # key -> why its mapped RCT cannot be read
    via_node: dict[str, str] = field(default_factory=dict)  # key -> the node its misère is of


class Describer:
    """Reports of positions from one store or server (thread-safe, read-only)."""

    def __init__(
        self,
        store: Any,
        *,
        game: str = DEFAULT_GAME,
        table: Any | None = None,
        table_name: str | None = None,
        verified_only: bool = False,
        limits: ReportLimits | None = None,
        children: ListChildren | None = None,
    ) -> None:
        """`store`: an LmdbProofStore (read only), a server's RemoteProofStore or a Client.
        `table`: a loaded RCT table used where the store has no verified map. `children`:
        how the children of lands are listed (default: the engine, in this process)."""
        entry = get_game(game)
        self.game = entry.engine()
        self.terminal = entry.terminal
        self.verified_only = verified_only
        self.limits = limits or ReportLimits()
        self.records: RecordSource
        if isinstance(store, LmdbProofStore):
            self.records, reads = store, store
        else:  # a server: each kind looked up alone
            client = getattr(store, "client", store)  # a RemoteProofStore's, or a Client
            self.records, reads = _ClientRecords(client), client
        # A table whose positions were re-derived says how in its header ("verified"); the
        # map of any other table is a claim (its records are re-derived when loaded).
        verified = None if table is None else table.header.get("verified")
        self.table_status = VERIFIED if verified else CLAIMED
        self.table = None if verified_only and not verified else table
        self.table_source = {"table": table_name, "verified": verified or None}
        self.algebra: Algebra = table.algebra if table is not None else Algebra()
        self._mapped = _Mapped(reads)
        self.store_rcts = StoreRcts(cast(Any, self._mapped), self.algebra)
        self.list_children: ListChildren = children or self._engine_children
        self._lock = threading.Lock()  # the algebra and the memo grow as reports are made
        self._subtrees: dict[int, int] = {}  # handle -> number of distinct subtrees
        self._sum_budget = 0  # pairs of subtrees the sums of this report may still visit
        # the hereditary R1 test (conditions 1-4) on small lands, values from their own RCTs
        self._r1_search = RctSearch(self.game)
        self._r1_tree = HereditaryR1(self.game, rct_values(self._r1_search), (1, 2, 3, 4))

    def _engine_children(self, lands: Sequence[str]) -> dict[str, Iterable[Sequence[str]]]:
        return {land: self.game.component_children(land) for land in lands}

    # --- the reports -------------------------------------------------------------------------

    def report(self, text: str, parent: str | None = None) -> dict[str, Any]:
        """The position's full report, children included (the web page's JSON);
        NotationError on unreadable text. `parent`, a position the user came from, adds
        what its verified value implies."""
        key = self.game.canonical(text)
        parent_key = None if parent is None or not parent.strip() else self.game.canonical(parent)
        with self._lock:
            return self._report(key, parent_key, children=True)[1]

    def values(self, text: str) -> tuple[_Facts, dict[str, Any]]:
        """(the facts read, the report without children): the position's own values and
        the R1 rule, what `query` shows."""
        key = self.game.canonical(text)
        with self._lock:
            return self._report(key, None, children=False)

    def _report(
        self, key: str, parent_key: str | None, *, children: bool
    ) -> tuple[_Facts, dict[str, Any]]:
        """(facts read of the position, its report); without `children` the report has
        the position's values and the R1 rule only."""
        self._sum_budget = self.limits.view_sum_pairs
        listed, count, note = self._children(key) if children else ([], 0, None)
        facts = self._facts([key, *listed])
        values = {k: self._position(k, facts) for k in [key, *listed]}
        report = values[key]
        handle = report.pop("_handle")
        if not children:
            report["r1"] = self._r1(report)
            return facts, report
        report["children"] = [values[child] for child in listed]
        report["children_count"] = count
        report["children_note"] = note
        report["rct_tree"] = self._tree(handle)
        for child in report["children"]:
            child.pop("_handle", None)
        if parent_key is not None and parent_key != key:
            self._from_parent(report, parent_key)
        for play in ("normal", "misere"):
            self._infer(report, play, note is None)
        _one_land_follows(report)
        report["proof"] = {play: self._proof(report, play) for play in ("normal", "misere")}
        report["r1"] = self._r1(report)
        for child in report["children"]:
            child["winning_normal"] = _loses(child, "normal")
            child["winning_misere"] = _loses(child, "misere")
        return facts, report

    # --- children --------------------------------------------------------------------------

    def _children(self, key: str) -> tuple[list[str], int, str | None]:
        """(children listed, how many there are, a note when not all are listed)."""
        try:
            known = self.list_children(list(self.game.components(key)))
        except UserError as error:
            return [], 0, f"children not listed: {error}"
        children = sum_children(self.game, key, lambda land: map(tuple, known[land]))
        cap = self.limits.max_children
        if len(children) > cap:
            return children[:cap], len(children), f"the first {cap} of {len(children):,} children"
        return children, len(children), None

    def _grandchildren(self, keys: list[str]) -> dict[str, list[str]] | None:
        """The children of each key, or None when they cannot be listed."""
        lands = sorted({land for k in keys for land in self.game.components(k)})
        try:
            known = self.list_children(lands)
        except UserError:
            return None
        return {k: sum_children(self.game, k, lambda x: map(tuple, known[x])) for k in keys}

    # --- facts -----------------------------------------------------------------------------

    def _facts(self, keys: list[str]) -> _Facts:
        """The records of the keys and their lands, read in a few batches, and their RCTs."""
        lands = {land for k in keys for land in self.game.components(k)}
        every = sorted(lands | set(keys))
        stored = read_values(self.records, nimbers=sorted(lands), misere=every, pos_rct=every)
        pos_rct = {k: r for k, r in stored.pos_rct.items() if usable(r, self.verified_only)}
        handles, from_table, problems = self._rct_handles(every, pos_rct)
        via_node = self._stored_nodes(keys, stored, handles)
        return _Facts(stored, pos_rct, handles, from_table, problems, via_node)

    def _stored_nodes(
        self, keys: list[str], stored: StoredValues, handles: dict[str, int]
    ) -> dict[str, str]:
        """Misère facts the search stored of these positions as nodes: lands of known RCT
        replaced by their trees (how solve --misere keys what it proves). Each one found is
        put in `stored.misere` under the position's key; returns key -> node key."""
        nodes = {}
        for k in keys:
            if k in stored.misere or k in handles or k == self.terminal:
                continue
            lands = self.game.components(k)
            known = [handles[land] for land in lands if land in handles]
            node = self._node_key([x for x in lands if x not in handles], known) if known else None
            if node is not None:
                nodes[k] = node
        if not nodes:
            return {}
        found = dict(
            self.records.get_records(FactKind.MISERE, sorted(set(nodes.values())), refuted=True)
        )
        if found and not stored.provenance:
            stored.provenance = dict(self.records.provenance_records())
        via = {k: node for k, node in nodes.items() if node in found}
        stored.misere.update({k: found[node] for k, node in via.items()})
        return via

    def _node_key(self, lands: list[str], rcts: list[int]) -> str | None:
        """The misère search's key of `lands` + the trees `rcts`: 0 vanishes, *1 (and the *1
        of a tree H + *1) flips the parity, the other trees are named by content id. None when
        nothing is left (the empty position, a misère win by the rules: no node is stored)."""
        parity, stays = 0, []
        for handle in rcts:
            while handle not in (ZERO, ONE):
                base = self.algebra.plus1_of(handle)
                if base is None:
                    stays.append(handle)
                    break
                parity ^= 1
                handle = base
            parity ^= handle == ONE
        if not lands and not parity and not stays:
            return None
        position = self.game.join(sorted(lands)) if lands else EMPTY_POSITION
        return join_node_key(position, parity, [self.algebra.content_id(h) for h in stays])

    def _rct_handles(
        self, keys: list[str], pos_rct: dict[str, Any]
    ) -> tuple[dict[str, int], set[str], dict[str, str]]:
        """(RCT handle of each key that has one, keys whose RCT is the table's, problems).
        A verified map in the store comes first, then the table, then a claimed map. A store
        mapping a key to an RCT it cannot give is a problem of that key alone."""
        found: dict[str, int] = {}
        from_table: set[str] = set()
        problems: dict[str, str] = {}
        wanted = []
        for k in keys:
            record = pos_rct.get(k)
            verified = record is not None and _status(record) == VERIFIED
            h = None if verified or self.table is None else self.table.positions.get(k)
            if h is None:
                if record is not None:  # only maps read just now: a new map shows at once
                    wanted.append(k)
            else:
                found[k] = h
                from_table.add(k)
        self._mapped.rct_ids = {k: str(pos_rct[k].value) for k in wanted}
        try:
            found.update(self.store_rcts.lookup(wanted))
        except (MisereConflictError, UserError):
            for k in wanted:  # find which keys are the trouble; the others still answer
                try:
                    found.update(self.store_rcts.lookup([k]))
                except (MisereConflictError, UserError) as error:
                    problems[k] = str(error)
        dangling = self.store_rcts.dangling
        for k in wanted:
            if k in dangling:
                problems[k] = f"the store maps {k} to RCT {dangling[k]} but holds no record of it"
        return found, from_table, problems

    # --- values ----------------------------------------------------------------------------

    def _rct_value(self, key: str, facts: _Facts) -> dict[str, Any]:
        """Where a key's RCT comes from, and the status of the map position → RCT."""
        if key in facts.from_table:
            return {
                "rct_source": "table",
                "rct_status": self.table_status,
                "rct_provenance": self.table_source,
            }
        record = facts.pos_rct.get(key)
        if key in facts.handles and record is not None:
            return {
                "rct_source": "store",
                "rct_status": _status(record),
                "rct_provenance": facts.stored.who(record.provenance),
            }
        return {"rct_source": None, "rct_status": None, "rct_provenance": None}

    def _land(self, land: str, facts: _Facts) -> dict[str, Any]:
        """One land: its nimber (stored, else from its RCT), misère outcome and R1 class."""
        record = facts.stored.nimbers.get(land)
        handle = facts.handles.get(land)
        rct = self._rct_value(land, facts)
        who = facts.stored.who
        nimber: int | None = None
        source = status = None
        if record is not None and usable(record, self.verified_only):
            nimber, source, status = int(record.value), "stored", _status(record)
        elif handle is not None:
            nimber, source, status = self.algebra.nimber(handle), "rct", rct["rct_status"]
        misere = self._misere(land, facts, handle, rct)
        return {
            "land": land,
            "lives": self.game.size(land),
            "nimber": nimber,
            "nimber_source": source,
            "nimber_status": status,
            "status": None if record is None else _status(record),
            "provenance": None if record is None else who(record.provenance),
            "verified_by": None if record is None else who(record.verified_by),
            "refutation": refutation_json(record),
            **misere,
            "r1": r1_class(nimber, misere["misere"]),
            "r1_status": worst([status, misere["misere_status"]]),
            **self._rct_fields(handle),
            **rct,
            "rct_problem": facts.problems.get(land),
        }

    def misere_status(self, key: str, facts: _Facts, record: Any) -> str | None:
        """The status of a key's stored misère record; a fact of a search node rests also
        on the maps of the lands its key replaced by their trees (one claimed: a claim)."""
        status = status_name(record)
        if key not in facts.via_node or status != VERIFIED:
            return status
        replaced = [x for x in self.game.components(key) if x in facts.handles]
        return worst([status] + [self._rct_value(x, facts)["rct_status"] for x in replaced])

    def _misere(
        self, key: str, facts: _Facts, handle: int | None, rct: dict[str, Any]
    ) -> dict[str, Any]:
        """A key's misère outcome: a stored node, else its RCT's outcome."""
        record = facts.stored.misere.get(key)
        if record is not None and usable(record, self.verified_only):
            return {
                "misere": str(record.value),
                "misere_source": "node" if key in facts.via_node else "stored",
                "misere_status": self.misere_status(key, facts, record),
                "misere_provenance": facts.stored.who(record.provenance),
            }
        if handle is not None:
            return {
                "misere": self.algebra.outcome(handle),
                "misere_source": "rct",
                "misere_status": rct["rct_status"],
                "misere_provenance": rct["rct_provenance"],
            }
        return {
            "misere": None,
            "misere_source": None,
            "misere_status": None,
            "misere_provenance": None,
        }

    def _position(self, k: str, facts: _Facts) -> dict[str, Any]:
        """A position: its lands, the nimber they add up to, misère outcome and RCT (its
        own, else the sum of its lands'; `_handle`, for the tree, is popped by the caller)."""
        game, alg = self.game, self.algebra
        lands = [self._land(land, facts) for land in game.components(k)]
        total: int | None = 0
        for land in lands:
            total = None if total is None or land["nimber"] is None else total ^ land["nimber"]
        handle = facts.handles.get(k)
        rct = self._rct_value(k, facts)
        sum_note = None
        if handle is None and k == self.terminal:
            handle = alg.sum([])
        elif handle is None and lands and all(x["rct"] is not None for x in lands):
            handle, sum_note = self._bounded_sum([facts.handles[x["land"]] for x in lands])
            if handle is not None:
                statuses = [x["rct_status"] for x in lands]
                rct = {"rct_source": "lands", "rct_status": worst(statuses), "rct_provenance": None}
        if k == self.terminal:
            nimber: dict[str, Any] = {
                "nimber": 0,
                "nimber_source": "rules",
                "nimber_status": VERIFIED,
            }
            misere: dict[str, Any] = {
                "misere": "W",
                "misere_source": "rules",
                "misere_status": VERIFIED,
                "misere_provenance": None,
            }
        else:
            sources = {x["nimber_source"] for x in lands}
            nimber = {
                "nimber": total,
                "nimber_source": None
                if total is None
                else ("stored" if sources == {"stored"} else "rct"),
                "nimber_status": None
                if total is None
                else worst([x["nimber_status"] for x in lands]),
            }
            misere = self._misere(k, facts, handle, rct)
        outcome = nimber["nimber"]
        return {
            "position": k,
            "lives": game.size(k),
            "lands": lands,
            **nimber,
            "outcome": None if outcome is None else ("L" if outcome == 0 else "W"),
            "outcome_source": nimber["nimber_source"],
            "outcome_status": nimber["nimber_status"],
            **misere,
            **self._rct_fields(handle),
            **rct,
            "rct_problem": facts.problems.get(k),
            "rct_note": sum_note,
            "inferred_from": None,
            "_handle": handle,
        }

    # --- what verified values imply ----------------------------------------------------------

    def _infer(self, report: dict[str, Any], play: str, complete: bool) -> None:
        """A verified loss makes every child a win (and finds each one's refuting reply); a
        child that is a verified loss makes the position a win; with every child listed and
        a verified win, the position is a loss."""
        _, source, status = _fields(play)
        children = report["children"]
        if report[status] != VERIFIED:
            loss = next((c for c in children if _verified(c, play) and _loses(c, play)), None)
            if loss is not None:
                _set(report, play, "W", f"a move to {loss['position']}, a verified loss")
            elif (
                complete
                and children
                and all(_verified(c, play) and _loses(c, play) is False for c in children)
            ):
                _set(report, play, "L", "every child is a verified win")
        if _loses(report, play) is None:
            return
        if _loses(report, play) and report[status] == VERIFIED:
            for child in children:
                if _loses(child, play):
                    child["conflict_" + play] = (
                        f"its {child[source]} value says L ({child[status]}), but it is a move "
                        f"from the verified loss {report['position']}"
                    )
                if not _verified(child, play):
                    _set(child, play, "W", f"a move from {report['position']}, a verified loss")
        if _loses(report, play):
            self._replies(report, play)
        for child in children:
            child.setdefault("reply_" + play, None)

    def _from_parent(self, report: dict[str, Any], parent: str) -> None:
        """The user came from `parent`: if it is a verified loss and this is one of its
        children, this position is a win in that play."""
        children, _, _ = self._children(parent)
        if report["position"] not in children:
            return
        value = self._position(parent, self._facts([parent]))
        for play in ("normal", "misere"):
            if _verified(value, play) and _loses(value, play) and not _verified(report, play):
                _set(report, play, "W", f"a move from {parent}, a verified loss")

    def _replies(self, report: dict[str, Any], play: str) -> None:
        """For each child of a loss, a reply (a child of the child) that is a stored loss,
        verified ones preferred: the certificate a user can follow by clicking."""
        children = report["children"][: self.limits.max_replies]
        found = self._grandchildren([c["position"] for c in children])
        if found is None:
            report["replies_note"] = "replies not searched: the engine did not list them in time"
            return
        keys = sorted({r for rs in found.values() for r in rs})
        facts = self._facts(keys)
        cache: dict[str, dict[str, Any]] = {}
        for child in children:
            best = None
            for r in found[child["position"]]:
                value = cache.get(r) or cache.setdefault(r, self._position(r, facts))
                if _loses(value, play):
                    if _verified(value, play):
                        best = value
                        break
                    best = best or value
            _, source, status = _fields(play)
            child["reply_" + play] = (
                None
                if best is None
                else {"position": best["position"], "status": best[status], "source": best[source]}
            )

    def _proof(self, report: dict[str, Any], play: str) -> dict[str, Any] | None:
        """What proves the position's outcome in one play, as far as the store shows it."""
        _, source, status = _fields(play)
        loses = _loses(report, play)
        if loses is None:
            return None
        children = report["children"]
        if loses:
            refuted = sum(1 for c in children if c.get("reply_" + play))
            return {
                "outcome": "L",
                "status": report[status],
                "source": report[source],
                "children": report["children_count"],
                "refuted": refuted,
            }
        move = next((c for c in children if _loses(c, play) and _verified(c, play)), None)
        move = move or next((c for c in children if _loses(c, play)), None)
        return {
            "outcome": "W",
            "status": report[status],
            "source": report[source],
            "move": None if move is None else move["position"],
            "move_status": None if move is None else move[status],
        }

    # --- the R1 note's rule ----------------------------------------------------------------

    def _r1(self, report: dict[str, Any]) -> dict[str, Any]:
        """The R1 note's rule on the position (solver/extras/r1.py): the case that applies to
        its lands' classes and the rule's move, the children's values read as every value
        of the report is. A claim of the note, not a proof: the exact outcomes are beside it."""
        lands = report["lands"]
        parts = [Part(x["land"], x["nimber"], x["misere"]) for x in lands]
        status = worst([x["r1_status"] for x in lands]) if lands else VERIFIED
        if any(p.r1 is None for p in parts):
            why = "a land's nimber or misère outcome is unknown"
            verdict = R1Verdict(tuple(p.r1 for p in parts), None, None, reason=why)
            return {**verdict.as_json(parts), "moved_to": None, "status": None}
        try:
            verdict = r1_rule(parts, self._land_children)
        except UserError as error:
            why = f"the children of a land were not listed: {error}"
            verdict = R1Verdict(tuple(p.r1 for p in parts), None, None, reason=why)
        moved = None
        if verdict.land is not None and verdict.child is not None:
            rest = [p.key for i, p in enumerate(parts) if i != verdict.land]
            moved = self.game.join([*rest, *self.game.components(verdict.child.key)])
        scope = self._r1_scope([p.key for p in parts], moved)
        return {**verdict.as_json(parts), "moved_to": moved, "status": status, "scope": scope}

    def _r1_scope(self, lands: list[str], moved: str | None) -> dict[str, Any]:
        """Where the note's rule is a theorem: whether every land is hereditarily R1 (the
        note's conditions 1-3 in every position of its tree) and meets condition 4 too (no
        gremlin moves to a null: the gap in the note's argument), with the nearest violation
        as evidence; on such a sum the rule's move is checked by the exact misère outcome of
        the position it reaches. Lands past `r1_tree_size` are not tested (the cost grows
        with the tree: 15 lives ~1 s)."""
        limit = self.limits.r1_tree_size
        verdicts: list[dict[str, Any]] = []
        for land in dict.fromkeys(lands):
            size = self.game.size(land)
            if size > limit:
                verdicts.append({"land": land, "tested": False, "size": size})
                continue
            found = self._r1_tree.check(land)
            note = {c: v for c, v in found.violations.items() if c in NOTE_CONDITIONS}
            evidence = found.evidence
            verdicts.append({
                "land": land,
                "tested": True,
                "size": size,
                "hereditary_r1": not note,
                "condition_4": 4 not in found.violations,
                "evidence": None if evidence is None else evidence.describe(),
            })  # fmt: skip
        tested = all(v["tested"] for v in verdicts)
        r1 = tested and all(v["hereditary_r1"] for v in verdicts)
        corrected = r1 and all(v["condition_4"] for v in verdicts)
        checked = None
        if corrected and moved is not None:  # small lands only: their sum's RCT is cheap
            checked = self._r1_search.algebra.outcome(self._r1_search.rct(moved))
        return {
            "says": _r1_scope_says(verdicts, tested, r1, corrected, checked, limit),
            "lands": verdicts,
            "tested": tested,
            "hereditary_r1": r1 if tested else None,
            "corrected_rule_applies": corrected if tested else None,
            "move_checked": checked,
            "limit": limit,
        }

    def _land_children(self, land: Part) -> list[Part]:
        """A land's children with their nimbers and misère outcomes, as the report reads them."""
        known = self.list_children([land.key])
        keys = [self.game.join(tuple(child)) for child in known[land.key]]
        facts = self._facts(keys)
        values = [self._position(k, facts) for k in keys]
        return [Part(v["position"], v["nimber"], v["misere"]) for v in values]

    # --- RCT fields --------------------------------------------------------------------------

    def _bounded_sum(self, terms: list[int]) -> tuple[int | None, str | None]:
        """The RCT of a sum of lands, unless it may visit more pairs of subtrees than the
        limit (a sum a + b visits at most subtrees(a) x subtrees(b) pairs)."""
        alg = self.algebra
        total = alg.sum([])
        for term in terms:
            pairs = self._count_subtrees(total) * self._count_subtrees(term)
            if pairs > self.limits.max_sum_pairs:
                return None, (
                    f"the sum of the lands' RCTs is not computed here: up to {pairs:,} pairs "
                    f"of subtrees, more than this page's limit of {self.limits.max_sum_pairs:,}"
                )
            if pairs > self._sum_budget:
                return None, (
                    "the sum of the lands' RCTs is not computed here: this request's sums "
                    f"used up the page's limit of {self.limits.view_sum_pairs:,} pairs of "
                    "subtrees (open the position itself)"
                )
            self._sum_budget -= pairs
            total = alg.add(total, term)
        return total, None

    def _count_subtrees(self, handle: int) -> int:
        known = self._subtrees.get(handle)
        if known is None:
            children = self.algebra.table.children
            seen = {handle}
            stack = [handle]
            while stack:
                for kid in children[stack.pop()]:
                    if kid not in seen:
                        seen.add(kid)
                        stack.append(kid)
            known = self._subtrees[handle] = len(seen)
        return known

    def _rct_fields(self, handle: int | None) -> dict[str, Any]:
        if handle is None:
            return {"rct": None, "rct_label": None, "rct_height": None}
        alg = self.algebra
        return {
            "rct": alg.content_id(handle),
            "rct_label": alg.label(handle),
            "rct_height": alg.height(handle),
        }

    def _tree(self, handle: int | None) -> dict[str, Any] | None:
        """The RCT as nested {"nim": n} / {"children": [...]}, None past max_tree_nodes."""
        if handle is None:
            return None
        table = self.algebra.table
        budget = [self.limits.max_tree_nodes]

        def node(h: int) -> dict[str, Any] | None:
            budget[0] -= 1
            if budget[0] < 0:
                return None
            if table.nim[h] >= 0:
                return {"nim": table.nim[h]}
            kids = []
            for c in sorted(table.children[h], key=lambda c: (table.height[c], table.nim[c])):
                sub = node(c)
                if sub is None:
                    return None
                kids.append(sub)
            return {"children": kids}

        return node(handle)


# --- the query's report ----------------------------------------------------------------------


@dataclass(frozen=True)
class PositionValues:
    """A position's values as `describe` found them: the canonical key, its lands, the
    records read (`stored`), the full report (`values`, without children) and the query's
    JSON shaped from it (`report`, `to_json`)."""

    position: str
    lands: list[str]
    stored: StoredValues
    values: dict[str, Any]
    report: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The report as `sproutsdb query --json` prints it."""
        return self.report


def describe(
    store: Any,
    position: str,
    game: str | None = None,
    *,
    verified_only: bool = False,
    shipped_rcts: bool = True,
) -> PositionValues:
    """The values `store` holds of `position` (of `game`, default Sprouts): an embedded
    store (LmdbProofStore, read only), a server's RemoteProofStore or a Client. With
    `verified_only`, claims are shown but not used. A local store without RCTs takes the
    lands' RCTs from the shipped S6 table (`shipped_rcts`); nothing is ever written."""
    from sproutsdb.ops.shipped_rcts import describe_source, shipped_rct_table

    table = shipped = None
    rct_source: dict[str, Any] | None = None
    if isinstance(store, LmdbProofStore):
        rct_source = describe_source("store", str(store.path))
        if shipped_rcts and not (store.count(FactKind.RCT) or store.count(FactKind.POS_RCT)):
            shipped = shipped_rct_table()  # a store without RCTs: the shipped S6 table
        if shipped is not None:
            table, rct_source = shipped[0], describe_source("shipped", str(shipped[1]))
    describer = Describer(
        store, game=game or DEFAULT_GAME, table=table, verified_only=verified_only
    )
    facts, values = describer.values(position)
    for k, problem in sorted(facts.problems.items()):
        print(f"sproutsdb query: cannot read the RCT of {k}: {problem}", file=sys.stderr)
    report = _query_report(describer, facts, values)
    if rct_source is None:
        client = getattr(store, "client", store)
        report = {"position": report.pop("position"), "server": client.address, **report}
    else:
        report["rct_table"] = rct_source
    lands = [land["land"] for land in values["lands"]]
    return PositionValues(values["position"], lands, facts.stored, values, report)


def _query_report(describer: Describer, facts: _Facts, values: dict[str, Any]) -> dict[str, Any]:
    """The query's JSON, shaped from the report: stored facts first, each with its status;
    values derived from RCTs under keys of their own (``*_from_rct``), never in place of
    stored ones. A refuted claim is shown with its evidence, never as a value; with
    `verified_only` neither is a claim (nimber, misère outcome or position → RCT map)."""
    verified_only = describer.verified_only
    report: dict[str, Any] = {
        "position": values["position"],
        "lands": [_query_land(describer, facts, land) for land in values["lands"]],
        "trust": "verified facts only" if verified_only else "verified facts and claims",
    }
    if values["nimber_source"] in ("stored", "rules"):
        report["nimber"], report["outcome"] = values["nimber"], values["outcome"]
    else:
        report["nimber"] = report["outcome"] = None
        if values["nimber"] is not None:
            report["nimber_from_rct"] = values["nimber"]
            report["outcome_from_rct"] = values["outcome"]
    report["misere"] = _query_misere(describer, facts, values, report)
    report["r1"] = {k: v for k, v in values["r1"].items() if k != "status"}
    return report


def _query_land(describer: Describer, facts: _Facts, land: dict[str, Any]) -> dict[str, Any]:
    """One land of the query's JSON: its nimber fact (or claim, or refuted claim) with its
    provenance, the RCT map used, and what the report derived from that RCT."""
    key = land["land"]
    record = facts.stored.nimbers.get(key)
    who = facts.stored.who
    entry: dict[str, Any] = {"land": key, "nimber": None}
    status = status_name(record)
    if record is not None and status == REFUTED:
        entry.update(
            status=status,
            claimed=record.value,
            refutation=refutation_json(record),
            claimed_by=who(record.provenance),
            refuted_by=who(record.verified_by),
        )
    elif record is not None and usable(record, describer.verified_only):
        source_of = facts.stored.provenance.get(record.provenance)
        entry.update(
            nimber=record.value,
            status=status,
            provenance=None if source_of is None else source_of.describe(),
            provenance_record=who(record.provenance),
            verified_by=who(record.verified_by),
        )
    elif record is not None:
        entry.update(status=status, claimed=record.value, provenance_record=who(record.provenance))
    entry.update(_query_rct(describer, facts, key))
    if land["rct"] is not None:
        entry["rct_height"] = land["rct_height"]
        if land["nimber_source"] == "rct":
            entry["nimber_from_rct"] = land["nimber"]
    entry["misere_from_rct"] = land["misere"]
    entry["r1"] = land["r1"]
    return entry


def _query_rct(describer: Describer, facts: _Facts, key: str) -> dict[str, Any]:
    """What the query says of a key's position → RCT map: the id used (None when it may
    not be used), its status, and the id of a claim not used or refuted."""
    if key in facts.from_table:
        cid = describer.algebra.content_id(facts.handles[key])
        return {"rct": cid, "rct_status": describer.table_status}
    record = facts.stored.pos_rct.get(key)
    status = status_name(record)
    fields: dict[str, Any] = {"rct": None, "rct_status": status}
    if record is None:
        return fields
    if usable(record, describer.verified_only):
        fields["rct"] = str(record.value)
    elif status == REFUTED:
        fields["rct_refuted"] = str(record.value)
        fields["rct_refutation"] = refutation_json(record)
    else:
        fields["rct_claimed"] = str(record.value)
    return fields


def _query_misere(
    describer: Describer, facts: _Facts, values: dict[str, Any], report: dict[str, Any]
) -> dict[str, Any]:
    """The query's misère part: the stored outcome with its status (a claim not used with
    --verified, a refuted claim with its evidence), else the outcome of the position's own
    RCT (not of the sum of its lands', which the page shows); the RCT map's status."""
    key = values["position"]
    record = facts.stored.misere.get(key)
    status = describer.misere_status(key, facts, record)
    stored = None
    if record is not None and usable(record, describer.verified_only):
        stored = str(record.value)
    key_rct = _query_rct(describer, facts, key)
    handle = facts.handles.get(key) if key_rct["rct"] is not None else None
    from_rct = None
    if handle is not None and stored is None:
        from_rct = report["misere_outcome_from_rct"] = describer.algebra.outcome(handle)
    part: dict[str, Any] = {
        "outcome": stored if stored is not None else from_rct,
        "stored": stored,
        "status": status,
        "from_rct": from_rct is not None,
        "rct": key_rct["rct"],
        "rct_status": key_rct["rct_status"],
        "rct_height": None if handle is None else describer.algebra.height(handle),
    }
    if record is not None and status == REFUTED:
        part["refuted"] = str(record.value)
        part["refutation"] = refutation_json(record)
    elif record is not None and stored is None:
        part["claimed"] = str(record.value)
    for name in ("rct_claimed", "rct_refuted", "rct_refutation"):
        if name in key_rct:
            part[name] = key_rct[name]
    return part


# --- small helpers ---------------------------------------------------------------------------


def _r1_scope_says(
    lands: list[dict[str, Any]],
    tested: bool,
    r1: bool,
    corrected: bool,
    checked: str | None,
    limit: int,
) -> str:
    """One sentence on where the note's rule stands for this sum (query and the page)."""
    if not tested:
        big = next(v for v in lands if not v["tested"])
        return (
            f"not tested whether every land is hereditarily R1: {big['land']} has size "
            f"{big['size']} (the test runs on lands of size at most {limit})"
        )
    if not r1:
        bad = next(v for v in lands if not v["hereditary_r1"])
        return (
            f"not an R1 game, so the note claims nothing here: {bad['land']} is not "
            f"hereditarily R1 ({bad['evidence']})"
        )
    if not corrected:
        bad = next(v for v in lands if not v["condition_4"])
        return (
            "every land is hereditarily R1, but the note's argument has a gap here "
            f"({bad['evidence']}): its verdict may be wrong"
        )
    tail = (
        "" if checked is None else f"; the exact misère outcome of its move's result is {checked}"
    )
    return (
        "every land is hereditarily R1 and no gremlin below moves to a null: the corrected "
        f"rule holds here{tail}"
    )


def _status(record: Any) -> str:
    return str(status_name(record))


def _fields(play: str) -> tuple[str, str, str]:
    """The (value, source, status) field names of a play's outcome."""
    if play == "normal":
        return "outcome", "outcome_source", "outcome_status"
    return "misere", "misere_source", "misere_status"


def _loses(value: dict[str, Any], play: str) -> bool | None:
    """Whether the player to move loses, None when unknown."""
    outcome = value[_fields(play)[0]]
    return None if outcome is None else outcome == "L"


def _verified(value: dict[str, Any], play: str) -> bool:
    return bool(value[_fields(play)[2]] == VERIFIED)


def _one_land_follows(report: dict[str, Any]) -> None:
    """A position that is one land: the land's row shows the misère outcome inferred for
    the position (they are one game), so the summary and the lands table never disagree."""
    lands = report["lands"]
    if len(lands) == 1 and lands[0]["land"] == report["position"]:
        land = lands[0]
        if land["misere"] is None and report["misere_source"] == "inferred":
            for field_name in ("misere", "misere_source", "misere_status"):
                land[field_name] = report[field_name]


def _set(value: dict[str, Any], play: str, outcome: str, why: str) -> None:
    """Record an outcome inferred from verified values (so itself verified)."""
    name, source, status = _fields(play)
    value[name], value[source], value[status] = outcome, "inferred", VERIFIED
    inferred = dict(value.get("inferred_from") or {})
    inferred[play] = why
    value["inferred_from"] = inferred


__all__ = ["Describer", "ListChildren", "PositionValues", "ReportLimits", "describe", "worst"]
