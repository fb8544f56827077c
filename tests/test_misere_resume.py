"""A misère solve interrupted or killed resumes where it stood (issue 28: "resumable from the
store after a kill at any moment, with the rerun doing visibly less work than a fresh run").

The store keeps only losing nodes; the misère resume record beside it keeps the df-pn
numbers and the winning nodes, so that a rerun continues the same search instead of
starting another around the committed facts (which, killed early, cost more visits than a
fresh run: 0*13 given the first 10 % of its proof's losing nodes, 20 730 against 17 380).
The record is a hint: a forged, garbage or truncated one may cost time, never an answer.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Sequence
from pathlib import Path

import pytest

from cli_helpers import committed_facts, run_cli, signal_after_first_commit
from headway import ReportedRun, assert_headway_of_a_losing_root, solve_reporting_each_step
from sproutsdb.ops.shipped_rcts import shipped_rct_table
from sproutsdb.ops.solve import SolveInterrupted, SolveSettings, Solving
from sproutsdb.solver.misere.solver import MisereSolver, TableRcts
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, MemoryProofStore
from sproutsdb.solver.search import resume
from sproutsdb.solver.search.dfpn import INFINITY
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.search.progress import Progress
from sproutsdb.solver.search.resume import (
    MemoryResumeSlots,
    decode_misere_state,
    decode_state,
    encode_misere_state,
    encode_state,
)
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store.resume_file import FileResumeSlots

SLOT = "misere "  # a misère record's slot name: "misere <root node key>"


class Stop(KeyboardInterrupt):
    """The tests' Ctrl-C, raised from a progress callback."""


def _rcts() -> TableRcts:
    shipped = shipped_rct_table()
    assert shipped is not None, "the S6 table ships with the package"
    return TableRcts(shipped[0])


def _solver(
    store: MemoryProofStore, slots: MemoryResumeSlots | None, stop_at: int | None = None
) -> MisereSolver:
    options = SolveOptions()
    if stop_at is not None:

        def stop(progress: Progress) -> None:
            if progress.nodes >= stop_at:
                raise Stop

        options = SolveOptions(progress=stop, progress_interval=0)
    return MisereSolver(SproutsGame(), store, _rcts(), options=options, resume=slots)


def test_a_misere_record_decodes_to_what_was_saved_and_never_as_the_other_kind() -> None:
    data = encode_misere_state(
        "0*9", {"0*9": (3, 7), "0*8 *1": (0, INFINITY + 5)}, ["0*7", "a\tb"], ["0*3"]
    )
    state = decode_misere_state("0*9", data)
    assert state is not None
    # numbers only steer: a 0 (which df-pn reads as decided) is never taken from a record
    assert state.numbers == {"0*9": (3, 7), "0*8 *1": (1, INFINITY)}
    assert state.wins == ["0*7"] and state.lands == ["0*3"]  # a key with a tab is left out
    assert decode_misere_state("0*10", data) is None  # another root's record
    assert decode_misere_state("0*9", data[:-3]) is None  # truncated
    assert decode_misere_state("0*9", b"garbage") is None
    # the two kinds never mix, even under the same root text
    assert decode_state("0*9", data) is None
    assert decode_misere_state("0*9", encode_state("0*9", {"0*9": (1, 1)}, {})) is None


def test_a_record_too_large_to_decode_keeps_what_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A record is never saved larger than a decode takes: the last winning nodes are left
    out, the rest still decodes."""
    monkeypatch.setattr(resume, "MAX_RECORD_BYTES", 400)
    wins = [f"0*{n}" for n in range(200)]
    state = decode_misere_state("0*9", encode_misere_state("0*9", {"0*9": (2, 3)}, wins))
    assert state is not None and state.numbers == {"0*9": (2, 3)}
    assert 0 < len(state.wins) < len(wins) and state.wins == wins[: len(state.wins)]


FreshRun = ReportedRun[MisereSolver]


@pytest.fixture(scope="module")
def fresh_0x13() -> FreshRun:
    """One uninterrupted in-process solve of 0*13 and its progress reports, shared by the
    three tests below (the search is deterministic; they read its visits, its root's
    options and its reports)."""
    return solve_reporting_each_step(
        lambda options: MisereSolver(SproutsGame(), MemoryProofStore(), _rcts(), options=options),
        "0*13",
        "L",  # A164950
    )


def test_an_interrupted_misere_solve_resumes_in_process(fresh_0x13: FreshRun) -> None:
    """0*13 stopped at 10 % and at 30 % of a fresh run's visits, then rerun on the same
    store and record: the rerun visits fewer nodes than a fresh run, and both runs together
    about as many (measured: exactly as many, ± 5)."""
    fresh = fresh_0x13.solver
    total = fresh.stats.nodes
    for share in (0.1, 0.3):
        store, slots = MemoryProofStore(), MemoryResumeSlots()
        first = _solver(store, slots, stop_at=int(total * share))
        try:
            first.outcome("0*13")
            raise AssertionError("the run was not stopped")
        except Stop:
            pass
        assert list(slots.records) == [SLOT + "0*13"], "an interrupted call saves its record"
        again = _solver(store, slots)
        assert again.outcome("0*13") == "L"
        assert again.stats.resumed_numbers > 0 and again.resumed_wins > 0
        assert again.stats.nodes < total
        assert first.stats.nodes + again.stats.nodes <= total * 1.2
        assert not slots.records, "a finished call discards its record"


def test_a_stopped_search_says_which_of_its_roots_options_are_settled(
    fresh_0x13: FreshRun,
) -> None:
    """0*13 (L: every option wins) stopped at half its visits: each option is "W" only
    where a losing child of it is proven, and a fresh solver reading the same store alone
    says the same; a finished search has every option "W"."""
    fresh = fresh_0x13.solver
    done = fresh.settled_options("0*13")
    assert done and all(outcome == "W" for _, outcome in done)

    store = MemoryProofStore()
    stopped = _solver(store, None, stop_at=fresh.stats.nodes // 2)
    try:
        stopped.outcome("0*13")
        raise AssertionError("the run was not stopped")
    except Stop:
        stopped.flush()
    settled = stopped.settled_options("0*13")
    assert [key for key, _ in settled] == [key for key, _ in done]  # the search's order
    assert {outcome for _, outcome in settled} == {"W", None}  # some settled, some open
    assert _solver(store, None).settled_options("0*13") == settled  # from the store alone
    for key, outcome in settled:
        if outcome == "W":  # the proof is there: a stored losing child
            kids = [stopped.key(child) for child in stopped.children(stopped.node(key))]
            assert any(store.get(FactKind.MISERE, kids).values())


def test_progress_reports_count_the_roots_options_settled(fresh_0x13: FreshRun) -> None:
    """Each progress report of a misère search carries the root's options proven winning
    and losing so far: 0*13 (L) goes from none to most of them, never back, never a loss."""
    found, reports = fresh_0x13
    assert_headway_of_a_losing_root(reports, len(found.settled_options("0*13")))


def test_ctrl_c_reports_what_was_kept_even_when_the_store_cannot_be_read_after() -> None:
    """The options' report is read after Ctrl-C; a store that fails then (a server gone)
    leaves it out, and the interruption still says what was kept."""

    class GoneAfterStop(MemoryProofStore):
        gone = False

        def get(self, kind: FactKind, keys: Sequence[str]) -> dict[str, FactValue]:
            if self.gone:
                raise OSError("the store went away")
            return super().get(kind, keys)

    store = GoneAfterStop()

    def stop(progress: Progress) -> None:
        if progress.nodes >= 300:
            store.gone = True
            raise Stop

    settings = SolveSettings(misere=True, rcts=_rcts(), progress=stop, progress_interval=0)
    with pytest.raises(SolveInterrupted) as caught, Solving(store, settings=settings) as solving:
        solving.solve("0*12")
    assert caught.value.root_options is None and caught.value.play == "misere"
    assert caught.value.stored == store.count(FactKind.MISERE) > 0


def test_a_forged_garbage_or_truncated_record_changes_no_answer() -> None:
    """Every node a clean run decided claimed winning (its losing nodes and the root too),
    zero and huge numbers, lands that are not lands: the answers and the stored facts are
    those of a clean run; garbage and a truncated record are ignored."""
    for position, truth in (("0*10", "W"), ("0*9", "L")):
        clean = _solver(MemoryProofStore(), None)
        assert clean.outcome(position) == truth
        decided = dict(clean._table)
        root = clean.key(clean.node(position))
        claims = [root, *decided, "not a node", "! rct1:0123", "0*40", ""]
        numbers = {key: (0, 0) for key in decided} | {root: (INFINITY, 1)}
        lands = ["0*40", "garbage", "A.A", "0*2+0*2", *clean._land_rct]
        forged = encode_misere_state(root, numbers, claims, lands)
        for record in (forged, forged[: len(forged) // 2], b"\x00garbage"):
            store, slots = MemoryProofStore(), MemoryResumeSlots()
            slots.save(SLOT + root, record)
            solver = _solver(store, slots)
            assert solver.outcome(position) == truth
            stored = store._facts[FactKind.MISERE]
            assert stored, "the search stored its losing nodes"
            for key in stored:  # each one losing, as the clean run knows or proves it
                losing = decided.get(key)
                if losing is None:
                    losing = clean.node_outcome(clean.parse_node(key)) == "L"
                assert losing, f"the winning node {key!r} was stored as losing"
            assert not slots.records
        # the forged record's true claims are used as the search meets them, its false
        # ones never: each claim met is re-derived from its children, and then dropped
        store, slots = MemoryProofStore(), MemoryResumeSlots()
        slots.save(SLOT + root, forged)
        solver = _solver(store, slots)
        solver._resume_from(solver.node(position), root)
        assert root not in solver._claims and not solver._table  # nothing taken on trust
        settled = []
        for key in decided:
            node = solver.parse_node(key)
            if key in solver._claims:
                settled.append((key, solver._decided(node, key)))
                assert key not in solver._claims, "a claim is checked once"
        assert any(verdict is False for _, verdict in settled), "true claims are used"
        for key, verdict in settled:
            assert verdict is None or decided[key] is False, f"false claim {key!r} used"


# ----------------------------------------------------------------- the real command


def _losing_nodes(store_dir: Path) -> int:
    """Misère facts committed so far (0 while the solver is still creating the store)."""
    return committed_facts(store_dir, FactKind.MISERE)


def test_a_misere_solve_killed_early_reruns_with_fewer_visits_than_a_fresh_run(
    tmp_path: Path,
) -> None:
    """`solve 0*13 --misere` SIGKILLed at its first commit (a third of the proof or less):
    the rerun takes up the record saved with that commit, visits fewer nodes than a fresh
    run, proves about the rest of the facts, discards the record, and its store checks.
    The first commit comes after a quarter second: with 1 s, the faster C core of 2026-11-27
    had proved 134-150 of the 384 losing nodes by then, past a third, and its reruns stored
    up to 13 % more than a fresh run in 3 runs of 5."""
    solve = ["solve", "0*13", "--misere", "--quiet", "--json", "--flush-seconds", "0.25"]
    fresh = run_cli(*solve, "--store", str(tmp_path / "fresh"), timeout=300)
    assert fresh.returncode == 0, fresh.stderr
    baseline = json.loads(fresh.stdout)

    store_dir = tmp_path / "killed"
    killed = signal_after_first_commit(store_dir, solve, FactKind.MISERE, signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL
    kept = _losing_nodes(store_dir)
    assert 0 < kept < baseline["stored"]
    record = FileResumeSlots(store_dir).load(SLOT + "0*13")
    assert record is not None and decode_misere_state("0*13", record), "no record was kept"

    rerun = run_cli(*solve, "--store", str(store_dir), timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    assert report["outcome"] == baseline["outcome"] == "L"  # A164950
    assert report["nodes"] < baseline["nodes"]
    assert kept + report["stored"] <= baseline["stored"] * 1.1
    assert not list((store_dir / "resume").glob("*.resume")), "a finished solve keeps none"
    check = run_cli(
        "check", "--misere", "--root", "0*13", "--json", "--store", str(store_dir), timeout=300
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_ctrl_c_says_which_of_the_roots_options_are_settled(tmp_path: Path) -> None:
    """`solve 0*13 --misere --json` stopped by Ctrl-C after its first commit: the last line
    says how many losing nodes were kept and how many of the root's options are settled,
    and stdout has the report with outcome null and each option's status."""
    solve = ["solve", "0*13", "--misere", "--quiet", "--json", "--flush-seconds", "1"]
    stopped = signal_after_first_commit(tmp_path / "store", solve, FactKind.MISERE)
    out, err = stopped.stdout, stopped.stderr
    assert stopped.returncode == 130, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("sproutsdb solve: interrupted: "), last
    assert "new losing nodes proven so far are stored in" in last
    assert "of the root's " in last and " open; run the same command again" in last
    report = json.loads(out)
    assert report["outcome"] is None and report["interrupted"] is True
    assert report["position"] == "0*13" and report["play"] == "misere"
    assert report["stored"] > 0 and report["nodes"] > 0 and report["resume_saved"]
    options = report["root_options"]
    won = sum(option["outcome"] == "W" for option in options)
    assert f"of the root's {len(options)} options, {won} are proven winning" in last


def test_the_command_ignores_a_garbage_misere_record(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    assert run_cli("solve", "0*3", "--misere", "--store", str(store_dir)).returncode == 0
    assert FileResumeSlots(store_dir).save(SLOT + "0*9", b"garbage")
    done = run_cli("solve", "0*9", "--misere", "--json", "--store", str(store_dir))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "L"
    assert FileResumeSlots(store_dir).load(SLOT + "0*9") is None  # done: discarded
