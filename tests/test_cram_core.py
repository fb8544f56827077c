"""Cram's compiled core (_cram.c) against the Python engine it twins (canon.py, game.py).

The Python definitions are the specification: on random boards of up to 8 x 8 with random
filled cells the core must give the same canonical shapes, the same lands (the same cut
shapes in the same order), the same canonical keys and the same children of every land, in
the same order. Boards that do not fit one 64-bit grid mask (h·(w+1) > 64) are refused by
the core (None) and the engine takes the Python path. The engine without the core
(`CramGame(core=False)`, or SPROUTSDB_PURE_PYTHON=1 for a whole process) still gives the
same answers, and the published nimbers come out of the core's path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sproutsdb.games import get_game
from sproutsdb.solver.cram import canon, game
from sproutsdb.solver.cram.canon import canonical_shape, cut, fits, grid_mask, lands_of
from sproutsdb.solver.cram.game import CramGame
from sproutsdb.solver.cram.notation import Shape, format_shape
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import MemoryProofStore

ROOT = Path(__file__).resolve().parents[1]
CORE = canon.CORE
PYTHON = CramGame(core=False)
needs_core = pytest.mark.skipif(CORE is None, reason="the Cram core is not built")


@st.composite
def boards(draw: st.DrawFn, most: int = 8) -> Shape:
    """A board of 1..most rows and columns, each cell free or filled (mostly free)."""
    height = draw(st.integers(1, most))
    width = draw(st.integers(1, most))
    density = draw(st.sampled_from([0.5, 0.75, 0.9, 1.0]))
    cells = draw(st.lists(st.floats(0, 1), min_size=height * width, max_size=height * width))
    rows = []
    for r in range(height):
        row = 0
        for c in range(width):
            row = (row << 1) | (cells[r * width + c] < density)
        rows.append(row)
    return height, width, tuple(rows)


def text_of(shape: Shape) -> str:
    """A board's text, as written (not cut, not canonical)."""
    _, width, rows = shape
    return "/".join(format(row, f"0{width}b").replace("1", ".").replace("0", "#") for row in rows)


def python_keys(shape: Shape) -> list[str]:
    """The keys of a board's lands by the Python definitions, lowest cell first."""
    mask, stride = grid_mask(shape)
    return [format_shape(canonical_shape(cut(land, stride))) for land in lands_of(mask, stride)]


@needs_core
@settings(max_examples=400, deadline=None)
@given(shape=boards())
def test_the_canonical_shape_is_the_pythons(shape: Shape) -> None:
    assert CORE is not None
    assert CORE.canonical_shape(*shape) == canonical_shape(shape)
    mask, stride = grid_mask(shape)
    for land in lands_of(mask, stride):  # and of every land, cut as the engine cuts it
        piece = cut(land, stride)
        assert CORE.canonical_shape(*piece) == canonical_shape(piece)


@needs_core
@settings(max_examples=400, deadline=None)
@given(shape=boards())
def test_the_lands_are_the_pythons(shape: Shape) -> None:
    assert CORE is not None
    height, width, _ = shape
    found = CORE.lands(*shape)
    if not fits(height, width):
        assert found is None
        return
    mask, stride = grid_mask(shape)
    assert found == [cut(land, stride) for land in lands_of(mask, stride)]


@needs_core
@settings(max_examples=400, deadline=None)
@given(shape=boards())
def test_the_canonical_keys_are_the_pythons(shape: Shape) -> None:
    assert CORE is not None
    height, width, _ = shape
    found = CORE.board_keys(*shape)
    if fits(min(height, width), max(height, width)):
        assert found is not None and sorted(found) == sorted(python_keys(shape))
    else:
        assert found is None
    text = text_of(shape)
    assert CramGame().canonical(text) == PYTHON.canonical(text)


@needs_core
@settings(max_examples=300, deadline=None)
@given(shape=boards())
def test_the_children_of_every_land_are_the_pythons_in_the_same_order(shape: Shape) -> None:
    assert CORE is not None
    engine = CramGame()
    for key in set(python_keys(shape)):
        expected = PYTHON.component_children(key)
        height, width = PYTHON.shape(key)[:2]
        assert CORE.land_children(key) == (expected if fits(height, width) else None)
        assert engine.component_children(key) == expected
    # the text of the whole board too (not cut, perhaps several lands, lone cells)
    text = text_of(shape)
    expected = PYTHON._land_children(text)
    assert CORE.land_children(text) == (expected if fits(shape[0], shape[1]) else None)


@needs_core
@settings(max_examples=100, deadline=None)
@given(shape=boards(7))
def test_the_children_of_a_sum_are_the_pythons(shape: Shape) -> None:
    key = PYTHON.canonical(text_of(shape) + "+1x3+" + text_of(shape))
    assert CramGame().children(key) == PYTHON.children(key)


@needs_core
def test_the_core_refuses_what_does_not_fit_one_grid_mask() -> None:
    assert CORE is not None
    for key in ("8x8", "1x64", "2x32", "5x12", "4x16", "64x1", "0x5", "", "x", "3x", "x3"):
        assert CORE.land_children(key) is None, key
    for key in ("../...", "..//..", "2x2+1x2", "../.a", " 2x2", "/..", "../"):
        assert CORE.land_children(key) is None, key
    for key in ("7x7", "7x8", "1x63", "2x31", "4x15", "8x7"):
        assert CORE.land_children(key) == PYTHON.component_children(key), key
    assert CORE.board_keys(8, 8, (255,) * 8) is None
    assert CORE.board_keys(15, 4, (15,) * 15) == ["4x15"]  # transposed to fit
    with pytest.raises(OverflowError):
        CORE.lands(1, 64, ((1 << 64) - 1,))
    with pytest.raises(ValueError):
        CORE.lands(2, 3, (7,))
    with pytest.raises(ValueError):
        CORE.canonical_shape(1, 3, (8,))


@needs_core
def test_larger_boards_take_the_python_path_with_the_same_answers() -> None:
    engine = CramGame()
    assert engine.canonical("9x9+3x30") == PYTHON.canonical("9x9+3x30") == "3x30+9x9"
    assert engine.component_children("8x8") == PYTHON.component_children("8x8")
    assert len(engine.children("32x32")) == 256


def test_the_engine_says_which_path_it_takes() -> None:
    assert game.IMPLEMENTATION == ("python" if CORE is None else "c")
    assert get_game("cram").implementation == game.IMPLEMENTATION
    if CORE is not None:
        assert CORE.CANON_VERSION == canon.CANON_VERSION


def test_the_python_fallback_gives_the_same_answers() -> None:
    """Every land met below 4x5 and 3x6, by the default engine and by the Python one."""
    engine = CramGame()
    todo, seen = ["4x5", "3x6", "#../...+2x2"], set()
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        assert engine.children(key) == PYTHON.children(key)
        for child in PYTHON.children(key):
            todo.extend(PYTHON.components(child))
    assert len(seen) > 200


def test_a_process_with_pure_python_asked_for_runs_the_python_engine() -> None:
    script = (
        "import json\n"
        "from sproutsdb.solver.cram import canon, game\n"
        "g = game.CramGame()\n"
        "print(json.dumps([game.IMPLEMENTATION, canon.CORE is None, g.canonical('..#/#.#/...'),"
        " g.children('4x4')]))\n"
    )
    env = {**os.environ, "SPROUTSDB_PURE_PYTHON": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    implementation, no_core, key, children = json.loads(done.stdout)
    assert implementation == "python" and no_core
    assert key == PYTHON.canonical("..#/#.#/...") == CramGame().canonical("..#/#.#/...")
    assert children == PYTHON.children("4x4") == CramGame().children("4x4")


@pytest.mark.parametrize(("board", "nimber"), [("4x5", 2), ("4x6", 0), ("5x5", 0)])
def test_the_python_fallback_solves_small_boards(board: str, nimber: int) -> None:
    solver = NormalSolver(PYTHON, MemoryProofStore())
    assert solver.nimber(PYTHON.canonical(board)) == nimber


def solve_by_the_core(board: str) -> int:
    engine = CramGame()
    solver = NormalSolver(engine, MemoryProofStore())
    return solver.nimber(engine.canonical(board))


@needs_core
def test_four_by_seven_by_the_core() -> None:  # ~2 s (~4 s by the Python engine)
    assert solve_by_the_core("4x7") == 3


@needs_core
@pytest.mark.slow
@pytest.mark.parametrize(("board", "nimber"), [("5x6", 2), ("5x7", 1)])
def test_published_values_by_the_core(board: str, nimber: int) -> None:  # 4-11 s, 17-46 s
    assert solve_by_the_core(board) == nimber


def test_a_failed_build_of_the_core_says_the_python_engine_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    from setuptools import Distribution

    spec = importlib.util.spec_from_file_location("sproutsdb_setup_cram", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)  # not __main__: no stubs generated, no setup() run
    cram = setup.CRAM  # type: ignore[attr-defined]
    assert cram.name == "sproutsdb.solver.cram._cram"
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CC", "false")  # a compiler that always fails
    dist = Distribution(
        {
            "name": "sproutsdb",
            "ext_modules": [cram],
            "cmdclass": {"build_ext": setup.OptionalBuildExt},  # type: ignore[attr-defined]
        }
    )
    command = dist.get_command_obj("build_ext")
    command.build_lib = str(tmp_path / "lib")  # type: ignore[attr-defined]
    command.build_temp = str(tmp_path / "tmp")  # type: ignore[attr-defined]
    command.ensure_finalized()
    command.run()
    assert not list(tmp_path.rglob("*.so"))
    assert "the Cram core could not be compiled" in capsys.readouterr().err
