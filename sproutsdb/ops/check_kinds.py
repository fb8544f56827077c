"""`check --all` beyond nimbers: RCT records, position → RCT entries and misère losing nodes.

Each kind is checked in this process (`--jobs`/`--ray` spread only the nimbers), and only
when the store holds facts of it that need checking: a store without misère or RCT facts, or
whose facts of those kinds are all verified (and no --recheck), costs one count read.

* RCT records are re-derived when loaded into an algebra (`Algebra.load_records`): a record
  whose height, outcome, nim value or *1 factor disagrees with its children is refused.
* A `pos_rct` entry (a land → the content id of its RCT) is re-derived from the land's
  children (`DerivedRcts`: `RctSearch`, or the shipped S6 table this install re-derived
  whole); a land of more than DEFAULT_DERIVE_LIVES lives is reported as not checked and
  never marked.
* A misère losing node is checked by `MisereChecker` over the store: every child shown
  winning by a rule or by a checked losing node one move below, with the RCTs re-derived as
  above. One memo serves a whole chunk of nodes.

Verified facts are marked by this check ("check --all", or "check --all --recheck", which
trusts no mark it did not make, re-marks what it re-derives and withdraws the marks of
facts it cannot).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sproutsdb.facts import CHECK_ALL, CHECK_RECHECK
from sproutsdb.games import get_game
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.cgt.records import RctRecordError
from sproutsdb.solver.misere.check import MisereChecker
from sproutsdb.solver.misere.keys import split_node_key
from sproutsdb.solver.misere.rct_trust import DEFAULT_DERIVE_LIVES, DerivedRcts
from sproutsdb.solver.misere.solver import MisereConflictError
from sproutsdb.solver.normal.check import CheckReport, Verdict
from sproutsdb.solver.ports.game import NotationError
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.store import LmdbProofStore

SHOWN = 20  # problems named per kind
LOOKUP_BATCH = 4096  # pos_rct lands re-derived per lookup (one store read)
MARK_BATCH = 10_000
NODE_CHUNK = 50_000  # misère nodes checked with one memo (bounds memory)


@dataclass
class KindReport:
    """What checking one kind of fact found."""

    kind: str
    facts: int = 0  # stored facts of the kind
    checked: int = 0  # looked at by this run (the others: verified before, trusted)
    verified_now: int = 0
    already_verified: int = 0
    not_checked: int = 0  # too large to re-derive (pos_rct), never marked
    unproven: int = 0
    inconsistent: list[dict[str, Any]] = field(default_factory=list)  # first SHOWN
    bad: int = 0
    not_checked_first: list[str] = field(default_factory=list)
    withdrawn: int = 0  # marks of other checks withdrawn (recheck)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.bad == 0 and self.unproven == 0 and self.not_checked == 0

    def note_bad(self, key: str, stored: Any, reason: str) -> None:
        self.bad += 1
        if len(self.inconsistent) < SHOWN:
            self.inconsistent.append({"land": key, "stored": stored, "reason": reason})

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "facts": self.facts,
            "checked": self.checked,
            "verified_now": self.verified_now,
            "already_verified": self.already_verified,
            "unproven": self.unproven,
            "not_checked": self.not_checked,
            "not_checked_first": self.not_checked_first,
            "inconsistent": self.inconsistent,
            "withdrawn": self.withdrawn,
            "ok": self.ok,
        }


class KindChecks:
    """The RCT and misère checks of one `check --all` run over one store."""

    def __init__(
        self,
        store: LmdbProofStore,
        *,
        recheck: bool = False,
        max_lives: int = DEFAULT_DERIVE_LIVES,
    ) -> None:
        self.store = store
        self.recheck = recheck
        self.max_lives = max_lives
        self.check = CHECK_RECHECK if recheck else CHECK_ALL
        self.game = get_game(store.identity.game).engine()
        self.algebra = Algebra()
        self._rcts: DerivedRcts | None = None
        self._refused = False  # an RCT record did not re-derive: no RCT is used
        self._loaded_all = False  # every record of the store loaded (and re-derived) here
        self._run_marks: set[int] = set()

    def needed(self, kind: FactKind) -> bool:
        """Whether the store holds facts of `kind` this run must look at."""
        count = self.store.count(kind)
        return count > 0 and (self.recheck or self.store.verified_count(kind) < count)

    def run(self) -> list[KindReport]:
        """Check every kind that needs it, RCT records first (the others use them)."""
        return [self.rct_records(), self.pos_rct(), self.misere()]

    # ----------------------------------------------------------------- marks

    def _candidates(self, kind: FactKind, report: KindReport) -> Iterator[tuple[str, Any]]:
        """(key, value) of the facts of `kind` to look at: all with recheck, else the
        claims (verified ones are counted as already verified)."""
        for key, record in self.store.iter_records(kind):
            report.facts += 1
            if not self.recheck and record.status.value == "verified":
                report.already_verified += 1
                continue
            report.checked += 1
            yield key, record.value

    def _mark(self, kind: FactKind, keys: Sequence[str], report: KindReport) -> None:
        for start in range(0, len(keys), MARK_BATCH):
            result = self.store.mark_verified(
                kind, keys[start : start + MARK_BATCH], check=self.check, restamp=self.recheck
            )
            if result.verifier is not None:
                self._run_marks.add(result.verifier)
        report.verified_now += len(keys)

    def _withdraw(self, kind: FactKind, keys: Sequence[str], report: KindReport) -> None:
        """A recheck withdraws the marks of facts it could not re-derive."""
        if self.recheck and keys:
            marks = self.store.mark_ids(kind, keys)
            foreign = [k for k in keys if k in marks and marks[k] not in self._run_marks]
            report.withdrawn += self.store.withdraw_marks(kind, foreign)

    # ----------------------------------------------------------------- RCT records

    def rct_records(self) -> KindReport:
        """Load every RCT record into the algebra, re-deriving each, when some need
        checking (the pos_rct and misère checks otherwise load, and so re-derive, the
        records they use on demand)."""
        report = KindReport("rct")
        if not self.needed(FactKind.RCT):
            report.facts = self.store.count(FactKind.RCT)
            report.already_verified = report.facts
            return report
        started = time.perf_counter()
        records = dict(self.store.iter_facts(FactKind.RCT))
        wanted = list(self._candidates(FactKind.RCT, report))
        self._loaded_all = True
        try:
            self.algebra.load_records(records)
            refused: dict[str, str] = {}
        except RctRecordError:  # again one at a time, to name every refused record
            refused = self._load_each(records)
        for cid, reason in sorted(refused.items()):
            report.note_bad(cid, None, reason)
        self._mark(FactKind.RCT, [k for k, _ in wanted if k not in refused], report)
        self._withdraw(FactKind.RCT, [k for k, _ in wanted if k in refused], report)
        report.seconds = time.perf_counter() - started
        return report

    def _load_each(self, records: Mapping[str, Any]) -> dict[str, str]:
        """Load the records into a new algebra one at a time, children first; return the
        refused ones with the reason (a record above a refused one is refused too)."""
        algebra = self.algebra = Algebra()
        known: set[str] = set()  # loaded here (0 and *1, built in, are checked too)
        refused: dict[str, str] = {}
        for root in records:
            stack: list[tuple[str, int]] = [(root, 0)]
            on_path = {root}
            while stack:
                top, index = stack[-1]
                if top in known or top in refused:
                    stack.pop()
                    on_path.discard(top)
                    continue
                children = tuple(getattr(records[top], "children", ()))
                if index < len(children):
                    stack[-1] = (top, index + 1)
                    child = children[index]
                    if child in records and child not in on_path and child not in known:
                        stack.append((child, 0))
                        on_path.add(child)
                    continue
                stack.pop()
                on_path.discard(top)
                below = [c for c in children if c in refused]
                if below:
                    refused[top] = f"record {top}: its child {below[0]} is refused"
                    continue
                try:
                    algebra.load_records({top: records[top]})
                    known.add(top)
                except RctRecordError as error:
                    refused[top] = str(error)
        return refused

    # ----------------------------------------------------------------- pos_rct

    def rcts(self) -> DerivedRcts | None:
        """The store's position → RCT claims, each re-derived before use (None when the
        store has none, or its records were refused)."""
        if self._rcts is None and self.store.count(FactKind.POS_RCT) and not self._refused:
            from sproutsdb.ops.shipped_rcts import shipped_rct_table
            from sproutsdb.solver.misere.solver import StoreRcts

            shipped = shipped_rct_table()  # re-derived whole once per install
            trusted = shipped[0].rct_id_of if shipped is not None else None
            if shipped is not None and not self._loaded_all and len(self.algebra) <= 2:
                # its trees were re-derived when the table loaded: the store's records of
                # the same content ids need not be loaded again (an interning table, only
                # ever added to; this process is a check)
                self.algebra = shipped[0].algebra
            self._rcts = DerivedRcts(
                self.game,
                StoreRcts(self.store, self.algebra),
                trusted=trusted,
                max_lives=self.max_lives,
            )
        return self._rcts

    def pos_rct(self) -> KindReport:
        """Re-derive each land's RCT from its children; mark the entries that agree."""
        report = KindReport("pos_rct")
        if not self.needed(FactKind.POS_RCT):
            report.facts = report.already_verified = self.store.count(FactKind.POS_RCT)
            return report
        started = time.perf_counter()
        rcts = self.rcts()
        if rcts is None:  # records refused: no entry can be re-derived
            lands = [land for land, _ in self._candidates(FactKind.POS_RCT, report)]
            report.unproven += len(lands)
            self._withdraw(FactKind.POS_RCT, lands, report)
            report.seconds = time.perf_counter() - started
            return report
        batch: list[tuple[str, str]] = []
        for item in self._candidates(FactKind.POS_RCT, report):
            batch.append(item)
            if len(batch) >= LOOKUP_BATCH:
                self._pos_rct_batch(rcts, batch, report)
                batch = []
        if batch:
            self._pos_rct_batch(rcts, batch, report)
        report.seconds = time.perf_counter() - started
        return report

    def _pos_rct_batch(
        self, rcts: DerivedRcts, batch: list[tuple[str, str]], report: KindReport
    ) -> None:
        refuted_before = len(rcts.report.refuted)
        large_before = len(rcts.report.too_large)
        dangling_before = len(rcts.report.no_record)
        lands = [land for land, _ in batch]
        try:
            handed = rcts.lookup(lands)
        except (MisereConflictError, RctRecordError):  # one land at a time, naming each
            handed = {}
            for land, cid in batch:
                try:
                    handed.update(rcts.lookup([land]))
                except (MisereConflictError, RctRecordError) as error:
                    report.note_bad(land, cid, f"its RCT cannot be read: {error}")
        refuted = {r.land: r for r in rcts.report.refuted[refuted_before:]}
        large = {land for land, _ in rcts.report.too_large[large_before:]}
        good = [land for land in lands if land in handed and land not in refuted]
        for land, refutation in refuted.items():
            report.note_bad(land, refutation.claimed, f"forged RCT claim: {refutation.describe()}")
        for land, cid in rcts.report.no_record[dangling_before:]:
            report.note_bad(
                land, cid, f"its RCT cannot be read: the store holds no record of {cid}"
            )
        for land in lands:
            if land in large:
                report.not_checked += 1
                if len(report.not_checked_first) < SHOWN:
                    report.not_checked_first.append(land)
        self._mark(FactKind.POS_RCT, good, report)
        self._withdraw(FactKind.POS_RCT, [land for land in lands if land not in good], report)

    # ----------------------------------------------------------------- misère nodes

    def _load_node_rcts(self, chunk: list[tuple[str, Any]], report: KindReport) -> None:
        """Load (re-deriving each) the RCT records the chunk's node keys name and every
        tree below them; a node naming a tree the store lacks stays unreadable."""
        by_cid = self.algebra.table.by_cid
        todo: set[str] = set()
        for key, _ in chunk:
            try:
                todo.update(c for c in split_node_key(key)[2] if c not in by_cid)
            except NotationError:
                continue  # reported by the check of the node
        records: dict[str, Any] = {}
        while todo:
            found = self.store.get(FactKind.RCT, sorted(todo))
            todo = set()
            for record in found.values():
                todo.update(c for c in record.children if c not in by_cid and c not in records)
            records.update(found)
            todo -= records.keys()
        if records and not self._refused:
            try:
                self.algebra.load_records(records)
            except RctRecordError as error:
                report.note_bad(_named_cid(str(error), records), None, str(error))
                self._refused = True

    def misere(self) -> KindReport:
        """Check every stored misère node (claims, or all with recheck) from the rules and
        the store's other losing nodes, chunk by chunk."""
        report = KindReport("misere")
        if not self.needed(FactKind.MISERE):
            report.facts = report.already_verified = self.store.count(FactKind.MISERE)
            return report
        started = time.perf_counter()
        from sproutsdb.solver.misere.solver import MisereSolver, NoRcts

        rcts = self.rcts()  # first: it may take the shipped table's algebra
        source = rcts if rcts is not None else NoRcts(self.algebra)  # node keys parse in it
        engine = MisereSolver(self.game, MemoryProofStore(), source)
        chunk: list[tuple[str, Any]] = []
        for item in self._candidates(FactKind.MISERE, report):
            chunk.append(item)
            if len(chunk) >= NODE_CHUNK:
                self._load_node_rcts(chunk, report)
                self._misere_chunk(engine, chunk, report)
                chunk = []
        if chunk:
            self._load_node_rcts(chunk, report)
            self._misere_chunk(engine, chunk, report)
        report.seconds = time.perf_counter() - started
        return report

    def _misere_chunk(self, engine: Any, chunk: list[tuple[str, Any]], report: KindReport) -> None:
        """Check one chunk of stored nodes with one memo; mark what it verified (the
        chunk's nodes and the stored nodes their proofs used)."""
        checker = StoreNodeChecker(engine, self.store, trust_all=not self.recheck)
        checker.marked_by = self._run_marks if self.recheck else None
        found = checker.check_nodes(chunk)
        bad = {key for key, _ in checker.unreadable}
        for key, reason in checker.unreadable:
            report.note_bad(key, None, reason)
        for wrong in found.inconsistent:
            bad.add(wrong.land)
            report.note_bad(wrong.land, "L", wrong.reason)
        keys = [key for key, _ in chunk]
        report.unproven += sum(1 for k in keys if k not in found.verified and k not in bad)
        verified = list(found.verified)
        own = set(keys)
        self._mark(FactKind.MISERE, verified, report)
        report.verified_now -= sum(1 for k in verified if k not in own)  # counted in their run
        self._withdraw(FactKind.MISERE, [k for k in keys if k not in found.verified], report)


class StoreNodeChecker(MisereChecker):
    """A MisereChecker over a whole store: checks many stored nodes with one memo, and
    settles without re-deriving the nodes already marked verified (all marks for a plain
    `check --all`, only the run's own with --recheck)."""

    def __init__(self, engine: Any, store: LmdbProofStore, *, trust_all: bool) -> None:
        super().__init__(engine, _Facts(self, store))
        self.trust_all = trust_all
        self.marked_by: set[int] | None = None
        self.trusted: set[str] = set()
        self.unreadable: list[tuple[str, str]] = []

    def check_nodes(self, items: Iterable[tuple[str, Any]]) -> CheckReport:
        """Check stored nodes ("L": a loss whose every child is shown winning; "W": a win
        with a losing child shown); the report's `verified` holds the stored losing nodes
        that checked OK (dependencies included)."""
        engine: Any = self.engine  # a MisereSolver: parse_node too
        report = self._report = CheckReport(root="")
        self._verdicts.clear()
        self._deps.clear()
        items = list(items)
        self._fetch([key for key, _ in items])
        wins: dict[str, bool] = {}
        for key, value in items:
            try:
                node = engine.parse_node(key)
                split_node_key(key)
            except (NotationError, KeyError, ValueError) as error:
                self.unreadable.append((key, f"not a readable node key: {error}"))
                continue
            canonical = engine.key(node)
            if canonical != key:
                self.unreadable.append((key, f"not a canonical node key (it is {canonical})"))
                continue
            if value == "L":
                self._drive(_ask(key, node))
            else:
                wins[key] = self._prove_win(node, key)
        for node_key, verdict in self._verdicts.items():
            if verdict is Verdict.OK:
                report.verified[node_key] = 0
            elif verdict is Verdict.UNPROVEN:
                report.unproven += 1
        for key, ok in wins.items():
            if ok:
                report.verified[key] = 0
        for key, _ in items:  # settled by a mark of this run (a dependency checked before)
            if key in self.trusted and key not in self._verdicts:
                report.verified[key] = 0
        return report

    def _prove_win(self, node: Any, key: str) -> bool:
        """A stored win: shown by a losing child (a rule, or a checked losing node)."""
        outcome: list[Any] = []

        def task() -> Any:
            outcome.append((yield from self._win(node, key, needed_by=key)))

        self._drive(task())
        return bool(outcome) and isinstance(outcome[0], tuple)

    def _drive(self, task: Any) -> None:
        from sproutsdb.solver.normal.check import drive_checks

        drive_checks(
            task,
            self._verdicts,
            key_of=lambda want: want[0],
            start=lambda want: self._check_node(want[1], want[0]),
            settled=lambda key: Verdict.OK if key in self.trusted else None,
        )


def _ask(key: str, node: Any) -> Any:
    yield key, node


class _Facts:
    """The store's misère facts for a StoreNodeChecker, noting which are trusted marks."""

    def __init__(self, checker: StoreNodeChecker, store: LmdbProofStore) -> None:
        self._checker = checker
        self._store = store

    def get(self, kind: FactKind, keys: Sequence[str]) -> Mapping[str, Any]:
        checker = self._checker
        marked: set[str] = set()
        if checker.trust_all:
            found = self._store.get(kind, keys, verified_out=marked)
        elif checker.marked_by is not None:
            found = self._store.get(kind, keys, verified_out=marked, marked_by=checker.marked_by)
        else:
            found = self._store.get(kind, keys)
        checker.trusted.update(k for k in marked if found.get(k) == "L")
        return found


def _named_cid(message: str, records: Mapping[str, Any]) -> str:
    """The content id an RctRecordError names ("record <id>: ..."), else the first one."""
    found = re.match(r"record (\S+): ", message)
    if found and found.group(1) in records:
        return found.group(1)
    return next(iter(records), "?")
