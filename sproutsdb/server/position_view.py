"""What the web page and the JSON API show of a position: its values, each with its status
and source, what verified values imply, the proof a store holds, and every child.

Reads only. Values come from the store (nimbers of lands, misère outcomes) or are derived
from an RCT (the store's `pos_rct`/`rct` facts, or the S6 table the package ships). Every
value carries a source (`stored`, `rct`, `inferred`, `rules`) and a status (`verified`,
`claimed`; `refuted` for a disproved claim, whose value is never shown as one): a value is
verified only when every fact it rests on is. From a verified loss the view infers that
every child is a win and shows, for each, a stored reply that refutes it; from a child that
is a verified loss, that the position is a win (the move to it is the proof).

The children are the engine's distinct canonical children, listed by a worker process
under a time limit (server/children_worker.py): a position the engine cannot list within
it is refused with a note saying so, its own values still shown.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, cast

from sproutsdb.errors import UserError
from sproutsdb.games import get_game
from sproutsdb.server.children_worker import BoundedChildren, ChildrenTimeout
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.extras.r1 import Part, R1Verdict, r1_class, r1_rule
from sproutsdb.solver.misere.solver import MisereConflictError, StoreRcts
from sproutsdb.solver.ports.game import sum_children
from sproutsdb.store import LmdbProofStore
from sproutsdb.values import (
    CLAIMED,
    REFUTED,
    VERIFIED,
    read_values,
    refutation_json,
    status_name,
)

TERMINAL = get_game().terminal


@dataclass(frozen=True)
class ViewLimits:
    max_children: int = 500  # children listed; more are cut with a message
    children_seconds: float = 3.0  # time the engine may take to list children (and replies)
    max_tree_nodes: int = 120  # RCT drawn as a tree up to this many nodes
    max_replies: int = 200  # children of a loss searched for a refuting reply
    max_sum_pairs: int = 10_000  # pairs of subtrees a sum of lands' RCTs may visit (~0.5 s)
    view_sum_pairs: int = 40_000  # and all the sums of one request together (~2 s)


def worst(statuses: list[str | None]) -> str | None:
    """The status of a value resting on several facts: verified only if all are."""
    if not statuses or any(s is None for s in statuses):
        return None
    return VERIFIED if all(s == VERIFIED for s in statuses) else CLAIMED


class _Facts:
    """The stored facts and RCTs of a set of lands and positions, read in a few batches by
    the one reader of stored values (sproutsdb.values); a refuted position → RCT claim is
    no map here."""

    def __init__(self, reader: PositionReader, lands: set[str], positions: set[str]) -> None:
        keys = sorted(lands | positions)
        stored = read_values(reader.store, nimbers=sorted(lands), misere=keys, pos_rct=keys)
        self.nimbers = stored.nimbers
        self.misere = stored.misere
        self.pos_rct = {k: r for k, r in stored.pos_rct.items() if _status(r) != REFUTED}
        self.handles, self.from_table, self.problems = reader.rct_handles(keys, self.pos_rct)
        self.who = stored.who


class PositionReader:
    """Values of positions and their children from one store (thread-safe, read-only)."""

    def __init__(
        self,
        store: LmdbProofStore,
        table: Any | None = None,
        limits: ViewLimits | None = None,
        *,
        table_name: str | None = None,
    ) -> None:
        self.game = get_game(store.identity.game).engine()  # the store's game
        self.store = store
        self.limits = limits or ViewLimits()
        self.table = table
        # A table whose positions were re-derived says how in its header ("verified"); the
        # map of any other table is a claim (its records are re-derived when loaded).
        verified = None if table is None else table.header.get("verified")
        self.table_status = VERIFIED if verified else CLAIMED
        self.table_source = {"table": table_name, "verified": verified or None}
        self.algebra: Algebra = table.algebra if table is not None else Algebra()
        self.store_rcts = StoreRcts(store, self.algebra)  # records re-derived when loaded
        self.engine = BoundedChildren(self.limits.children_seconds, game=store.identity.game)
        self._lock = threading.Lock()  # the algebra and the memo grow as pages are read
        self._subtrees: dict[int, int] = {}  # handle -> number of distinct subtrees
        self._sum_budget = 0  # pairs of subtrees the sums of this request may still visit

    def close(self) -> None:
        """Stop the children worker."""
        self.engine.close()

    # --- the one entry point -------------------------------------------------------------

    def view(self, text: str, parent: str | None = None) -> dict[str, Any]:
        """The position's values and its children's; NotationError on unreadable text.
        `parent`, a position the user came from, adds what its verified value implies."""
        key = self.game.canonical(text)
        parent_key = None if parent is None or not parent.strip() else self.game.canonical(parent)
        with self._lock:
            self._sum_budget = self.limits.view_sum_pairs
            children, count, note = self._children(key)
            facts = self._facts([key, *children])
            values = {k: self._position(k, facts) for k in [key, *children]}
            report = values[key]
            report["children"] = [values[child] for child in children]
            report["children_count"] = count
            report["children_note"] = note
            report["rct_tree"] = self._tree(report.pop("_handle"))
            for child in report["children"]:
                child.pop("_handle", None)
            complete = note is None
            if parent_key is not None and parent_key != key:
                self._from_parent(report, parent_key)
            for play in ("normal", "misere"):
                self._infer(report, play, complete)
            report["proof"] = {play: self._proof(report, play) for play in ("normal", "misere")}
            report["r1"] = self._r1(report)
            for child in report["children"]:
                child["winning_normal"] = _loses(child, "normal")
                child["winning_misere"] = _loses(child, "misere")
            return report

    # --- children --------------------------------------------------------------------------

    def _children(self, key: str) -> tuple[list[str], int, str | None]:
        """(children listed, how many there are, a note when not all are listed)."""
        lands = list(self.game.components(key))
        try:
            known = self.engine.lands(lands)
        except ChildrenTimeout as error:
            return [], 0, f"children not listed: {error} (this page's limit)"
        except UserError as error:
            return [], 0, f"children not listed: {error}"
        children = sum_children(self.game, key, known.__getitem__)
        cap = self.limits.max_children
        if len(children) > cap:
            return children[:cap], len(children), f"the first {cap} of {len(children):,} children"
        return children, len(children), None

    def _grandchildren(self, keys: list[str]) -> dict[str, list[str]] | None:
        """The children of each key, or None when the engine cannot list them in time."""
        lands = sorted({land for k in keys for land in self.game.components(k)})
        try:
            known = self.engine.lands(lands)
        except (ChildrenTimeout, UserError):
            return None
        return {k: sum_children(self.game, k, known.__getitem__) for k in keys}

    # --- facts -----------------------------------------------------------------------------

    def _facts(self, keys: list[str]) -> _Facts:
        lands = {land for k in keys for land in self.game.components(k)}
        return _Facts(self, lands, set(keys))

    def rct_handles(
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
                "rct_provenance": facts.who(record.provenance),
            }
        return {"rct_source": None, "rct_status": None, "rct_provenance": None}

    def _land(self, land: str, facts: _Facts) -> dict[str, Any]:
        """One land: its nimber (stored, else from its RCT), misère outcome and R1 class."""
        record = facts.nimbers.get(land)
        handle = facts.handles.get(land)
        rct = self._rct_value(land, facts)
        alg = self.algebra
        stored = record is not None and _status(record) != REFUTED
        nimber: int | None = int(cast(int, record.value)) if stored and record else None
        source, status = ("stored", _status(record)) if stored and record else (None, None)
        if nimber is None and handle is not None:
            nimber, source, status = alg.nimber(handle), "rct", rct["rct_status"]
        misere = self._misere(land, facts, handle, rct)
        return {
            "land": land,
            "lives": self.game.size(land),
            "nimber": nimber,
            "nimber_source": source,
            "nimber_status": status,
            "status": None if record is None else _status(record),
            "provenance": None if record is None else facts.who(record.provenance),
            "verified_by": None if record is None else facts.who(record.verified_by),
            "refutation": _refutation(record),
            **misere,
            "r1": r1_class(nimber, misere["misere"]),
            "r1_status": worst([status, misere["misere_status"]]),
            **self._rct_fields(handle),
            **rct,
            "rct_problem": facts.problems.get(land),
        }

    def _misere(
        self, key: str, facts: _Facts, handle: int | None, rct: dict[str, Any]
    ) -> dict[str, Any]:
        """A key's misère outcome: a stored node, else its RCT's outcome."""
        record = facts.misere.get(key)
        if record is not None and _status(record) != REFUTED:
            return {
                "misere": str(record.value),
                "misere_source": "stored",
                "misere_status": _status(record),
                "misere_provenance": facts.who(record.provenance),
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
        """A position: its lands, the nimber they add up to, misère outcome and RCT."""
        game, alg = self.game, self.algebra
        lands = [self._land(land, facts) for land in game.components(k)]
        total: int | None = 0
        for land in lands:
            total = None if total is None or land["nimber"] is None else total ^ land["nimber"]
        handle = facts.handles.get(k)
        rct = self._rct_value(k, facts)
        sum_note = None
        if handle is None and k == TERMINAL:
            handle = alg.sum([])
        elif handle is None and lands and all(x["rct"] is not None for x in lands):
            handle, sum_note = self._bounded_sum([facts.handles[x["land"]] for x in lands])
            if handle is not None:
                statuses = [x["rct_status"] for x in lands]
                rct = {"rct_source": "lands", "rct_status": worst(statuses), "rct_provenance": None}
        if k == TERMINAL:
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
        facts = self._facts([parent])
        value = self._position(parent, facts)
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
        """The R1 note's rule on the position (solver/extras/r1.py): the case that applies to its
        lands' classes and the rule's move, the children's values read as the page's are.
        A claim of the note, not a proof: the page shows the exact outcomes beside it."""
        lands = report["lands"]
        parts = [Part(x["land"], x["nimber"], x["misere"]) for x in lands]
        status = worst([x["r1_status"] for x in lands]) if lands else VERIFIED
        if any(p.r1 is None for p in parts):
            why = "a land's nimber or misère outcome is unknown"
            verdict = R1Verdict(tuple(p.r1 for p in parts), None, None, reason=why)
            return {**verdict.as_json(parts), "moved_to": None, "status": None}
        try:
            verdict = r1_rule(parts, self._land_children)
        except ChildrenTimeout as error:
            why = f"the children of a land were not listed: {error} (this page's limit)"
            verdict = R1Verdict(tuple(p.r1 for p in parts), None, None, reason=why)
        except UserError as error:
            why = f"the children of a land were not listed: {error}"
            verdict = R1Verdict(tuple(p.r1 for p in parts), None, None, reason=why)
        moved = None
        if verdict.land is not None and verdict.child is not None:
            rest = [p.key for i, p in enumerate(parts) if i != verdict.land]
            moved = self.game.join([*rest, *self.game.components(verdict.child.key)])
        return {**verdict.as_json(parts), "moved_to": moved, "status": status}

    def _land_children(self, land: Part) -> list[Part]:
        """A land's children with their nimbers and misère outcomes, as the page reads them."""
        known = self.engine.lands([land.key])
        keys = [self.game.join(child) for child in known[land.key]]
        facts = self._facts(keys)
        values = [self._position(k, facts) for k in keys]
        return [Part(v["position"], v["nimber"], v["misere"]) for v in values]

    # --- RCT fields --------------------------------------------------------------------------

    def _bounded_sum(self, terms: list[int]) -> tuple[int | None, str | None]:
        """The RCT of a sum of lands, unless it may visit more pairs of subtrees than the
        page's limit (a sum a + b visits at most subtrees(a) x subtrees(b) pairs)."""
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


# --- small helpers ---------------------------------------------------------------------------


def _status(record: Any) -> str:
    return str(status_name(record))


def _refutation(record: Any) -> dict[str, Any] | None:
    return cast(dict[str, Any] | None, refutation_json(record))


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


def _set(value: dict[str, Any], play: str, outcome: str, why: str) -> None:
    """Record an outcome inferred from verified values (so itself verified)."""
    name, source, status = _fields(play)
    value[name], value[source], value[status] = outcome, "inferred", VERIFIED
    inferred = dict(value.get("inferred_from") or {})
    inferred[play] = why
    value["inferred_from"] = inferred
