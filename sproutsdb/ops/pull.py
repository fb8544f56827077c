"""The pull verb: a peer server's facts into a local store, as claims, then checked here.

A peer is believed in nothing. Its facts (every fact of every kind with `--all`, through
the Export RPC page by page; or, with a root, the nimbers the proof of that root reads,
through Lookup) are stored as claims whose provenance names the peer, and a fact stored
here with another value is a conflict (the stored value is kept). Each answer of the peer
(an Export page, a Lookup) is taken whole or refused whole: columns of unequal length, a
key that is not canonical, a value the store or the Insert RPC would refuse, or a page
token sent twice ends the pull (`PeerRefused`, naming the peer), as do its bounds
(`PullBounds`: answers, facts, seconds); what earlier answers stored stays, as claims.
Then the facts are checked from the rules as `check --all` or `check --root` do
(`sproutsdb.ops.check`), and what those could not verify goes to the verifier the server
runs (ops/verifier.py), which refutes a claim that verified facts and the rules
contradict. The report counts, of the facts pulled, how many are now verified, still
claimed, or refuted.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, TypeVar

from sproutsdb.errors import UsageError, UserError, WireError
from sproutsdb.facts import Provenance, Status
from sproutsdb.formats.exchange import KINDS
from sproutsdb.games import get_game
from sproutsdb.ops.check import check_all, check_root
from sproutsdb.ops.claims import admit_claims, fact_problem
from sproutsdb.ops.exchange import canonical_key_function
from sproutsdb.progress import counter_bar
from sproutsdb.solver.ports.game import NotationError
from sproutsdb.solver.ports.proofstore import Conflict, FactKind
from sproutsdb.store import LmdbProofStore, schema

PAGE_FACTS = 50_000  # facts per Export call (each call is one stream with one deadline)
CHUNK_FACTS = 5_000  # facts per Export message
STATUS_BATCH = 10_000  # pulled keys whose status is read at once
SHOWN = 10  # conflicts named in a report
# the bounds of one pull (PullBounds): an honest page holds up to CHUNK_FACTS facts
DEFAULT_MAX_FACTS = 200_000_000
DEFAULT_MAX_PAGES = 200_000
DEFAULT_MAX_SECONDS = 24 * 3600.0
# kinds in the order they are pulled: RCT records before what names them
PULL_ORDER = (FactKind.RCT, FactKind.POS_RCT, FactKind.NIMBER, FactKind.MISERE)
assert set(PULL_ORDER) == set(KINDS)
T = TypeVar("T")


@dataclass
class PullReport:
    """What a pull brought and what became of it (`as_dict`: the JSON form)."""

    server: str
    root: str | None
    received: Counter[str] = field(default_factory=Counter)  # per kind
    inserted: int = 0
    unchanged: int = 0  # already stored here with the same value
    conflicts: int = 0  # stored here with another value: kept
    verified: int = 0
    claimed: int = 0
    refuted: int = 0
    check_ok: bool | None = None  # the check --all / --root verdict on the store
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "root": self.root,
            "received": dict(self.received),
            "inserted": self.inserted,
            "unchanged": self.unchanged,
            "conflicts": self.conflicts,
            "verified": self.verified,
            "claimed": self.claimed,
            "refuted": self.refuted,
            "check_ok": self.check_ok,
            "examples": self.examples,
            "seconds": round(self.seconds, 3),
        }

    def note(self, text: str) -> None:
        if len(self.examples) < SHOWN:
            self.examples.append(text)


class PeerRefused(UserError):
    """The pull stopped on the peer's account: a bound hit, or an answer refused whole
    (nothing of it stored); what earlier answers stored stays, as claims."""


@dataclass(frozen=True)
class PullBounds:
    """How much one peer may make one pull read: answers (Export pages, Lookups of a
    root's proof), facts received, and seconds from the start to the last answer read."""

    max_pages: int = DEFAULT_MAX_PAGES
    max_facts: int = DEFAULT_MAX_FACTS
    max_seconds: float = DEFAULT_MAX_SECONDS

    def __post_init__(self) -> None:
        for name, flag in (("max_pages", "--max-pages"), ("max_facts", "--max-facts")):
            if getattr(self, name) < 1:
                raise UsageError(f"{flag} N needs N ≥ 1, got {getattr(self, name)}")
        if not self.max_seconds > 0:
            raise UsageError(f"--max-seconds S needs S > 0, got {self.max_seconds}")


class _Puller:
    """Puts a peer's answers into the store as claims, each whole or not at all, within
    the pull's bounds, and remembers the keys taken (in a temporary file: a pull of
    millions of facts keeps no key in memory)."""

    def __init__(
        self, store: LmdbProofStore, report: PullReport, keys: IO[str], bounds: PullBounds
    ) -> None:
        self.store = store
        self.report = report
        self.keys = keys
        self.bounds = bounds
        self.canonical = canonical_key_function(get_game(store.identity.game).engine())
        self.provenance = Provenance(tool="sproutsdb pull", comment=f"from server {report.server}")
        self.started = time.monotonic()
        self.pages = 0
        self.tokens: set[bytes] = set()  # digests of the page tokens received

    def refused(self, why: str) -> PeerRefused:
        """The error that ends the pull, naming the peer and what stays."""
        report = self.report
        return PeerRefused(
            f"server {report.server} {why}; the pull stops, and the {report.inserted:,} new "
            "facts stored from it so far stay here as claims"
        )

    def answer(self, kind: FactKind, facts: int, token: str = "") -> None:
        """Count one answer of `facts` facts (and its page token) against the bounds."""
        bounds, report = self.bounds, self.report
        self.pages += 1
        if self.pages > bounds.max_pages:
            raise self.refused(f"hit the page bound: {bounds.max_pages:,} pages (--max-pages)")
        if sum(report.received.values()) + facts > bounds.max_facts:
            raise self.refused(f"hit the fact bound: {bounds.max_facts:,} facts (--max-facts)")
        if time.monotonic() - self.started > bounds.max_seconds:
            raise self.refused(f"hit the time bound: {bounds.max_seconds:g} s (--max-seconds)")
        if token:
            digest = hashlib.blake2b(f"{kind.value}\t{token}".encode(), digest_size=16).digest()
            if digest in self.tokens:
                raise self.refused(f"sent the {kind.value} page token {token!r:.40} again")
            self.tokens.add(digest)

    def ask(self, call: Callable[[], T]) -> T:
        """One answer of the peer; one that cannot be read (an unknown enum) is refused."""
        try:
            return call()
        except (WireError, KeyError) as error:
            raise self.refused(f"sent an answer that cannot be read ({error!s:.100})") from None

    def read(self, answers: Iterator[T]) -> Iterator[T]:
        """The peer's answers of one stream, each as `ask` takes it."""
        while (answer := self.ask(lambda: next(answers, None))) is not None:
            yield answer

    def put(self, kind: FactKind, facts: Sequence[tuple[str, Any]]) -> dict[str, Any]:
        """Store one answer as claims, whole or not at all; returns the facts taken
        (canonical keys, those not in conflict with a stored value)."""
        report = self.report
        report.received[kind.value] += len(facts)
        items = self._admit(kind, facts)
        if not items:
            return {}
        result = admit_claims(self.store, kind, items, self.provenance)
        report.inserted += result.inserted
        report.unchanged += result.unchanged
        report.conflicts += len(result.conflicts)
        clashed = {c.key for c in result.conflicts}
        for conflict in result.conflicts:
            report.note(_conflict_text(conflict))
        taken = {k: v for k, v in items.items() if k not in clashed}
        self.keys.writelines(f"{kind.value}\t{key}\n" for key in taken)
        return taken

    def _admit(self, kind: FactKind, facts: Sequence[tuple[str, Any]]) -> dict[str, Any]:
        """The answer's facts by key; PeerRefused naming the first bad one (a key not
        canonical here, a key sent twice, a value the store or Insert would refuse)."""
        items: dict[str, Any] = {}
        problems: list[str] = []
        for key, value in facts:
            why = "sent twice" if key in items else self._problem(kind, key, value)
            if why:
                problems.append(f"{key!r:.60}: {why}")
            else:
                items[key] = value
        if not problems:
            problems = schema.encode_facts(schema.table_name(kind), items)[1]
        if problems:
            more = f" (and {len(problems) - 1:,} more)" if len(problems) > 1 else ""
            raise self.refused(
                f"sent an answer of {len(facts):,} {kind.value} facts, refused whole (none "
                f"of them stored): {problems[0]}{more}"
            )
        return items

    def _problem(self, kind: FactKind, key: str, value: Any) -> str:
        """Why one fact cannot be taken ("" when it can): its key must be canonical here,
        and content ids (RCT keys and children, pos_rct values) well formed, as Insert asks."""
        try:
            canon = self.canonical(kind, key)
        except NotationError as error:
            return f"{error!s:.100}"
        except RecursionError:
            return "nested too deeply"
        if canon != key:
            return f"not in canonical form ({canon!r:.60})"
        return fact_problem(kind, key, value)


def _conflict_text(c: Conflict) -> str:
    return f"conflict {c.kind.value} {c.key!r:.60}: stored {c.stored!r:.40}, peer {c.offered!r:.40}"


def pull(
    client: Any,
    store: LmdbProofStore,
    *,
    server: str,
    root: str | None = None,
    jobs: int | None = None,
    quiet: bool = True,
    bounds: PullBounds | None = None,
) -> PullReport:
    """Pull from `client` (a sproutsdb.client.Client of the peer at `server`) every fact
    (`root` None) or the nimbers of `root`'s proof into `store`, check them here, and
    report. UsageError for a peer of another game or canonical form; PeerRefused when the
    peer sends what is refused or `bounds` are hit (what was stored stays, as claims)."""
    started = time.perf_counter()
    _same_keys(client.server_info(), store, server)
    report = PullReport(server, root)
    with tempfile.TemporaryFile("w+", prefix="sproutsdb-pull-") as keys:
        puller = _Puller(store, report, keys, bounds or PullBounds())
        if root is not None:
            report.root = get_game(store.identity.game).engine().canonical(root)
        try:
            if report.root is None:
                _pull_all(client, puller, quiet)
            else:
                _pull_root(client, puller, report.root)
        finally:
            store.flush()  # what was stored before a refusal stays, as claims
        if report.root is None:
            report.check_ok = check_all(store, jobs=jobs, quiet=quiet).ok
        else:
            report.check_ok = check_root(store, report.root).ok
        _decide_claims(store, keys)
        _count_statuses(store, keys, report)
    report.seconds = time.perf_counter() - started
    return report


def _same_keys(info: Mapping[str, Any], store: LmdbProofStore, server: str) -> None:
    """Refuse a peer whose keys mean other positions (another game or canonical form)."""
    identity = store.identity
    if info.get("game") != identity.game or info.get("canon_version") != identity.canon_version:
        raise UsageError(
            f"server {server} keeps {info.get('game')!r} facts with canon_version "
            f"{info.get('canon_version')}; the store {store.path} keeps {identity.game!r} "
            f"with canon_version {identity.canon_version}"
        )


def _pull_all(client: Any, puller: _Puller, quiet: bool) -> None:
    """Every fact of every kind, page by page (a page is one Export message; a call is
    resumed with the last page token, so no call outlives its deadline)."""
    with counter_bar("facts", enabled=not quiet) as bar:
        for kind in PULL_ORDER:
            for facts in _pages(client, puller, kind):
                puller.put(kind, facts)
                bar.update_to(sum(puller.report.received.values()))


def _pages(client: Any, puller: _Puller, kind: FactKind) -> Iterator[list[tuple[str, Any]]]:
    """The peer's facts of `kind`, one Export message at a time, each counted against the
    bounds (an empty one too); the client refuses a message whose columns differ in length."""
    token = ""
    while True:
        last = ""
        pages = client.export(kind, page_token=token, chunk_size=CHUNK_FACTS, limit=PAGE_FACTS)
        for page in puller.read(pages):
            puller.answer(kind, len(page.facts), page.next_page_token)
            yield page.facts
            last = page.next_page_token
        if not last:
            return
        token = last


class _PeerFacts:
    """A FactSource for the checker walking a root's proof: the store's nimbers, and for
    the lands it lacks the peer's, fetched with Lookup and stored here as claims (never
    over a stored fact: only the lands the store lacks are asked for)."""

    def __init__(self, client: Any, puller: _Puller) -> None:
        self.client = client
        self.puller = puller

    def get(self, kind: FactKind, keys: Sequence[str]) -> Mapping[str, Any]:
        if kind is not FactKind.NIMBER:
            return {}
        puller = self.puller
        keys = list(keys)
        found: dict[str, Any] = puller.store.get(kind, keys)
        missing = [key for key in keys if key not in found]
        if missing:
            answer = puller.ask(lambda: self.client.lookup(missing, (kind,)))
            fetched = answer.found(kind)
            puller.answer(kind, len(fetched))
            if len(answer.values.get(kind, ())) != len(missing):
                raise puller.refused(
                    f"answered a Lookup of {len(missing):,} keys with "
                    f"{len(answer.values.get(kind, ())):,} values"
                )
            found.update(puller.put(kind, list(fetched.items())))
        return found


def _pull_root(client: Any, puller: _Puller, key: str) -> None:
    """The nimbers the check of `key` reads: the checker walks the proof over the store
    and the peer (every fact it asks for is fetched); its verdict is not kept, the check
    that follows re-derives everything from the store alone."""
    from sproutsdb.solver.normal.check import check_with_cycles

    game = get_game(puller.store.identity.game).engine()
    check_with_cycles(game, _PeerFacts(client, puller), key)


def _pulled(keys: IO[str]) -> Iterator[tuple[FactKind, list[str]]]:
    """The pulled keys again, in batches of one kind."""
    keys.seek(0)
    kind: FactKind | None = None
    batch: list[str] = []
    for line in keys:
        name, _, key = line.rstrip("\n").partition("\t")
        if kind is not None and (name != kind.value or len(batch) >= STATUS_BATCH):
            yield kind, batch
            batch = []
        kind = FactKind(name)
        batch.append(key)
    if kind is not None and batch:
        yield kind, batch


def _decide_claims(store: LmdbProofStore, keys: IO[str]) -> None:
    """The pulled facts the check left claimed go to the verifier (ops/verifier.py),
    only they: verified when verified facts and the rules justify them, refuted when those
    contradict them, else left claimed."""
    from sproutsdb.ops.verifier import Verifier

    verifier = Verifier(store, provenance=Provenance(tool="sproutsdb pull"), scan=False)
    claims = 0
    for kind, batch in _pulled(keys):
        records = store.get_records(kind, batch)
        waiting = [k for k, r in records.items() if r.status is Status.CLAIMED]
        claims += len(waiting)
        if waiting:
            verifier.notify_kind(kind, waiting)
    # each busy step decides a claim or re-tries the waiting ones after a new verdict,
    # so it ends; the bound only makes that visible
    for _ in range(4 * (claims + 1) ** 2):
        if not verifier.step():
            break


def _count_statuses(store: LmdbProofStore, keys: IO[str], report: PullReport) -> None:
    """How many pulled facts are verified, claimed or refuted now."""
    for kind, batch in _pulled(keys):
        records = store.get_records(kind, batch, refuted=True)
        for key in batch:
            record = records.get(key)
            if record is None or record.status is Status.REFUTED:
                report.refuted += 1
            elif record.status is Status.VERIFIED:
                report.verified += 1
            else:
                report.claimed += 1
