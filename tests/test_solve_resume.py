"""A normal-play solve interrupted by Ctrl-C resumes where it stood (issue 31).

The store keeps proven facts; the resume record beside it keeps the search's state (df-pn
numbers, children lists, winning couples), so the rerun continues the same search instead
of starting another. The record is a hint: a forged one may cost time, never an answer.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from cli_helpers import committed_facts, run_cli, signal_after_first_commit
from headway import ReportedRun, assert_headway_of_a_losing_root, solve_reporting_each_step
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, MemoryProofStore
from sproutsdb.solver.search.dfpn import INFINITY
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.search.progress import Progress
from sproutsdb.solver.search.resume import MemoryResumeSlots, decode_state, encode_state
from sproutsdb.solver.search.table import TranspositionTable
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store.resume_file import FileResumeSlots


class Stop(KeyboardInterrupt):
    """The tests' Ctrl-C, raised from a progress callback."""


def stopping_at(nodes: int) -> SolveOptions:
    def stop(progress: Progress) -> None:
        if progress.nodes >= nodes:
            raise Stop

    return SolveOptions(progress=stop, progress_interval=0)


def test_a_record_decodes_to_what_was_saved_and_nothing_else_decodes() -> None:
    data = encode_state(
        "nimber 0*9", {"0*9 *0": (3, 7), "a+b *2": (0, INFINITY + 5)}, {"0*8": {1, 3}}
    )
    state = decode_state("nimber 0*9", data)
    assert state is not None
    # numbers only steer: a 0 (which df-pn reads as decided) is never taken from a record
    assert state.numbers == {"0*9 *0": (3, 7), "a+b *2": (1, INFINITY)}
    assert state.exclusions == {"0*8": (1, 3)}
    assert decode_state("nimber 0*10", data) is None  # another root's record
    assert decode_state("nimber 0*9", data[:-3]) is None  # truncated
    assert decode_state("nimber 0*9", b"garbage") is None
    bad_line = zlib.compress(b"sproutsdb-resume 1\nroot\tnimber 0*9\nq\tx")
    assert decode_state("nimber 0*9", bad_line) is None


@pytest.fixture(scope="module")
def uninterrupted_0x11() -> tuple[int, int, dict[str, FactValue]]:
    """One uninterrupted solve of 0*11's nimber, shared by the cases below: its answer, its
    node visits and the nimbers it stored (the search is deterministic)."""
    fresh_store = MemoryProofStore()
    fresh = NormalSolver(SproutsGame(), fresh_store)
    answer = fresh.nimber("0*11")
    return answer, fresh.stats.nodes, dict(fresh_store._facts[FactKind.NIMBER])


@pytest.mark.parametrize("part", [50, 3])
def test_an_interrupted_solve_resumes_exactly_in_process(
    part: int, uninterrupted_0x11: tuple[int, int, dict[str, FactValue]]
) -> None:
    """0*11's nimber, stopped after 1/part of its node visits, then rerun on the same store
    and record: the two runs visit as many nodes as one uninterrupted run (± a few).

    At 1/50 the search is deep in the reduction of a sum, where a kept children list has
    two keys for one couple (expanded before a nimber was known): a rerun that merged them
    took 1.12 times the visits and proved 1.26 times the facts."""
    answer, total, fresh_nimbers = uninterrupted_0x11
    store, slots = MemoryProofStore(), MemoryResumeSlots()
    first = NormalSolver(SproutsGame(), store, options=stopping_at(total // part), resume=slots)
    try:
        first.nimber("0*11")
        raise AssertionError("the run was not stopped")
    except Stop:
        pass
    assert slots.records, "an interrupted call saves its record"
    again = NormalSolver(SproutsGame(), store, resume=slots)
    assert again.nimber("0*11") == answer
    stats = again.stats
    assert stats.resumed_numbers > 0 and stats.resumed_exclusions > 0
    assert first.stats.nodes + stats.nodes <= total * 1.02
    assert store._facts[FactKind.NIMBER] == fresh_nimbers
    assert not slots.records, "a finished call discards its record"


def test_a_forged_record_cannot_change_an_answer_or_a_stored_fact() -> None:
    """Every winning couple claimed (the true nimbers too), zero and huge numbers, children
    lists naming other positions: the answers and stored facts are those of a clean run."""
    game = SproutsGame()
    clean = MemoryProofStore()
    reference = NormalSolver(game, clean)
    truth = {key: reference.nimber(key) for key in ("0*8", "0*7")}
    facts = clean.get(FactKind.NIMBER, sorted(clean._facts[FactKind.NIMBER]))
    lands = sorted(facts)
    claims = {land: set(range(8)) for land in [*lands, "0*8", "0*7", "not a land", "A.A"]}
    numbers = {f"{land} *{n}": (0, 0) for land in lands for n in range(4)}
    numbers.update({"0*8 *0": (INFINITY, 1), "0*8 *1": (1, INFINITY)})
    lists = {f"0*8 *{n}": [(f"{land} *{n}", 1) for land in lands[:20]] for n in range(4)}
    lists["0*8 *0"].append(("0*2+0*2 *0", 1))  # the empty game: a loss, not a child of 0*8
    for root in ("nimber 0*8", "nimber 0*7"):
        slots = MemoryResumeSlots()
        slots.save(root, encode_state(root, numbers, claims, lists, 10**9))
        store = MemoryProofStore()
        solver = NormalSolver(game, store, resume=slots)
        key = root.split()[1]
        assert solver.nimber(key) == truth[key]
        stored = store.get(FactKind.NIMBER, sorted(store._facts[FactKind.NIMBER]))
        assert all(facts.get(land, value) == value for land, value in stored.items())
        assert solver.stats.resumed_exclusions > 0  # some claims were true, and re-derived
    garbage = MemoryResumeSlots()
    garbage.save("nimber 0*8", b"\x00not a record")
    assert NormalSolver(game, MemoryProofStore(), resume=garbage).nimber("0*8") == truth["0*8"]


def test_a_claimed_winning_couple_is_used_only_once_it_re_derives() -> None:
    """A record's winning couples are claims in the table: none answers before `redeem`
    re-derives it, each is asked once, and the ones not asked pass on to the next record."""
    table = TranspositionTable()
    asked: list[tuple[str, int]] = []

    def redeem(key: str, n: int) -> bool:
        asked.append((key, n))
        return key == "true"

    table.redeem = redeem
    assert table.claim({"true": [1, 2], "false": [0]}, limit=10) == 3
    assert dict(table.exclusions) == {"true": {1, 2}, "false": {0}}
    assert table.couple_value("false", 0) is None and not table.is_excluded("false", 0)
    assert table.is_excluded("true", 1) and table.couple_value("true", 1) is False
    assert asked == [("false", 0), ("true", 1)]
    assert dict(table.exclusions) == {"true": {1, 2}}  # (true, 2) is still a claim
    assert table.claim({"many": range(5)}, limit=2) == 2
    table.drop_claims()
    assert dict(table.exclusions) == {"true": {1}}
    assert not table.is_excluded("true", 2) and asked == [("false", 0), ("true", 1)]


def test_a_forged_children_list_cannot_multiply_a_child() -> None:
    """A kept list may name a couple under several keys (a rerun keeps them all, as the
    interrupted run had them), but ``C+X+X *n`` is ``C *n`` for every X: a record naming
    a hundred such keys gives the couple 8, and adds and drops no couple."""
    solver = NormalSolver(SproutsGame(), MemoryProofStore())
    space = solver._space
    assert space is not None
    children = space.expand((("0*3",), 0), "0*3 *0")
    before = [(key, node) for key, node, _ in children]
    single = next(key for key, _ in before if "+" not in key)
    land, nim = single.rsplit(" *", 1)
    forged = [(f"{land}+x{i}+x{i} *{nim}", 1) for i in range(100)]
    space._renamed(children, forged)
    keys = [key for key, _, _ in children]
    assert len(keys) == len(before) - 1 + 8
    assert keys[:8] == [key for key, _ in forged[:8]]
    assert keys[8:] == [key for key, _ in before if key != single]
    fold = space.couples.fold
    assert {fold(*node) for _, node, _ in children} == {fold(*node) for _, node in before}


# ----------------------------------------------------------------- the real command


FreshRun = ReportedRun[NormalSolver]


@pytest.fixture(scope="module")
def fresh_0x12() -> FreshRun:
    """One uninterrupted in-process solve of 0*12's outcome and its progress reports,
    shared by the two tests below (the search is deterministic; they read its visits, its
    root's options and its reports)."""
    return solve_reporting_each_step(
        lambda options: NormalSolver(SproutsGame(), MemoryProofStore(), options=options),
        "0*12",
        "L",
    )


def test_a_stopped_search_says_which_of_its_roots_options_are_settled(
    fresh_0x12: FreshRun,
) -> None:
    """0*12 (L: every option wins) stopped at half its visits: an option is "W" only where
    the table or the store proves it, and a fresh solver on the same store alone finds a
    stored losing child for each "W" it says; a finished search has every option "W",
    and a winning root (0*9) an option "L" whose stored nimber is 0."""
    fresh = fresh_0x12.solver
    done = fresh.settled_options("0*12")
    assert done and all(outcome == "W" for _, outcome in done)

    store = MemoryProofStore()
    stopped = NormalSolver(SproutsGame(), store, options=stopping_at(fresh.stats.nodes // 2))
    with pytest.raises(Stop):
        stopped.outcome("0*12")
    settled = stopped.settled_options("0*12")
    assert [key for key, _ in settled] == [key for key, _ in done]  # the engine's order
    assert {outcome for _, outcome in settled} == {"W", None}  # some settled, some open
    from_store = NormalSolver(SproutsGame(), store).settled_options("0*12")
    assert {k for k, o in from_store if o == "W"} <= {k for k, o in settled if o == "W"}
    game = SproutsGame()
    for key, outcome in from_store:
        if outcome == "W":  # the proof is there: a child whose stored nimbers sum to 0
            assert any(stored_sum(store, game, child) == 0 for child in game.children(key))

    winning_store = MemoryProofStore()
    winner = NormalSolver(SproutsGame(), winning_store)
    assert winner.outcome("0*9") == "W"
    losing = [key for key, outcome in winner.settled_options("0*9") if outcome == "L"]
    assert losing and all(stored_sum(winning_store, game, key) == 0 for key in losing)
    with pytest.raises(ValueError, match="a sum of 2 lands"):
        winner.settled_options("0*2+0*3")


def stored_sum(store: MemoryProofStore, game: SproutsGame, position: str) -> int | None:
    """The nim-sum of a position's lands by their stored nimbers (a land twice cancels),
    None if a land left has none stored."""
    lands = game.components(position)
    odd = sorted({land for land in lands if lands.count(land) % 2})
    stored = store.get(FactKind.NIMBER, odd)
    if len(stored) < len(odd):
        return None
    total = 0
    for value in stored.values():
        total ^= int(value)
    return total


def test_progress_reports_count_the_roots_options_settled(fresh_0x12: FreshRun) -> None:
    """Each progress report of a call on one land carries its options proven winning and
    losing so far: 0*12 (L) goes from none to most of them, never back, never a loss."""
    found, reports = fresh_0x12
    assert_headway_of_a_losing_root(reports, len(found.settled_options("0*12")))


def stored_nimbers(store_dir: Path) -> int:
    """Nimber facts committed so far (0 while the solver is still creating the store)."""
    return committed_facts(store_dir, FactKind.NIMBER)


def test_ctrl_c_says_what_was_kept_and_the_rerun_does_less_work(tmp_path: Path) -> None:
    solve = ["solve", "--spots", "12", "--json", "--quiet", "--flush-seconds", "1"]
    fresh = run_cli(*solve, "--store", str(tmp_path / "fresh"), timeout=600)
    assert fresh.returncode == 0, fresh.stderr
    baseline = json.loads(fresh.stdout)

    store_dir = tmp_path / "store"
    # some search past the first commit
    stopped = signal_after_first_commit(store_dir, solve, FactKind.NIMBER, later=1.0)
    err = stopped.stderr
    assert stopped.returncode == 130, err
    kept = stored_nimbers(store_dir)
    assert kept > 0
    assert f"{kept:,} new facts" in err and "with where the search stood" in err, err
    assert "run the same command again to resume" in err, err
    report = json.loads(stopped.stdout)  # --json: the report of a stopped solve
    assert report["outcome"] is None and report["interrupted"] and report["stored"] == kept
    assert report["play"] == "normal"
    options = report["root_options"]  # 0*12 loses: none of its options is proven losing
    assert options and {option["outcome"] for option in options} <= {"W", None}
    won = sum(option["outcome"] == "W" for option in options)
    assert f"of the root's {len(options)} options, {won} are proven winning" in err, err
    assert list((store_dir / "resume").glob("*.resume")), "no resume record was kept"

    rerun = run_cli(*solve, "--store", str(store_dir), timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    assert (report["outcome"], report["nimber"]) == (baseline["outcome"], baseline["nimber"])
    # the rerun continued the search: fewer node visits than a fresh run, and both runs
    # proved about the facts of one (without a record: up to 1.5 times as many on 0*14)
    assert report["nodes"] < baseline["nodes"]
    assert kept + report["stored"] <= baseline["stored"] * 1.1
    assert not list((store_dir / "resume").glob("*.resume")), "a finished solve keeps none"
    check = run_cli("check", "--root", "0*12", "--quiet", "--store", str(store_dir), timeout=600)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_record_file_is_replaced_whole_and_a_failed_save_is_reported(tmp_path: Path) -> None:
    slots = FileResumeSlots(tmp_path)
    assert slots.load("nimber 0*5") is None
    assert slots.save("nimber 0*5", b"one") and slots.save("nimber 0*5", b"two")
    assert slots.load("nimber 0*5") == b"two"
    assert [p.suffix for p in (tmp_path / "resume").iterdir()] == [".resume"]
    slots.discard("nimber 0*5")
    assert slots.load("nimber 0*5") is None
    blocked = FileResumeSlots(tmp_path / "a-file")
    (tmp_path / "a-file").write_text("not a directory")
    assert not blocked.save("nimber 0*5", b"x") and blocked.error


def test_the_command_gives_the_right_answer_whatever_record_lies_in_the_store(
    tmp_path: Path,
) -> None:
    """A forged record file (every couple claimed winning, zero numbers) and a garbage one:
    `solve` answers as on a clean store and its store passes `check`."""
    clean = run_cli("solve", "--spots", "9", "--json", "--store", str(tmp_path / "clean"))
    assert clean.returncode == 0, clean.stderr
    truth = json.loads(clean.stdout)
    lands = ["0*9", "0*8", "0*7", "0*6", "0*5", "0*4", "0*3", "0*2", "0"]
    forged = encode_state(
        "nimber 0*9",
        {f"{land} *{n}": (0, 0) for land in lands for n in range(4)},
        {land: set(range(6)) for land in lands},
        {"0*9 *0": [("! *0", 1), ("0*2+0*2 *0", 1)]},
        10**9,
    )
    for record in (forged, b"garbage"):
        store_dir = tmp_path / f"store{len(record)}"
        assert run_cli("solve", "--spots", "3", "--store", str(store_dir)).returncode == 0
        assert FileResumeSlots(store_dir).save("nimber 0*9", record)
        done = run_cli("solve", "--spots", "9", "--json", "--store", str(store_dir))
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert (report["outcome"], report["nimber"]) == (truth["outcome"], truth["nimber"])
        assert FileResumeSlots(store_dir).load("nimber 0*9") is None  # done: discarded
        check = run_cli("check", "--root", "0*9", "--quiet", "--store", str(store_dir))
        assert check.returncode == 0, check.stdout + check.stderr
