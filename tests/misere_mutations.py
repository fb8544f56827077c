"""The misère mutation fuzzer (issue 26): corrupt a real misère proof one fact at a time, or
several facts at once, and check it again in-process as `check --misere` does.

A proof is three kinds of facts: losing nodes (``misere``), position → RCT claims
(``pos_rct``) and RCT records (``rct``). Each mutation is a small overlay on the genuine
facts (``Overlay``), checked as ``sproutsdb.ops.check_misere_root`` checks a store: claims
read by a fresh ``StoreRcts`` and re-derived by a fresh ``DerivedRcts`` (refutations fail
the check), a ``MisereSolver`` as the engine, ``check_misere_with_cycles``. What is truth is
shared across mutations: the genuine RCTs (an algebra whose records were re-derived on
load), one ``RctSearch`` memo of RCTs derived from the rules, and, when a mutation leaves
the RCT side of the store untouched, the engine (a deterministic function of the lands'
RCTs it was handed) with its children memoised.

Every mutation ends in one of: refused (the check is not ok, or loading refuses), accepted
with the true outcome and no false fact used (a deletion that leaves the proof complete, or
a fact the proof does not need), or a FALSE ACCEPTANCE (ok with a wrong outcome, or ok
having used a false fact): the fuzzer's figure that must stay 0. Used by
tests/test_misere_fuzz.py (a seeded sample) and bench/misere_fuzz.py (everything).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sproutsdb.formats.rcttable import RctTable
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.cgt.ident import nim_value_of_id
from sproutsdb.solver.cgt.records import RctRecordError
from sproutsdb.solver.misere.check import MisereChecker, check_misere_with_cycles
from sproutsdb.solver.misere.keys import (
    EMPTY_POSITION,
    PARITY_TOKEN,
    join_node_key,
    split_node_key,
)
from sproutsdb.solver.misere.rct_trust import DerivedRcts
from sproutsdb.solver.misere.rctsearch import RctSearch
from sproutsdb.solver.misere.solver import (
    MisereConflictError,
    MisereSolver,
    NodeParts,
    StoreRcts,
    TableRcts,
    brute_force_misere,
)
from sproutsdb.solver.normal.check import CheckReport
from sproutsdb.solver.ports.game import NotationError
from sproutsdb.solver.ports.proofstore import (
    FactKind,
    FactValue,
    MemoryProofStore,
    PutResult,
    RctRecord,
)
from sproutsdb.solver.sprouts.game import SproutsGame

REFUSED = "refused"
ACCEPTED_TRUE = "accepted-true"
FALSE_ACCEPTANCE = "FALSE ACCEPTANCE"
# What a check run may raise when the store is bad: a record that does not re-derive, a
# claim naming an RCT the store lacks, a malformed key. Anything else is a crash: reported.
LOAD_ERRORS = (RctRecordError, MisereConflictError, NotationError)

Change = tuple[FactKind, str, FactValue | None]  # (kind, key, new value; None: deleted)


# --------------------------------------------------------------------------- facts


class Overlay:
    """The genuine facts with a few changes on top: a FactSource / ProofStore for one
    mutated check (copying 26 000 facts per mutation would cost more than the check)."""

    def __init__(self, base: Mapping[FactKind, Mapping[str, FactValue]], changes: Iterable[Change]):
        self._base = base
        self._changes: dict[FactKind, dict[str, FactValue | None]] = {k: {} for k in FactKind}
        for kind, key, value in changes:
            self._changes[kind][key] = value

    def get(self, kind: FactKind, keys: Sequence[str]) -> dict[str, FactValue]:
        base, changed = self._base.get(kind, {}), self._changes[kind]
        out: dict[str, FactValue] = {}
        for key in keys:
            value = changed[key] if key in changed else base.get(key)
            if value is not None:
                out[key] = value
        return out

    def put(self, kind: FactKind, items: Mapping[str, FactValue]) -> PutResult:
        raise AssertionError("a check never writes")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class Mutation:
    """One corruption of the facts: what changed and which of the new facts are false."""

    kind: str  # e.g. "node/parity", "pos_rct/other-outcome", "rct/height"
    target: str  # the fact mutated (its key before the change)
    changes: tuple[Change, ...]
    false_nodes: frozenset[str] = frozenset()  # node keys now stored "L" that may be false
    false_claims: Mapping[str, str] = field(default_factory=dict)  # land -> forged content id

    def describe(self) -> str:
        shown = "; ".join(
            f"{kind.value} {key!r} -> {'deleted' if value is None else value!r}"
            for kind, key, value in self.changes
        )
        return f"{self.kind} of {self.target!r}: {shown}"


@dataclass
class Outcome:
    """What one mutated check concluded."""

    verdict: str  # REFUSED, ACCEPTED_TRUE or FALSE_ACCEPTANCE
    how: str  # why: "inconsistent", "missing", "load: RctRecordError", "unused", ...
    detail: str = ""


# --------------------------------------------------------------------------- the engine


class CachedEngine:
    """A MisereSolver used as the checker's engine, its answers memoised per node: valid
    across checks as long as the RCTs it is handed are the same (they decide everything)."""

    def __init__(self, solver: MisereSolver) -> None:
        self.solver = solver
        self._children: dict[NodeParts, list[Any]] = {}
        self._keys: dict[NodeParts, str] = {}
        self._known: dict[NodeParts, str | None] = {}

    def node(self, key: str) -> Any:
        return self.solver.node(key)

    def key(self, node: Any) -> str:
        found = self._keys.get(node)
        if found is None:
            found = self._keys[node] = self.solver.key(node)
        return found

    def children(self, node: Any) -> list[Any]:
        found = self._children.get(node)
        if found is None:
            found = self._children[node] = self.solver.children(node)
        return found

    def known_outcome(self, node: Any) -> str | None:
        if node in self._known:
            return self._known[node]
        found = self._known[node] = self.solver.known_outcome(node)
        return found


class HybridEngine:
    """The engine of a check whose lands' RCTs are the shared engine's but for `changed`
    lands that lost theirs (a deleted position → RCT entry).

    A node's children depend only on the RCTs of the pieces its lands' moves make (and on
    the algebra): a node none of whose lands is, or makes, a changed land has the same
    children in both worlds, taken from a memo shared across mutations (``Shared``); the
    others are computed by a fresh engine over the mutation's own claims. Public API only:
    nodes cross between the two through their keys (``parse_node``).
    """

    def __init__(self, shared: Shared, fresh: MisereSolver, changed: set[str]) -> None:
        self.shared = shared
        self.fresh = fresh
        self.changed = changed

    def node(self, key: str) -> Any:
        return self.fresh.node(key)

    def key(self, node: Any) -> str:
        return self.shared.key(node)

    def touched(self, node: Any) -> bool:
        changed, parts = self.changed, self.shared.parts
        return any(land in changed or not changed.isdisjoint(parts(land)) for land in node[0])

    def children(self, node: Any) -> list[Any]:
        if self.touched(node):
            fresh = self.fresh
            return fresh.children(fresh.parse_node(self.key(node)))
        return self.shared.children(node)

    def known_outcome(self, node: Any) -> str | None:
        if node[0]:  # a node with lands is never decided without search
            return None
        return self.shared.known_outcome(node)


class Shared:
    """What the unmutated engine says about nodes, by key, memoised across mutations."""

    def __init__(self, base: MisereSolver) -> None:
        self.base = base
        self._algebra = base.algebra
        self._keys: dict[Any, str] = {}
        self._children: dict[str, list[Any]] = {}
        self._known: dict[str, str | None] = {}
        self._parts: dict[str, frozenset[str]] = {}

    def key(self, node: Any) -> str:
        """A node's key (``MisereSolver.key``'s syntax, from content ids: any engine's node)."""
        found = self._keys.get(node)
        if found is None:
            lands, parity, rcts = node
            head = "+".join(lands) if lands else EMPTY_POSITION
            ids = [self._algebra.content_id(h) for h in rcts]
            parts = [head, *([PARITY_TOKEN] if parity else []), *ids]
            found = self._keys[node] = " ".join(parts)
        return found

    def children(self, node: Any) -> list[Any]:
        key = self.key(node)
        found = self._children.get(key)
        if found is None:
            base = self.base
            found = self._children[key] = base.children(base.parse_node(key))
        return found

    def known_outcome(self, node: Any) -> str | None:
        if not node[0] and not node[1] and not node[2]:  # the terminal node has no key
            return self.base.known_outcome(node)
        key = self.key(node)
        if key not in self._known:
            base = self.base
            self._known[key] = base.known_outcome(base.parse_node(key))
        return self._known[key]

    def parts(self, land: str) -> frozenset[str]:
        """Every piece a move in `land` makes (the rules: shared by every world)."""
        found = self._parts.get(land)
        if found is None:
            game = self.base.game
            kids = game.component_children(land)
            found = self._parts[land] = frozenset(p for kid in kids for p in kid)
        return found


class _SharedSearchRcts(DerivedRcts):
    """A fresh DerivedRcts (fresh claims, fresh report) whose derivations go to a shared
    RctSearch: RCTs computed from the rules are truth, whoever asked first."""

    def __init__(self, game: SproutsGame, claims: StoreRcts, search: RctSearch, **kw: Any):
        super().__init__(game, claims, **kw)
        self._search = search


# --------------------------------------------------------------------------- the proof


@dataclass
class Proof:
    """A pruned misère proof of a root as `check --misere --prune` writes it, and truth."""

    root: str
    outcome: str  # the true outcome of the root
    facts: dict[FactKind, dict[str, FactValue]]
    table: RctTable  # the shipped S6 table: the re-derived table the CLI trusts
    game: SproutsGame = field(default_factory=SproutsGame)

    @property
    def nodes(self) -> list[str]:
        return sorted(self.facts[FactKind.MISERE])

    @property
    def claims(self) -> dict[str, str]:
        return {land: str(cid) for land, cid in sorted(self.facts[FactKind.POS_RCT].items())}

    @property
    def records(self) -> dict[str, RctRecord]:
        return {cid: r for cid, r in self.facts[FactKind.RCT].items() if isinstance(r, RctRecord)}


def shipped_table() -> RctTable:
    """The shipped S6 table, re-derived whole (or by its cached mark) as the CLI takes it."""
    from sproutsdb.ops.shipped_rcts import shipped_rct_table

    found = shipped_rct_table()
    if found is None:
        raise RuntimeError("this install has no shipped S6 RCT table")
    return found[0]


def build_proof(root: str = "0*12", table: RctTable | None = None) -> Proof:
    """Solve `root` in misère play with the shipped table's RCTs (as `solve --misere`), then
    check and prune it as `check --misere --prune` does: the losing nodes the proof uses,
    every position → RCT entry the check looked up, and the records below them."""
    game = SproutsGame()
    table = shipped_table() if table is None else table
    solved = MemoryProofStore()
    outcome = MisereSolver(game, solved, TableRcts(table)).outcome(root)
    rcts = DerivedRcts(game, TableRcts(table), trusted=table.rct_id_of)
    engine = MisereSolver(game, MemoryProofStore(), rcts)
    report, _ = check_misere_with_cycles(engine, solved, root)
    if not report.ok or report.outcome != outcome or rcts.report.refuted:
        raise AssertionError(f"the genuine proof of {root} does not check: {report}")
    algebra = rcts.algebra
    facts: dict[FactKind, dict[str, FactValue]] = {k: {} for k in FactKind}
    facts[FactKind.MISERE] = {key: "L" for key in sorted(report.used)}
    for handle in rcts.closure():
        facts[FactKind.RCT][algebra.content_id(handle)] = algebra.record(handle)
    for land, handle in sorted(rcts.looked_up().items()):
        facts[FactKind.POS_RCT][land] = algebra.content_id(handle)
    return Proof(root, outcome, facts, table, game)


# --------------------------------------------------------------------------- checking


@dataclass
class Run:
    """One check of a root over some facts: its report (None if it raised) and claims."""

    report: CheckReport | None
    error: str = ""
    handed: dict[str, str] = field(default_factory=dict)  # land -> content id handed out
    refuted: int = 0


class Fuzzer:
    """Checks mutations of one proof, sharing what is truth across them."""

    def __init__(self, proof: Proof) -> None:
        self.proof = proof
        self.game = proof.game
        # the genuine records, each re-derived on load: truth for every mutation that
        # leaves the records alone (a mutated record is checked against a fresh algebra)
        self.algebra = Algebra.from_records(proof.records)
        self.search = RctSearch(self.game, self.algebra, via_lands=True)
        self._oracle: MisereSolver | None = None
        baseline = self.check_fresh(Overlay(proof.facts, ()), proof.root)
        report = baseline.report
        if report is None or not report.ok or report.outcome != proof.outcome or baseline.refuted:
            raise AssertionError(f"the unmutated proof does not check: {baseline}")
        self.baseline = baseline
        self._engine_rcts = self._derived(Overlay(proof.facts, ()), self.algebra)
        self._engine_rcts.lookup(sorted(proof.claims))
        self.engine = CachedEngine(MisereSolver(self.game, MemoryProofStore(), self._engine_rcts))
        self.shared = Shared(MisereSolver(self.game, MemoryProofStore(), self._engine_rcts))

    # ------------------------------------------------------------- check runs

    def _derived(self, facts: Overlay, algebra: Algebra | None) -> DerivedRcts:
        """Fresh claims over `facts`: a new StoreRcts and DerivedRcts, as the CLI makes."""
        table = self.proof.table
        if algebra is None:  # a fresh algebra: records loaded (re-derived) from `facts`
            return DerivedRcts(self.game, StoreRcts(facts), trusted=table.rct_id_of)
        claims = StoreRcts(facts, algebra)
        return _SharedSearchRcts(self.game, claims, self.search, trusted=table.rct_id_of)

    def check_fresh(self, facts: Overlay, root: str, *, fresh_algebra: bool = False) -> Run:
        """A check as `check --misere --root` runs it: fresh claims, fresh engine."""
        rcts = self._derived(facts, None if fresh_algebra else self.algebra)
        try:
            engine = MisereSolver(self.game, MemoryProofStore(), rcts)
            report, _ = check_misere_with_cycles(engine, facts, root)
        except LOAD_ERRORS as error:
            return Run(None, f"{type(error).__name__}: {error}")
        return self._finish(report, rcts)

    def check_deleted_claims(self, facts: Overlay, root: str, lands: Iterable[str]) -> Run:
        """A check where `lands` lost their position → RCT entries, nothing else changed:
        fresh claims, and a fresh engine for the nodes that meet those lands (HybridEngine)."""
        rcts = self._derived(facts, self.algebra)
        try:
            fresh = MisereSolver(self.game, MemoryProofStore(), rcts)
            engine = HybridEngine(self.shared, fresh, set(lands))
            report = MisereChecker(engine, facts).check(root)
        except LOAD_ERRORS as error:
            return Run(None, f"{type(error).__name__}: {error}")
        return self._finish(report, rcts)

    def check_nodes(self, facts: Overlay, root: str) -> Run:
        """A check over mutated losing nodes, the RCT side untouched: the shared engine."""
        report = MisereChecker(self.engine, facts).check(root)
        return self._finish(report, self._engine_rcts)

    def _finish(self, report: CheckReport, rcts: DerivedRcts) -> Run:
        report.inconsistent.extend(rcts.report.inconsistencies())
        algebra = rcts.algebra
        handed = {land: algebra.content_id(h) for land, h in rcts.looked_up().items()}
        return Run(report, handed=handed, refuted=len(rcts.report.refuted))

    def settle_claim(self, mutation: Mutation, facts: Overlay) -> Outcome:
        """A retargeted position → RCT entry settled by fresh claims (see fuzz_claims)."""
        ((_, land, _),) = mutation.changes
        if land not in self.baseline.handed:
            return Outcome(ACCEPTED_TRUE, "claim never looked up")
        rcts = self._derived(facts, self.algebra)
        try:
            rcts.lookup([land])
        except LOAD_ERRORS as error:
            return Outcome(REFUSED, f"load: {type(error).__name__}", str(error))
        if rcts.report.refuted or rcts.report.no_record:
            return Outcome(REFUSED, "inconsistent")
        return self.judge(mutation, self.check_fresh(facts, self.proof.root), self.proof.outcome)

    # ------------------------------------------------------------- verdicts

    def oracle(self) -> MisereSolver:
        """An independent solver (the shipped table's RCTs, a store of its own)."""
        if self._oracle is None:
            self._oracle = MisereSolver(self.game, MemoryProofStore(), TableRcts(self.proof.table))
        return self._oracle

    def node_is_losing(self, key: str) -> bool:
        """The truth about a node key, from the oracle."""
        oracle = self.oracle()
        return oracle.node_outcome(oracle.parse_node(key)) == "L"

    def judge(self, mutation: Mutation, run: Run, truth: str) -> Outcome:
        """Refused, accepted with the truth, or a false acceptance (see the module doc)."""
        report = run.report
        if report is None:
            return Outcome(REFUSED, "load: " + run.error.split(":", 1)[0], run.error)
        if not report.ok:
            how = "inconsistent" if report.inconsistent else "missing"
            return Outcome(REFUSED, how)
        if report.outcome != truth:
            return Outcome(
                FALSE_ACCEPTANCE,
                "wrong outcome",
                f"{mutation.describe()}: ok, outcome {report.outcome}, truth {truth}",
            )
        for land, cid in mutation.false_claims.items():
            if run.handed.get(land) == cid:
                return Outcome(
                    FALSE_ACCEPTANCE, "forged claim used", f"{mutation.describe()}: {land}"
                )
        used_false = [k for k in mutation.false_nodes if k in report.used]
        for key in used_false:
            if not self.node_is_losing(key):
                return Outcome(FALSE_ACCEPTANCE, "false node used", f"{mutation.describe()}: {key}")
        if used_false:
            return Outcome(ACCEPTED_TRUE, "renamed onto a true losing node")
        return Outcome(ACCEPTED_TRUE, self._why_harmless(mutation))

    def _why_harmless(self, mutation: Mutation) -> str:
        """Whether the unmutated check needed a fact this mutation changed."""
        base = self.baseline.report
        used = base.used if base is not None else {}
        for kind, key, _ in mutation.changes:
            if (kind is FactKind.MISERE and key in used) or (
                kind is FactKind.POS_RCT and key in self.baseline.handed
            ):
                return "still complete without it"
        return "a fact the proof does not need"


# --------------------------------------------------------------------------- single facts


def _valid_key(position: str, parity: int, cids: Iterable[str]) -> str | None:
    try:
        return join_node_key(position, parity, cids)
    except NotationError:
        return None


def _node_key_ids(proof: Proof) -> list[str]:
    """The content ids a node key may hold (no 0, no odd nim-heap), from the proof."""
    ids = set(proof.claims.values()) | set(proof.records)
    out = []
    for cid in sorted(ids):
        nim = nim_value_of_id(cid)
        if nim is None or (nim >= 2 and nim % 2 == 0):
            out.append(cid)
    return out


def node_mutations(fuzzer: Fuzzer, rng: random.Random) -> Iterator[Mutation]:
    """For each losing node: deleted, stored as "W", and renamed to another node key: its
    parity flipped, one of its own children (a winning node), one RCT id swapped."""
    proof = fuzzer.proof
    stored = proof.facts[FactKind.MISERE]
    ids = _node_key_ids(proof)
    engine = fuzzer.engine
    M = FactKind.MISERE
    for key in proof.nodes:
        yield Mutation("node/delete", key, ((M, key, None),))
        yield Mutation("node/value-W", key, ((M, key, "W"),))
        position, parity, cids = split_node_key(key)
        renames: list[tuple[str, str | None]] = [
            ("node/parity", _valid_key(position, 1 - parity, cids))
        ]
        children = sorted(engine.key(c) for c in engine.children(engine.solver.parse_node(key)))
        renames.append(("node/to-child", rng.choice(children) if children else None))
        if cids:
            i = rng.randrange(len(cids))
            other = rng.choice([c for c in ids if c != cids[i]])
            renames.append(
                ("node/swap-id", _valid_key(position, parity, [*cids[:i], other, *cids[i + 1 :]]))
            )
        for kind, new in renames:
            if new is None or new == key:
                continue
            changes: tuple[Change, ...] = ((M, key, None), (M, new, "L"))
            false = frozenset() if new in stored else frozenset([new])
            yield Mutation(kind, key, changes, false_nodes=false)


def claim_mutations(fuzzer: Fuzzer, rng: random.Random) -> Iterator[Mutation]:
    """For each position → RCT entry: deleted; pointed to another real RCT of the other
    outcome, and to one of the same outcome but different content; pointed to an id the
    store has no record of."""
    proof = fuzzer.proof
    records = proof.records
    by_outcome: dict[str, list[str]] = {"W": [], "L": []}
    for cid, record in sorted(records.items()):
        by_outcome[record.outcome].append(cid)
    P = FactKind.POS_RCT
    for land, cid in proof.claims.items():
        yield Mutation("pos_rct/delete", land, ((P, land, None),))
        mine = records[cid].outcome
        other = rng.choice(by_outcome["L" if mine == "W" else "W"])
        yield Mutation(
            "pos_rct/other-outcome", land, ((P, land, other),), false_claims={land: other}
        )
        same = rng.choice([c for c in by_outcome[mine] if c != cid])
        yield Mutation("pos_rct/same-outcome", land, ((P, land, same),), false_claims={land: same})
        unknown = "rct1:" + f"{rng.getrandbits(128):032x}"
        yield Mutation("pos_rct/unknown-id", land, ((P, land, unknown),))


def record_corruptions(
    cid: str, record: RctRecord, ids: Sequence[str], rng: random.Random
) -> Iterator[tuple[str, RctRecord]]:
    """Each field of a record changed to a plausible wrong value (kind, corrupted record)."""
    yield "rct/height", replace(record, height=record.height + 1)
    yield "rct/outcome", replace(record, outcome="L" if record.outcome == "W" else "W")
    yield "rct/nim", replace(record, nim=record.height if record.nim is None else None)
    plus1 = rng.choice(record.children) if record.children else "*0"
    yield "rct/plus1_of", replace(record, plus1_of=None if record.plus1_of else plus1)
    if record.children:
        drop = rng.randrange(len(record.children))
        kids = record.children[:drop] + record.children[drop + 1 :]
        yield "rct/drop-child", replace(record, children=kids)
    extra = rng.choice([c for c in ids if c != cid and c not in record.children])
    yield "rct/add-child", replace(record, children=tuple(sorted({*record.children, extra})))


# --------------------------------------------------------------------------- tallies


@dataclass
class Tally:
    """Mutations tried per kind, refused (and how), accepted with the truth, false."""

    tried: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[tuple[str, str]] = field(default_factory=Counter)
    hows: Counter[tuple[str, str]] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=dict)
    false: list[str] = field(default_factory=list)

    def add(self, kind: str, outcome: Outcome, seconds: float) -> None:
        self.tried[kind] += 1
        self.verdicts[kind, outcome.verdict] += 1
        self.hows[kind, f"{outcome.verdict}: {outcome.how}"] += 1
        self.seconds[kind] = self.seconds.get(kind, 0.0) + seconds
        if outcome.verdict == FALSE_ACCEPTANCE:
            self.false.append(f"{kind}: {outcome.detail}")

    def rows(self) -> list[dict[str, Any]]:
        return [
            {
                "kind": kind,
                "tried": self.tried[kind],
                "refused": self.verdicts[kind, REFUSED],
                "accepted_true": self.verdicts[kind, ACCEPTED_TRUE],
                "false_acceptances": self.verdicts[kind, FALSE_ACCEPTANCE],
                "seconds": round(self.seconds[kind], 2),
                "how": {
                    how.split(": ", 1)[1] if ": " in how else how: n
                    for (k, how), n in sorted(self.hows.items())
                    if k == kind
                },
            }
            for kind in sorted(self.tried)
        ]

    @property
    def total_false(self) -> int:
        return sum(n for (_, verdict), n in self.verdicts.items() if verdict == FALSE_ACCEPTANCE)


def _timed(tally: Tally, kind: str, work: Callable[..., Outcome], *args: Any) -> Outcome:
    """Run one mutated check, `work(*args)`, and count its outcome and time."""
    started = time.perf_counter()
    outcome = work(*args)
    tally.add(kind, outcome, time.perf_counter() - started)
    return outcome


def _pick(items: list[Mutation], sample: int | None, rng: random.Random) -> list[Mutation]:
    """Every mutation (sample None), else `sample` of each kind, chosen with `rng`."""
    if sample is None:
        return items
    by_kind: dict[str, list[Mutation]] = {}
    for m in items:
        by_kind.setdefault(m.kind, []).append(m)
    out: list[Mutation] = []
    for kind in sorted(by_kind):
        group = by_kind[kind]
        out.extend(rng.sample(group, min(sample, len(group))))
    return out


def _judge_nodes(fuzzer: Fuzzer, m: Mutation, facts: Overlay) -> Outcome:
    proof = fuzzer.proof
    return fuzzer.judge(m, fuzzer.check_nodes(facts, proof.root), proof.outcome)


def _judge_fresh(fuzzer: Fuzzer, m: Mutation, facts: Overlay, fresh_algebra: bool) -> Outcome:
    proof = fuzzer.proof
    run = fuzzer.check_fresh(facts, proof.root, fresh_algebra=fresh_algebra)
    return fuzzer.judge(m, run, proof.outcome)


def _judge_deleted(fuzzer: Fuzzer, m: Mutation, facts: Overlay) -> Outcome:
    proof = fuzzer.proof
    run = fuzzer.check_deleted_claims(facts, proof.root, [m.target])
    return fuzzer.judge(m, run, proof.outcome)


def fuzz_nodes(fuzzer: Fuzzer, tally: Tally, sample: int | None, seed: int) -> None:
    """Every losing node mutated one at a time (or `sample` per kind), checked."""
    rng = random.Random(seed)
    proof = fuzzer.proof
    for m in _pick(list(node_mutations(fuzzer, rng)), sample, rng):
        facts = Overlay(proof.facts, m.changes)
        _timed(tally, m.kind, _judge_nodes, fuzzer, m, facts)


def fuzz_claims(
    fuzzer: Fuzzer, tally: Tally, sample: int | None, seed: int, *, full: bool = False
) -> None:
    """Every position → RCT entry mutated one at a time (or `sample` per kind), checked.

    A deletion is checked with fresh claims and, for the nodes that meet the land, a fresh
    engine (HybridEngine; `full`: a whole fresh engine, as the CLI). A retargeted entry
    is settled by fresh claims (``StoreRcts`` + ``DerivedRcts`` over the mutated facts, the
    per-land step every check takes when it meets the land): a check that differs from the
    unmutated one only in that entry runs as the unmutated one until it looks the land up,
    so a refuted (or unloadable) claim fails it, and a land the unmutated check never looks
    up leaves it unchanged. Only a claim that survives is checked whole (`full`: all are).
    """
    rng = random.Random(seed + 1)
    proof = fuzzer.proof
    for m in _pick(list(claim_mutations(fuzzer, rng)), sample, rng):
        facts = Overlay(proof.facts, m.changes)
        if not full and m.target not in fuzzer.baseline.handed:
            _timed(tally, m.kind, Outcome, ACCEPTED_TRUE, "claim never looked up")
        elif full:
            _timed(tally, m.kind, _judge_fresh, fuzzer, m, facts, False)
        elif m.kind == "pos_rct/delete":
            _timed(tally, m.kind, _judge_deleted, fuzzer, m, facts)
        else:
            _timed(tally, m.kind, fuzzer.settle_claim, m, facts)


def fuzz_records(
    fuzzer: Fuzzer, tally: Tally, sample: int | None, seed: int, *, end_to_end: int = 0
) -> None:
    """Every RCT record corrupted field by field, and deleted, one at a time.

    Records are re-derived whenever a check loads them (``StoreRcts`` → ``load_records``),
    so each corruption is put to that load: children first, in one algebra growing in
    topological order (the corrupted record's children are genuine and loaded; nothing
    above it is), and a deletion to a fresh ``StoreRcts`` asked for a land mapped to it.
    The trees every algebra holds from birth (0 and *1) are never loaded from a store: their
    corruptions are unused. `end_to_end` mutations (seeded) also go through a whole fresh
    check of the root, fresh algebra included, as the CLI runs it.
    """
    rng = random.Random(seed + 2)
    proof = fuzzer.proof
    records = proof.records
    ids = sorted(records)
    grow = Algebra()
    builtin = set(grow.table.by_cid)
    order = [fuzzer.algebra.content_id(h) for h in fuzzer.algebra.handles()]
    order = [cid for cid in order if cid in records]
    chosen = set(rng.sample(order, min(sample, len(order)))) if sample is not None else None
    R, P = FactKind.RCT, FactKind.POS_RCT
    e2e: list[Mutation] = []
    for cid in order:
        record = records[cid]
        if chosen is not None and cid not in chosen:
            grow.load_records({cid: record})
            continue
        for kind, bad in record_corruptions(cid, record, ids, rng):
            m = Mutation(kind, cid, ((R, cid, bad),))
            e2e.append(m)
            _timed(tally, kind, _load_record, grow, cid, bad, builtin)
        m = Mutation("rct/delete", cid, ((R, cid, None),))
        e2e.append(m)
        probe = Overlay(proof.facts, ((R, cid, None), (P, "probe", cid)))
        _timed(tally, "rct/delete", _delete_record, grow, cid, probe, builtin)
        grow.load_records({cid: record})
    for m in rng.sample(e2e, min(end_to_end, len(e2e))):
        facts = Overlay(proof.facts, m.changes)
        _timed(tally, "rct/end-to-end", _judge_fresh, fuzzer, m, facts, True)


def _load_record(grow: Algebra, cid: str, bad: RctRecord, builtin: set[str]) -> Outcome:
    if cid in builtin:
        return Outcome(ACCEPTED_TRUE, "built into every algebra: never loaded")
    try:
        grow.load_records({cid: bad})
    except RctRecordError as error:
        return Outcome(REFUSED, "load: RctRecordError", str(error))
    return Outcome(FALSE_ACCEPTANCE, "corrupted record loaded", f"{cid}: {bad}")


def _delete_record(grow: Algebra, cid: str, facts: Overlay, builtin: set[str]) -> Outcome:
    if cid in builtin:
        return Outcome(ACCEPTED_TRUE, "built into every algebra: never loaded")
    algebra = grow if cid not in grow.table.by_cid else Algebra()
    rcts = StoreRcts(facts, algebra)
    try:
        handed = rcts.lookup(["probe"])
    except LOAD_ERRORS as error:
        return Outcome(REFUSED, f"load: {type(error).__name__}", str(error))
    if "probe" not in handed and "probe" in rcts.dangling:  # named; the check fails on it
        return Outcome(REFUSED, "no record: the map is not used", cid)
    return Outcome(FALSE_ACCEPTANCE, "missing record not noticed", cid)


# --------------------------------------------------------------------------- fake worlds


class ForgedRcts:
    """The shipped table's RCTs with one land's RCT forged: the RCT source of a liar."""

    def __init__(self, table: RctTable, land: str, cid: str) -> None:
        self.algebra = table.algebra
        self._table = TableRcts(table)
        self._land, self._handle = land, table.algebra.handle(cid)

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        found = self._table.lookup(lands)
        if self._land in found:
            found[self._land] = self._handle
        return found


def fake_world(fuzzer: Fuzzer, land: str, cid: str) -> Mutation:
    """A world wrong in one land and consistent everywhere else: the root solved again by a
    liar who believes `land` has RCT `cid`, its losing nodes replacing the genuine ones, the
    forged claim stored with the records below it."""
    proof, table = fuzzer.proof, fuzzer.proof.table
    liar = MemoryProofStore()
    said = MisereSolver(fuzzer.game, liar, ForgedRcts(table, land, cid)).outcome(proof.root)
    nodes = set(liar.get(FactKind.MISERE, list(liar._facts[FactKind.MISERE])))
    genuine = set(proof.facts[FactKind.MISERE])
    algebra = table.algebra
    closure = RctSearch(fuzzer.game, algebra).closure([algebra.handle(cid)])
    records = proof.facts[FactKind.RCT]
    changes: list[Change] = [(FactKind.MISERE, key, None) for key in sorted(genuine - nodes)]
    changes += [(FactKind.MISERE, key, "L") for key in sorted(nodes - genuine)]
    changes.append((FactKind.POS_RCT, land, cid))
    for handle in closure:
        if algebra.content_id(handle) not in records:
            changes.append((FactKind.RCT, algebra.content_id(handle), algebra.record(handle)))
    return Mutation(
        "fake-world/" + ("outcome-flipped" if said != proof.outcome else "same-outcome"),
        land,
        tuple(changes),
        false_nodes=frozenset(nodes - genuine),
        false_claims={land: cid},
    )


def fake_world_targets(
    fuzzer: Fuzzer, count: int, rng: random.Random, max_lives: int = 99
) -> list[tuple[str, str]]:
    """(land, forged id) pairs: lands the check looks up, largest first (at most
    `max_lives`: refuting a forged land re-derives its whole game tree), each given a real
    RCT of the other outcome from the shipped table."""
    game, table = fuzzer.game, fuzzer.proof.table
    algebra = table.algebra
    by_outcome: dict[str, list[str]] = {"W": [], "L": []}
    for cid in sorted({algebra.content_id(h) for h in table.positions.values()}):
        by_outcome[algebra.outcome(algebra.handle(cid))].append(cid)
    lands = [land for land in fuzzer.baseline.handed if game.size(land) <= max_lives]
    lands.sort(key=lambda x: (-game.size(x), x))
    out = []
    for land in lands[: count * 3 : 3]:
        mine = algebra.outcome(algebra.handle(fuzzer.baseline.handed[land]))
        out.append((land, rng.choice(by_outcome["L" if mine == "W" else "W"])))
    return out


def fuzz_fake_worlds(fuzzer: Fuzzer, tally: Tally, count: int, seed: int) -> None:
    """`count` fake worlds (see fake_world), each checked whole with fresh claims."""
    rng = random.Random(seed + 5)
    for land, cid in fake_world_targets(fuzzer, count, rng):
        m = fake_world(fuzzer, land, cid)
        _timed(
            tally, m.kind, _judge_fresh, fuzzer, m, Overlay(fuzzer.proof.facts, m.changes), False
        )


# --------------------------------------------------------------------------- multi-fact


@dataclass
class TreeTable:
    """The complete misère table of the tree of a position and the truth about it."""

    root: str
    positions: list[str]  # every position of the tree (but the empty one)
    truth: dict[str, str]  # position -> misère outcome (brute force, no RCTs)
    plain: dict[str, FactValue]  # every losing position (no RCTs): the plain table
    facts: dict[FactKind, dict[str, FactValue]]  # with RCTs: nodes, pos_rct, records
    parents: dict[str, list[str]]  # position -> the positions of the tree it is a child of
    holding: dict[str, list[str]]  # land -> the positions of the tree it is a land of

    def near(self, key: str, rng: random.Random, count: int = 3) -> list[str]:
        """Roots whose check meets a changed fact: the position itself, positions holding
        the land, and some of their parents."""
        found = [key] if key in self.truth else list(self.holding.get(key, ()))
        found = rng.sample(found, min(count, len(found)))
        for position in list(found):
            ups = self.parents.get(position, [])
            found += rng.sample(ups, min(count, len(ups)))
        return found


def tree_table(root: str, table: RctTable) -> TreeTable:
    """Every position of the tree of `root`, its brute-force outcome, and its complete
    misère tables: plain (every losing position) and with the shipped table's RCTs (every
    losing node the solver proves for every position, every land's RCT, their records)."""
    game = SproutsGame()
    seen: set[str] = set()
    parents: dict[str, list[str]] = {}
    stack = [game.canonical(root)]
    while stack:
        position = stack.pop()
        if position not in seen:
            seen.add(position)
            for child in game.children(position):
                parents.setdefault(child, []).append(position)
                stack.append(child)
    positions = sorted(p for p in seen if game.components(p))
    holding: dict[str, list[str]] = {}
    for p in positions:
        for land in set(game.components(p)):
            holding.setdefault(land, []).append(p)
    memo: dict[str, bool] = {}
    truth = {p: brute_force_misere(game, p, memo) for p in positions}
    plain: dict[str, FactValue] = {p: "L" for p, o in truth.items() if o == "L"}
    solved = MemoryProofStore()
    solver = MisereSolver(game, solved, TableRcts(table))
    for p in positions:
        if solver.outcome(p) != truth[p]:
            raise AssertionError(f"{p}: the solver and the brute force disagree")
    facts: dict[FactKind, dict[str, FactValue]] = {k: {} for k in FactKind}
    facts[FactKind.MISERE] = dict(solved.get(FactKind.MISERE, list(solved._facts[FactKind.MISERE])))
    lands = sorted({land for p in positions for land in game.components(p)})
    algebra = table.algebra
    handles = []
    for land in lands:
        handle = table.rct_of(land)
        if handle is not None:
            facts[FactKind.POS_RCT][land] = algebra.content_id(handle)
            handles.append(handle)
    closure = RctSearch(game, algebra).closure(handles)
    facts[FactKind.RCT] = {algebra.content_id(h): algebra.record(h) for h in closure}
    return TreeTable(root, positions, truth, plain, facts, parents, holding)


def plain_corruption(tree: TreeTable, k: int, rng: random.Random) -> Mutation:
    """k facts of the plain table at once: true losses deleted, false losses added."""
    changes: list[Change] = []
    false: set[str] = set()
    losing = sorted(tree.plain)
    winning = [p for p in tree.positions if tree.truth[p] == "W"]
    for _ in range(k):
        if rng.random() < 0.5:
            changes.append((FactKind.MISERE, rng.choice(losing), None))
        else:
            key = rng.choice(winning)
            changes.append((FactKind.MISERE, key, "L"))
            false.add(key)
    return Mutation(f"multi/plain k={k}", "", tuple(changes), false_nodes=frozenset(false))


def rct_corruption(tree: TreeTable, k: int, rng: random.Random, engine: CachedEngine) -> Mutation:
    """k facts of the table with RCTs at once: losing nodes deleted or renamed (parity, to a
    winning child), false losing positions added, claims retargeted or deleted."""
    facts = tree.facts
    nodes = sorted(facts[FactKind.MISERE])
    claims = {land: str(c) for land, c in facts[FactKind.POS_RCT].items()}
    lands = sorted(claims)
    records = facts[FactKind.RCT]
    by_outcome: dict[str, list[str]] = {"W": [], "L": []}
    for cid, record in sorted(records.items()):
        if isinstance(record, RctRecord):
            by_outcome[record.outcome].append(cid)
    winning = [p for p in tree.positions if tree.truth[p] == "W"]
    changes: list[Change] = []
    false: set[str] = set()
    forged: dict[str, str] = {}
    M, P = FactKind.MISERE, FactKind.POS_RCT
    for _ in range(k):
        op = rng.randrange(6)
        if op == 0 and nodes:
            changes.append((M, rng.choice(nodes), None))
        elif op == 1 and nodes:
            key = rng.choice(nodes)
            position, parity, cids = split_node_key(key)
            new = _valid_key(position, 1 - parity, cids)
            if new is not None:
                changes += [(M, key, None), (M, new, "L")]
                false.add(new)
        elif op == 2 and nodes:
            key = rng.choice(nodes)
            node = engine.solver.parse_node(key)
            kids = sorted(engine.key(c) for c in engine.children(node))
            if kids:
                new = rng.choice(kids)
                changes += [(M, key, None), (M, new, "L")]
                false.add(new)
        elif op == 3:
            key = rng.choice(winning)
            changes.append((M, key, "L"))
            false.add(key)
        elif op == 4:
            land = rng.choice(lands)
            mine = records[claims[land]]
            assert isinstance(mine, RctRecord)
            pool = by_outcome["L" if mine.outcome == "W" else "W"]
            if rng.random() < 0.5:
                pool = [c for c in by_outcome[mine.outcome] if c != claims[land]]
            cid = rng.choice(pool)
            changes.append((P, land, cid))
            forged[land] = cid
        else:
            changes.append((P, rng.choice(lands), None))
    return Mutation(
        f"multi/rct k={k}",
        "",
        tuple(changes),
        false_nodes=frozenset(false),
        false_claims=forged,
    )


class TreeFuzzer(Fuzzer):
    """Checks roots of the tree of a position against corruptions of its complete table."""

    def __init__(self, tree: TreeTable, table: RctTable) -> None:
        proof = Proof(tree.root, tree.truth[tree.root], tree.facts, table)
        super().__init__(proof)
        self.tree = tree
        self.plain_engine = CachedEngine(MisereSolver(self.game, MemoryProofStore()))

    def node_is_losing(self, key: str) -> bool:
        if key in self.tree.truth:  # a position: the brute force says
            return self.tree.truth[key] == "L"
        return super().node_is_losing(key)


def fuzz_tree(
    tree_fuzzer: TreeFuzzer,
    tally: Tally,
    corruptions: int,
    roots: int,
    seed: int,
    *,
    mode: str,
) -> None:
    """`corruptions` random corruptions of k = 2..5 facts (mode "plain" or "rct"), each
    checked for `roots` random positions of the tree (its root always among them)."""
    rng = random.Random(seed + (3 if mode == "plain" else 4))
    tree = tree_fuzzer.tree
    for i in range(corruptions):
        k = 2 + i % 4
        if mode == "plain":
            m = plain_corruption(tree, k, rng)
        else:
            m = rct_corruption(tree, k, rng, tree_fuzzer.engine)
        picked = [tree.root]
        for _, key, _ in m.changes:  # roots whose checks meet the changed facts
            picked += tree.near(key, rng, count=2)
        picked = list(dict.fromkeys(picked))[: max(1, roots - 3)]
        picked += rng.sample(tree.positions, roots - len(picked))  # and some at random
        for root in dict.fromkeys(picked):
            _timed(tally, m.kind, _check_tree_root, tree_fuzzer, m, root, mode)


def _check_tree_root(tree_fuzzer: TreeFuzzer, m: Mutation, root: str, mode: str) -> Outcome:
    tree = tree_fuzzer.tree
    if mode == "plain":
        facts = Overlay({FactKind.MISERE: tree.plain}, m.changes)
        report = MisereChecker(tree_fuzzer.plain_engine, facts).check(root)
        run = Run(report)
    else:
        run = tree_fuzzer.check_fresh(Overlay(tree.facts, m.changes), root)
    return tree_fuzzer.judge(m, run, tree.truth[root])
