"""`solve`, `nimber` and `query` on a real embedded LMDB store in a temp directory."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from cli_helpers import json_lines, run_cli
from service_support import build_table
from sproutsdb.shipped import shipped_table
from sproutsdb.solver.misere.solver import brute_force_misere
from sproutsdb.solver.sprouts.game import SproutsGame


def test_solve_prints_outcome_and_nimber_and_fills_the_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    done = run_cli("solve", "--spots", "6", "--json", "--store", str(store))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == {
        "position",
        "outcome",
        "nimber",
        "stored",
        "nodes",
        "seconds",
        "jobs",
        "unverified_store_facts",
    }
    assert (report["position"], report["outcome"], report["nimber"]) == ("0*6", "L", 0)
    assert report["stored"] > 0 and report["unverified_store_facts"] == 0
    again = json.loads(run_cli("solve", "0*6", "--json", "--store", str(store)).stdout)
    assert again["stored"] == 0 and again["nimber"] == 0
    assert again["unverified_store_facts"] == report["stored"]


def test_solve_says_when_its_answer_may_rest_on_facts_no_check_verified(tmp_path: Path) -> None:
    """A store's facts are read as proven; solve says so while a check has not verified
    them, and stops saying it once `check --all` has."""
    store = str(tmp_path / "store")
    plays = (("0*5",), ("0*5", "--misere", "--no-rct-table"))
    for play in plays:
        first = run_cli("solve", *play, "--store", store)
        assert first.returncode == 0, first.stderr
        assert "may rest on" not in first.stdout
        again = run_cli("solve", *play, "--store", store)
        assert "that no check has marked verified" in again.stdout
        assert f"sproutsdb check --store {store} --root '{play[0]}'" in again.stdout
    assert "--root '0*5' --misere` re-derives" in again.stdout
    assert run_cli("check", "--all", "--store", store, "--quiet").returncode == 0
    for play in plays:
        checked = run_cli("solve", *play, "--store", store, "--json")
        assert json.loads(checked.stdout)["unverified_store_facts"] == 0


def test_default_store_is_in_the_current_folder(tmp_path: Path) -> None:
    done = run_cli("solve", "0*4", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "0*4: W" in done.stdout and "nimber 1" in done.stdout
    assert (tmp_path / "sproutsdb-data").is_dir()


def test_sum_reports_outcome_without_nimber(tmp_path: Path) -> None:
    done = run_cli("solve", "0*3+0.A|0.A", "--json", "--store", str(tmp_path / "s"))
    report = json.loads(done.stdout)
    assert report["outcome"] == "L" and report["nimber"] is None


def test_nimber_batch_and_query(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    done = run_cli(
        "nimber", "-", "--json", "--store", store, stdin="0*5\n1a1a\n2ab2ba\n0*3+0.A|0.A\n"
    )
    assert done.returncode == 0, done.stderr
    assert [(r["position"], r["nimber"]) for r in json_lines(done.stdout)] == [
        ("0*5", 1),
        ("1a1a", 2),
        ("2ab2ba", 3),
        ("0*3+0.A|0.A", 0),
    ]
    report = json.loads(run_cli("query", "0*3+0.A|0.A", "--json", "--store", store).stdout)
    assert report["outcome"] == "L" and report["nimber"] == 0
    assert [land["nimber"] for land in report["lands"]] == [1, 1]
    assert all(land["status"] == "claimed" for land in report["lands"])


def test_query_of_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    done = run_cli("query", "0*2", "--store", str(tmp_path / "nothing"))
    assert done.returncode == 2
    assert "no store at" in done.stderr and "Traceback" not in done.stderr


def test_solve_usage_errors(tmp_path: Path) -> None:
    assert run_cli("solve", cwd=tmp_path).returncode == 2
    assert run_cli("solve", "0*2", "--spots", "2", cwd=tmp_path).returncode == 2
    bad = run_cli("solve", "0.A", cwd=tmp_path)
    assert bad.returncode == 2 and "seen once" in bad.stderr


def test_solve_misere_grundy_is_the_least_g_making_a_loss(tmp_path: Path) -> None:
    game = SproutsGame()
    memo: dict[str, bool] = {}
    store = str(tmp_path / "store")
    for position, expected in [("0*2", 0), ("0", 1), ("0.AB|AB+0", 2)]:
        done = run_cli(
            "solve", position, "--misere", "--grundy", "--json", "--quiet", "--store", store
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        key = game.canonical(position)
        assert (report["position"], report["play"], report["grundy"]) == (key, "misere", expected)
        g = report["grundy"]
        assert brute_force_misere(game, key, memo, nim=g) == "L"
        assert all(brute_force_misere(game, key, memo, nim=h) == "W" for h in range(g))
        assert report["outcome"] == brute_force_misere(game, key, memo)
    text = run_cli("solve", "0*2.1a1a", "--misere", "--grundy", "--store", store)
    assert text.returncode == 0, text.stderr
    assert "0*2.1a1a: W in misère play" in text.stdout
    assert "misère Grundy value 3: 0*2.1a1a + *3 is the first misère loss" in text.stdout


def test_grundy_without_misere_is_a_usage_error(tmp_path: Path) -> None:
    done = run_cli("solve", "0*4", "--grundy", "--store", str(tmp_path / "s"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--grundy" in done.stderr
    assert "add --misere" in done.stderr and not (tmp_path / "s").exists()


def _smaller_certificates(play: str, spots: int) -> int:
    """How many certificates of the shipped results library `--seed-results` takes for a
    solve of 0*spots: those of the play whose position has fewer lives."""
    from sproutsdb.ops.results import read_manifest, shipped_library

    game = SproutsGame()
    lives = game.size(f"0*{spots}")
    return sum(
        1
        for entry in read_manifest(shipped_library())
        if entry.game == "sprouts"  # the library holds Cram boards too, never seeded here
        and entry.play == play
        and game.size(game.canonical(entry.position)) < lives
    )


def test_seed_results_starts_a_misere_solve_from_the_smaller_proofs(tmp_path: Path) -> None:
    """`solve --seed-results` stores the library's certificates of 0*1..0*8 (each
    re-derived first) before a misère solve of 0*9: the same answer in fewer visits, and a
    second run finds them all present."""
    fresh = run_cli("solve", "0*9", "--misere", "--json", "--store", str(tmp_path / "a"))
    assert fresh.returncode == 0, fresh.stderr
    store = str(tmp_path / "b")
    seeded = run_cli("solve", "0*9", "--misere", "--seed-results", "--json", "--store", store)
    assert seeded.returncode == 0, seeded.stderr
    before, after = json.loads(fresh.stdout), json.loads(seeded.stdout)
    assert before["outcome"] == after["outcome"] == "L"  # A164950
    counts = after["seeded_results"]
    assert counts["refused"] == counts["conflicts"] == 0
    assert counts["seeded"] + counts["present"] == _smaller_certificates("misere", 9) == 8
    assert counts["seeded"] >= 1 and "seeded misère 0*8 (9 facts)" in seeded.stderr
    assert after["nodes"] < before["nodes"]
    assert after["unverified_store_facts"] == 0  # seeded facts come verified
    again = run_cli("solve", "0*9", "--misere", "--seed-results", "--json", "--store", store)
    counts = json.loads(again.stdout)["seeded_results"]
    assert (counts["seeded"], counts["present"]) == (0, 8)


def test_seed_results_in_normal_play(tmp_path: Path) -> None:
    """The normal-play library (nimbers of 0*0..0*10) seeds an outcome solve of 0*11."""
    fresh = run_cli("solve", "0*11", "--outcome-only", "--json", "--store", str(tmp_path / "a"))
    store = str(tmp_path / "b")
    args = ("solve", "0*11", "--outcome-only", "--seed-results", "--json", "--quiet")
    seeded = run_cli(*args, "--store", store)
    assert seeded.returncode == 0, seeded.stderr
    assert seeded.stderr == ""  # --quiet: no seeding lines either
    before, after = json.loads(fresh.stdout), json.loads(seeded.stdout)
    assert before["outcome"] == after["outcome"] == "W"
    counts = after["seeded_results"]
    assert counts["seeded"] + counts["present"] == _smaller_certificates("normal", 11) == 11
    assert counts["refused"] == counts["conflicts"] == 0
    assert after["nodes"] < before["nodes"]


def test_seed_results_refuses_a_search_on_another_rct_table(tmp_path: Path) -> None:
    """The library's misère certificates name the trees of the shipped S6 table: seeding
    them for a search on another table (or none) is refused before anything is stored."""
    table = build_table("0*4", tmp_path / "s4.rcttable")
    store = tmp_path / "store"
    for table_args, searched_on in (
        (("--rct-table", str(table)), "s4.rcttable"),
        (("--no-rct-table",), "no RCT table (--no-rct-table)"),
    ):
        args = ("solve", "0*7", "--misere", "--seed-results", *table_args)
        done = run_cli(*args, "--store", str(store))
        assert done.returncode == 2
        assert done.stderr.strip().splitlines() == [
            "sproutsdb solve: error: --seed-results stores the results library's misère "
            "certificates, whose losing nodes name the trees of the shipped S6 table "
            f"(s6.rcttable); a search on {searched_on} would take them as proven, and its "
            "proof would need both tables while a check reads one: solve on it from an "
            "empty store, or drop --seed-results"
        ]
        assert not store.exists()


def test_a_misere_proof_on_two_tables_does_not_check_and_solve_warns(tmp_path: Path) -> None:
    """Why the refusal above: a store seeded and solved on S6 up to 0*7, then solved on S4
    at 0*8, has the right outcome, but its proof rests on S6-keyed nodes that a check on S4
    cannot follow (issue 28's finding: 0*9 on S5, 0*14 and 0*19 on S7). The second solve
    says so; the same solve on an empty store checks clean on S4."""
    table = build_table("0*4", tmp_path / "s4.rcttable")
    s6 = shipped_table()
    assert s6 is not None
    s6_sha = hashlib.sha256(s6.read_bytes()).hexdigest()
    mixed, fresh = str(tmp_path / "mixed"), str(tmp_path / "fresh")
    first = run_cli("solve", "0*7", "--misere", "--seed-results", "--quiet", "--store", mixed)
    assert first.returncode == 0, first.stderr
    for store, warned in ((mixed, True), (fresh, False)):
        args = ("solve", "0*8", "--misere", "--rct-table", str(table), "--json")
        done = run_cli(*args, "--store", store)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["outcome"] == "L"  # A164950
        warning = (
            "sproutsdb solve: warning: this store's misère facts were solved on s6.rcttable "
            f"(sha256 {s6_sha[:12]}…); a search on s4.rcttable takes them as proven"
        )
        assert (warning in done.stderr) is warned, done.stderr
        check = ("check", "--misere", "--root", "0*8", "--rct-table", str(table), "--json")
        report = json.loads(run_cli(*check, "--store", store).stdout)
        assert report["ok"] is not warned
        assert (report["facts_unproven"] > 0) is warned


def test_seed_results_refuses_a_server_store() -> None:
    done = run_cli("solve", "0*9", "--misere", "--seed-results", "--server", "127.0.0.1:1")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "sproutsdb solve: error: --seed-results seeds an embedded store (--store); a server "
        "seeds the results library into its own store when it starts (sproutsdb serve)"
    ]
