"""`sproutsdb check --all --jobs N`: worker processes give the same results as one process,
report holes and wrong nimbers alike, resume, and leave no process behind when stopped.
Real stores made by `solve`, real worker processes, nothing mocked."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from cli_helpers import COMMAND, run_cli
from sproutsdb.ops import check_store
from sproutsdb.ops.parallel_check import SHOWN, level_batches, lives_order
from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.solver.sprouts.notation import key_lives
from sproutsdb.store import LmdbProofStore

pytestmark = pytest.mark.timeout(300)

TIMING = ("seconds", "facts_per_second", "jobs")
GAME = SproutsGame()


def _open(path: Path, *, readonly: bool = False) -> LmdbProofStore:
    return LmdbProofStore.open(
        path, game="sprouts", canon_version=CANON_VERSION, create=False, readonly=readonly
    )


def _solved(tmp_path: Path, spots: int, *extra: str) -> Path:
    path = tmp_path / f"solved{spots}"
    assert run_cli("solve", f"0*{spots}", "--store", str(path), "--quiet", *extra).returncode == 0
    return path


def _solved_long(tmp_path: Path) -> Path:
    """A store whose check lasts long enough to be interrupted: df-pn's 0*8 store (about
    150 facts) is checked in well under a second since first_child; dfs's holds 2 428 facts,
    about 2 s with --batch 10."""
    return _solved(tmp_path, 8, "--search", "dfs", "--outcome-only")


def _copy(path: Path, to: Path) -> Path:
    shutil.copytree(path, to)  # no process has it open: a plain copy is a consistent store
    return to


def _check_all(path: Path, jobs: int, batch: int = 20) -> tuple[int, dict]:
    done = run_cli(
        "check",
        "--store",
        str(path),
        "--all",
        "--json",
        "--quiet",
        "--jobs",
        str(jobs),
        "--batch",
        str(batch),
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def _statuses(path: Path) -> dict[str, str]:
    with _open(path, readonly=True) as store:
        return {k: r.status.value for k, r in store.iter_records(FactKind.NIMBER)}


def _untimed(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in TIMING}


def test_two_jobs_verify_what_one_job_verifies_and_resume(tmp_path: Path) -> None:
    solved = _solved(tmp_path, 7)
    one, two = _copy(solved, tmp_path / "one"), _copy(solved, tmp_path / "two")
    code1, report1 = _check_all(one, jobs=1)
    code2, report2 = _check_all(two, jobs=2)
    assert code1 == code2 == 0
    assert report1["jobs"] == 1 and report2["jobs"] == 2
    assert report2["facts"] > 5 * 20  # several batches per worker
    assert _untimed(report1) == _untimed(report2)
    assert report2["ok"] and report2["verified_now"] == report2["facts"]
    statuses = _statuses(two)
    assert statuses == _statuses(one) and set(statuses.values()) == {"verified"}
    # a second run trusts every mark of the first: nothing left to derive
    code, again = _check_all(two, jobs=2)
    assert code == 0 and again["already_verified"] == again["facts"] == report2["facts"]
    assert again["verified_now"] == 0


def _whole_check(facts: dict[str, int]):
    source = MemoryProofStore()
    source.put(FactKind.NIMBER, facts)
    return Checker(GAME, source).check_facts(list(facts))


def _corrupted(facts: dict[str, int]) -> tuple[dict[str, int], str, str]:
    """The facts with one nimber changed to that of one of its options (a contradiction the
    checker names) and another needed fact deleted (a hole that names it among the first
    SHOWN holes in key order, those a report lists)."""
    changed = next(
        land
        for land in sorted(facts)
        for child in GAME.component_children(land)
        if len(child) == 1 and facts.get(child[0], facts[land]) != facts[land]
    )
    option = next(
        child[0]
        for child in GAME.component_children(changed)
        if len(child) == 1 and facts.get(child[0], facts[changed]) != facts[changed]
    )
    wrong = {**facts, changed: facts[option]}
    for deleted in sorted(facts, key=lambda land: (-len(land), land)):
        if deleted == changed:
            continue
        holed = {k: v for k, v in wrong.items() if k != deleted}
        report = _whole_check(holed)
        holes = sorted({(h.needed_by, h.couple, h.missing) for h in report.missing})[:SHOWN]
        if any(deleted in missing for _, _, missing in holes) and changed in {
            bad.land for bad in report.inconsistent
        }:
            return holed, changed, deleted
    raise AssertionError("no fact whose deletion leaves a hole")


def _wrong_store(tmp_path: Path) -> tuple[Path, str, str]:
    """A store of 0*7's facts with one nimber changed and one fact deleted: its path, the
    changed land and the deleted one."""
    with _open(_solved(tmp_path, 7), readonly=True) as store:
        wrong, changed, deleted = _corrupted(dict(store.iter_facts(FactKind.NIMBER)))
    with LmdbProofStore.open(
        tmp_path / "wrong", game="sprouts", canon_version=CANON_VERSION, durable=False
    ) as store:
        store.put(FactKind.NIMBER, wrong)
    return tmp_path / "wrong", changed, deleted


def test_a_wrong_nimber_and_a_deleted_fact_are_reported_alike(tmp_path: Path) -> None:
    wrong, changed, deleted = _wrong_store(tmp_path)
    one = _copy(wrong, tmp_path / "one")
    two = _copy(wrong, tmp_path / "two")
    code1, report1 = _check_all(one, jobs=1, batch=15)
    code2, report2 = _check_all(two, jobs=2, batch=15)
    assert code1 == code2 == 1 and not report1["ok"] and not report2["ok"]
    assert _untimed(report1) == _untimed(report2)
    assert any(i["land"] == changed for i in report2["inconsistent"])
    assert any(deleted in hole["missing"] for hole in report2["missing"])
    assert report2["missing"] == sorted(
        report2["missing"], key=lambda h: (h["needed_by"], h["couple"])
    )
    assert report2["inconsistent"] == sorted(report2["inconsistent"], key=lambda i: i["land"])
    statuses = _statuses(two)
    assert statuses == _statuses(one) and statuses[changed] == "claimed"
    assert report2["verified_now"] == sum(1 for s in statuses.values() if s == "verified")


def test_what_the_memo_has_met_changes_no_verdict(tmp_path: Path) -> None:
    """check_facts takes first the options whose lands the C core has canonical strings
    for, so which option justifies a fact depends on what the memo has met: verdicts,
    holes and inconsistencies must not."""
    core = pytest.importorskip("sproutsdb.solver.sprouts._core")
    with _open(_solved(tmp_path, 7), readonly=True) as store:
        holed, changed, deleted = _corrupted(dict(store.iter_facts(FactKind.NIMBER)))
    source = MemoryProofStore()
    source.put(FactKind.NIMBER, holed)
    outcomes: list[tuple[object, ...]] = []
    choices: list[dict[str, tuple[str, ...]]] = []
    for warm in (False, True):  # in lives order, as check --all
        core.clear_memo()
        if warm:  # every grandchild met: options come in move order
            for land in holed:
                for child in core.land_children(land):
                    for part in child:
                        core.land_children(part)
        checker = Checker(SproutsGame(), source)  # its own children cache
        report = checker.check_facts(sorted(holed, key=lambda k: (key_lives(k), k)))
        holes = sorted((h.needed_by, h.couple, h.missing) for h in report.missing)
        bad = sorted((i.land, i.stored, i.reason) for i in report.inconsistent)
        outcomes.append((report.verified, holes, bad, report.unproven, report.trusted))
        choices.append(dict(checker._deps))
    assert outcomes[0] == outcomes[1]
    assert changed in {land for land, _, _ in outcomes[1][2]}
    assert any(deleted in missing for _, _, missing in outcomes[1][1])
    assert choices[0] != choices[1]  # the memo did change some option taken


def test_small_batches_find_what_one_batch_finds(tmp_path: Path) -> None:
    """A checker keeps the values and marks it read from one batch to the next (lives
    order makes them final): batches of 5 and one batch of everything report alike."""
    wrong, changed, _ = _wrong_store(tmp_path)
    small = _copy(wrong, tmp_path / "small")
    whole = _copy(wrong, tmp_path / "whole")
    code1, report1 = _check_all(small, jobs=1, batch=5)
    code2, report2 = _check_all(whole, jobs=1, batch=100_000)
    assert code1 == code2 == 1 and _untimed(report1) == _untimed(report2)  # rechecked too
    assert _statuses(small) == _statuses(whole) and _statuses(small)[changed] == "claimed"


def test_lives_order_spills_every_key_once_fewest_lives_first(tmp_path: Path) -> None:
    with _open(_solved(tmp_path, 7), readonly=True) as store:
        keys = [k for k, _ in store.iter_facts(FactKind.NIMBER)]
        with lives_order(store, chunk=7) as spill:  # several spilled chunks per level
            batches = list(level_batches(spill, 10, jobs=3))
    assert [k for b in batches for k in b] == sorted(keys, key=lambda k: (key_lives(k), k))
    assert len({key_lives(k) for k in keys}) > 5 and len(keys) > 100
    levels = [key_lives(b[0]) for b in batches]
    assert all(len(b) <= 10 and {key_lives(k) for k in b} == {lv} for b, lv in zip(batches, levels))
    for level in set(levels):  # each level in a multiple of 3 batches of equal sizes
        sizes = [len(b) for b, lv in zip(batches, levels) if lv == level]
        assert len(sizes) % 3 == 0 or max(sizes) == 1, sizes
        assert max(sizes) - min(sizes) <= 1, sizes


def test_workers_find_dependencies_marked_and_derive_each_fact_once(tmp_path: Path) -> None:
    with _open(_solved(tmp_path, 7)) as store:
        totals = check_store(store, batch=10, jobs=2)
    assert totals["jobs"] == 2 and totals["verified_now"] == totals["facts"]
    assert totals["rechecked"] == totals["facts"]  # no batch re-derived another's facts


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found.update(int(p) for p in (task / "children").read_text().split())
    return found


def _gone(pid: int, within: float = 10) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def _start_check(path: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "SPROUTSDB_STORE"}
    return subprocess.Popen(
        [
            *COMMAND,
            "check",
            "--store",
            str(path),
            "--all",
            "--jobs",
            "2",
            "--batch",
            "10",
            "--json",
            "--quiet",  # no progress line on a slow machine: stderr holds only the error
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _is_worker(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _when_marking(process: subprocess.Popen[str], path: Path) -> set[int]:
    """Wait until the run has marked facts with two workers up; every child's pid."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        children = _children(process.pid)
        with _open(path, readonly=True) as store:
            marked = store.verified_count(FactKind.NIMBER)
        if sum(map(_is_worker, children)) >= 2 and marked:
            return children
        time.sleep(0.02)
    raise AssertionError("the check never started marking")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_ctrl_c_stops_every_worker_and_keeps_the_marks(tmp_path: Path) -> None:
    solved = _solved_long(tmp_path)
    with _open(solved, readonly=True) as store:
        total = store.count(FactKind.NIMBER)
    for attempt in range(3):  # a run that finished before it could be paused is run again
        path = _copy(solved, tmp_path / f"attempt{attempt}")
        process = _start_check(path)
        try:
            children = _when_marking(process, path)
            # paused, the run cannot end before the interrupt reaches it: SIGINT stays
            # pending until SIGCONT (it could otherwise finish between the poll and the signal)
            process.send_signal(signal.SIGSTOP)
            state = os.waitid(os.P_PID, process.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
            assert state is not None
            if state.si_code != os.CLD_STOPPED:
                process.communicate(timeout=60)
                continue
            process.send_signal(signal.SIGINT)
            process.send_signal(signal.SIGCONT)
            _out, err = process.communicate(timeout=60)
        finally:
            process.kill()
        break
    else:
        pytest.fail("the check ended before it could be paused, three times")
    assert process.returncode == 130, err
    assert err.strip().splitlines() == ["sproutsdb check: interrupted"]
    assert all(_gone(pid) for pid in children)
    with _open(path, readonly=True) as store:
        kept = store.verified_count(FactKind.NIMBER)
    assert 0 < kept < total
    code, report = _check_all(path, jobs=2, batch=500)
    assert code == 0 and report["already_verified"] >= kept
    assert report["already_verified"] + report["verified_now"] == total


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_a_worker_killed_stops_the_run_with_one_line(tmp_path: Path) -> None:
    path = _solved_long(tmp_path)
    process = _start_check(path)
    try:
        children = _when_marking(process, path)
        os.kill(max(filter(_is_worker, children)), signal.SIGKILL)
        _out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "check worker" in lines[0] and "Traceback" not in err
    assert all(_gone(pid) for pid in children)
    code, report = _check_all(path, jobs=2, batch=500)
    assert code == 0 and report["ok"]


def test_jobs_is_for_check_all(tmp_path: Path) -> None:
    path = _solved(tmp_path, 4)
    for args in (
        ("--all", "--jobs", "0"),
        ("--root", "0*4", "--jobs", "2"),
        ("--root", "0*4", "--misere", "--jobs", "2"),
    ):
        done = run_cli("check", "--store", str(path), *args)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, args
    done = run_cli("check", "--help")
    assert "--jobs N" in done.stdout and "--all --jobs 8" in done.stdout
