"""Misère node keys: split and join round-trip, every malformation named precisely, and
the keys the solver writes are all well-formed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sproutsdb.formats.rcttable import table_from_positions
from sproutsdb.solver.cgt.ident import is_content_id, nim_id, tree_id
from sproutsdb.solver.misere.keys import join_node_key, split_node_key
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
from sproutsdb.solver.ports.game import NotationError
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame

A = tree_id(["*0"])
B = tree_id(["*1", "*2"])


def test_split_examples() -> None:
    assert split_node_key("0*12") == ("0*12", 0, ())
    assert split_node_key("0*2.A|0.A *1") == ("0*2.A|0.A", 1, ())
    assert split_node_key(f"! *1 *2 {min(A, B)} {max(A, B)}") == (
        "!",
        1,
        ("*2", min(A, B), max(A, B)),
    )
    assert split_node_key(f"0*5+0.1a1a {A} {A}") == ("0*5+0.1a1a", 0, (A, A))  # repeats
    assert split_node_key("! *1") == ("!", 1, ())
    assert split_node_key("! *10 *2") == ("!", 0, ("*10", "*2"))  # string order


def test_join_sorts_and_round_trips() -> None:
    assert join_node_key("0*5", 0, ()) == "0*5"
    assert join_node_key("", 1, [B, "*4", A]) == "! *1 " + " ".join(sorted([B, "*4", A]))
    assert join_node_key("!", 0, ["*2", "*10"]) == "! *10 *2"
    with pytest.raises(ValueError, match="parity is 0 or 1"):
        join_node_key("0*5", 2, ())
    with pytest.raises(NotationError, match="alone is no misère node key"):
        join_node_key("!", 0, ())
    with pytest.raises(NotationError, match="'\\*0'"):
        join_node_key("0*5", 0, ["*0"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the empty string is not a misère node key"),
        ("!", "'!' alone is no misère node key"),
        ("0*5  *1", "empty token at column 5 of '0\\*5  \\*1'"),
        (" 0*5", "empty token at column 1"),
        ("0*5 ", "empty token at column 5"),
        ("0*5 *1 *1", "'\\*1' twice at column 8"),
        ("0*5 *2 *1", "'\\*1' out of place at column 8"),
        ("*1 *2", "starts with its position part .* not with '\\*1' at column 1"),
        (f"{A} *1", "starts with its position part"),
        ("0*5 *1 rct1:XYZ", "'rct1:XYZ' at column 8 .* is neither '\\*1' nor an RCT content id"),
        ("0*5 rct1:" + "0" * 31, "is neither"),
        ("0*5 RCT1:" + "0" * 32, "is neither"),
        ("0*5 *02", "is neither"),
        ("0*5 0*6", "is neither"),
        ("0*5 *0", "'\\*0' at column 5 .*leave it out"),
        ("0*5 *3", "'\\*3' at column 5 .* is \\*2 \\+ \\*1"),
        (f"! {max(A, B)} {min(A, B)}", "content ids out of order at column 41"),
        ("! *2 *10", "content ids out of order"),
    ],
)
def test_malformed_keys_are_named_precisely(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        split_node_key(text)


def test_a_key_is_text() -> None:
    with pytest.raises(NotationError, match="is text, got int"):
        split_node_key(5)  # type: ignore[arg-type]


positions = st.sampled_from(["!", "0", "0*5", "0*2.A|0.A", "0*3+0.1a1a", "2ab2ba.}]"])
nim_ids = st.integers(1, 10**6).map(lambda k: nim_id(2 * k))
tree_ids = st.lists(st.sampled_from(["*0", "*1", "*2", "*4", A]), max_size=4).map(tree_id)
cid_lists = st.lists(st.one_of(nim_ids, tree_ids), max_size=6)


@given(positions, st.integers(0, 1), cid_lists)
def test_split_inverts_join(position: str, parity: int, cids: list[str]) -> None:
    if position == "!" and not parity and not cids:
        return
    key = join_node_key(position, parity, cids)
    assert split_node_key(key) == (position, parity, tuple(sorted(cids)))
    assert join_node_key(*split_node_key(key)) == key
    assert all(is_content_id(c) for c in split_node_key(key)[2])


def test_every_key_the_solver_stores_is_well_formed() -> None:
    game = SproutsGame()
    search = game_tree_rcts(game, game.canonical("0*4"))
    table = table_from_positions(search.algebra, search.positions())
    store = MemoryProofStore()
    solver = MisereSolver(game, store, TableRcts(table))
    assert solver.outcome("0*6") == "W"
    for g in range(4):
        solver.outcome_plus_nim("0*3+0*2", g)
    keys = list(store._facts[FactKind.MISERE])  # the in-memory store's dict
    assert any(" " in key for key in keys)
    for key in keys:
        assert join_node_key(*split_node_key(key)) == key
        assert solver.key(solver.parse_node(key)) == key
