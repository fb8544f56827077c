"""The store's read paths: batch lookups, resumable scans in store order, meta counters.

Reads run in the caller's thread on short read transactions of their own, so they never
wait for the writer and never pin old pages while a consumer works. They return raw
records; decoding them is store/schema.py's job.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

import lmdb

from sproutsdb.facts import Provenance
from sproutsdb.store import schema
from sproutsdb.store.schema import LONG_KEY_PREFIX, MAX_DIRECT_KEY_BYTES, InvalidFactError

ITER_CHUNK = 1024  # facts read per read transaction while iterating


class FactCounts(NamedTuple):
    """The counters of a store read in one transaction: facts and verified facts per table,
    and the number of provenance records."""

    counts: dict[str, int]
    verified: dict[str, int]
    provenance_records: int
    refuted: dict[str, int]


def fetch(env: lmdb.Environment, db: Any, keys: Iterable[str]) -> list[tuple[str, bytes]]:
    """(key, raw record) of those keys that are stored, read on one transaction.

    A string that can never be a fact key is simply absent; a non-string key is an
    InvalidFactError.
    """
    found: list[tuple[str, bytes]] = []
    with env.begin(db=db) as txn:
        get = txn.get
        for key in keys:
            try:
                skey = key.encode()
            except (AttributeError, UnicodeEncodeError):
                if not isinstance(key, str):
                    raise InvalidFactError(f"fact keys are strings, got {key!r:.80}") from None
                continue
            if len(skey) > MAX_DIRECT_KEY_BYTES or not skey:
                long_skey = schema.lookup_key(key)
                if long_skey is None:
                    continue
                raw = get(long_skey)
                if raw is not None:
                    schema.check_long_key(raw, skey, key)
            else:
                raw = get(skey)
            if raw is not None:
                found.append((key, raw))
    return found


def scan(
    current_env: Callable[[], lmdb.Environment], db: Any, start_after: str | None
) -> Iterator[tuple[str, bytes]]:
    """(key, raw record) in store order, strictly after `start_after` if given.

    Reads ITER_CHUNK records per fresh read transaction; `current_env` is asked again for
    each chunk, so a store closed during the iteration stops it with its error.
    """
    last = None if start_after is None else schema.storage_key(start_after)[0]
    while True:
        env = current_env()
        chunk: list[tuple[bytes, bytes]] = []
        with env.begin(db=db) as txn:
            cursor = txn.cursor()
            if last is None:
                more = cursor.first()
            else:
                more = cursor.set_range(last)
                if more and cursor.key() == last:
                    more = cursor.next()
            while more and len(chunk) < ITER_CHUNK:
                chunk.append(cursor.item())
                more = cursor.next()
        for skey, raw in chunk:
            key = skey.decode() if skey[:1] != LONG_KEY_PREFIX else schema.record_key(skey, raw)
            yield key, raw
        if not more or not chunk:
            return
        last = chunk[-1][0]


def meta_int(env: lmdb.Environment, meta_db: Any, key: bytes) -> int:
    """One integer of `meta` (a count), 0 where it is not set."""
    with env.begin(db=meta_db) as txn:
        return schema.decode_meta_int(txn.get(key))


def provenance_records(env: lmdb.Environment, db: Any) -> dict[int, Provenance]:
    """Every provenance record of the store by id."""
    with env.begin(db=db) as txn:
        return {int(k): Provenance.from_json(v) for k, v in txn.cursor()}


def fact_counts(env: lmdb.Environment, dbs: Mapping[str, Any]) -> FactCounts:
    """Fact and verified counts of every fact table and the provenance records, consistent."""
    with env.begin(db=dbs[schema.META]) as txn:
        counts = {
            t: schema.decode_meta_int(txn.get(schema.meta_count_key(t))) for t in schema.FACT_TABLES
        }
        verified = {
            t: schema.decode_meta_int(txn.get(schema.meta_verified_key(t)))
            for t in schema.FACT_TABLES
        }
        refuted = {
            t: schema.decode_meta_int(txn.get(schema.meta_refuted_key(t)))
            for t in schema.FACT_TABLES
        }
        provenance = txn.stat(dbs[schema.PROVENANCE])["entries"]
    return FactCounts(counts, verified, provenance, refuted)


def refutations(
    env: lmdb.Environment, db: Any, table: str, keys: Iterable[str]
) -> dict[str, list[schema.Refutation]]:
    """The refutation entries of those keys that have any (none when `db` is None: a store
    made before refutations existed, opened read-only)."""
    if db is None:
        return {}
    out: dict[str, list[schema.Refutation]] = {}
    with env.begin(db=db) as txn:
        if not txn.stat(db)["entries"]:
            return out
        for key in keys:
            entries = schema.decode_refutations(table, key, txn.get(schema.refuted_key(table, key)))
            if entries:
                out[key] = entries
    return out
