"""The compiled assembly of a node's children from one land's moves and their move order
(_assemble.c) against the Python definitions (assemble.py): the same keys in the same order
with equal values, on the calls of real misère searches and on random input, and clear
errors on bad input."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sproutsdb.formats.rcttable import table_from_positions
from sproutsdb.solver.misere.assemble import (
    COMPILED,
    COMPILED_ORDER,
    assemble_land_moves,
    order_children,
)
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame

needs_compiled = pytest.mark.skipif(
    COMPILED is None or COMPILED_ORDER is None, reason="_assemble.c is not built"
)


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
    calls = {"all": 0, "with_rcts": 0, "keys": 0, "orders": 0}

    def checked(*args: Any) -> None:
        before = len(args[0])
        items = _both(*args)
        calls["all"] += 1
        calls["with_rcts"] += any(not isinstance(move, str) and move[3] for move in args[2])
        calls["keys"] += len(items) - before
        args[0].clear()
        args[0].update(items)

    def ordered(kids: Any, divisor: int, initials: Any) -> Any:
        assert COMPILED_ORDER is not None
        got = COMPILED_ORDER(kids, divisor, initials)
        assert got == order_children(kids, divisor, initials)
        calls["orders"] += 1
        return got

    solver._assemble = checked
    solver._order = ordered
    solver.outcome(f"0*{n}")
    assert calls["all"] > 1_000 and calls["with_rcts"] > 500 and calls["keys"] > 20_000
    assert calls["orders"] > 500


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


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(
    sizes=st.dictionaries(
        st.text(alphabet="ab!+é", max_size=3),
        st.tuples(
            st.tuples(st.integers(0, 9), st.integers(-3, 0), st.integers(0, 1), st.integers(-2, 9)),
            st.lists(handle, max_size=3).map(tuple),
        ),
        max_size=12,
    ),
    divisor=st.integers(1, 4),
)
def test_compiled_order_equals_python_on_random_input(
    sizes: dict[str, tuple[tuple[int, int, int, int], tuple[int, ...]]], divisor: int
) -> None:
    """Ties of size broken by key, negative parts, initial numbers looked up per δ."""
    assert COMPILED_ORDER is not None
    kids = {key: (size, ((key,), 0, rcts)) for key, (size, rcts) in sizes.items()}
    initials = {delta: (1, delta) for delta in range(1, 20)}
    assert COMPILED_ORDER(kids, divisor, initials) == order_children(kids, divisor, initials)


@needs_compiled
@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (({}, 2), TypeError, "3 arguments"),
        (({}, 0, {}), ValueError, "divisor must be positive"),
        (({"a": ((1, 2, 3), ((), 0, ()))}, 2, {}), TypeError, "kids maps str"),
        (({"a": ((1, 2, 3, "x"), ((), 0, ()))}, 2, {}), TypeError, "4 ints"),
        (({"a": ((1, 2, 3, 4), ((), 0, ()))}, 2, {}), KeyError, "1"),
    ],
)
def test_compiled_order_rejects_bad_input_with_an_error(
    args: tuple[Any, ...], error: type, match: str
) -> None:
    assert COMPILED_ORDER is not None
    with pytest.raises(error, match=match):
        COMPILED_ORDER(*args)
