"""What a stored fact carries besides its value: its Status and who stored it (Provenance).

Plain value types shared by the store (server/schema.py encodes them), the wire
(sproutsdb/wire.py) and the client, so that the client needs nothing from server/.
"""

from __future__ import annotations

import enum
import getpass
import json
import socket
from dataclasses import asdict, dataclass, field
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

    def describe(self) -> str:
        """One line for people: who (and with which token), with what, when (and the
        comment if any)."""
        who = f"{self.who} [token {self.token}]" if self.token else self.who
        text = f"{who}, {self.tool} {self.version}, {self.when}"
        return f"{text}: {self.comment}" if self.comment else text

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
        }

    def to_json(self) -> bytes:
        data = asdict(self)
        if not self.token:  # records written before tokens had names stay byte-identical
            del data["token"]
        return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> Provenance:
        data = json.loads(raw.decode())
        known = {
            k: str(data[k])
            for k in ("who", "tool", "version", "when", "comment", "token")
            if k in data
        }
        return cls(**known)
