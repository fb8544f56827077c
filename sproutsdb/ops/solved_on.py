"""Which RCT table a store's misère facts were solved on, as its provenance says: the text a
solve writes (`misère solve on the RCT table s7.rcttable (sha256 …)`), the same parts an
import repeats after its own text, and the readers of both. Only a hint for a resumed solve
and a check: the table itself is trusted by its mark or re-derived, never by this text."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sproutsdb.store import LmdbProofStore

SOLVED_ON_TABLE = "misère solve on the RCT table"
_NAMED_FILE = re.compile(r"[^\s/]{1,255} \(sha256 [0-9a-f]{64}\)")


def named_table_file(file_name: str, digest: str) -> str:
    """How provenance names a table file: `s7.rcttable (sha256 …)`."""
    return f"{file_name} (sha256 {digest})"


def solved_on_comment(named_file: str) -> str:
    """The provenance comment of misère facts keyed by the table `named_file` names (a
    solve's on it, or a proof pruned by a check with it)."""
    return f"{SOLVED_ON_TABLE} {named_file}"


def tables_solved_on(store: LmdbProofStore) -> list[str]:
    """The RCT table files (name and SHA-256) that misère solves on this store named in
    the provenance of what they stored, or of what it imported from a store whose solves
    named them: a check of those losing nodes needs them."""
    return tables_named_in(record.comment for record in store.provenance_records().values())


def tables_named_in(comments: Iterable[str]) -> list[str]:
    """The table files (`s7.rcttable (sha256 …)`) that provenance comments name, each in
    a `; `-separated part of the form a solve writes (an import repeats its file's parts
    after its own text). A copied store's provenance is anyone's text, so only that exact
    form is repeated."""
    prefix = SOLVED_ON_TABLE + " "
    parts = (part for text in comments for part in text.split("; ") if part.startswith(prefix))
    named_files = (part.removeprefix(prefix) for part in parts)
    return sorted(
        {text for text in named_files if _NAMED_FILE.fullmatch(text) and text.isprintable()}
    )


def solved_on_parts(solved_on: Iterable[str]) -> str:
    """The `; `-separated parts an import adds to its provenance comment for the tables
    its file's solves ran on (`tables_named_in` reads them back), or ''."""
    return "".join(f"; {solved_on_comment(entry)}" for entry in solved_on)


def table_file_name(solved_on: str) -> str:
    """The file name in one `tables_solved_on` entry (`s7.rcttable (sha256 …)`)."""
    return solved_on.split(" (sha256 ")[0]


def table_file_digest(solved_on: str) -> str:
    """The SHA-256 in one `tables_solved_on` entry (`s7.rcttable (sha256 …)`)."""
    return solved_on.removesuffix(")").rsplit(" (sha256 ", 1)[-1]
