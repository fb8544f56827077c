"""`RemoteProofStore`: the solver's ProofStore port over the gRPC service.

A solver given a RemoteProofStore instead of the embedded LMDB store reads and writes the
shared database on a server, with nothing else changed: `get` and `put` are batches (split
to the server's limit), `put` returns once the facts are committed on the server (so
`flush` has nothing left to do), and conflicts come back as the port's `Conflict`s keyed as
the caller gave them. Facts are write-once, so every value seen (found, inserted, or kept
by the server in a conflict) is cached locally and never asked again; absent keys are not
cached, since another solver may prove them at any time.

Trust: nimbers, misère outcomes and position → RCT maps are read VERIFIED only by default
(`trusted_kinds`): a fact the server holds only as a claim is absent to the solver, which
proves it again if it needs it (a hint it may re-prove, never a proof that stops it; a
false misère claim on the root no longer stops `solve --misere --server`). A conflict
with a stored *claim* is not reported to the solver: its own proven value is kept
(cached), and the server keeps the offer as the contender that replaces the claim if the
verifier refutes it. A conflict with a VERIFIED fact is a real conflict, reported as
before. RCT records are read as stored: each is re-derived from its children whenever it
is loaded into an algebra.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Self

from sproutsdb.client.client import Client
from sproutsdb.facts import Provenance
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, PutResult

DEFAULT_CACHE = 1_000_000
TRUSTED_KINDS = (FactKind.NIMBER, FactKind.MISERE, FactKind.POS_RCT)  # read verified only


class RemoteProofStore:
    """ProofStore over a sproutsdb server, with a bounded local cache of known facts."""

    def __init__(
        self,
        client: Client | str,
        token: str | None = None,
        *,
        cache_size: int = DEFAULT_CACHE,
        provenance: Provenance | None = None,
        owns_client: bool | None = None,
        trusted_kinds: Iterable[FactKind] = TRUSTED_KINDS,
    ) -> None:
        """`client`: a Client (closed by close() only if owns_client) or an address."""
        self._owns_client = not isinstance(client, Client) if owns_client is None else owns_client
        self.client = (
            Client(client, token, provenance=provenance) if isinstance(client, str) else client
        )
        self._cache_size = max(0, cache_size)
        self._cache: dict[FactKind, dict[str, FactValue]] = {k: {} for k in FactKind}
        self.remote_gets = 0  # Lookup batches sent
        self.remote_puts = 0  # Insert batches sent
        self.cache_hits = 0
        self.contested = 0  # conflicts with stored claims, not reported to the solver
        self.trusted_kinds = frozenset(FactKind(k) for k in trusted_kinds)  # read verified only

    @property
    def address(self) -> str:
        return self.client.address

    def _remember(self, kind: FactKind, values: Mapping[str, FactValue]) -> None:
        if not self._cache_size:
            return
        cache = self._cache[kind]
        overflow = len(cache) + len(values) - self._cache_size
        if overflow > 0:  # drop the oldest entries (insertion order)
            for key in list(cache)[:overflow]:
                del cache[key]
        cache.update(values)

    def get(self, kind: FactKind | str, keys: Iterable[str]) -> dict[str, FactValue]:
        """The stored values of those keys that are known (missing keys are absent)."""
        kind = FactKind(kind)
        cache = self._cache[kind]
        found: dict[str, FactValue] = {}
        wanted: list[str] = []
        for key in keys:
            value = cache.get(key)
            if value is None:
                wanted.append(key)
            else:
                found[key] = value
        self.cache_hits += len(found)
        if wanted:
            self.remote_gets += 1
            fetched = self.client.get(
                kind, list(dict.fromkeys(wanted)), verified_only=kind in self.trusted_kinds
            )
            self._remember(kind, fetched)
            found.update(fetched)
        return found

    def put(self, kind: FactKind | str, items: Mapping[str, FactValue]) -> PutResult:
        """Store facts on the server; returns after they are committed there."""
        kind = FactKind(kind)
        if not items:
            return PutResult()
        self.remote_puts += 1
        result = self.client.insert(kind, items)
        claims = [c for c in result.conflicts if c.stored_claimed]
        if claims:  # a claim is no proof against ours: the server keeps ours as contender
            self.contested += len(claims)
            result.conflicts = [c for c in result.conflicts if not c.stored_claimed]
        kept = {c.key: c.stored for c in result.conflicts}
        known: dict[str, Any] = {}
        for key, canonical in zip(result.keys, result.canonical):
            known[key] = kept.get(canonical, items[key])
        self._remember(kind, known)
        return result.as_put_result()

    def flush(self) -> None:
        """Nothing to do: every put returned only after the server committed it."""

    def close(self) -> None:
        if self._owns_client:
            self.client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<RemoteProofStore {self.address}>"
