"""Import files fuzzed: `.spr` and native exports truncated, garbled, with enormous lines.

`sproutsdb import` (run in this process through the CLI's own entry point, so every example
is cheap) must refuse a bad file with exit 2 and exactly one line on stderr, and write
nothing: no store is created. A mutated `.spr` file may still be a valid one; then the
import succeeds, and anything else it does is the same refusal.
"""

from __future__ import annotations

import contextlib
import io
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sproutsdb.ops import export_store
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore
from sproutsdb.tools import cli
from wire_fuzz import mutate

EXAMPLES = 30
HEADER = "[Positions+Nimber]\n"
GOOD_LINES = ["0*3 1", "0.AB|AB 1", "0*2 0", "1a1a 0"]
NOTATION = "012aAbB.|+!*@{}]}Z()n"


def run_import(path: Path, work: Path) -> tuple[int, str, Path]:
    """`sproutsdb import PATH` into a new store under work: exit code, stderr, store."""
    store = Path(tempfile.mkdtemp(dir=work)) / "store"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(
            [
                "import",
                str(path),
                "--store",
                str(store),
                "--quiet",
                "--staging-dir",
                str(store.parent),
            ]
        )
    return code, err.getvalue(), store


def assert_refused(code: int, stderr: str, store: Path, what: str) -> None:
    assert code == 2, (what, stderr[:300])
    assert len(stderr.splitlines()) == 1 and stderr.endswith("\n"), (what, stderr[:300])
    assert "Traceback" not in stderr and len(stderr) < 2000, (what, stderr[:300])
    assert not store.exists(), f"{what}: a store was created by a refused import"


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-import")


@pytest.fixture(scope="module")
def native(work: Path) -> bytes:
    """A real native export: the facts of 0*5 and a misère fact."""
    source = work / "source"
    with LmdbProofStore.open(
        source, game="sprouts", canon_version=CANON_VERSION, durable=False
    ) as store:
        solver = NormalSolver(SproutsGame(), store)
        solver.nimber("0*5")
        solver.flush()
        store.put(FactKind.MISERE, {"0*2": "L"})
        export_store(store, work / "good.spdbx")
    return (work / "good.spdbx").read_bytes()


@contextlib.contextmanager
def scratch(work: Path) -> Iterator[Path]:
    where = Path(tempfile.mkdtemp(dir=work))
    try:
        yield where
    finally:
        shutil.rmtree(where, ignore_errors=True)


# --- native exports ---------------------------------------------------------------------------


def native_damage(good: bytes) -> st.SearchStrategy[bytes]:
    cut = st.integers(0, len(good) - 1).map(lambda i: good[:i])
    mutated = st.integers(0, 1 << 30).map(lambda seed: mutate(good, random.Random(seed)))
    enormous = st.integers(0, len(good)).map(
        lambda i: good[:i] + b"x" * 3_000_000 + b"\n" + good[i:]
    )
    return st.one_of(cut, mutated, enormous, st.binary(max_size=300))


def test_damaged_native_exports_are_refused_and_write_nothing(native: bytes, work: Path) -> None:
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=native_damage(native))
    def one(data: bytes) -> None:
        assert data != native
        with scratch(work) as where:
            path = where / "bad.spdbx"
            path.write_bytes(data)
            assert_refused(*run_import(path, where), what=f"{len(data)} bytes")

    one()


# --- .spr ---------------------------------------------------------------------------------------


def bad_spr_line() -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.sampled_from(
            [
                b"0*3\xff 1",
                b"\xc3\x28 0",
                b"0*3 1\xfe",
                b"0*3\x00 1",
                b"0.A",
                b"0*3",
                b"0*3 1 2",
                b"0*3 -1",
                b"0*3 " + b"9" * 100_000,
                b"! 3",
                b"0*3 one",
                b"0*3 1e3",
            ]
        ),
        st.builds(
            lambda c, n: c * n + b" 1",
            st.sampled_from([b"0", b"A", b"{", b"]", b"|", b"a"]),
            st.integers(10_000, 1_000_000),
        ),
        st.text(alphabet=NOTATION, min_size=1, max_size=40)
        .map(lambda t: t.encode() + b" 1")
        .filter(lambda b: not _valid_line(b)),
    )


_GAME = SproutsGame()


def _valid_line(line: bytes) -> bool:
    try:
        position = line.decode().split()[0]
        return bool(_GAME.canonical(position.replace("n(", "Z(")))
    except Exception:  # noqa: BLE001 - any failure means the line is bad
        return False


def test_bad_spr_lines_are_refused_with_one_line_and_write_nothing(work: Path) -> None:
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        before=st.lists(st.sampled_from(GOOD_LINES), max_size=3),
        bad=bad_spr_line(),
        truncated=st.booleans(),
    )
    @example(before=["0*3 1"], bad=b"0*3 " + b"9" * 100_000, truncated=False)  # int() limit
    @example(before=[], bad=b"0" * 1_000_000 + b" 1", truncated=False)  # a 1 MB message
    def one(before: list[str], bad: bytes, truncated: bool) -> None:
        data = (HEADER + "".join(f"{line}\n" for line in before)).encode() + bad
        if not truncated:
            data += b"\n"
        with scratch(work) as where:
            path = where / "bad.spr"
            path.write_bytes(data)
            assert_refused(*run_import(path, where), what=repr(bad[:60]))

    one()


def test_mutated_spr_files_import_or_are_refused_cleanly(work: Path) -> None:
    good = (HEADER + "".join(f"{line}\n" for line in GOOD_LINES)).encode()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(seed=st.integers(0, 1 << 30))
    def one(seed: int) -> None:
        data = mutate(good, random.Random(seed))
        with scratch(work) as where:
            path = where / "any.spr"
            path.write_bytes(data)
            code, stderr, store = run_import(path, where)
            if code != 0:
                assert_refused(code, stderr, store, what=repr(data[:80]))

    one()


# --- forged native exports: valid streams, any keys -----------------------------------------


def forged_export(path: Path, facts: dict[FactKind, list[tuple[str, object]]]) -> None:
    """A well-formed, checksummed export at this canonical-form version holding `facts`."""
    from sproutsdb.formats.exchange import KINDS, ExportWriter

    with open(path, "wb") as handle:
        writer = ExportWriter(
            handle,
            {
                "schema": 1,
                "game": "sprouts",
                "canon_version": CANON_VERSION,
                "counts": {kind.value: len(facts.get(kind, [])) for kind in KINDS},
                "provenance": {"exported_by": {"who": "fuzz", "when": "now"}},
            },
        )
        for kind in KINDS:
            writer.write_facts(kind, facts.get(kind, []))
        writer.close()


def _canonical_or_none(kind: FactKind, key: str) -> str | None:
    from sproutsdb.solver.misere.keys import join_node_key, split_node_key

    try:
        if kind is FactKind.MISERE:
            part, parity, cids = split_node_key(key)
            position = part if part == "!" else _GAME.canonical(part)
            return join_node_key(position, parity, cids)
        canon = key if key == "!" else _GAME.canonical(key)
        if kind is FactKind.NIMBER and len(_GAME.components(canon)) != 1:
            return None
        return canon
    except Exception:  # noqa: BLE001 - any failure means no key
        return None


def test_forged_keys_are_stored_canonical_or_the_file_is_refused(work: Path) -> None:
    """Whatever keys a well-formed file holds, an import stores only canonical keys (each
    the canonical form of a file key) or refuses the file, writing nothing."""
    position = st.one_of(
        st.text(alphabet=NOTATION, min_size=1, max_size=24),
        st.sampled_from(["0*3", "0.BA|BA", "AB|0.AB", "a1a1", "1+0*2", "!", "0*2+0*3"]),
    )
    node = st.builds(
        lambda p, parity: p + (" *1" if parity else ""), position, st.booleans()
    ) | st.text(alphabet=NOTATION + " ", min_size=1, max_size=24)
    outcomes = {"imported": 0, "refused": 0}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        nimbers=st.lists(st.tuples(position, st.integers(0, 5)), max_size=4),
        nodes=st.lists(st.tuples(node, st.sampled_from(["L", "W"])), max_size=3),
    )
    @example(nimbers=[("0.BA|BA", 1), ("AB|0.AB", 1), ("a1a1", 0)], nodes=[("a1a1 *1", "W")])
    def one(nimbers: list[tuple[str, int]], nodes: list[tuple[str, str]]) -> None:
        facts: dict[FactKind, list[tuple[str, object]]] = {
            FactKind.NIMBER: list(dict(nimbers).items()),
            FactKind.MISERE: list(dict(nodes).items()),
        }
        with scratch(work) as where:
            path = where / "forged.spdbx"
            forged_export(path, facts)
            code, stderr, store = run_import(path, where)
            expected = {
                kind: {_canonical_or_none(kind, key) for key, _ in items}
                for kind, items in facts.items()
            }
            if any(None in keys for keys in expected.values()):
                assert_refused(code, stderr, store, what=repr(facts)[:200])
                outcomes["refused"] += 1
                return
            assert code in (0, 3), stderr
            with LmdbProofStore.open(
                store, game="sprouts", canon_version=CANON_VERSION, readonly=True
            ) as db:
                for kind, keys in expected.items():
                    assert {key for key, _ in db.iter_facts(kind)} <= keys
            outcomes["imported"] += 1

    one()
    assert outcomes["imported"] and outcomes["refused"], outcomes
