"""Positions at and over the size limit: the CLI answers or refuses in one line, never a
traceback, a RecursionError or unbounded memory; error columns point inside the text."""

from __future__ import annotations

import sys

import pytest

from cli_helpers import run_cli
from sproutsdb.server.validation import Limits
from sproutsdb.solver.ports.game import NotationError
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.solver.sprouts.notation import MAX_POSITION_VERTICES, count_vertices, upper_name


def region_chain(links: int) -> str:
    """One land of links + 1 regions in a row, each sharing a letter with the next."""
    names = [upper_name(i) for i in range(links)]
    regions = ["1" + names[0]] + [names[i] + "1" + names[i + 1] for i in range(links - 1)]
    return "|".join([*regions, names[-1] + "1"])


def test_the_server_limit_is_the_parser_limit() -> None:
    assert Limits().max_position_vertices == MAX_POSITION_VERTICES == 1000


@pytest.mark.parametrize(
    "text, count",
    [
        ("0*1000", 1000),
        ("0*3+0.AB|AB", 8),
        ("Z(25)1Z(25)", 3),
        ("0.0@2", 2),
        ("0.0.}]!", 2),
        ("0*99999999999999999999", 10**12),
    ],
)
def test_vertices_are_counted_as_written(text: str, count: int) -> None:
    assert count_vertices(text) == count


def test_the_largest_positions_canonicalise_without_recursion_errors() -> None:
    game = SproutsGame()
    limit = sys.getrecursionlimit()
    assert game.canonical("0*1000") == "0*1000"  # 1 000 boundaries in one region
    chain = region_chain(333)  # 334 regions nested in one land: exactly 1 000 vertices
    assert count_vertices(chain) == 1000
    assert game.canonical(game.canonical(chain)) == game.canonical(chain)
    assert sys.getrecursionlimit() == limit  # raised for the deep search only


@pytest.mark.parametrize(
    "args, size",
    [
        (["canon", "0*1001"], "1,001"),
        (["canon", "0*99999999"], "99,999,999"),
        (["canon", "0*" + "9" * 5000], "over 1,000,000,000,000"),
        (["solve", "0*5000"], "5,000"),
        (["query", "0*5000", "--server", "127.0.0.1:1"], "5,000"),
        (["solve", "0*5000", "--misere"], "5,000"),
        (["rct", "0*5000"], "5,000"),
    ],
)
def test_oversized_positions_are_refused_in_one_line(args: list[str], size: str) -> None:
    done = run_cli(*args, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"a position of {size} spots and letters" in done.stderr
    assert "the limit is 1,000" in done.stderr


def test_canon_of_the_limit_itself_works() -> None:
    done = run_cli("canon", "0*1000", region_chain(333), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "0*1000"


def test_children_of_a_region_with_too_many_boundaries_is_one_line() -> None:
    done = run_cli("children", "0*1000")
    assert done.returncode == 2
    assert "2**999 ways to split; too many" in done.stderr and "Traceback" not in done.stderr
    done = run_cli("children", "0*65")  # 64 others: one more than a split's mask holds
    assert done.returncode == 2 and "2**64 ways to split; too many" in done.stderr
    done = run_cli("children", "0*64")
    assert done.returncode == 0 and "0*62.AB|0.AB" in done.stdout, done.stderr


@pytest.mark.parametrize(
    "text, where",
    [
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn", "at column 27 of"),  # 40 characters
        ("AB|A", "at column 2 of"),
        ("01", "at column 1 of"),
        ("0.1a", "at column 4 of"),
    ],
)
def test_error_columns_point_inside_the_text(text: str, where: str) -> None:
    with pytest.raises(NotationError) as error:
        SproutsGame().canonical(text)
    assert where in str(error.value)
    column = int(str(error.value).split("at column ")[1].split()[0])
    assert 1 <= column <= len(text)
