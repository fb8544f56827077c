"""Re-keying: move facts keyed by an older canonical form to the current one.

A newer canonical form can give one key to positions an older one kept apart, and other
keys to the rest. Re-keying re-canonicalises every position key (nimber and pos_rct keys,
the position part of misère node keys; RCT content ids are game values and stay), merges
facts that land on one key when their values agree, and reports those that disagree
without storing either value: the store never holds a fact the old store did not prove.
A fact keeps its provenance and verified mark only when its key and value are unchanged
(old keys with the same value may merge into it); any other fact is stored as claimed, under a "re-keyed" provenance, for
`sproutsdb check` to verify again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sproutsdb.errors import UserError
from sproutsdb.facts import Provenance, Status
from sproutsdb.games import get_game
from sproutsdb.solver.misere.keys import EMPTY_POSITION, join_node_key, split_node_key
from sproutsdb.solver.ports.game import Game
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore, schema
from sproutsdb.store.opening import peek_identity
from sproutsdb.store.schema import FactRecord

CANON_VERSION = get_game().canon_version

KINDS = (FactKind.NIMBER, FactKind.MISERE, FactKind.RCT, FactKind.POS_RCT)
BATCH = 5_000
SHOWN_CONFLICTS = 20


class RekeyError(UserError):
    """A re-key that cannot start (no such store, a target in the way, a newer version)."""


def rekey_function(game: Game) -> Callable[[FactKind, str], str]:
    """The current key of a fact key written by an older canonical form."""

    def position(key: str) -> str:
        return key if key == EMPTY_POSITION else game.canonical(key)

    def new_key(kind: FactKind, key: str) -> str:
        if kind is FactKind.RCT:
            return key
        if kind is FactKind.MISERE:
            part, parity, cids = split_node_key(key)
            return join_node_key(position(part), parity, cids)
        return position(key)

    return new_key


@dataclass(frozen=True)
class KeyClash:
    """Old keys that became one key with different values: neither value is stored."""

    kind: FactKind
    key: str
    values: tuple[tuple[str, Any], ...]  # (old key, value) for each distinct value met

    def describe(self) -> str:
        shown = ", ".join(f"{old!r} says {value!r}" for old, value in self.values)
        return f"{self.kind.value} {self.key!r}: {shown}"


@dataclass
class Merged:
    """The facts of one table under their new keys."""

    kept: dict[str, FactRecord] = field(default_factory=dict)  # key unchanged
    moved: dict[str, Any] = field(default_factory=dict)  # only under new keys: claimed
    conflicts: list[KeyClash] = field(default_factory=list)
    read: int = 0
    merged: int = 0  # old facts that joined another under one key with the same value


def merge(
    kind: FactKind,
    records: Iterable[tuple[str, FactRecord]],
    new_key: Callable[[FactKind, str], str],
) -> Merged:
    """Group one table's facts by new key: keep, move, merge or report each."""
    groups: dict[str, list[tuple[str, FactRecord]]] = {}
    out = Merged()
    for old, record in records:
        out.read += 1
        groups.setdefault(new_key(kind, old), []).append((old, record))
    for key, group in groups.items():
        values: dict[Any, str] = {}
        for old, record in group:
            values.setdefault(_hashable(record.value), old)
        if len(values) > 1:
            out.conflicts.append(
                KeyClash(
                    kind,
                    key,
                    tuple(
                        (old, record.value)
                        for old, record in group
                        if values.get(_hashable(record.value)) == old
                    ),
                )
            )
            continue
        out.merged += len(group) - 1
        same = [record for old, record in group if old == key]
        if same:  # the fact itself is unchanged; others only joined it
            out.kept[key] = same[0]
        else:
            out.moved[key] = group[0][1].value
    return out


def _hashable(value: Any) -> Any:
    return repr(value) if not isinstance(value, (int, str, tuple)) else value


@dataclass
class RekeyReport:
    """What a re-key read, wrote, merged and refused, per table."""

    source: str
    target: str
    from_version: int
    to_version: int
    tables: dict[str, dict[str, int]] = field(default_factory=dict)
    conflicts: list[KeyClash] = field(default_factory=list)
    children_dropped: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "store": self.source,
            "out": self.target,
            "from_canon_version": self.from_version,
            "to_canon_version": self.to_version,
            "tables": self.tables,
            "conflicts": len(self.conflicts),
            "conflict_examples": [c.describe() for c in self.conflicts[:SHOWN_CONFLICTS]],
            "children_dropped": self.children_dropped,
        }


def rekey_store(
    source: str, target: str, *, progress: Callable[[int], None] | None = None
) -> RekeyReport:
    """Copy the store at `source` into a new store at `target` keyed by CANON_VERSION."""
    identity = peek_identity(source)
    if identity.canon_version > CANON_VERSION:
        raise RekeyError(
            f"store {source} is keyed by canonical form version {identity.canon_version}, "
            f"newer than this sproutsdb's {CANON_VERSION}; use a newer sproutsdb"
        )
    out = Path(target)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise RekeyError(f"{target} exists and is not an empty directory; re-key into a new one")
    old = LmdbProofStore.open(
        source, game=identity.game, canon_version=identity.canon_version, readonly=True
    )
    report = RekeyReport(str(old.path), target, identity.canon_version, CANON_VERSION)
    new_key = rekey_function(get_game().engine())
    rekeyed = Provenance(
        tool="sproutsdb rekey",
        comment=f"re-keyed from canon_version {identity.canon_version} "
        f"(store {old.path}); claimed until checked again",
    )
    done = 0
    with old:
        origins = old.provenance_records()
        report.children_dropped = old.count(schema.CHILDREN)
        with LmdbProofStore.open(
            target, game=identity.game, canon_version=CANON_VERSION, provenance=rekeyed
        ) as new:
            for kind in KINDS:

                def counted(kind: FactKind = kind) -> Iterator[tuple[str, FactRecord]]:
                    nonlocal done
                    for item in old.iter_records(kind):
                        done += 1
                        if progress is not None and done % 10_000 == 0:
                            progress(done)
                        yield item

                merged = merge(kind, counted(), new_key)
                _write(new, kind, merged, origins, rekeyed)
                report.conflicts.extend(merged.conflicts)
                report.tables[kind.value] = {
                    "read": merged.read,
                    "kept": len(merged.kept),
                    "rekeyed": len(merged.moved),
                    "merged": merged.merged,
                    "conflicts": len(merged.conflicts),
                }
            new.flush()
    if progress is not None:
        progress(done)
    return report


def _write(
    new: LmdbProofStore,
    kind: FactKind,
    merged: Merged,
    origins: dict[int, Provenance],
    rekeyed: Provenance,
) -> None:
    """Store moved facts as claimed; kept ones under their own provenance and verifier."""
    for batch in _batches(list(merged.moved.items())):
        new.put(kind, dict(batch), provenance=rekeyed)
    by_origin: dict[tuple[int, int | None], list[tuple[str, Any]]] = {}
    for key, record in merged.kept.items():
        verifier = record.verified_by if record.status is Status.VERIFIED else None
        by_origin.setdefault((record.provenance, verifier), []).append((key, record.value))
    for (pid, verifier), items in sorted(
        by_origin.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)
    ):
        provenance = origins.get(pid, rekeyed)
        for batch in _batches(items):
            new.put(kind, dict(batch), provenance=provenance)
            if verifier is not None:
                new.mark_verified(
                    kind,
                    [key for key, _ in batch],
                    provenance=origins.get(verifier, rekeyed),
                    as_recorded=verifier in origins,  # the mark as the old store had it
                )


def _batches(items: list[tuple[str, Any]]) -> Iterator[list[tuple[str, Any]]]:
    for start in range(0, len(items), BATCH):
        yield items[start : start + BATCH]


def rekey_items(
    kind: FactKind, facts: list[tuple[str, Any]], new_key: Callable[[FactKind, str], str]
) -> tuple[dict[str, Any], list[KeyClash]]:
    """The facts of one import chunk under current keys, and the conflicts among them."""
    records = ((key, FactRecord(value, Status.CLAIMED, 0)) for key, value in facts)
    merged = merge(kind, records, new_key)
    items = dict(merged.moved)
    items.update((key, record.value) for key, record in merged.kept.items())
    return items, merged.conflicts
