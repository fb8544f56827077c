"""Normal-play solver and its ProofStore: what lands in the store, reuse, batching, conflicts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from normal_games import grundy_moves, grundys_game, kayles, mex_table
from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.normal.solver import (
    SEARCHES,
    ConflictError,
    InconsistentFactError,
    NimberConflictError,
    NormalSolver,
    Progress,
    StoreFormatError,
)
from sproutsdb.solver.ports.proofstore import (
    FactKind,
    FactValue,
    ListedProofStore,
    MemoryProofStore,
    PutResult,
)
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.search.table import TranspositionTable
from sproutsdb.solver.sprouts.game import SproutsGame

GAME = grundys_game()
TRUTH = mex_table(grundy_moves, 80)
ROOT = GAME.join([GAME.heap(80), GAME.heap(61)])


class RecordingStore(MemoryProofStore):
    """A MemoryProofStore that remembers the size of every get and put batch."""

    def __init__(self) -> None:
        super().__init__()
        self.gets: list[int] = []
        self.puts: list[int] = []
        self.flushes = 0

    def get(self, kind: FactKind, keys: Sequence[str]) -> dict[str, FactValue]:
        self.gets.append(len(keys))
        return super().get(kind, keys)

    def put(self, kind: FactKind, items: Mapping[str, FactValue]) -> PutResult:
        self.puts.append(len(items))
        return super().put(kind, items)

    def flush(self) -> None:
        self.flushes += 1


class UnlistedRecordingStore(RecordingStore):
    """A RecordingStore that cannot count or list its facts (as a server's store cannot)."""

    count = None  # type: ignore[assignment]
    iter_facts = None  # type: ignore[assignment]


def stored(store: MemoryProofStore) -> dict[str, FactValue]:
    return store.get(FactKind.NIMBER, [GAME.heap(n) for n in range(81)])


def test_stored_facts_are_exactly_losing_couples_of_single_components() -> None:
    store = MemoryProofStore()
    solver = NormalSolver(GAME, store)
    answer = solver.outcome(ROOT)
    assert answer == ("L" if TRUTH[80] == TRUTH[61] else "W")
    facts = stored(store)
    assert len(facts) == store.count(FactKind.NIMBER) == solver.stats.facts_stored > 0
    for key, value in facts.items():
        assert GAME.components(key) == (key,)
        assert value == TRUTH[int(key[1:])]
    assert store.count(FactKind.MISERE) == store.count(FactKind.RCT) == 0


def test_stored_facts_form_a_certificate_the_checker_accepts() -> None:
    store = MemoryProofStore()
    solver = NormalSolver(GAME, store)
    solver.position_nimber(ROOT)
    report = Checker(GAME, store).check(ROOT)
    assert report.ok and report.nimber == TRUTH[80] ^ TRUTH[61]
    facts = stored(store)
    assert Checker(GAME, store).check_facts(facts).verified == facts


# Visits of a second solver that re-proves only the roots, one level above stored facts:
# depth-first expands each root couple once; df-pn also visits each root couple (C, n) it
# tries (n = 0, 1, ... up to the nimber), once per couple.
SECOND_RUN_NODES = {"dfs": 20, "dfpn": 30}


@pytest.mark.parametrize("search", SEARCHES)
def test_a_second_solver_on_the_same_store_barely_searches(search: str) -> None:
    store = MemoryProofStore()
    first = NormalSolver(GAME, store, search=search)
    expected = first.position_nimber(ROOT)
    second = NormalSolver(GAME, store, search=search)
    assert second.position_nimber(ROOT) == expected
    # Only the asked components are proven again, one level above stored facts.
    assert second.stats.nodes <= SECOND_RUN_NODES[search]
    assert 10 * second.stats.nodes < first.stats.nodes
    assert second.stats.facts_stored == 0
    trusting = NormalSolver(GAME, store, options=SolveOptions(reprove_roots=False), search=search)
    assert trusting.position_nimber(ROOT) == expected
    assert trusting.stats.nodes == 0


def test_an_interrupted_run_resumes_from_its_stored_facts() -> None:
    class Stop(Exception):
        pass

    def stop_after_some_work(progress: Progress) -> None:
        if progress.nodes >= 150:
            raise Stop

    store = RecordingStore()
    killed = NormalSolver(
        GAME,
        store,
        options=SolveOptions(batch_size=4, progress=stop_after_some_work, progress_interval=0.0),
    )
    with pytest.raises(Stop):
        killed.position_nimber(ROOT)
    saved = stored(store)
    assert saved and all(value == TRUTH[int(key[1:])] for key, value in saved.items())
    resumed = NormalSolver(GAME, store)
    assert resumed.position_nimber(ROOT) == TRUTH[80] ^ TRUTH[61]
    fresh = NormalSolver(GAME, MemoryProofStore())
    fresh.position_nimber(ROOT)
    assert resumed.stats.nodes < fresh.stats.nodes


def test_reads_and_writes_are_batched() -> None:
    store = UnlistedRecordingStore()
    assert not isinstance(store, ListedProofStore)
    solver = NormalSolver(GAME, store, options=SolveOptions(batch_size=7))
    solver.position_nimber(ROOT)
    facts = solver.stats.facts_stored
    assert all(size <= 7 for size in store.puts)
    assert sum(store.puts) == facts and len(store.puts) <= facts // 7 + 1
    assert store.flushes >= len(store.puts)  # every batch made durable
    assert max(store.gets) > 1  # one get for all the new components of a node
    assert len(store.gets) <= solver.stats.nodes + 1


def test_the_only_writer_of_a_listed_store_reads_it_whole_once_and_asks_nothing_more() -> None:
    store = RecordingStore()
    first = NormalSolver(GAME, store)
    first.position_nimber(GAME.heap(30))
    assert store.gets == []  # read whole (empty) at the start: nothing asked key by key
    known = dict(store.iter_facts(FactKind.NIMBER))
    again = NormalSolver(GAME, store)
    assert again.position_nimber(ROOT) == TRUTH[80] ^ TRUTH[61]
    assert store.gets == []
    fresh = NormalSolver(GAME, MemoryProofStore())
    fresh.position_nimber(ROOT)
    assert again.stats.nodes < fresh.stats.nodes  # the stored nimbers were used
    assert all(again.known_nimber(key) == value for key, value in known.items())


def test_a_table_cleared_reads_the_store_whole_again() -> None:
    # 0*7 in a table of 200 entries: cleared 3 times, its 97 facts within the limit of 100
    store = RecordingStore()
    small = NormalSolver(SproutsGame(), store, options=SolveOptions(table_capacity=200))
    assert small.position_nimber("0*7") == 0  # Nimbers are inevitable, table of 0*n
    assert small.stats.table_clears > 0 and store.gets == []
    # past the limit, it asks key by key again: 0*7 in a table of 100, 103 facts
    store = RecordingStore()
    smaller = NormalSolver(SproutsGame(), store, options=SolveOptions(table_capacity=100))
    assert smaller.position_nimber("0*7") == 0
    assert smaller.stats.table_clears > 0 and store.gets


def test_time_based_flush_writes_every_fact_when_the_period_is_zero() -> None:
    store = RecordingStore()
    NormalSolver(GAME, store, options=SolveOptions(batch_size=10_000, flush_seconds=0.0)).nimber(
        GAME.heap(30)
    )
    assert store.puts and set(store.puts) == {1}


def test_wrong_stored_value_of_the_asked_component_raises_conflict() -> None:
    store = MemoryProofStore()
    root = GAME.heap(40)
    wrong = TRUTH[40] + 1
    store.put(FactKind.NIMBER, {root: wrong})
    solver = NormalSolver(GAME, store)
    with pytest.raises(ConflictError) as caught:
        solver.nimber(root)
    error = caught.value
    assert isinstance(error, NimberConflictError)
    assert (error.key, error.stored, error.proven) == (root, wrong, TRUTH[40])
    assert root in str(error) and str(wrong) in str(error) and str(TRUTH[40]) in str(error)
    assert stored(store)[root] == wrong  # never overwritten


def test_garbage_in_the_store_is_refused() -> None:
    store = MemoryProofStore()
    store.put(FactKind.NIMBER, {GAME.heap(7): "zero"})
    with pytest.raises(StoreFormatError):
        NormalSolver(GAME, store).nimber(GAME.heap(9))


def test_table_refuses_contradictions() -> None:
    table = TranspositionTable()
    table.exclude("X", 2)
    with pytest.raises(InconsistentFactError):
        table.learn("X", 2)
    table.prove("X", 1)
    with pytest.raises(InconsistentFactError):
        table.exclude("X", 1)
    with pytest.raises(InconsistentFactError):
        table.prove("X", 3)
    table.exclude("X", 5)  # implied by the nimber: fine
    assert table.is_excluded("X", 5) and not table.is_excluded("X", 1)


def test_progress_reports_are_throttled_and_end_with_a_final_one() -> None:
    reports: list[Progress] = []
    solver = NormalSolver(
        kayles(), MemoryProofStore(), options=SolveOptions(progress=reports.append)
    )
    solver.nimber("K70")
    assert 1 <= len(reports) <= 3  # the run takes a few ms: only the final report
    final = reports[-1]
    assert final.nodes == solver.stats.nodes and final.facts_stored == solver.stats.facts_stored
    every: list[Progress] = []
    NormalSolver(
        GAME, MemoryProofStore(), options=SolveOptions(progress=every.append, progress_interval=0.0)
    ).nimber(GAME.heap(50))
    nodes = [p.nodes for p in every]
    assert nodes == sorted(nodes) and len(every) > 10
    assert max(p.depth for p in every) > 1
