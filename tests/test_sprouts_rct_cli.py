"""`sproutsdb rct`: positions and tree expressions in, the paper's notation and facts out."""

from __future__ import annotations

import io
import json

import pytest

from sproutsdb.solver.misere.rctsearch import RctSearch
from sproutsdb.tools.cli import main

KEYS = ["position", "tree", "label", "id", "height", "outcome"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    assert main(["rct", "--json", "--quiet", *argv]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_positions_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    facts = run_json(capsys, "0*2", "0.0.AB.}AB.}]!", "0*3")
    assert [list(f) for f in facts] == [KEYS] * 3
    assert facts[0] == {
        "position": "0*2",
        "tree": "{2}",
        "label": "3-1-L",
        "id": facts[0]["id"],
        "height": 3,
        "outcome": "L",
    }
    assert str(facts[0]["id"]).startswith("rct1:")
    assert (facts[1]["position"], facts[1]["tree"], facts[1]["outcome"]) == (
        "0*2.AB|AB",
        "{1;{2}}",
        "W",
    )
    assert (facts[2]["tree"], facts[2]["id"], facts[2]["label"]) == ("1", "*1", "1")


def test_tree_expression(capsys: pytest.CaptureFixture[str]) -> None:
    (fact,) = run_json(capsys, "--tree", "{2}+1")
    assert fact["position"] is None
    assert (fact["tree"], fact["label"], fact["height"], fact["outcome"]) == (
        "{3;{2}}",
        "3-1+1-W",
        4,
        "W",
    )


def test_same_tree_same_id_from_position_and_expression(
    capsys: pytest.CaptureFixture[str],
) -> None:
    by_position, by_tree = run_json(capsys, "--tree", "{0;2;{3};{1;3;{2}}}", "1ABC.}BCDE.}ADE.}]!")
    assert by_position["id"] == by_tree["id"] and by_tree["position"] == "1ABC|ADE|BCDE"


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rct", "--quiet", "0*4"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("0*4  {3;{1;2;{3;{2}}}}  label=")
    assert "height=6 outcome=L id=rct1:" in line


def test_long_trees_are_withheld_not_cut(capsys: pytest.CaptureFixture[str]) -> None:
    (fact,) = run_json(capsys, "--max-chars", "5", "0*4")
    assert fact["tree"] is None and fact["height"] == 6
    assert main(["rct", "--quiet", "--max-chars", "5", "0*4"]) == 0
    assert "<tree longer than 5 characters" in capsys.readouterr().out


def test_stdin_batch_shares_one_search(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[object] = []
    real = RctSearch

    def counting(*args: object, **kwargs: object) -> object:
        made.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("sproutsdb.tools.cmd_rct.RctSearch", counting)  # the one it calls
    lines = ["0*2", "# a comment", "", "0*3", "0*4", "0.0.A.}0.A.}]!"] * 50
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    facts = run_json(capsys, "-")
    assert len(facts) == 200 and len(made) == 1
    assert [f["tree"] for f in facts[:4]] == ["{2}", "1", "{3;{1;2;{3;{2}}}}", "{3;{2}}"]


def test_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rct", "--quiet", "0.A|"]) == 2
    assert capsys.readouterr().err.startswith("sproutsdb rct: error:")
    assert main(["rct", "--tree", "{2"]) == 2
    assert "expected ';' or '}'" in capsys.readouterr().err
    assert main(["rct"]) == 2
    assert "give positions" in capsys.readouterr().err
