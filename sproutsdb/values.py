"""The one reader of stored values: the facts of positions and their lands, with statuses.

`read_values` reads, in one batch per kind, the nimber records of lands, the misère records
and the position → RCT records of positions, refuted claims included (their value is the
refused claim, never a fact), and the provenance records they name. The status rules every
reader applies are here too: a refuted claim is never a value; a claim is a value only to
a reader that accepts claims (`usable`). `sproutsdb.ops.describe` (the `query` command),
the web reader (server/position_view.py, the JSON API and the page) and the gRPC Lookup
read values this way. It lives in the root package, below both `server/` and
`sproutsdb.ops`, so that every door can import it (tests/test_imports.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sproutsdb.facts import Provenance, Status
from sproutsdb.solver.ports.proofstore import FactKind

VERIFIED, CLAIMED, REFUTED = Status.VERIFIED.value, Status.CLAIMED.value, Status.REFUTED.value


class RecordSource(Protocol):
    """What the reader needs of a store (or of a server's client adapter)."""

    def get_records(
        self, kind: FactKind, keys: Iterable[str], *, refuted: bool = False
    ) -> Mapping[str, Any]: ...

    def provenance_records(self) -> Mapping[int, Provenance]: ...


@dataclass
class StoredValues:
    """Stored records by key (refuted claims included, status REFUTED) and the provenance
    records they name."""

    nimbers: dict[str, Any] = field(default_factory=dict)  # land -> NIMBER record
    misere: dict[str, Any] = field(default_factory=dict)  # position -> MISERE record
    pos_rct: dict[str, Any] = field(default_factory=dict)  # land or position -> POS_RCT
    provenance: dict[int, Provenance] = field(default_factory=dict)

    def who(self, pid: int | None) -> dict[str, Any] | None:
        """A provenance record as JSON (who, token, tool, version, when), None if unknown."""
        if not pid or pid not in self.provenance:
            return None
        return self.provenance[pid].as_dict(pid)


def read_values(
    source: RecordSource,
    *,
    nimbers: Sequence[str] = (),
    misere: Sequence[str] = (),
    pos_rct: Sequence[str] = (),
) -> StoredValues:
    """The records of those keys, refuted claims included; the provenance records are read
    when any record was found. An empty list of keys reads nothing."""
    found = StoredValues()
    if nimbers:
        found.nimbers = dict(source.get_records(FactKind.NIMBER, list(nimbers), refuted=True))
    if misere:
        found.misere = dict(source.get_records(FactKind.MISERE, list(misere), refuted=True))
    if pos_rct:
        found.pos_rct = dict(source.get_records(FactKind.POS_RCT, list(pos_rct), refuted=True))
    if found.nimbers or found.misere or found.pos_rct:
        found.provenance = dict(source.provenance_records())
    return found


def status_name(record: Any) -> str | None:
    """ "claimed", "verified" or "refuted" of a record (None: nothing stored)."""
    if record is None:
        return None
    return str(getattr(record.status, "value", record.status))


def usable(record: Any, verified_only: bool) -> bool:
    """Whether a record's value may be used: never a refuted claim, and a claim only when
    the reader accepts claims."""
    status = status_name(record)
    return status == VERIFIED or (status == CLAIMED and not verified_only)


def refutation_json(record: Any) -> Any:
    """The evidence of a refuted claim as JSON (None when it has none)."""
    if record is None:
        return None
    refutation = record.refutation
    if refutation is not None and not isinstance(refutation, dict):
        refutation = refutation.to_json()
    return refutation


__all__ = [
    "CLAIMED",
    "REFUTED",
    "VERIFIED",
    "RecordSource",
    "StoredValues",
    "read_values",
    "refutation_json",
    "status_name",
    "usable",
]
