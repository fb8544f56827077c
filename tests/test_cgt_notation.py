"""Tree expressions: what parses, how trees print, and what the errors say."""

from __future__ import annotations

import pytest

from sproutsdb.errors import UserError
from sproutsdb.solver.cgt import Algebra, FormatLimitError
from sproutsdb.solver.ports.game import NotationError


@pytest.fixture
def alg() -> Algebra:
    return Algebra()


@pytest.mark.parametrize(
    "text, printed",
    [
        ("0", "0"),
        ("*0", "0"),
        ("{}", "0"),
        ("{ }", "0"),
        ("*3", "3"),
        ("3", "3"),
        ("{0}", "1"),
        ("{0;1}", "2"),
        ("{{};{{}}}", "2"),
        ("{{2};1;3}", "{1;3;{2}}"),
        ("{ {1 ; 3 ;{2}} ; {3} ; 2 ; 0 }", "{0;2;{3};{1;3;{2}}}"),
        ("2 + {2}", "{{2};{2;3};{3;{2}}}"),
        ("(2+2)", "{2;3}"),
        ("{(1+{2})}", "{{3;{2}}}"),
        ("{2+1;2+2}", "{3;{2;3}}"),
        ("{2+1;1+1}", "1"),
        ("  12 ", "12"),
    ],
)
def test_parse_and_print(alg: Algebra, text: str, printed: str) -> None:
    t = alg.parse(text)
    assert alg.format(t) == printed
    assert alg.parse(printed) == t


def test_printing_is_a_fixed_point(alg: Algebra) -> None:
    for text in ["{3;{1;2;{3;{2}}}}", "3+{3;{2}}", "{0;{2};{3;{2}}}+{2}+5"]:
        printed = alg.format(alg.parse(text))
        fresh = Algebra()
        assert fresh.format(fresh.parse(printed)) == printed


@pytest.mark.parametrize(
    "text, where",
    [
        ("", "empty"),
        ("{0;2", "column 5: expected ';' or '}', found end of input"),
        ("{0;;1}", "column 4: expected a tree"),
        ("{0,1}", "column 3: expected ';' or '}', found ','"),
        ("*", "column 2: expected the size of the heap"),
        ("*x", "column 2: expected the size of the heap"),
        ("2+", "column 3: expected a tree"),
        ("2 3", "column 3: expected '+' or the end"),
        ("{0}}", "column 4: expected '+' or the end"),
        ("(1", "column 3: expected ')'"),
        ("a", "column 1: expected a tree"),
        ("-1", "column 1: expected a tree"),
        ("*999999", "larger than"),
        ("{" * 500 + "}" * 500, "nesting deeper"),
    ],
)
def test_errors_say_where(alg: Algebra, text: str, where: str) -> None:
    with pytest.raises(NotationError) as info:
        alg.parse(text)
    assert where in str(info.value)
    assert isinstance(info.value, UserError)


def test_format_refuses_huge_text(alg: Algebra) -> None:
    t = alg.parse("{2}")
    for _ in range(12):  # every level doubles the printed size
        t = alg.reduce_children([t, alg.add(t, alg.ONE)])
    with pytest.raises(FormatLimitError):
        alg.format(t, limit=1000)
    assert len(alg.format(t, limit=None)) > 1000


def test_labels_in_short_style(alg: Algebra) -> None:
    assert [alg.label(alg.nim(n)) for n in range(4)] == ["0", "1", "2", "3"]
    assert alg.label(alg.parse("{2}")) == "3-1-L"
    with pytest.raises(ValueError):
        alg.label(0, "fancy")


def test_bad_handles_are_refused(alg: Algebra) -> None:
    for bad in ([-1], [len(alg)], ["0"], [True]):
        with pytest.raises(ValueError):
            alg.reduce_children(bad)
    with pytest.raises(ValueError):
        alg.add(0, 99)
    with pytest.raises(ValueError):
        alg.nim(-2)
