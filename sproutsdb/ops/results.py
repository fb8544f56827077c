"""The results library: every statement the project proves about a named position, shipped
as a pruned certificate, and listed beside what the literature says.

A certificate is a native export (sproutsdb/formats/exchange.py, checksummed) of the facts one
root check used (`check --root P --prune OUT --cycles K`, or `--misere`), with an entry in
`manifest.json` beside it: position, play, the statement proved, facts, SHA-256, the commands,
the sproutsdb version and CPU seconds that made it, and its `game` when it is not Sprouts (a
Cram board's nimber: position "4x7", game "cram"; an entry without one is a Sprouts entry).
A certificate is checked in a fresh store of its own game, and seeded only into a store of
that game. Nothing in a certificate is believed: it is
checked by importing it into a fresh store and re-deriving its root from the rules, before it
is added (`build_certificate`), by `sproutsdb results --check`, and before `serve` or
`solve --seed-results` seeds it: all through one gate (sproutsdb/ops/admission.py), which
reads the file once, matches its SHA-256 and refuses it whole unless its check verified
every fact it holds. The literature (`sproutsdb/data/literature.json`) is shipped
with its sources and only ever printed beside the certificates.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import multiprocessing
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sproutsdb import __version__
from sproutsdb.errors import UsageError, UserError
from sproutsdb.formats.exchange import read_stream
from sproutsdb.games import DEFAULT_GAME
from sproutsdb.ops.check import (
    RootCheck,
    check_leftovers,
    check_misere_root,
    check_root,
    write_pruned,
)
from sproutsdb.ops.exchange import export_store, import_file, plan_import
from sproutsdb.shipped import shipped_table
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore, open_store
from sproutsdb.trusted_tables import (
    cache_dir,
    file_digest,
    read_cached_mark,
    verified_table,
    write_cached_mark,
)

MANIFEST = "manifest.json"
LITERATURE = "literature.json"
RESULTS_FOLDER = "results"  # under the package's data folder
PLAYS = ("normal", "misere")
MARKS_FOLDER = "verified-results"  # cached marks of certificates re-derived clean
MADE_BY = "results check"  # the `made_by` of those marks
DEFAULT_CYCLES = 4

_extracted = contextlib.ExitStack()  # a zipped install's data, copied out for this process
atexit.register(_extracted.close)


# --- the manifest ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ManifestEntry:
    """One proven statement and its certificate file (`file`: relative to the manifest)."""

    position: str  # as the literature writes it, e.g. "0*12"
    play: str  # "normal" or "misere"
    statement: dict[str, Any]  # {"nimber": k} or {"outcome": "W" | "L"}
    facts: int
    file: str
    sha256: str
    command: str
    version: str
    solve_cpu_seconds: float | None
    prune_cpu_seconds: float
    cycles: int
    cycle_sizes: list[int] = field(default_factory=list)
    solve_max_rss_kb: int | None = None
    made_at: str = ""
    requires: str | None = None  # the RCT table it is checked on top of: "s6.rcttable sha256:…"
    game: str = DEFAULT_GAME  # the game of `position`: absent from the file for Sprouts

    @property
    def key(self) -> tuple[str, str]:
        """(play, position): the statement within its game."""
        return (self.play, self.position)

    @property
    def ident(self) -> tuple[str, str, str]:
        """(game, play, position): the statement in the library, which holds several games."""
        return (self.game, self.play, self.position)

    def statement_text(self) -> str:
        """`nimber 0` or `outcome W`: the statement in words."""
        return statement_text(self.statement)


def _game_prefix(game: str) -> str:
    """`cram ` before another game's statement in a line; nothing for Sprouts."""
    return "" if game == DEFAULT_GAME else f"{game} "


def statement_text(statement: dict[str, Any]) -> str:
    (what, value), *_ = statement.items()
    return f"{what} {value}"


def outcome_of(statement: dict[str, Any]) -> str:
    """W or L: the outcome a statement implies (a nimber is a loss iff it is 0)."""
    if "outcome" in statement:
        return str(statement["outcome"])
    return "L" if statement["nimber"] == 0 else "W"


def shipped_library() -> Path:
    """The results folder the package ships (copied out of a zipped install if need be)."""
    resource = resources.files("sproutsdb.data").joinpath(RESULTS_FOLDER)
    if isinstance(resource, Path):
        return resource
    return Path(_extracted.enter_context(resources.as_file(resource)))


def read_manifest(directory: Path) -> list[ManifestEntry]:
    """The entries of `directory`/manifest.json ([] when there is none yet)."""
    path = directory / MANIFEST
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text())
        return [ManifestEntry(**entry) for entry in data["results"]]
    except (ValueError, KeyError, TypeError) as error:
        raise UsageError(f"{path}: not a results manifest ({error!s:.200})") from None


def write_manifest(directory: Path, entries: Iterable[ManifestEntry]) -> Path:
    """Write the manifest (Sprouts first, then by game, play and size), atomically; a
    Sprouts entry is written without its `game`, as before there were other games."""
    ordered = sorted(entries, key=_entry_order)
    data = {
        "about": "Certificates of the results library: sproutsdb results [--check]",
        "results": [_entry_json(entry) for entry in ordered],
    }
    path = directory / MANIFEST
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".manifest-")
    os.chmod(temporary, 0o644)  # a project file, readable by all like the certificates
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
    os.replace(temporary, path)
    return path


def add_to_manifest(directory: Path, entry: ManifestEntry) -> None:
    """Put `entry` in the manifest, replacing the entry of the same play and position."""
    kept = [e for e in read_manifest(directory) if e.ident != entry.ident]
    write_manifest(directory, [*kept, entry])


def _entry_json(entry: ManifestEntry) -> dict[str, Any]:
    data = asdict(entry)
    if entry.game == DEFAULT_GAME:
        del data["game"]
    return data


def _entry_order(entry: ManifestEntry) -> tuple[bool, str, int, tuple[int, ...], str]:
    board = board_of(entry.position)
    size = board if board is not None else (_order(entry.position)[0],)
    return (entry.game != DEFAULT_GAME, entry.game, PLAYS.index(entry.play), size, entry.position)


def _order(position: str) -> tuple[int, str]:
    spots = spots_of(position)
    return (spots if spots is not None else 1 << 30, position)


def board_of(position: str) -> tuple[int, int, int] | None:
    """(cells, rows, columns) of an empty board written `RxC` (Cram), else None."""
    match = re.fullmatch(r"(\d+)x(\d+)", position)
    if match is None:
        return None
    rows, columns = int(match.group(1)), int(match.group(2))
    return (rows * columns, rows, columns)


def spots_of(position: str) -> int | None:
    """n of a position written `0*n`, else None."""
    match = re.fullmatch(r"0\*(\d+)", position)
    return int(match.group(1)) if match else None


def certificate_name(position: str, play: str, game: str = DEFAULT_GAME) -> str:
    """The certificate's file name: normal-0x12.spdbx for 0*12 in normal play; another
    game's name first: cram-normal-4x7.spdbx for the Cram board 4x7."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", position.replace("*", "x")).strip("_") or "empty"
    prefix = "" if game == DEFAULT_GAME else f"{game}-"
    return f"{prefix}{play}-{slug}.spdbx"


sha256_of = file_digest  # a certificate's checksum, as the manifest gives it


# --- checking and building ------------------------------------------------------------------


def prove(
    store: LmdbProofStore,
    position: str,
    play: str,
    cycles: int = 1,
    *,
    rct_table: Path | None = None,
    quiet: bool = True,
) -> RootCheck:
    """The root check of `position` in `play` on `store` (marks what it verified); a misère
    check takes its RCTs from `rct_table` when given (re-derived whole, or its cached mark),
    else from the store's claims (each re-derived). Unless `quiet`, progress on stderr."""
    if play not in PLAYS:
        raise UsageError(f"play {play!r}: give one of {', '.join(PLAYS)}")
    if play == "misere":
        return check_misere_root(store, position, cycles=cycles, rct_table=rct_table, quiet=quiet)
    return check_root(store, position, cycles=cycles, quiet=quiet)


def required_table(play: str, game: str = DEFAULT_GAME) -> Path | None:
    """The RCT table a certificate of `play` is checked on top of: Sprouts misère
    certificates hold only what lies beyond the shipped S6 table (the paper's Figure 10
    counts the same), normal ones (and other games') need none."""
    if play != "misere" or game != DEFAULT_GAME:
        return None
    table = shipped_table()
    if table is None:
        raise UsageError("this install lacks the shipped S6 RCT table misère certificates need")
    return table


def statement_of(check: RootCheck) -> dict[str, Any]:
    """The statement a complete root check proved: the nimber when it has one, else the
    outcome."""
    report = check.report
    if report.nimber is not None and check.play != "misere":
        return {"nimber": report.nimber}
    return {"outcome": report.outcome}


@dataclass
class CertificateCheck:
    """What re-deriving one certificate found: `ok` when the file is the manifest's (SHA-256)
    and its facts prove the manifest's statement in a fresh store, each verified."""

    entry: ManifestEntry
    path: Path
    ok: bool
    message: str
    seconds: float = 0.0
    facts: int = 0


def check_certificate_file(
    path: Path,
    position: str,
    play: str,
    work: Path,
    *,
    quiet: bool = True,
    recheck: bool = False,
    game: str = DEFAULT_GAME,
    every_fact: bool = False,
) -> tuple[RootCheck, int]:
    """Import the certificate at `path` into a new store of `game` under `work` and check
    its root; the check and the number of facts imported. UsageError for keys not in this
    canonical form, a file of another game, or a key given two values; with `recheck`, the
    RCT table under a misère check is re-derived whatever its cached mark says; with
    `every_fact`, each fact of the play the root's path did not reach is then checked as
    its own root (ops.check.check_leftovers), as the gate needs every fact re-derived."""
    work.mkdir(parents=True, exist_ok=True)
    if play == "misere" and game != DEFAULT_GAME:
        raise UsageError(f"the results library holds no misère {game} certificate")
    plan = plan_import(path)
    if any(plan.moved.values()):
        raise UsageError(f"{path}: keys not in this canonical form; rebuild it")
    table = required_table(play, game)
    if table is not None and recheck:
        verified_table(table, recheck=True)  # the check below then uses this process's own
    with open_store(work / "store", create=True, durable=False, game=game) as store:
        totals, _ = import_file(path, store, plan=plan)
        if totals["conflicts"]:
            raise UsageError(f"{path}: gives {totals['conflicts']} of its keys two values")
        check = prove(store, position, play, rct_table=table, quiet=quiet)
        if every_fact:
            check_leftovers(store, check, _facts_of_play(path, play))
        return check, totals["inserted"] + totals["unchanged"]


def fact_kind(play: str) -> FactKind:
    """The one kind of fact a certificate of `play` may hold (what its root check verifies)."""
    return FactKind.MISERE if play == "misere" else FactKind.NIMBER


def _facts_of_play(path: Path, play: str) -> dict[str, Any]:
    """The facts of the certificate at `path` of the one kind a check of `play` verifies."""
    kind = fact_kind(play)
    return {
        key: value
        for chunk_kind, facts in certificate_keys(path)
        if chunk_kind is kind
        for key, value in facts
    }


def check_certificate(
    directory: Path, entry: ManifestEntry, recheck: bool = False
) -> CertificateCheck:
    """Re-derive one certificate of the library from the rules, through the gate
    (sproutsdb.ops.admission.admit: its bytes read once, their checksum first, every fact
    verified as its kind); with `recheck`, its RCT table too, whatever its mark says."""
    from sproutsdb.ops.admission import admit

    return admit(directory, entry, recheck=recheck).check


TIGHTEN_ROUNDS = 5
TIGHTENED = (
    "then pruned again to what `check --root` of the file alone in a fresh store uses "
    "(sproutsdb.ops.results.build_certificate)"
)


def _write_certificate(check: RootCheck, play: str, work: Path, out: Path) -> None:
    """Export the facts a complete check used (misère: beyond the shipped S6 table) to `out`,
    from a store of the check's game."""
    with open_store(work, create=True, durable=False, game=check.game) as pruned:
        write_pruned(check, pruned)
        if play == "misere":
            _export_beyond_table(pruned, work.with_name(work.name + "-beyond"), out)
        else:
            export_store(pruned, out)


def _tighten(
    staged: Path, position: str, play: str, work: Path, quiet: bool, game: str = DEFAULT_GAME
) -> tuple[RootCheck, int]:
    """Check the certificate alone, as `results --check` will, and prune it again to what
    that check used until it verifies every fact it holds (a fresh check may find a proof
    among a subset of the facts the random cycles kept). UsageError if it does not check,
    or still holds facts the check does not verify."""
    from sproutsdb.ops.admission import stray_facts

    for round_ in range(TIGHTEN_ROUNDS):
        again = work / f"again-{round_}"
        check, facts = check_certificate_file(staged, position, play, again, quiet=quiet, game=game)
        if not check.ok:
            raise UsageError(f"the certificate of {position} does not check on its own")
        if not stray_facts(staged, check)[1]:
            return check, facts
        _write_certificate(check, play, work / f"tight-{round_}", staged)
    raise UsageError(
        f"the certificate of {position} still holds facts its check does not verify after "
        f"{TIGHTEN_ROUNDS} prunings (the library's gate would refuse it)"
    )


def requirement(play: str, game: str = DEFAULT_GAME) -> str | None:
    """What a certificate of `play` is checked on top of, as the manifest says it."""
    table = required_table(play, game)
    return None if table is None else f"{table.name} sha256:{sha256_of(table)}"


def _export_beyond_table(pruned: LmdbProofStore, work: Path, out: Path) -> None:
    """Export a pruned misère proof without the RCT records and position → RCT entries the
    shipped S6 table holds (its checks take them from the table, re-derived whole)."""
    table_path = required_table("misere")
    assert table_path is not None
    table = verified_table(table_path)
    records = dict(table.records())

    def in_table(kind: FactKind, key: str, value: Any) -> bool:
        if kind is FactKind.RCT:
            return bool(records.get(key) == value)
        if kind is FactKind.POS_RCT:
            return key in table.positions and table.rct_id_of(key) == value
        return False

    with open_store(work, create=True, durable=False) as beyond:
        for kind in (FactKind.MISERE, FactKind.RCT, FactKind.POS_RCT):
            items = [(k, v) for k, v in pruned.iter_facts(kind) if not in_table(kind, k, v)]
            for start in range(0, len(items), 10_000):
                beyond.put(kind, dict(items[start : start + 10_000]))
        export_store(beyond, out)


def why_not(check: RootCheck) -> str:
    """Why a root check proved nothing: its inconsistencies or holes, one named."""
    report = check.report
    if report.inconsistent:
        return f"{len(report.inconsistent)} inconsistent, e.g. {report.inconsistent[0]}"
    if report.missing:
        return f"{len(report.missing)} holes, e.g. {report.missing[0]}"
    return "no outcome"


def check_library(
    directory: Path | None = None,
    *,
    only: Callable[[ManifestEntry], bool] | None = None,
    progress: Callable[[str], None] | None = None,
    jobs: int = 1,
    recheck: bool = False,
) -> list[CertificateCheck]:
    """Re-derive every certificate of the library (or those `only` selects); the results in
    manifest order. With `jobs` > 1, in that many processes, the largest certificates first
    (misère 0*20's alone is most of the library's checking time). With `recheck`, the RCT
    table under the misère ones is re-derived too (in each process), marks or not."""
    directory = shipped_library() if directory is None else directory
    entries = [e for e in read_manifest(directory) if only is None or only(e)]
    done: dict[tuple[str, str, str], CertificateCheck] = {}

    def report(result: CertificateCheck) -> None:
        done[result.entry.ident] = result
        if progress is not None:
            entry = result.entry
            verdict = "ok" if result.ok else "FAILED"
            progress(
                f"[{len(done)}/{len(entries)}] {_game_prefix(entry.game)}{entry.play} "
                f"{entry.position}: "
                f"{entry.statement_text()}, {result.facts:,} facts, {verdict} "
                f"({result.seconds:.1f} s)"
            )

    if jobs <= 1 or len(entries) <= 1:
        for entry in entries:
            report(check_certificate(directory, entry, recheck))
    else:
        if any(entry.requires is not None for entry in entries) and not recheck:
            required_table_verified()  # once here, not once per worker
        largest_first = sorted(entries, key=lambda e: e.facts, reverse=True)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(jobs, len(entries)), mp_context=context) as pool:
            futures = {
                pool.submit(check_certificate, directory, e, recheck): e for e in largest_first
            }
            for future in as_completed(futures):
                report(_worker_result(future, futures[future], directory))
    return [done[entry.ident] for entry in entries]


def _worker_result(
    future: Future[CertificateCheck], entry: ManifestEntry, directory: Path
) -> CertificateCheck:
    """A worker's check, or a failed one when its process died (killed, out of memory)."""
    try:
        return future.result()
    except Exception as error:  # noqa: BLE001 - a lost worker is a check that did not pass
        path = directory / entry.file
        return CertificateCheck(entry, path, False, f"{path}: its check process failed: {error}")


def required_table_verified() -> None:
    """Re-derive the shipped S6 table misère certificates are checked on (or find this
    version's cached mark of it), so that worker processes find the mark."""
    table = required_table("misere")
    if table is not None:
        with contextlib.suppress(UserError):  # then each misère certificate fails, saying why
            verified_table(table)


def build_certificate(
    store_dir: Path,
    position: str,
    play: str,
    out_dir: Path,
    cycles: int = DEFAULT_CYCLES,
    *,
    solve_command: str = "",
    solve_cpu_seconds: float | None = None,
    solve_max_rss_kb: int | None = None,
    quiet: bool = True,
    game: str = DEFAULT_GAME,
) -> ManifestEntry:
    """Prune the proof of `position` held in the solved store of `game` at `store_dir`
    (`cycles` random cycles, keeping the smallest), export it natively into `out_dir`, check
    that the file alone proves the same statement in a fresh store of `game`, and add it to
    the manifest. Unless `quiet`, each check shows its progress on stderr.

    UsageError when the store does not prove `position`, or the file does not check (then
    nothing is written to `out_dir`)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    name = certificate_name(position, play, game)
    started = time.process_time()
    with tempfile.TemporaryDirectory(prefix="sproutsdb-build-") as work:
        staged = Path(work) / name
        with open_store(store_dir, create=False, game=game) as store:
            check = prove(store, position, play, cycles, quiet=quiet)
            if not check.ok:
                raise UsageError(f"{store_dir} does not prove {position} ({why_not(check)})")
            _write_certificate(check, play, Path(work) / "pruned", staged)
        statement = statement_of(check)
        again, facts = _tighten(staged, position, play, Path(work), quiet, game)
        prune_cpu = time.process_time() - started
        if statement_of(again) != statement:
            raise UsageError(f"the certificate of {position} does not check on its own")
        shutil.move(staged, out_dir / name)
    flag = " --misere" if play == "misere" else ""
    entry = ManifestEntry(
        position=position,
        play=play,
        statement=statement,
        facts=facts,
        file=name,
        sha256=sha256_of(out_dir / name),
        command="; ".join(
            part
            for part in (
                solve_command,
                f"sproutsdb check{flag} --store SOLVED --root {position} --prune PRUNED "
                f"--cycles {cycles}" + ("" if game == DEFAULT_GAME else f" (a {game} store)"),
                f"sproutsdb export --store PRUNED --out {name} --format native",
                TIGHTENED,
            )
            if part
        ),
        version=__version__,
        solve_cpu_seconds=solve_cpu_seconds,
        prune_cpu_seconds=round(prune_cpu, 2),
        cycles=cycles,
        cycle_sizes=list(check.sizes),
        solve_max_rss_kb=solve_max_rss_kb,
        made_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        requires=requirement(play, game),
        game=game,
    )
    add_to_manifest(out_dir, entry)
    return entry


# --- marks: a certificate re-derived clean by this version ----------------------------------


def _mark_path(entry: ManifestEntry) -> Path:
    # empty proofs (a misère outcome the S6 table settles) are byte-identical files: the
    # mark names the statement's play and position too
    name = certificate_name(entry.position, entry.play, entry.game).removesuffix(".spdbx")
    return cache_dir() / MARKS_FOLDER / f"{entry.sha256}-{name}.json"


def _mark_body(entry: ManifestEntry) -> dict[str, Any]:
    game = {} if entry.game == DEFAULT_GAME else {"game": entry.game}  # Sprouts marks as before
    return {
        **game,
        "sha256": entry.sha256,
        "tool_version": __version__,
        "made_by": MADE_BY,
        "play": entry.play,
        "position": entry.position,
        "statement": entry.statement,
        "requires": entry.requires,
    }


def write_mark(entry: ManifestEntry) -> None:
    """Remember that the file of this SHA-256 passed the gate (sproutsdb.ops.admission: its
    statement re-derived, every fact verified as its kind); an unwritable cache costs
    nothing."""
    body = {**_mark_body(entry), "checked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_cached_mark(_mark_path(entry), body)


def read_mark(entry: ManifestEntry) -> dict[str, Any] | None:
    """The mark of a results check of this version having admitted the file of the entry's
    SHA-256 (same statement, same table under it) in a cache only this user can write, or
    None. The caller matches the file's bytes with that SHA-256."""
    mark = read_cached_mark(_mark_path(entry))
    sound = (
        mark is not None
        and all(mark.get(k) == v for k, v in _mark_body(entry).items())
        and (entry.requires is None or entry.requires == requirement(entry.play, entry.game))
    )
    return mark if sound else None


def has_mark(directory: Path, entry: ManifestEntry) -> bool:
    """Whether this version admitted this very file (`read_mark`, and the file's SHA-256)."""
    path = directory / entry.file
    return read_mark(entry) is not None and path.is_file() and sha256_of(path) == entry.sha256


# --- the table beside the literature --------------------------------------------------------


def literature() -> dict[str, Any]:
    """The literature's values about 0*n, with their sources (package data)."""
    text = resources.files("sproutsdb.data").joinpath(LITERATURE).read_text()
    data: dict[str, Any] = json.loads(text)
    return data


@dataclass
class ResultRow:
    """One statement about a position: the library's certificate (if any) and what the
    literature says (if anything)."""

    position: str
    play: str
    statement: dict[str, Any] | None  # the certificate's, None: literature only
    file: str | None = None
    checked: bool = False
    checked_how: str | None = None  # "now", "cached mark", or None
    failed: str | None = None  # why --check refused it
    facts: int | None = None
    literature: dict[str, Any] = field(default_factory=dict)
    game: str = DEFAULT_GAME
    solve_cpu_seconds: float | None = None  # what the solve behind the certificate took

    @property
    def mark(self) -> str:
        if self.statement is None:
            return "literature only"
        if self.failed is not None:
            return "certificate here, FAILED"
        return "certificate here and checked" if self.checked else "certificate here"

    @property
    def agrees(self) -> bool | None:
        """Whether the certificate's statement agrees with the literature's outcome, and
        its nimber with the literature's nimber or lower bound when both give one (None:
        one of them is missing)."""
        said = self.literature.get("outcome")
        if self.statement is None or said is None:
            return None
        agrees = outcome_of(self.statement) == said
        nimber = self.statement.get("nimber")
        if nimber is not None and "nimber" in self.literature:
            agrees = agrees and nimber == self.literature["nimber"]
        if nimber is not None and "nimber_above" in self.literature:
            agrees = agrees and nimber > self.literature["nimber_above"]
        return bool(agrees)

    def as_json(self) -> dict[str, Any]:
        data = {
            "position": self.position,
            "game": self.game,
            "play": self.play,
            "statement": self.statement,
            "file": self.file,
            "checked": self.checked,
            "mark": self.mark,
            "facts": self.facts,
            "literature": self.literature,
            "agrees": self.agrees,
            "solve_cpu_seconds": self.solve_cpu_seconds,
        }
        if self.checked_how is not None:
            data["checked_how"] = self.checked_how
        if self.failed is not None:
            data["failed"] = self.failed
        return data


def result_rows(
    directory: Path | None = None,
    checks: Iterable[CertificateCheck] = (),
    *,
    with_literature: bool = True,
    game: str = DEFAULT_GAME,
) -> list[ResultRow]:
    """Every statement known about the positions of `game` (Sprouts: 0*n; Cram: empty
    boards RxC): the library's certificates of that game (checked now, or by a cached mark
    of this version) and the literature's rows, by play and size."""
    shipped = directory is None
    directory = shipped_library() if directory is None else directory
    done = {c.entry.ident: c for c in checks}
    rows: dict[tuple[str, str], ResultRow] = {}
    for entry in read_manifest(directory):
        if entry.game != game:
            continue
        path = directory / entry.file
        row = ResultRow(
            entry.position,
            entry.play,
            entry.statement,
            file=_shown_path(path, shipped),
            facts=entry.facts,
            game=game,
            solve_cpu_seconds=entry.solve_cpu_seconds,
        )
        result = done.get(entry.ident)
        if result is not None:
            row.checked, row.checked_how = result.ok, "now"
            row.failed = None if result.ok else result.message
        elif has_mark(directory, entry):
            row.checked, row.checked_how = True, "cached mark"
        rows[(entry.play, entry.position)] = row
    if with_literature:
        said = _literature_by_position() if game == DEFAULT_GAME else _literature_of(game)
        for (play, position), values in said.items():
            blank = ResultRow(position, play, None, literature={}, game=game)
            rows.setdefault((play, position), blank).literature = values
    return sorted(rows.values(), key=lambda r: (PLAYS.index(r.play), _row_order(r.position)))


def _row_order(position: str) -> tuple[int, ...]:
    board = board_of(position)
    return board if board is not None else (_order(position)[0],)


def _literature_of(game: str) -> dict[tuple[str, str], dict[str, Any]]:
    """The literature's values about another game's positions (the `cram` section: boards
    RxC in normal play), per (play, position): outcome, nimber or a lower bound, sources. A
    board given with its nimber only is a win iff the nimber is not 0."""
    section = literature().get(game, {})
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for row in section.get("boards", []):
        values = {k: v for k, v in row.items() if k not in ("board", "note")}
        if "outcome" not in values and "nimber" in values:
            values["outcome"] = "L" if values["nimber"] == 0 else "W"
        values["sources"] = list(row.get("sources", []))
        out[("normal", row["board"])] = values
    return out


def other_games(directory: Path | None = None) -> list[str]:
    """The games other than Sprouts the library or the literature has statements about."""
    directory = shipped_library() if directory is None else directory
    named = {e.game for e in read_manifest(directory)} | {
        name
        for name, section in literature().items()
        if isinstance(section, dict) and "boards" in section
    }
    return sorted(named - {DEFAULT_GAME})


def _shown_path(path: Path, shipped: bool) -> str:
    """A shipped certificate relative to the package (`data/results/...`); others absolute."""
    if shipped:
        return f"data/{RESULTS_FOLDER}/{path.name}"
    return str(path.resolve())


def _literature_by_position() -> dict[tuple[str, str], dict[str, Any]]:
    """The literature's values per (play, position): outcome, sources, proof sizes, nimber."""
    data = literature()
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for row in data["normal_outcomes"]:
        values = out.setdefault(("normal", f"0*{row['n']}"), {})
        values.update(outcome=row["outcome"], sources=list(row["sources"]))
        if row["outcome"] == "L":
            values["nimber"] = 0
    for table, name in (
        ("glop_2010_proof_sizes", "glop_2010_size"),
        ("smallest_known_proof_sizes", "smallest_known_size"),
    ):
        for n, size in data[table]["sizes"].items():
            out.setdefault(("normal", f"0*{n}"), {})[name] = size
    for row in data["misere_outcomes"]:
        values = out.setdefault(("misere", f"0*{row['n']}"), {})
        values.update(outcome=row["outcome"], sources=list(row["sources"]))
    for n, size in data["misere_proof_positions"]["sizes"].items():
        out.setdefault(("misere", f"0*{n}"), {})["positions_beyond_s6"] = size
    return out


def table_rows(*, check: bool = False, recheck: bool = False) -> list[dict[str, Any]]:
    """The RCT tables the project ships (the S6 table), as results: the RCTs of every
    position of the game tree of their root. `checked` when this version re-derived the
    whole table (a cached mark per file checksum); `check` re-derives it now when it has no
    mark (tens of seconds for S6), as every command that uses it does, `recheck` whatever its mark."""
    from sproutsdb.formats.rcttable import read_header
    from sproutsdb.trusted_tables import read_mark as read_table_mark

    table = shipped_table()
    if table is None:
        return []
    header, _ = read_header(table)
    counts = dict(header.get("counts", {}))
    row: dict[str, Any] = {
        "position": str(header.get("root", "")),
        "play": "misere",
        "statement": {"rct_table": table.name, **{k: int(v) for k, v in counts.items()}},
        "file": f"data/{table.name}",
        "sha256": file_digest(table),
        "checked": read_table_mark(file_digest(table)) is not None,
    }
    if check:
        try:
            verified_table(table, recheck=recheck)
            row["checked"] = True
        except UserError as error:  # a table that does not re-derive, or a damaged file
            row["checked"], row["failed"] = False, str(error)
    return [row]


def results_payload(directory: Path | None = None) -> dict[str, Any]:
    """What GET /api/v1/results answers: every row (certificates beside the literature),
    each with `href`, its position's page, and the literature's sources."""
    rows = []
    for row in result_rows(directory):
        data = row.as_json()
        data["href"] = "./?pos=" + quote(row.position)
        rows.append(data)
    games = {
        game: [row.as_json() for row in result_rows(directory, game=game)]
        for game in other_games(directory)
    }
    return {"results": rows, **games, "tables": table_rows(), "sources": literature()["sources"]}


def certificate_keys(path: Path) -> Iterator[tuple[FactKind, list[tuple[str, Any]]]]:
    """The fact chunks of a certificate file, as written (for a quick look, not a check)."""
    for frame, data in read_stream(path):
        if frame == "C":
            yield data


__all__ = [
    "DEFAULT_CYCLES",
    "CertificateCheck",
    "ManifestEntry",
    "ResultRow",
    "add_to_manifest",
    "board_of",
    "build_certificate",
    "check_certificate",
    "check_library",
    "fact_kind",
    "literature",
    "other_games",
    "outcome_of",
    "read_manifest",
    "result_rows",
    "results_payload",
    "shipped_library",
    "statement_of",
    "table_rows",
]
