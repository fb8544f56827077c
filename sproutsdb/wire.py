"""The wire in Python terms: the generated stubs and conversions shared by server and client.

`pb` and `pb_grpc` are the modules generated from proto/sproutsdb/v1/sproutsdb.proto at
build time (sproutsdb/codegen.py). The helpers here translate between their messages and the
store's values (`FactKind`, `RctRecord`, `Provenance`), so server and client agree on
every column and enum by construction.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from typing import Any

from sproutsdb.errors import UserError, WireError
from sproutsdb.facts import Provenance, Status
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, RctRecord


def _regenerate_stubs() -> None:
    """A source checkout whose proto changed since the last install: regenerate once."""
    try:
        from sproutsdb import codegen

        codegen.generate(quiet=True)
    except Exception as error:  # noqa: BLE001 - reported as one actionable message
        raise UserError(
            "the gRPC stubs of sproutsdb are missing and cannot be generated "
            f"({error}); reinstall sproutsdb (`make venv` or `pip install -e .`)"
        ) from None


try:
    from sproutsdb._proto import sproutsdb_pb2, sproutsdb_pb2_grpc
except ImportError:
    _regenerate_stubs()
    from sproutsdb._proto import sproutsdb_pb2, sproutsdb_pb2_grpc

pb = sproutsdb_pb2  # the messages and enums, typed by the generated .pyi
pb_grpc = sproutsdb_pb2_grpc  # the service stub and servicer base (generated, untyped)

# The messages that carry one value column per kind (see COLUMN).
ColumnMessage = pb.FactColumn | pb.InsertRequest | pb.ExportChunk

API = "sproutsdb.v1"
SERVICE_NAME: str = pb.DESCRIPTOR.services_by_name["SproutsDb"].full_name
WRITE_METHODS = frozenset({f"/{SERVICE_NAME}/Insert", f"/{SERVICE_NAME}/InsertStream"})

KIND_TO_PB: dict[FactKind, pb.FactKind] = {
    FactKind.NIMBER: pb.FACT_KIND_NIMBER,
    FactKind.MISERE: pb.FACT_KIND_MISERE,
    FactKind.RCT: pb.FACT_KIND_RCT,
    FactKind.POS_RCT: pb.FACT_KIND_POS_RCT,
}
KIND_FROM_PB: dict[int, FactKind] = {v: k for k, v in KIND_TO_PB.items()}

# The parallel column that holds a kind's values in LookupResponse / InsertRequest / Export.
COLUMN: dict[FactKind, str] = {
    FactKind.NIMBER: "nimbers",
    FactKind.MISERE: "texts",
    FactKind.RCT: "rcts",
    FactKind.POS_RCT: "texts",
}
VALUE_COLUMNS = ("nimbers", "texts", "rcts")

STATUS_TO_PB: dict[Status, pb.FactStatus] = {
    Status.CLAIMED: pb.FACT_STATUS_CLAIMED,
    Status.VERIFIED: pb.FACT_STATUS_VERIFIED,
    Status.REFUTED: pb.FACT_STATUS_REFUTED,
}
STATUS_FROM_PB: dict[int, Status] = {v: k for k, v in STATUS_TO_PB.items()}

INSERTED, UNCHANGED, CONFLICT = (
    pb.INSERT_STATUS_INSERTED,
    pb.INSERT_STATUS_UNCHANGED,
    pb.INSERT_STATUS_CONFLICT,
)
INSERT_STATUS_NAMES = {INSERTED: "inserted", UNCHANGED: "unchanged", CONFLICT: "conflict"}


def kind_from_pb(value: int, what: str = "kind") -> FactKind:
    try:
        return KIND_FROM_PB[value]
    except KeyError:
        names = ", ".join(pb.FactKind.Name(v) for v in KIND_FROM_PB)
        raise WireError(f"{what} must be one of {names}, got {value}") from None


def kind_name(kind: FactKind) -> str:
    return str(pb.FactKind.Name(KIND_TO_PB[kind]))


# --- values ---------------------------------------------------------------------------------


def rct_to_pb(record: RctRecord) -> pb.RctRecord:
    msg = pb.RctRecord(
        height=record.height,
        outcome=record.outcome,
        children=record.children,
        plus1_of=record.plus1_of or "",
    )
    if record.nim is not None:
        msg.nim = record.nim
    return msg


def rct_from_pb(msg: pb.RctRecord) -> RctRecord:
    return RctRecord(
        height=msg.height,
        outcome=msg.outcome,
        children=tuple(msg.children),
        nim=msg.nim if msg.HasField("nim") else None,
        plus1_of=msg.plus1_of or None,
    )


def column_values(msg: ColumnMessage, kind: FactKind) -> list[FactValue]:
    """The values of a message's column for `kind`, as Python values."""
    column = getattr(msg, COLUMN[kind])
    if kind is FactKind.RCT:
        return [rct_from_pb(r) for r in column]
    return list(column)


def fill_column(msg: ColumnMessage, kind: FactKind, values: Iterable[Any]) -> None:
    """Append Python values to a message's column for `kind`."""
    column = getattr(msg, COLUMN[kind])
    if kind is FactKind.RCT:
        column.extend(rct_to_pb(v) for v in values)
    else:
        column.extend(values)


def value_to_pb(kind: FactKind, value: Any) -> pb.Value:
    if kind is FactKind.NIMBER:
        return pb.Value(nimber=value)
    if kind is FactKind.MISERE:
        return pb.Value(outcome=value)
    if kind is FactKind.RCT:
        return pb.Value(rct=rct_to_pb(value))
    return pb.Value(rct_id=value)


def value_from_pb(msg: pb.Value) -> FactValue | None:
    which = msg.WhichOneof("value")
    if which is None:
        return None
    if which == "rct":
        return rct_from_pb(msg.rct)
    return getattr(msg, which)  # type: ignore[no-any-return]


def provenance_to_pb(p: Provenance) -> pb.Provenance:
    return pb.Provenance(
        who=p.who,
        tool=p.tool,
        version=p.version,
        when=p.when,
        comment=p.comment,
        token=p.token,
        check=p.check,
        canon_version=p.canon_version,
    )


def provenance_from_pb(msg: pb.Provenance) -> Provenance:
    return Provenance(
        who=msg.who,
        tool=msg.tool,
        version=msg.version,
        when=msg.when,
        comment=msg.comment,
        token=msg.token,
        check=msg.check,
        canon_version=msg.canon_version if msg.HasField("canon_version") else None,
    )


# --- export page tokens ---------------------------------------------------------------------


def encode_page_token(kind: FactKind, last_key: str) -> str:
    """An opaque token that resumes an export of `kind` right after `last_key`."""
    raw = json.dumps({"v": 1, "kind": kind.value, "after": last_key}, ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_page_token(token: str, kind: FactKind) -> str | None:
    """The key an export resumes after (None: from the start); WireError if not ours."""
    if not token:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw.decode())
        after, token_kind = data["after"], data["kind"]
        if data.get("v") != 1 or not isinstance(after, str) or not isinstance(token_kind, str):
            raise ValueError
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise WireError(f"page_token {token[:40]!r} is not a token this server issued") from None
    if token_kind != kind.value:
        raise WireError(
            f"page_token was issued for an export of {token_kind!r}, not of {kind.value!r}"
        )
    return after


def nonempty_columns(msg: ColumnMessage) -> Sequence[str]:
    """Names of the value columns of a message that hold something."""
    return [name for name in VALUE_COLUMNS if len(getattr(msg, name))]
