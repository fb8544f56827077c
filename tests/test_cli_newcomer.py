"""What a newcomer meets following the README: canon --json, the serve start-up hint with a
token, serve --help on open writes, stats in a stable order, seeded RCTs verified."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import run_cli
from service_support import ServerProcess, build_table


def test_canon_json_gives_key_lands_and_lives() -> None:
    done = run_cli("canon", "0*2+0.AB|AB", "0.0.}]!", "--json")
    assert done.returncode == 0, done.stderr
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first == {
        "input": "0*2+0.AB|AB",
        "position": "0*2+0.AB|AB",
        "lands": ["0*2", "0.AB|AB"],
        "lives": 11,
    }
    assert second["position"] == "0*2" and second["lives"] == 6


def test_serve_help_says_writes_are_open_without_a_token() -> None:
    text = " ".join(run_cli("serve", "--help").stdout.split())
    assert "Writes are open to all too unless --token-file F is given" in text
    assert "reads open, writes with a token" not in text


def test_a_token_server_hints_at_token_file_and_lists_kinds_in_order(tmp_path: Path) -> None:
    table = build_table("0*4", tmp_path / "s4.rcttable")
    token = tmp_path / "token"
    token.write_text("a-secret-token-of-some-length\n")
    with ServerProcess(
        tmp_path / "store", "--seed", str(table), "--token-file", str(token)
    ) as server:
        assert server.proc is not None and server.proc.stdout is not None
        hints = [server.proc.stdout.readline() for _ in range(3)]
        solve_hint = next(line for line in hints if "solve:" in line)
        assert f"--server {server.address} --token-file {token}" in solve_hint
        words = solve_hint.split("solve:", 1)[1].split()  # `PYTHON -m sproutsdb solve …`
        command = words[words.index("sproutsdb") + 1 :]  # what the hint says to run
        solved = run_cli(*command, "--json", cwd=tmp_path)
        assert solved.returncode == 0, solved.stderr
        orders = set()
        for _ in range(3):
            report = json.loads(run_cli("stats", "--server", server.address, "--json").stdout)
            orders.add(tuple(report["facts"]))
            assert tuple(report["verified"]) == tuple(
                k for k in report["facts"] if k in report["verified"]
            )
        assert orders == {("nimber", "misere", "rct", "pos_rct", "children")}
        # the seeded RCT records were re-derived when the table was loaded: verified
        assert report["verified"]["rct"] == report["facts"]["rct"] > 0
        text = run_cli("stats", "--server", server.address).stdout
        kinds = [line.split()[0] for line in text.splitlines() if " facts (" in line]
        assert kinds == ["nimber", "misere", "rct", "pos_rct"]
        # the children cache comes last, and is not called facts
        cache = [line.split()[0] for line in text.splitlines() if " cached (" in line]
        assert cache == ["children"]
