"""The server's background verifier: claimed nimber facts become verified or refuted.

A claim (land = n) is re-derived with the checker of solver/normal/check.py, run on a view of the
store (`ClaimView`) that serves exactly three kinds of value: the claim under test, facts
the store holds as VERIFIED, and nimbers of lands of at most `rule_lives` lives derived
from the rules (solver/normal/rules_nimber.py). No other claimed fact is ever visible to it. So:

- verified: the claim's justification holds on verified facts and the rules alone;
- refuted: either the checker found the claim inconsistent with verified facts or the
  rules (the contradicting couple is the evidence), or another value w was re-derived for
  the land from verified facts and the rules (a land has one nimber, so the claim is false;
  w is the proven value). Unverified claims never take part in either decision, and by
  induction every verified fact rests on the rules alone.
- otherwise the claim waits (children missing or not yet verified) and is tried again
  after anything new was verified or inserted.

Work is bounded per step (a few keys, smallest lands first so children come before their
parents), one thread, started and stopped by the server. An insert that conflicted with a
claim leaves its value as a contender: when the claim is refuted the contender is stored
in its place (with its own provenance), and verified at once if it is the proven value.

Misère, `pos_rct` and RCT claims are decided the same way by ops/verifier_misere.py, in
a queue of their own (records, then position → RCT maps, then misère nodes, smallest
first) worked after the nimber claims of each step, so normal play pays nothing for them.
A refuted misère claim whose opposite outcome was shown from verified facts is replaced by
that outcome, stored verified.
"""

from __future__ import annotations

import heapq
import logging
import math
import os
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sproutsdb.facts import SERVER_VERIFIER, Provenance, Status
from sproutsdb.games import get_game
from sproutsdb.ops.seed import TableShelf
from sproutsdb.ops.spare_cpu import SpareCpu
from sproutsdb.ops.verifier_misere import Decision, MisereClaims
from sproutsdb.solver.normal.check import Checker, CheckReport
from sproutsdb.solver.normal.rules_nimber import SmallLands
from sproutsdb.solver.ports.game import Game
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore

log = logging.getLogger(__name__)

RULE_LIVES = 12  # lands this small are decided by the rules alone (0*4: 0.07 s, 1 188 lands)
STEP_KEYS = 32  # claims checked per step at most
STEP_SECONDS = 0.5  # ... and no new claim is started after this long in a step
SCAN_CHUNK = 2048  # stored facts scanned per step at start-up
SCAN_WHILE_QUEUED = 50_000  # scan on only while fewer claims than this are queued (memory)
MAX_CONTENDERS = 100_000  # contested keys remembered (the oldest are forgotten beyond it)
MAX_ALTERNATIVES = 4  # other values tried per claim the checker could not decide
# the kinds decided by verifier_misere, in the order their claims are worked (a misère node
# needs the RCTs its key names; a position's RCT needs its records)
OTHER_KINDS = (FactKind.RCT, FactKind.POS_RCT, FactKind.MISERE)
SORT_PER_STEP = 4096  # new claims of those kinds given their place in the queue per step
# the verifier thread's niceness above the server's: re-deriving claims is background work,
# so the server's requests and the solvers sharing its machine (a fleet) get the cores first
BACKGROUND_NICENESS = 10
# ... and while solvers keep sending claims (one within WRITERS_ACTIVE_SECONDS, and
# YIELD_BACKLOG or more waiting) and no core of the machine is spare, it waits before each
# step, YIELD_SECONDS at most: on a machine the server shares with a fleet's solvers,
# re-deriving as they wrote took a sixth of the fleet's CPU, niceness notwithstanding
# (bench/fleet.py --ray-head, bench/results/fleet.json). The claims wait in the store and
# are verified once a core is free or the writers pause; a few claims (one solve's) and a
# server with a spare core are verified at once, as before.
WRITERS_ACTIVE_SECONDS = 2.0
YIELD_BACKLOG = 100
YIELD_SECONDS = 5.0
SPARE_CORES = 0.5  # idle CPU, in cores, that counts as a spare core
YIELD_POLL_SECONDS = 0.25
_RANK = {kind: rank for rank, kind in enumerate(OTHER_KINDS)}


@dataclass
class VerifierCounts:
    """What the verifier did since it started."""

    verified: int = 0
    refuted: int = 0
    replaced: int = 0
    checks: int = 0
    steps: int = 0
    set_aside: int = 0  # misère or pos_rct claims too large to examine, left claimed


class ClaimView:
    """A FactSource for the checker: the claim under test, verified facts, and the rules'
    nimbers of small lands; nothing else (see the module docstring)."""

    def __init__(
        self,
        store: LmdbProofStore,
        key: str,
        value: int,
        rules: SmallLands,
        just_verified: Mapping[str, int] | None = None,
    ) -> None:
        self.store = store
        self.key = key
        self.value = value
        self.rules = rules
        self.just_verified = just_verified or {}  # verified this step, mark not yet committed

    def get(self, kind: FactKind, keys: Sequence[str]) -> Mapping[str, Any]:
        if kind is not FactKind.NIMBER:
            return {}
        keys = list(keys)
        found: dict[str, Any] = self.store.get(FactKind.NIMBER, keys, verified_only=True)
        found.pop(self.key, None)
        for key in keys:
            if key == self.key:
                found[key] = self.value
            elif key in self.just_verified:
                found[key] = self.just_verified[key]
            elif key not in found:
                derived = self.rules.nimber(key)
                if derived is not None:
                    found[key] = derived
        return found

    def trusted(self, keys: Sequence[str]) -> list[str]:
        """Every value this view serves is verified or the rules', except the claim's."""
        return [key for key in keys if key != self.key]


@dataclass(frozen=True)
class Contender:
    """The value of an insert that conflicted with a claim, and who offered it."""

    value: int
    provenance: Provenance


class Verifier:
    """Background re-derivation of claimed nimber facts (see the module docstring)."""

    def __init__(
        self,
        store: LmdbProofStore,
        *,
        game: Game | None = None,
        rule_lives: int = RULE_LIVES,
        provenance: Provenance | None = None,
        tables: TableShelf | None = None,
        scan: bool = True,
    ) -> None:
        """`scan` False: decide only the claims given by `notify` (a pull deciding what it
        brought), not every claim the store holds."""
        self.store = store
        self.game = (
            game if game is not None else get_game(store.identity.game).engine(cache_size=200_000)
        )
        self.rules = SmallLands(self.game, rule_lives)
        self.claims = MisereClaims(store, self.game, tables=tables)
        self.provenance = provenance or Provenance(tool="sproutsdb verifier")
        self.counts = VerifierCounts()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._heap: list[tuple[int, str]] = []
        self._queued: set[str] = set()
        self._waiting: set[str] = set()
        self._contenders: dict[str, Contender] = {}
        self._progress = False
        self._scan_after: str | None = None
        self._scan_done = not scan
        self._stop = False
        self._thread: threading.Thread | None = None
        self._just_verified: dict[str, int] = {}
        self._in_step = 0  # claims taken by the current step, not yet decided and committed
        # index in (NIMBER, *OTHER_KINDS) of the kind being scanned (past the end: none)
        self._scan_kind = 0 if scan else len(OTHER_KINDS) + 1
        # claims of the other kinds: arrived (priority not yet computed), queued, waiting
        self._incoming: list[tuple[FactKind, str]] = []
        self._oheap: list[tuple[int, int, str, str]] = []  # (rank, priority, key, kind)
        self._oqueued: set[tuple[FactKind, str]] = set()
        self._owaiting: dict[tuple[FactKind, str], int] = {}  # -> priority
        self._ocontenders: dict[tuple[FactKind, str], Contender] = {}
        self._oprogress = False
        self._oin_step = 0
        self._claimed_at = -math.inf  # when a claim last arrived (monotonic)
        self.yielded_seconds = 0.0  # waited for a spare core while solvers wrote

    def use_tables(self, tables: TableShelf) -> None:
        """Replace lands by the RCTs of the table the server streams, as its solvers do."""
        self.claims.tables = tables

    # --- control ----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the thread (it first scans the store for claims left from earlier runs)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="sproutsdb-verifier", daemon=True
            )
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the current claim (no write is ever left half done)."""
        with self._lock:
            self._stop = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def backlog(self) -> int:
        """Claims queued, being decided, or waiting for the facts below them."""
        return int(self.figures()["backlog"])

    def figures(self) -> dict[str, Any]:
        """Counters for Stats: backlog (queued incl. those being decided, waiting), work
        done, scan state."""
        with self._lock:
            queued, waiting = len(self._queued) + self._in_step, len(self._waiting)
            queued += len(self._incoming) + len(self._oqueued) + self._oin_step
            waiting += len(self._owaiting)
        c = self.counts
        return {
            "queued": queued,
            "waiting": waiting,
            "backlog": queued + waiting,
            "scanning": not self._scan_done,
            "verified": c.verified,
            "refuted": c.refuted,
            "replaced": c.replaced,
            "checks": c.checks,
            "steps": c.steps,
            "contenders": len(self._contenders) + len(self._ocontenders),
            "misere_checks": self.claims.checks,
            "set_aside": c.set_aside,
            "yielded_seconds": round(self.yielded_seconds, 3),
        }

    # --- input from the service -------------------------------------------------------------

    def notify(self, keys: Iterable[str]) -> None:
        """Claimed nimber facts were just stored: queue them."""
        with self._lock:
            for key in keys:
                self._enqueue(key)
            self._progress = True
            self._claimed_at = time.monotonic()
            self._wake.notify_all()

    def notify_kind(self, kind: FactKind, keys: Iterable[str]) -> None:
        """Claimed facts of another kind than nimbers were just stored: queue them."""
        if kind is FactKind.NIMBER:
            self.notify(keys)
            return
        with self._lock:
            self._incoming.extend((kind, key) for key in keys)
            self._oprogress = True
            self._claimed_at = time.monotonic()
            self._wake.notify_all()

    def contest(
        self, key: str, value: Any, provenance: Provenance, kind: FactKind = FactKind.NIMBER
    ) -> None:
        """An insert offered `value` for `key`, stored as another, still claimed value: keep
        the offer as the key's contender and check the claim first."""
        if kind is not FactKind.NIMBER:
            self._contest_other(kind, key, value, provenance)
            return
        with self._lock:
            if key not in self._contenders and len(self._contenders) >= MAX_CONTENDERS:
                self._contenders.pop(next(iter(self._contenders)))
            self._contenders[key] = Contender(value, provenance)
            self._waiting.discard(key)
            self._queued.discard(key)
            heapq.heappush(self._heap, (-1, key))  # before every size-ordered claim
            self._queued.add(key)
            self._wake.notify_all()

    def _contest_other(self, kind: FactKind, key: str, value: Any, provenance: Provenance) -> None:
        with self._lock:
            item = (kind, key)
            if item not in self._ocontenders and len(self._ocontenders) >= MAX_CONTENDERS:
                self._ocontenders.pop(next(iter(self._ocontenders)))
            self._ocontenders[item] = Contender(value, provenance)
            self._owaiting.pop(item, None)
            self._oqueued.add(item)
            heapq.heappush(self._oheap, (-1, 0, key, kind.value))  # before every claim
            self._wake.notify_all()

    def _enqueue(self, key: str) -> None:
        if key in self._queued:
            return
        self._waiting.discard(key)
        self._queued.add(key)
        heapq.heappush(self._heap, (self.game.size(key), key))

    # --- the thread -------------------------------------------------------------------------

    def _run(self) -> None:
        _run_in_background()
        spare = SpareCpu()
        while True:
            with self._lock:
                if self._stop:
                    return
            self._yield_to_writers(spare)
            try:
                busy = self.step()
            except Exception:  # a store closing under us, or a bug: log, back off, go on
                log.exception("verifier step failed")
                busy = False
            if not busy:
                with self._lock:
                    if not self._stop:
                        self._wake.wait(1.0)

    def _yield_to_writers(self, spare: SpareCpu) -> None:
        """Wait, YIELD_SECONDS at most, while claims keep arriving, many wait and no core
        is spare (see WRITERS_ACTIVE_SECONDS); return at once otherwise, or when stopped."""
        started = now = time.monotonic()
        while now - started < YIELD_SECONDS:
            if now - self._claimed_at > WRITERS_ACTIVE_SECONDS:
                break
            if self._queued_count() < YIELD_BACKLOG:
                break
            cores = spare.cores()
            if cores is None or cores >= SPARE_CORES:
                break
            with self._lock:
                if self._stop:
                    break
                self._wake.wait(YIELD_POLL_SECONDS)  # woken by stop() and new claims too
            now = time.monotonic()
        self.yielded_seconds += now - started

    def step(self) -> bool:
        """One bounded unit of work; False when there was nothing to do."""
        self.counts.steps += 1
        if self._scan_kind == 0 and len(self._queued) < SCAN_WHILE_QUEUED:
            self._scan()  # nimber claims first, as before the other kinds were verified
            return True
        busy = self._nimber_step()
        if not self._scan_done and self._queued_count() < SCAN_WHILE_QUEUED:
            self._scan()  # the other kinds, a chunk after each step of nimber work
            return True
        if self._incoming or self._oheap or self._owaiting:
            busy = self._other_step() or busy
        return busy

    def _queued_count(self) -> int:
        return len(self._queued) + len(self._oqueued) + len(self._incoming)

    def _nimber_step(self) -> bool:
        """Decide up to STEP_KEYS nimber claims (STEP_SECONDS at most)."""
        with self._lock:
            if not self._heap and self._waiting and self._progress:
                self._progress = False
                for key in list(self._waiting):
                    self._enqueue(key)
            batch: list[str] = []
            while self._heap and len(batch) < STEP_KEYS:
                _, key = heapq.heappop(self._heap)
                if key in self._queued:
                    self._queued.discard(key)
                    batch.append(key)
            self._in_step = len(batch)
        if not batch:
            return False
        try:
            self._decide_batch(batch)
        finally:
            with self._lock:
                self._in_step = 0
        return True

    def _decide_batch(self, batch: list[str]) -> None:
        """Decide the claims of one step; the verified ones are marked in one commit."""
        deadline = time.monotonic() + STEP_SECONDS
        self._just_verified = {}
        for index, key in enumerate(batch):
            if time.monotonic() > deadline or self._stop:
                with self._lock:
                    for rest in batch[index:]:
                        self._enqueue(rest)
                break
            self._decide(key)
        verified = list(self._just_verified)
        if verified:  # one commit for the step's verdicts
            self.store.mark_verified(
                FactKind.NIMBER, verified, provenance=self.provenance, check=SERVER_VERIFIER
            )
            self.counts.verified += len(verified)
            with self._lock:
                self._progress = True
        self._just_verified = {}

    def _scan(self) -> None:
        """Queue the claimed facts of one chunk of the store (a restart resumes them):
        nimbers first, then each of OTHER_KINDS."""
        kind = (FactKind.NIMBER, *OTHER_KINDS)[self._scan_kind]
        last = self._scan_after
        keys: list[str] = []
        records = self.store.iter_records(kind, start_after=last)
        for taken, (key, record) in enumerate(records, start=1):
            last = key
            if record.status is Status.CLAIMED:
                keys.append(key)
            if taken >= SCAN_CHUNK:
                break
        else:
            self._scan_kind += 1
            self._scan_done = self._scan_kind > len(OTHER_KINDS)
            last = None
        self._scan_after = last
        with self._lock:
            if kind is FactKind.NIMBER:
                for key in keys:
                    self._enqueue(key)
            else:
                self._incoming.extend((kind, key) for key in keys)

    # --- deciding one claim -----------------------------------------------------------------

    def _decide(self, key: str) -> None:
        """Check one claim: verified ones join `_just_verified` (marked by the step in one
        commit), refuted ones are refuted here, undecided ones wait."""
        record = self.store.get_records(FactKind.NIMBER, [key]).get(key)
        if record is None or record.status is not Status.CLAIMED:
            self._settle_contender(key, record)
            return
        claimed = int(record.value)  # type: ignore[arg-type]
        if self.rules.covers(key):
            truth = self.rules.nimber(key)
            if truth == claimed:
                self._verified(key, claimed)
            else:
                self._refute(
                    key,
                    claimed,
                    f"the rules give {key} nimber {truth} (a land of at "
                    f"most {self.rules.max_lives} lives: full mex search)",
                    truth,
                )
            return
        report = self._check(key, claimed)
        if key in report.verified:
            self._verified(key, claimed)
            return
        if report.inconsistent:
            bad = report.inconsistent[0]
            evidence = f"{key} = {claimed} contradicts verified facts: {bad.reason}"
            self._refute(key, claimed, evidence, self._alternative(key, claimed, report))
            return
        proven = self._alternative(key, claimed, report)
        if proven is not None:
            self._refute(
                key,
                claimed,
                f"{key} + *{proven} is losing by verified facts: its "
                f"nimber is {proven}, not {claimed}",
                proven,
            )
            return
        with self._lock:
            self._waiting.add(key)

    def _verified(self, key: str, value: int) -> None:
        self._just_verified[key] = value
        self._contenders.pop(key, None)

    def _check(self, key: str, value: int) -> CheckReport:
        """The checker's verdict on `key` = `value` over verified facts and the rules."""
        self.counts.checks += 1
        view = ClaimView(self.store, key, value, self.rules, self._just_verified)
        checker = Checker(self.game, view, trusted=view.trusted)
        return checker.check_facts([key])

    def _alternative(self, key: str, claimed: int, report: CheckReport) -> int | None:
        """Another value re-derived for `key` from verified facts (the contender's first,
        then each k < claimed whose couple `key + *k` the checker could not show winning)."""
        tried: list[int] = []
        contender = self._contenders.get(key)
        if contender is not None:
            tried.append(contender.value)
        prefix = f"{key} + *"
        for hole in report.missing:
            if hole.needed_by == key and hole.couple.startswith(prefix):
                k = hole.couple[len(prefix) :]
                if k.isdigit():
                    tried.append(int(k))
        for value in list(dict.fromkeys(v for v in tried if v != claimed))[:MAX_ALTERNATIVES]:
            if key in self._check(key, value).verified:
                return value
        return None

    def _refute(self, key: str, claimed: int, evidence: str, proven: int | None) -> None:
        outcome = self.store.refute(
            FactKind.NIMBER,
            key,
            claimed,
            evidence=evidence,
            proven=proven,
            provenance=self.provenance,
        )
        if outcome != "refuted":
            return
        self.counts.refuted += 1
        contender = self._contenders.pop(key, None)
        if contender is None:
            return
        result = self.store.put(
            FactKind.NIMBER, {key: contender.value}, provenance=contender.provenance
        )
        if result.inserted:
            self.counts.replaced += 1
            if contender.value == proven:  # re-derived just now: no need to wait a round
                self.store.mark_verified(
                    FactKind.NIMBER, [key], provenance=self.provenance, check=SERVER_VERIFIER
                )
                self.counts.verified += 1
            else:
                self.notify([key])

    def _settle_contender(self, key: str, record: Any) -> None:
        """A contested key whose claim is gone (refuted earlier): store the contender."""
        contender = self._contenders.pop(key, None)
        if contender is not None and record is None:
            result = self.store.put(
                FactKind.NIMBER, {key: contender.value}, provenance=contender.provenance
            )
            if result.inserted:
                self.counts.replaced += 1
                self.notify([key])

    # --- misère, pos_rct and RCT claims (decided by verifier_misere) -------------------------

    def _other_step(self) -> bool:
        """Decide up to STEP_KEYS claims of the other kinds (STEP_SECONDS at most); the
        verified ones are marked in one commit per kind."""
        with self._lock:
            incoming = self._incoming[:SORT_PER_STEP]
            del self._incoming[:SORT_PER_STEP]
        pushed = [(kind, key, self.claims.priority(kind, key)) for kind, key in incoming]
        with self._lock:
            for kind, key, priority in pushed:
                self._opush(kind, key, priority)
            if not self._oheap and self._owaiting and self._oprogress:
                self._oprogress = False
                waiting, self._owaiting = self._owaiting, {}
                for (kind, key), priority in waiting.items():
                    self._opush(kind, key, priority)
            batch: list[tuple[FactKind, str, int]] = []
            while self._oheap and len(batch) < STEP_KEYS:
                _, priority, key, kind_name = heapq.heappop(self._oheap)
                item = (FactKind(kind_name), key)
                if item in self._oqueued:
                    self._oqueued.discard(item)
                    batch.append((item[0], key, priority))
            self._oin_step = len(batch)
        if not batch:
            return False
        try:
            self._decide_other_batch(batch)
        finally:
            with self._lock:
                self._oin_step = 0
        return True

    def _opush(self, kind: FactKind, key: str, priority: int) -> None:
        item = (kind, key)
        if item in self._oqueued:
            return
        self._owaiting.pop(item, None)
        self._oqueued.add(item)
        heapq.heappush(self._oheap, (_RANK[kind], priority, key, kind.value))

    def _decide_other_batch(self, batch: list[tuple[FactKind, str, int]]) -> None:
        deadline = time.monotonic() + STEP_SECONDS
        verified: dict[FactKind, dict[str, Any]] = {kind: {} for kind in OTHER_KINDS}
        for index, (kind, key, priority) in enumerate(batch):
            if time.monotonic() > deadline or self._stop:
                with self._lock:
                    for rest_kind, rest, rest_priority in batch[index:]:
                        self._opush(rest_kind, rest, rest_priority)
                break
            self._decide_other(kind, key, priority, verified)
        done = 0
        for kind in OTHER_KINDS:  # records first: a node's mark never precedes its RCTs'
            keys = list(verified[kind])
            if keys:
                result = self.store.mark_verified(
                    kind, keys, provenance=self.provenance, check=SERVER_VERIFIER
                )
                done += result.verified
        if done:
            self.counts.verified += done
            with self._lock:
                self._oprogress = True

    def _decide_other(
        self,
        kind: FactKind,
        key: str,
        priority: int,
        verified: dict[FactKind, dict[str, Any]],
    ) -> None:
        """Decide one claim; its verdict goes to `verified`, the store (refuted) or the
        waiting claims."""
        record = self.store.get_records(kind, [key]).get(key)
        if record is None or record.status is not Status.CLAIMED:
            self._settle_other_contender(kind, key, record)
            return
        decision = self.claims.decide(kind, key, record.value, verified[FactKind.MISERE])
        for cid in decision.rct_loaded:  # records re-derived on the way
            verified[FactKind.RCT].setdefault(cid, None)
        if decision.verdict == "verified":
            verified[kind][key] = record.value
            self._ocontenders.pop((kind, key), None)
        elif decision.verdict == "refuted":
            self._refute_other(kind, key, record.value, decision)
        elif decision.verdict == "set aside":  # too large to examine: stays a claim
            self.counts.set_aside += 1
            log.debug("%s claim %.80r set aside: %s", kind.value, key, decision.evidence)
        else:
            with self._lock:
                self._owaiting[(kind, key)] = priority

    def _refute_other(self, kind: FactKind, key: str, claimed: Any, decision: Decision) -> None:
        """Refute a claim; store what replaces it: the contender, or (misère) the outcome
        re-derived just now, verified when it is the proven value."""
        outcome = self.store.refute(
            kind,
            key,
            claimed,
            evidence=decision.evidence,
            proven=decision.proven,
            provenance=self.provenance,
        )
        if outcome != "refuted":
            return
        self.counts.refuted += 1
        with self._lock:
            self._oprogress = True
        contender = self._ocontenders.pop((kind, key), None)
        proven = decision.proven
        if contender is not None:
            value, provenance = contender.value, contender.provenance
        elif kind is FactKind.MISERE and proven is not None:
            value, provenance = proven, self.provenance
        else:
            return
        result = self.store.put(kind, {key: value}, provenance=provenance)
        if not result.inserted:
            return
        self.counts.replaced += 1
        if value == proven:  # re-derived just now: no need to wait a round
            self.store.mark_verified(kind, [key], provenance=self.provenance, check=SERVER_VERIFIER)
            self.counts.verified += 1
        else:
            self.notify_kind(kind, [key])

    def _settle_other_contender(self, kind: FactKind, key: str, record: Any) -> None:
        """A contested key whose claim is gone (refuted earlier): store the contender."""
        contender = self._ocontenders.pop((kind, key), None)
        if contender is not None and record is None:
            result = self.store.put(kind, {key: contender.value}, provenance=contender.provenance)
            if result.inserted:
                self.counts.replaced += 1
                self.notify_kind(kind, [key])


def _run_in_background() -> None:
    """Lower the calling thread's CPU priority by BACKGROUND_NICENESS (Linux schedules each
    thread on its own; elsewhere, or where it is refused, the thread keeps its priority)."""
    if not hasattr(os, "setpriority") or not hasattr(threading, "get_native_id"):
        return
    try:
        me = threading.get_native_id()
        now = os.getpriority(os.PRIO_PROCESS, me)
        os.setpriority(os.PRIO_PROCESS, me, min(19, now + BACKGROUND_NICENESS))
    except OSError:
        pass
