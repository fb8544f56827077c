"""The misère solver's fast paths against their plain definitions: children assembled from
folded land moves (keys, parts and move order) and the memory bound of its tables."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import run_cli
from sproutsdb.formats.rcttable import RctTable, table_from_positions
from sproutsdb.solver.misere.assemble import COMPILED, Assembler, assemble_land_moves
from sproutsdb.solver.misere.keys import EMPTY_POSITION, PARITY_TOKEN
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.misere.solver import MisereSolver, Node, TableRcts, brute_force_misere
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.search.dfpn import DfpnSearch
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.sprouts.game import SproutsGame


@pytest.fixture(scope="module")
def game() -> SproutsGame:
    return SproutsGame()


@pytest.fixture(scope="module")
def s4(game: SproutsGame) -> RctTable:
    search = game_tree_rcts(game, game.canonical("0*4"))
    return table_from_positions(search.algebra, search.positions())


def _reference_children(solver: MisereSolver, node: Node) -> dict[str, Node]:
    """The children by definition: each move in each land, *1 -> 0, each RCT move,
    every one normalised from scratch by ``_make``."""
    lands, parity, rcts = node
    out: dict[str, Node] = {}
    for i, land in enumerate(lands):
        rest = lands[:i] + lands[i + 1 :]
        for kid in solver.game.component_children(land):
            child = solver._make(rest, kid, parity, rcts)
            out.setdefault(solver.key(child), child)
    if parity:
        child = Node(lands, 0, rcts)
        out.setdefault(solver.key(child), child)
    for j, handle in enumerate(rcts):
        for option in solver.algebra.children(handle):
            child = solver._make(lands, (), parity, rcts[:j] + rcts[j + 1 :], (option,))
            out.setdefault(solver.key(child), child)
    return out


ASSEMBLERS = [assemble_land_moves] + ([COMPILED] if COMPILED is not None else [])


@pytest.mark.parametrize("assembler", ASSEMBLERS, ids=lambda a: a.__module__)
@pytest.mark.parametrize("seed", range(3))
def test_children_from_folded_land_moves_match_the_definition(
    game: SproutsGame, s4: RctTable, seed: int, assembler: Assembler
) -> None:
    """Random walks from 0*5..0*8 (+ *1 + *2 + *3), with the S4 table: the same children,
    keys and move order as building every child from its lands, with the compiled
    assembler and its Python definition."""
    solver = MisereSolver(
        game, MemoryProofStore(), TableRcts(s4), options=SolveOptions(children_cache=8)
    )
    solver._assemble = assembler
    rng = random.Random(seed)
    checked = 0
    for n in (5, 6, 7, 8):
        for g in (0, 1, 2, 3):
            node = solver.add_nim(solver.node(f"0*{n}"), g)
            for _ in range(40):
                fast = solver._sized_children(node)
                slow = _reference_children(solver, node)
                assert fast.keys() == slow.keys()
                for key, (size, child) in fast.items():
                    assert child == slow[key] and solver.key(child) == key
                    assert size == solver._size(child)
                checked += len(fast)
                if not fast:
                    break
                node = rng.choice([child for _, child in fast.values()])
    assert checked > 500


def test_a_tiny_table_capacity_changes_no_outcome(game: SproutsGame) -> None:
    """Dropping proven wins and proof numbers (capacity 5) only costs re-proofs."""
    memo: dict[str, bool] = {}
    store = MemoryProofStore()
    # no table: more nodes
    solver = MisereSolver(game, store, options=SolveOptions(table_capacity=5))
    for position in ("0*4", "0*2+0.A|0.A", "0*2+12"):
        assert solver.outcome(position) == brute_force_misere(game, position, memo)
    assert solver.table_clears > 0
    assert all(value == "L" for value in store.get(FactKind.MISERE, list(solver._table)).values())
    with pytest.raises(ValueError, match="table_capacity"):
        MisereSolver(game, store, options=SolveOptions(table_capacity=0))


def test_tiny_memory_bounds_change_no_visit(
    game: SproutsGame, s4: RctTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The caches bounded for memory (keys asked of the store, lands' RCTs, lands' moves,
    children lists) only cost recomputation: at bounds of 2, 0*8 and 0*9 take the visits,
    outcomes and stored losing nodes of the defaults, and what is stored checks."""
    from sproutsdb.solver.misere import solver as module
    from sproutsdb.solver.misere.check import check_misere_with_cycles

    runs = []
    for tiny in (False, True):
        if tiny:
            monkeypatch.setattr(module, "ASKED_CAPACITY", 2)
            monkeypatch.setattr(module, "LAND_RCT_CAPACITY", 2)
        store = MemoryProofStore()
        solver = MisereSolver(
            game,
            store,
            TableRcts(s4),
            options=SolveOptions(children_cache=2 if tiny else None),
            node_cache=2 if tiny else module.DEFAULT_NODE_CACHE,
        )
        outcomes = [solver.outcome(position) for position in ("0*8", "0*9")]
        assert solver.stats.nodes > 100
        runs.append((outcomes, solver.stats.nodes, store.get(FactKind.MISERE, [*solver._table])))
        engine = MisereSolver(game, MemoryProofStore(), TableRcts(s4))
        for position, outcome in zip(("0*8", "0*9"), outcomes, strict=True):
            report, _ = check_misere_with_cycles(engine, store, position)
            assert report.ok and report.outcome == outcome
    assert runs[0] == runs[1]
    assert runs[0][0] == ["L", "L"]  # OEIS A164950


def test_proof_numbers_by_hash_change_no_visit(
    game: SproutsGame, s4: RctTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search keys its df-pn numbers by hash (memory): 0*8 and 0*9 take the visits,
    outcomes and stored losing nodes of a table keyed by the node keys."""
    from sproutsdb.solver.misere import solver as module

    class ByKey(DfpnSearch[Any]):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **{**kwargs, "hashed": False})

    runs = []
    for hashed in (True, False):
        if not hashed:
            monkeypatch.setattr(module, "DfpnSearch", ByKey)
        store = MemoryProofStore()
        solver = MisereSolver(game, store, TableRcts(s4))
        assert solver._dfpn.hashed is hashed
        outcomes = [solver.outcome(position) for position in ("0*8", "0*9")]
        runs.append((outcomes, solver.stats.nodes, store.get(FactKind.MISERE, [*solver._table])))
    assert runs[0] == runs[1] and runs[0][1] > 100


def test_cli_table_capacity(tmp_path: Path) -> None:
    """`solve --misere --table-capacity N` gives the same outcome; bad use is one line, exit 2
    (the flag bounds normal play's tables too)."""
    store = str(tmp_path / "store")
    done = run_cli(
        "solve", "0*5", "--misere", "--table-capacity", "3", "--json", "--quiet", "--store", store
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "W"
    for args, message in (
        (("--misere", "--table-capacity", "0"), "at least 1"),
        (("--table-capacity", "0"), "at least 1"),
    ):  # normal play's too
        bad = run_cli("solve", "0*4", *args, "--store", store)
        assert bad.returncode == 2 and message in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


def test_key_lives_by_characters_agrees_with_the_token_count(game: SproutsGame) -> None:
    """The move order's lives: the character count of plain keys equals the token count,
    on lands met below 0*5, 0*9 and sums, and other notations take the token path."""
    from sproutsdb.solver.sprouts.notation import _token_lives, key_lives

    lands: list[str] = []
    stack, seen = ["0*5", "0*9", "0*2+0.A|0.A", "1aa"], set()
    while stack and len(lands) < 3000:
        land = stack.pop()
        if land not in seen:
            seen.add(land)
            lands.append(land)
            stack.extend(part for kid in game.component_children(land) for part in kid)
    lands += ["!", "0*12", "0*3+1a1a", "AB.@3|AB", "2Z(25)|Z(25)"]
    assert all(key_lives(key) == _token_lives(key) for key in lands)
    assert key_lives("0*12") == 36 and key_lives("0.AB|2AB") == 6


@pytest.mark.parametrize("divisor", [1, 8])
def test_initial_delta_steers_the_search_only(
    game: SproutsGame, s4: RctTable, divisor: int
) -> None:
    """df-pn+'s initial δ (1 + lives // divisor + RCTs) changes visits, never an outcome."""
    memo: dict[str, bool] = {}
    solver = MisereSolver(game, MemoryProofStore(), TableRcts(s4), delta_divisor=divisor)
    for position in ("0*4", "0*2+0.A|0.A", "0*2+12"):
        assert solver.outcome(position) == brute_force_misere(game, position, memo)
    with pytest.raises(ValueError, match="delta_divisor"):
        MisereSolver(game, MemoryProofStore(), delta_divisor=0)


def test_the_collector_is_paused_only_while_searching(
    game: SproutsGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search pauses the cyclic garbage collector for its own duration, but for one full
    collection every FULL_COLLECTION_SECONDS: the collector is on again after a solve (and
    after one that raises), an off collector stays off, and the outcome is the reference's."""
    import gc

    from sproutsdb.solver.search import driver

    assert gc.isenabled()
    seen: list[bool] = []
    options = SolveOptions(progress=lambda _: seen.append(gc.isenabled()), progress_interval=0.0)
    solver = MisereSolver(game, MemoryProofStore(), options=options)
    assert solver.outcome("0*4") == brute_force_misere(game, "0*4")
    assert len(seen) > 1 and not any(seen[:-1])  # the last report comes after the search
    assert gc.isenabled()
    with pytest.raises(RuntimeError), driver.QuietCollector().paused():
        raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with driver.QuietCollector().paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    monkeypatch.setattr(driver, "FULL_COLLECTION_SECONDS", 0.0)  # a collection at every visit
    # counted, not run: a full collection walks the whole heap of this test process (under
    # xdist, the tables of every file it ran before), which made this test minutes long
    calls: list[int] = []
    monkeypatch.setattr(driver.gc, "collect", lambda *_: calls.append(1) or 0)
    collecting = MisereSolver(game, MemoryProofStore())
    assert collecting.outcome("0*4") == brute_force_misere(game, "0*4")
    assert collecting._collector.collections == collecting.stats.nodes == len(calls)
    quiet = driver.QuietCollector(every=3600.0)
    quiet.tick()  # outside `paused`, never
    with quiet.paused():
        quiet.tick()  # not due yet
    assert quiet.collections == 0


def test_a_lone_search_reads_the_store_whole_once(
    game: SproutsGame, s4: RctTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search that is its store's only writer reads every misère fact once instead of
    asking key by key; a search that meets other solvers (share_seconds), or a store over
    the limit, asks key by key. Either way the stored facts are used and the answer holds,
    and a value that is not an outcome is refused as a key-by-key read refuses it."""
    from sproutsdb.solver.misere import solver as misere
    from sproutsdb.solver.misere.solver import MisereConflictError

    first_store = MemoryProofStore()
    first = MisereSolver(game, first_store, TableRcts(s4))
    expected = first.outcome("0*8")
    assert first.stats.store_reads == 0  # an empty store, read whole: nothing to ask

    def rerun(store: MemoryProofStore, **kwargs: Any) -> MisereSolver:
        solver = MisereSolver(game, store, TableRcts(s4), **kwargs)
        assert solver.outcome("0*8") == expected
        return solver

    def copy() -> MemoryProofStore:
        store = MemoryProofStore()
        store.put(FactKind.MISERE, dict(first_store.iter_facts(FactKind.MISERE)))
        return store

    whole = rerun(copy())
    assert whole.stats.store_reads == 0 and whole.stats.nodes < first.stats.nodes
    shared = rerun(copy(), share_seconds=3600.0)
    assert shared.stats.store_reads > 0 and shared.stats.nodes == whole.stats.nodes
    monkeypatch.setattr(misere, "READ_ALL_LIMIT", 0)
    asked = rerun(copy())
    assert asked.stats.store_reads > 0 and asked.stats.nodes == whole.stats.nodes
    monkeypatch.undo()
    lying = MemoryProofStore()  # a "fact" against the rules, on a node they decide: unused
    lying.put(FactKind.MISERE, {f"{EMPTY_POSITION} {PARITY_TOKEN}": "W"})
    assert MisereSolver(game, lying, TableRcts(s4)).outcome("0*9") == "L"  # (taken: W)
    forged = copy()
    forged.put(FactKind.MISERE, {"0*7": "5"})
    with pytest.raises(MisereConflictError, match="is '5'"):
        rerun(forged)
