"""The compiled assembly of a node's children from one land's moves (_assemble.c) against
its Python definition (assemble.py): the same keys in the same order with equal values, on
the calls of real misère searches and on random input, and clear errors on bad input."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sproutsdb.formats.rcttable import table_from_positions
from sproutsdb.solver.misere.assemble import COMPILED, assemble_land_moves
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame

needs_compiled = pytest.mark.skipif(COMPILED is None, reason="_assemble.c is not built")


def _both(*args: Any) -> list[tuple[str, Any]]:
    """Run both assemblers on copies of the same ``out`` and return the C one's items,
    after asserting the two agree item by item, in order."""
    assert COMPILED is not None
    out, rest = args[0], args[1:]
    by_python, by_c = dict(out), dict(out)
    assemble_land_moves(by_python, *rest)
    COMPILED(by_c, *rest)
    assert list(by_c.items()) == list(by_python.items())
    return list(by_c.items())


@needs_compiled
@pytest.mark.parametrize("n", [9, 10])
def test_compiled_equals_python_on_a_real_search(n: int) -> None:
    """Every call a misère search of 0*n makes (with the S4 table, so that moves carry
    RCTs, parity flips and nimbers) gives the same children both ways."""
    game = SproutsGame()
    search = game_tree_rcts(game, game.canonical("0*4"))
    table = table_from_positions(search.algebra, search.positions())
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(table))
    calls = {"all": 0, "with_rcts": 0, "keys": 0}

    def checked(*args: Any) -> None:
        before = len(args[0])
        items = _both(*args)
        calls["all"] += 1
        calls["with_rcts"] += any(not isinstance(move, str) and move[3] for move in args[2])
        calls["keys"] += len(items) - before
        args[0].clear()
        args[0].update(items)

    solver._assemble = checked
    solver.outcome(f"0*{n}")
    assert calls["all"] > 1_000 and calls["with_rcts"] > 500 and calls["keys"] > 20_000


land = st.text(alphabet="0.ABab|+", min_size=1, max_size=4)
lands = st.lists(land, max_size=4).map(tuple)
handle = st.integers(2, 9)
move = st.one_of(
    land,
    st.tuples(
        lands,
        st.integers(0, 9),
        st.integers(0, 1),
        st.lists(handle, max_size=3).map(tuple),
        st.integers(0, 7),
        st.integers(0, 20),
    ),
)
# content ids with ties (two handles of one id) and non-ASCII text, to reach both key paths
cid = st.fixed_dictionaries(
    {h: st.sampled_from(["a1", "b2", "b2", "c3", "é4"]) for h in range(2, 10)}
)


@needs_compiled
@settings(max_examples=400, deadline=None)
@given(
    rest=st.one_of(lands, lands.map(lambda t: tuple(sorted(t)))),
    moves=st.lists(move, max_size=8),
    as_bytes=st.booleans(),
    parity=st.integers(0, 1),
    rcts=st.lists(handle, max_size=3).map(tuple),
    cid=cid,
    rct_nimber=st.integers(0, 7),
    rct_height=st.integers(0, 9),
    seen=st.lists(land, max_size=2),
)
def test_compiled_equals_python_on_random_input(
    rest: tuple[str, ...],
    moves: list[Any],
    as_bytes: bool,
    parity: int,
    rcts: tuple[int, ...],
    cid: dict[int, str],
    rct_nimber: int,
    rct_height: int,
    seen: list[str],
) -> None:
    """Unsorted lands, tied and non-ASCII ids, lives as bytes or ints, keys already present."""
    lives = [len(m) if isinstance(m, str) else m[1] for m in moves]
    tail = "".join(" " + cid[h] for h in rcts)
    out = {key: ((0, 0, 0, 0), ((key,), 0, ())) for key in seen}
    _both(
        out,
        rest,
        tuple(moves),
        bytes(lives) if as_bytes else tuple(lives),
        5,
        parity,
        rcts,
        (tail, " *1" + tail),
        rct_nimber,
        rct_height,
        cid,
    )


@needs_compiled
@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (({}, (), ("a",), (1,), 0, 0, (), ("", "")), TypeError, "11 arguments"),
        (({}, ("a", 3), ("b",), (1,), 0, 0, (), ("", ""), 0, 0, {}), TypeError, "must be str"),
        (({}, (), (("a",),), (1,), 0, 0, (), ("", ""), 0, 0, {}), TypeError, "a move is a str"),
        (
            ({}, (), ((("a",), 1, 0, (7,), 0, 0),), (1,), 0, 0, (), ("", ""), 0, 0, {}),
            KeyError,
            "7",
        ),
        (({}, (), ("a",), ("x",), 0, 0, (), ("", ""), 0, 0, {}), TypeError, "lives"),
        (([], (), ("a",), (1,), 0, 0, (), ("", ""), 0, 0, {}), TypeError, "assemble_land_moves"),
    ],
)
def test_compiled_rejects_bad_input_with_an_error(
    args: tuple[Any, ...], error: type, match: str
) -> None:
    assert COMPILED is not None
    with pytest.raises(error, match=match):
        COMPILED(*args)
