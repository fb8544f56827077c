"""The one gate through which a certificate of the results library becomes verified facts:
`results --check`, `serve`'s seeding and `solve --seed-results` all go through `admit`.

`admit` reads the certificate's bytes once, hashing them as it copies them to a private
folder, and compares the digest with the manifest's before anything else; every later step
(the check, the marks, the store) reads that private copy, never the path again, so a file
swapped after its check is not what gets stored. A certificate is admitted whole or not at
all: each of its facts must be one its own play's check re-derived, as that kind with that
value (a nimber fact by the normal check, a losing misère node by the misère check): on the
root's path, or checked as its own root in the same store when that path did not reach it.
Facts of another play or game, or facts no check re-derives, refuse the whole file, named.
A certificate's game is its manifest entry's (`game`, Sprouts when absent): its file must hold
that game's facts, it is checked in a fresh store of that game, and it is stored only into a
store of that game.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sproutsdb.errors import UserError
from sproutsdb.facts import CHECK_MISERE_ROOT, CHECK_ROOT, Provenance
from sproutsdb.formats.exchange import read_stream
from sproutsdb.games import get_game
from sproutsdb.ops.check import RootCheck
from sproutsdb.ops.results import (
    CertificateCheck,
    ManifestEntry,
    certificate_keys,
    check_certificate_file,
    fact_kind,
    read_mark,
    requirement,
    statement_of,
    statement_text,
    why_not,
    write_mark,
)
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore

SHOWN_STRAYS = 3  # facts a refusal names (with the count of all of them)
COPY_BLOCK = 1 << 20


class AdmissionRefused(UserError):
    """A certificate the gate refuses whole: nothing of it is stored."""


@dataclass(frozen=True)
class HeldCertificate:
    """A certificate's bytes as read once: where they came from, their SHA-256, and the
    private copy (in a folder only this user can open) every later step reads instead."""

    source: Path
    sha256: str
    copy: Path

    @property
    def work(self) -> Path:
        """The private folder of the copy, where the check's fresh store goes too."""
        return self.copy.parent


@dataclass
class Admission:
    """What the gate did with one certificate: its check (`check.ok`: admitted) and, when
    asked to store it, what storing did: "seeded", "present" (held verified already) or
    "conflicts" (the store holds other values for `conflicts` of its facts: those kept)."""

    check: CertificateCheck
    stored: str | None = None
    conflicts: int = 0


@contextmanager
def held_certificate(path: Path, sha256: str) -> Iterator[HeldCertificate]:
    """Read `path` once into a private copy, hashing as it goes; AdmissionRefused unless
    the bytes have the SHA-256 `sha256`. The copy is removed on exit."""
    with tempfile.TemporaryDirectory(prefix="sproutsdb-admit-") as work:
        copy = Path(work) / "certificate.spdbx"
        digest = hashlib.sha256()
        try:
            with open(path, "rb") as source, open(copy, "xb") as out:
                while block := source.read(COPY_BLOCK):
                    digest.update(block)
                    out.write(block)
        except FileNotFoundError:
            raise AdmissionRefused(f"{path}: no such file") from None
        except OSError as error:
            raise AdmissionRefused(f"{path}: cannot be read ({error.strerror})") from None
        if digest.hexdigest() != sha256:
            raise AdmissionRefused(
                f"{path}: its SHA-256 is not the manifest's (the file was changed)"
            )
        os.chmod(copy, 0o400)
        yield HeldCertificate(path, digest.hexdigest(), copy)


def admitted_facts(check: RootCheck) -> dict[str, Any]:
    """The facts a root check verified, as stored values: nimbers, or "L" for each losing
    misère node."""
    verified = check.report.verified
    if check.play == "misere":
        return dict.fromkeys(verified, "L")
    return dict(verified)


def stray_facts(path: Path, check: RootCheck) -> tuple[list[tuple[FactKind, str, Any]], int]:
    """The facts of the certificate at `path` its check did not verify as their kind and
    value (the first SHOWN_STRAYS), and how many there are."""
    kind = fact_kind(check.play or "normal")
    admitted = admitted_facts(check)
    strays: list[tuple[FactKind, str, Any]] = []
    count = 0
    for chunk_kind, facts in certificate_keys(path):
        for key, value in facts:
            if chunk_kind is not kind or key not in admitted or admitted[key] != value:
                count += 1
                if len(strays) < SHOWN_STRAYS:
                    strays.append((chunk_kind, key, value))
    return strays, count


def admit(
    directory: Path,
    entry: ManifestEntry,
    *,
    into: LmdbProofStore | None = None,
    recheck: bool = False,
    who: str = "sproutsdb serve",
) -> Admission:
    """Pass one certificate of the library at `directory` through the gate: its bytes read
    once and matched with the manifest's SHA-256, re-derived alone in a fresh store (into a
    store: unless this user's cache holds this version's mark of having done so and not
    `recheck`), every fact verified as its kind, then, `into` a store, its facts stored
    marked verified from those same bytes (`who` in their provenance)."""
    path = directory / entry.file
    started = time.perf_counter()

    def refused(message: str) -> Admission:
        return Admission(
            CertificateCheck(entry, path, False, message, time.perf_counter() - started)
        )

    try:
        with held_certificate(path, entry.sha256) as held:
            try:
                how, admitted, facts = _verdict(held, entry, into, recheck)
            except Exception as error:  # noqa: BLE001 - any refusal of the file is a failed check
                text = str(error).replace(str(held.copy), str(path))
                message = (
                    text if isinstance(error, AdmissionRefused) else f"{path}: refused: {text}"
                )
                return refused(f"{message:.600}")
            check = CertificateCheck(entry, path, True, how, time.perf_counter() - started, facts)
            if into is None:
                return Admission(check)
            if how == PRESENT:
                return Admission(check, "present")
            try:
                conflicts = _put_certificate(into, held, entry, how, who, admitted)
            except UserError as error:
                return refused(str(error).replace(str(held.copy), str(path)))
            check.seconds = time.perf_counter() - started
            return Admission(check, "conflicts" if conflicts else "seeded", conflicts)
    except AdmissionRefused as error:
        return refused(str(error))


PRESENT = "held verified by the store already"
CACHED = "re-derived by this version before (cached mark)"
DERIVED = "re-derived now in a fresh store"


def _verdict(
    held: HeldCertificate, entry: ManifestEntry, into: LmdbProofStore | None, recheck: bool
) -> tuple[str, dict[str, Any] | None, int]:
    """How the held certificate is admitted (PRESENT, CACHED or DERIVED), with the facts
    its check verified when it ran now and the number of facts it holds; AdmissionRefused
    (or any error of the check) when it is not."""
    if entry.requires is not None and entry.requires != requirement(entry.play, entry.game):
        raise AdmissionRefused(
            f"{held.source}: needs {entry.requires}, which this install does not ship"
        )
    facts = _refuse_other_plays(held, entry)
    if into is not None and into.identity.game != entry.game:
        raise AdmissionRefused(
            f"{held.source}: a {entry.game} certificate, not for a store of {into.identity.game}"
        )
    if into is not None and _holds(into, held.copy):
        return PRESENT, None, facts
    if into is not None and not recheck and read_mark(entry) is not None:
        return CACHED, None, facts
    with tempfile.TemporaryDirectory(dir=held.work) as work:
        check, _ = check_certificate_file(
            held.copy,
            entry.position,
            entry.play,
            Path(work),
            recheck=recheck,
            game=entry.game,
            every_fact=True,
        )
    if not check.ok:
        raise AdmissionRefused(
            f"{held.source}: the proof of {entry.position} does not check ({why_not(check)})"
        )
    proved = statement_of(check)
    if proved != entry.statement:
        raise AdmissionRefused(
            f"{held.source}: proves {statement_text(proved)}, the manifest says "
            f"{entry.statement_text()}"
        )
    strays, count = stray_facts(held.copy, check)
    if count:
        raise AdmissionRefused(_stray_message(held.source, entry, strays, count))
    write_mark(entry)
    return DERIVED, admitted_facts(check), facts


def _refuse_other_plays(held: HeldCertificate, entry: ManifestEntry) -> int:
    """Refuse a certificate of another game or canonical form, or holding facts of a kind
    its play's check never verifies (a misère node in a normal certificate, an RCT...);
    the number of facts it holds."""
    kind = fact_kind(entry.play)
    canon_version = get_game(entry.game).canon_version
    strays: list[tuple[FactKind, str, Any]] = []
    count = total = 0
    for frame, data in read_stream(held.copy):
        if frame == "H" and (data.get("game"), data.get("canon_version")) != (
            entry.game,
            canon_version,
        ):
            raise AdmissionRefused(
                f"{held.source}: holds {data.get('game')!r:.40} facts keyed by canon_version "
                f"{data.get('canon_version')!r:.20}; its entry admits {entry.game!r} facts of "
                f"canon_version {canon_version}"
            )
        if frame == "C":
            total += len(data[1])
        if frame == "C" and data[0] is not kind:
            count += len(data[1])
            strays.extend((data[0], key, value) for key, value in data[1][:SHOWN_STRAYS])
    if count:
        raise AdmissionRefused(_stray_message(held.source, entry, strays[:SHOWN_STRAYS], count))
    return total


def _stray_message(
    path: Path,
    entry: ManifestEntry,
    strays: list[tuple[FactKind, str, Any]],
    count: int,
) -> str:
    """One line naming a few facts that refuse a certificate whole, and how many."""
    named = ", ".join(f"{kind.value} {key!r:.80} = {value!r:.20}" for kind, key, value in strays)
    more = f" and {count - len(strays)} more" if count > len(strays) else ""
    return (
        f"{path}: refused whole: {count} of its facts are not {fact_kind(entry.play).value} "
        f"facts its {entry.play} check of {entry.position} verified (another play's, or "
        f"facts neither its proof nor a check of their own re-derives): {named}{more}"
    )


def _holds(store: LmdbProofStore, copy: Path) -> bool:
    """Whether the store holds every fact of the certificate with the same value, verified."""
    for kind, facts in certificate_keys(copy):
        marked: set[str] = set()
        stored = store.get(kind, [key for key, _ in facts], verified_out=marked)
        if len(marked) < len(facts) or any(stored.get(key) != value for key, value in facts):
            return False
    return True


def _put_certificate(
    store: LmdbProofStore,
    held: HeldCertificate,
    entry: ManifestEntry,
    how: str,
    who: str,
    admitted: dict[str, Any] | None,
) -> int:
    """Store the held certificate's facts, every one marked verified by its play's root
    check (each one its check verified now, when it ran: `admitted`); the conflicts (the
    stored values are kept)."""
    kind = fact_kind(entry.play)
    chunks = list(certificate_keys(held.copy))
    for chunk_kind, facts in chunks:  # the gate refused such a file already: never stored
        if chunk_kind is not kind or any(
            admitted is not None and (key not in admitted or admitted[key] != value)
            for key, value in facts
        ):
            raise AdmissionRefused(f"{held.source}: holds facts its check did not verify")
    provenance = Provenance(
        who=who,
        tool="results library",
        comment=f"{entry.file} (sha256 {held.sha256[:16]}): {entry.play} {entry.position} "
        f"{entry.statement_text()}, {how}",
    )
    marked = provenance.for_check(CHECK_MISERE_ROOT if entry.play == "misere" else CHECK_ROOT)
    conflicts = 0
    for _, facts in chunks:
        result = store.put(kind, dict(facts), provenance=provenance, verified_by=marked)
        conflicts += len(result.conflicts)
    store.flush()
    return conflicts


__all__ = [
    "Admission",
    "AdmissionRefused",
    "HeldCertificate",
    "admit",
    "admitted_facts",
    "fact_kind",
    "held_certificate",
    "stray_facts",
]
