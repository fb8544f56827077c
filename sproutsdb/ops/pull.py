"""The pull verb: a peer server's facts into a local store, as claims, then checked here.

A peer is believed in nothing. Its facts (every fact of every kind with `--all`, through
the Export RPC page by page; or, with a root, the nimbers the proof of that root reads,
through Lookup) are stored as claims whose provenance names the peer; a key that is not
in canonical form or a value that cannot be stored is rejected, and a fact stored here
with another value is a conflict (the stored value is kept). Then they are checked from
the rules as `check --all` or `check --root` do (`sproutsdb.ops.check`), and what those
could not verify goes to the verifier the server runs (ops/verifier.py), which refutes
a claim that verified facts and the rules contradict. The report counts, of the facts
pulled, how many are now verified, still claimed, or refuted.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from sproutsdb.errors import UsageError
from sproutsdb.facts import Provenance, Status
from sproutsdb.formats.exchange import KINDS
from sproutsdb.games import get_game
from sproutsdb.ops.check import check_all, check_root
from sproutsdb.ops.exchange import canonical_key_function
from sproutsdb.progress import counter_bar
from sproutsdb.solver.ports.game import NotationError
from sproutsdb.solver.ports.proofstore import Conflict, FactKind
from sproutsdb.store import LmdbProofStore, schema

PAGE_FACTS = 50_000  # facts per Export call (each call is one stream with one deadline)
CHUNK_FACTS = 5_000  # facts per Export message
STATUS_BATCH = 10_000  # pulled keys whose status is read at once
SHOWN = 10  # conflicts and rejected facts named in a report
# kinds in the order they are pulled: RCT records before what names them
PULL_ORDER = (FactKind.RCT, FactKind.POS_RCT, FactKind.NIMBER, FactKind.MISERE)
assert set(PULL_ORDER) == set(KINDS)


@dataclass
class PullReport:
    """What a pull brought and what became of it (`as_dict`: the JSON form)."""

    server: str
    root: str | None
    received: Counter[str] = field(default_factory=Counter)  # per kind
    inserted: int = 0
    unchanged: int = 0  # already stored here with the same value
    conflicts: int = 0  # stored here with another value: kept
    rejected: int = 0  # no canonical key, or no storable value
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
            "rejected": self.rejected,
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


class _Puller:
    """Puts a peer's facts into the store as claims and remembers their keys (in a
    temporary file: a pull of millions of facts keeps no key in memory)."""

    def __init__(self, store: LmdbProofStore, report: PullReport, keys: IO[str]) -> None:
        self.store = store
        self.report = report
        self.keys = keys
        self.canonical = canonical_key_function(get_game(store.identity.game).engine())
        self.provenance = Provenance(tool="sproutsdb pull", comment=f"from server {report.server}")

    def put(self, kind: FactKind, facts: Iterable[tuple[str, Any]]) -> dict[str, Any]:
        """Store one batch as claims; returns the facts taken (canonical keys)."""
        report = self.report
        items: dict[str, Any] = {}
        for key, value in facts:
            report.received[kind.value] += 1
            try:
                canon = self.canonical(kind, key)
            except NotationError as error:
                canon, why = "", f"{error!s:.100}"
            else:
                why = "" if canon == key else f"not in canonical form ({canon!r:.60})"
            if why or key in items:
                report.rejected += 1
                report.note(f"rejected {kind.value} {key!r:.60}: {why or 'sent twice'}")
                continue
            items[key] = value
        table = schema.table_name(kind)
        encoded, errors = schema.encode_facts(table, items)
        if errors:
            good = {fact.key for fact in encoded}
            report.rejected += len(items) - len(good)
            for problem in errors:
                report.note(f"rejected {kind.value} {problem}")
            items = {k: v for k, v in items.items() if k in good}
        if not items:
            return {}
        result = self.store.put(kind, items, provenance=self.provenance)
        report.inserted += result.inserted
        report.unchanged += result.unchanged
        report.conflicts += len(result.conflicts)
        clashed = {c.key for c in result.conflicts}
        for conflict in result.conflicts:
            report.note(_conflict_text(conflict))
        taken = {k: v for k, v in items.items() if k not in clashed}
        self.keys.writelines(f"{kind.value}\t{key}\n" for key in taken)
        return taken


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
) -> PullReport:
    """Pull from `client` (a sproutsdb.client.Client of the peer at `server`) every fact
    (`root` None) or the nimbers of `root`'s proof into `store`, check them here, and
    report. UsageError for a peer of another game or canonical form."""
    started = time.perf_counter()
    _same_keys(client.server_info(), store, server)
    report = PullReport(server, root)
    with tempfile.TemporaryFile("w+", prefix="sproutsdb-pull-") as keys:
        puller = _Puller(store, report, keys)
        if root is None:
            _pull_all(client, puller, quiet)
            store.flush()
            report.check_ok = check_all(store, jobs=jobs, quiet=quiet).ok
        else:
            key = get_game(store.identity.game).engine().canonical(root)
            report.root = key
            _pull_root(client, puller, key)
            store.flush()
            report.check_ok = check_root(store, key).ok
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
    """Every fact of every kind, page by page (a page is one Export call, resumed with
    its page token, so no call outlives its deadline)."""
    with counter_bar("facts", enabled=not quiet) as bar:
        for kind in PULL_ORDER:
            for facts in _pages(client, kind):
                puller.put(kind, facts)
                bar.update_to(sum(puller.report.received.values()))


def _pages(client: Any, kind: FactKind) -> Iterator[list[tuple[str, Any]]]:
    """The peer's facts of `kind`, one Export message at a time."""
    token = ""
    while True:
        last = ""
        for page in client.export(kind, page_token=token, chunk_size=CHUNK_FACTS, limit=PAGE_FACTS):
            yield page.facts
            last = page.next_page_token
        if not last or last == token:
            return
        token = last


class _PeerFacts:
    """A FactSource for the checker walking a root's proof: the store's nimbers, and for
    the lands it lacks the peer's, fetched with Lookup and stored here as claims."""

    def __init__(self, client: Any, puller: _Puller) -> None:
        self.client = client
        self.puller = puller

    def get(self, kind: FactKind, keys: Sequence[str]) -> Mapping[str, Any]:
        if kind is not FactKind.NIMBER:
            return {}
        keys = list(keys)
        found: dict[str, Any] = self.puller.store.get(kind, keys)
        missing = [key for key in keys if key not in found]
        if missing:
            fetched = self.client.lookup(missing, (kind,)).found(kind)
            found.update(self.puller.put(kind, fetched.items()))
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
