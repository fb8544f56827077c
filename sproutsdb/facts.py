"""What a stored fact carries besides its value: its Status and who stored it (Provenance).

Plain value types shared by the store (store/schema.py encodes them), the wire
(sproutsdb/wire.py) and the client, so that the client needs nothing from server/.
"""

from __future__ import annotations

import enum
import getpass
import json
import socket
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from sproutsdb import __version__


class Status(str, enum.Enum):
    """How far a fact has been checked."""

    CLAIMED = "claimed"  # stored by a solver or an import, not yet re-derived
    VERIFIED = "verified"  # re-derived by a checker
    REFUTED = "refuted"  # disproved by the verifier from verified facts or the rules


def now_iso() -> str:
    """The current UTC time to the second, as provenance records and store meta write it."""
    return datetime.now(UTC).isoformat(timespec="seconds")


# What kind of check set a verified mark (the `check` of the mark's provenance record).
CHECK_ALL = "check --all"
CHECK_RECHECK = "check --all --recheck"
CHECK_ROOT = "check --root"
CHECK_MISERE_ROOT = "check --misere --root"
SERVER_VERIFIER = "server verifier"
SEED_REDERIVED = "seed: table re-derived"
UNKNOWN_CHECK = "an unknown, older check"  # marks set before marks said who verified


def _default_who() -> str:
    try:
        user = getpass.getuser()
    except (ImportError, KeyError, OSError):  # no pwd module, or no passwd entry (containers)
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


@dataclass(frozen=True)
class Provenance:
    """Who stored facts, when, with which tool and version; kept once per distinct record."""

    who: str = field(default_factory=_default_who)
    tool: str = "sproutsdb"
    version: str = __version__
    when: str = field(default_factory=now_iso)
    comment: str = ""
    token: str = ""  # name of the server token the writer used ("" without one)
    # Only in the provenance of a verified mark: the kind of check that set it (CHECK_ALL,
    # SERVER_VERIFIER, ...) and the canonical-form version of the engine that re-derived
    # it. Records of marks made before these existed have neither: "an unknown, older check".
    check: str = ""
    canon_version: int | None = None

    def describe(self) -> str:
        """One line for people: who (and with which token), with what, when (and the
        comment if any; for a mark, the check and the canonical-form version)."""
        who = f"{self.who} [token {self.token}]" if self.token else self.who
        text = f"{who}, {self.tool} {self.version}, {self.when}"
        if self.check:
            canon = "" if self.canon_version is None else f", canon v{self.canon_version}"
            text = f"{text} [{self.check}{canon}]"
        return f"{text}: {self.comment}" if self.comment else text

    def check_label(self) -> str:
        """The kind of check, as a mark's provenance says it ("an unknown, older check"
        for marks made before marks recorded it)."""
        return self.check or UNKNOWN_CHECK

    def for_check(self, check: str, canon_version: int | None = None) -> Provenance:
        """This provenance as the one of a verified mark set by `check`."""
        return replace(
            self,
            check=check,
            canon_version=self.canon_version if canon_version is None else canon_version,
        )

    def as_dict(self, pid: int) -> dict[str, Any]:
        """The record for JSON reports (query --json, the web API): its id and fields."""
        return {
            "id": pid,
            "who": self.who,
            "token": self.token or None,
            "tool": self.tool,
            "version": self.version,
            "when": self.when,
            "comment": self.comment,
            "check": self.check or None,
            "canon_version": self.canon_version,
        }

    def mark_dict(self, pid: int) -> dict[str, Any]:
        """The record of a verified mark for JSON reports: `as_dict` plus `check` spelled
        out (UNKNOWN_CHECK for marks made before marks said who verified)."""
        return {**self.as_dict(pid), "check": self.check_label(), "described": self.describe()}

    def to_json(self) -> bytes:
        data = asdict(self)
        # records written before these fields existed stay byte-identical (same ids)
        for name, absent in (("token", ""), ("check", ""), ("canon_version", None)):
            if data[name] == absent:
                del data[name]
        return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> Provenance:
        data = json.loads(raw.decode())
        known = {
            k: str(data[k])
            for k in ("who", "tool", "version", "when", "comment", "token", "check")
            if k in data
        }
        canon = data.get("canon_version")
        return cls(**known, canon_version=canon if isinstance(canon, int) else None)
