"""Every number and tree the misère paper (Lemoine & Viennot) publishes, as a test."""

from __future__ import annotations

import pytest

from sproutsdb.solver.cgt import Algebra


@pytest.fixture
def alg() -> Algebra:
    return Algebra()


def same(alg: Algebra, left: str, right: str) -> bool:
    return alg.parse(left) == alg.parse(right)


# -- §2.9, Theorem 2 and 3 -----------------------------------------------------------------


def test_mex_rule_0135_is_2(alg: Algebra) -> None:
    assert same(alg, "{0;1;3;5}", "2")
    assert alg.nim_value(alg.parse("{0;1;3;5}")) == 2


def test_23_is_irreducible(alg: Algebra) -> None:
    t = alg.parse("{2;3}")
    assert alg.format(t) == "{2;3}"
    assert alg.nim_value(t) is None
    assert (alg.height(t), alg.outcome(t), alg.nimber(t)) == (4, "L", 0)


def test_nim_heaps_with_0_or_1_add_by_xor(alg: Algebra) -> None:
    assert same(alg, "3+1", "2")
    assert same(alg, "4+1", "5")
    assert same(alg, "2+1", "3")  # 3 ~ 2 + 1: *3 factors as *2 + *1
    assert same(alg, "1+1", "0")
    for m in range(6):
        for n in (0, 1):
            assert alg.add(alg.nim(m), alg.nim(n)) == alg.nim(m ^ n)


def test_2_plus_2_is_23(alg: Algebra) -> None:
    assert same(alg, "2+2", "{2;3}")
    assert same(alg, "2+2", "{2+0;2+1}")


# -- §2.7: 2 and 2+2+2 are distinguished by {1;{2}} ------------------------------------------


def test_1_2_distinguishes_2_from_2_2_2(alg: Algebra) -> None:
    assert alg.outcome(alg.parse("2+{1;{2}}")) == "W"
    assert alg.outcome(alg.parse("2+2+2+{1;{2}}")) == "L"
    assert not same(alg, "2", "2+2+2")


# -- §2.9–2.10: S2, S3, S4 ----------------------------------------------------------------


def test_s2_and_s3_trees(alg: Algebra) -> None:
    # S2 has two children, both ~ 2: its RCT is {2} (the tree 3-1-L of the paper).
    s2 = alg.parse("{2;2}")
    assert alg.format(s2) == "{2}" and alg.outcome(s2) == "L" and alg.height(s2) == 3
    # 0.0.AB.}AB.}]! is contaminated by S2: {1;{2}}; S3 = {0;0;{1;{2}}} recovers to 1.
    assert alg.format(alg.parse("{1;{2}}")) == "{1;{2}}"
    assert same(alg, "{0;0;{1;{2}}}", "1")


def test_s4_tree_is_reduced(alg: Algebra) -> None:
    s4 = alg.parse("{3;{1;2;{3;{2}}}}")
    assert alg.format(s4) == "{3;{1;2;{3;{2}}}}"
    assert alg.is_reduced(alg.children(s4))


# -- §2.11: factoring by *1 and the sums it simplifies --------------------------------------------


def test_3_2_is_1_plus_2(alg: Algebra) -> None:
    assert same(alg, "{3;{2}}", "1+{2}")


def test_factoring_shrinks_3_plus_3_2(alg: Algebra) -> None:
    assert same(alg, "3+{3;{2}}", "2+{2}")


def test_conways_sum_collapses(alg: Algebra) -> None:
    assert same(alg, "{0;{2};{3;{2}}}+2", "{2}")


def test_factor_metadata(alg: Algebra) -> None:
    three, two = alg.nim(3), alg.nim(2)
    assert alg.plus1_of(three) == two and alg.plus1_of(two) is None
    assert alg.plus1_of(alg.ONE) == alg.ZERO
    t = alg.parse("{3;{2}}")
    assert alg.plus1_of(t) == alg.parse("{2}")
    assert alg.plus1(t) == alg.parse("{2}") and alg.plus1(alg.parse("{2}")) == t


# -- §3.1.2, Figure 8: the identifiers of {0;2;{3};{1;3;{2}}} and its subtrees --------------------

FIGURE_8 = [  # (tree, paper identifier, identifiers of its children)
    ("0", "0-0-W", []),
    ("1", "1-0-L", ["0-0-W"]),
    ("2", "2-0-W", ["0-0-W", "1-0-L"]),
    ("3", "3-0-W", ["0-0-W", "1-0-L", "2-0-W"]),
    ("{2}", "3-1-L", ["2-0-W"]),
    ("{3}", "4-1-L", ["3-0-W"]),
    ("{1;3;{2}}", "4-2-W", ["1-0-L", "3-0-W", "3-1-L"]),
    ("{0;2;{3};{1;3;{2}}}", "5-1-W", ["0-0-W", "2-0-W", "4-1-L", "4-2-W"]),
]


def test_figure_8_table(alg: Algebra) -> None:
    root = alg.parse("{0;2;{3};{1;3;{2}}}")  # the first tree met: numbering as in the paper
    assert alg.format(root) == "{0;2;{3};{1;3;{2}}}"
    for text, label, child_labels in FIGURE_8:
        t = alg.parse(text)
        assert alg.label(t, "paper") == label, text
        assert sorted(alg.label(c, "paper") for c in alg.children(t)) == child_labels, text
        h, _, outcome = label.split("-")
        assert (alg.height(t), alg.outcome(t)) == (int(h), outcome)
    assert [alg.label(alg.parse(t)) for t, _, _ in FIGURE_8] == [
        "0",
        "1",
        "2",
        "3",
        "3-1-L",
        "4-1-L",
        "4-2-W",
        "5-1-W",
    ]


def test_section_3_3_factored_identifiers(alg: Algebra) -> None:
    alg.parse("{0;2;{3};{1;3;{2}}}")
    assert alg.label(alg.nim(3), "factored") == "2-0+1-W"
    assert alg.label(alg.nim(2), "factored") == "2-0-W"
    assert alg.label(alg.nim(1), "factored") == "0-0+1-L"
    assert alg.label(alg.parse("{3;{2}}")) == "3-1+1-W"
    # 4-2-W = {0-0+1-L 2-0+1-W 3-1-L} and 4-2-W + 1 = {0-0-W 2-0-W 3-1+1-W 4-2-W}
    t = alg.parse("{1;3;{2}}")
    assert sorted(alg.label(c, "factored") for c in alg.children(t)) == [
        "0-0+1-L",
        "2-0+1-W",
        "3-1-L",
    ]
    t1 = alg.plus1(t)
    assert sorted(alg.label(c, "factored") for c in alg.children(t1)) == [
        "0-0-W",
        "2-0-W",
        "3-1+1-W",
        "4-2-W",
    ]
    assert alg.label(t1) == "4-2+1-L"  # L: every child of 4-2-W + 1 is a misère win
    assert alg.plus1_of(t1) == t and alg.height(t1) == 5


def test_section_3_2_3_other_reducers(alg: Algebra) -> None:
    alg.parse("{0;2;{3};{1;3;{2}}}")
    # {0-0-W 2-0-W 4-1-L 4-2-W 5-0-W 7-0-W}: no reducer, a new tree 8-n-W.
    t = alg.parse("{0;2;{3};{1;3;{2}};5;7}")
    assert alg.format(t) == "{0;2;{3};{1;3;{2}};5;7}"
    assert alg.label(t) == "8-1-W"
    assert alg.is_reduced(alg.children(t))


def test_section_4_1_node_simplifications(alg: Algebra) -> None:
    assert same(alg, "1+1+1", "1")
    assert alg.plus1_of(alg.parse("1+{2}")) == alg.parse("{2}")  # 0.0.A.}2A.}]! ~ 1+3-1-L


def test_proviso_keeps_misere_losses(alg: Algebra) -> None:
    # {2;3}: every child has 0 as a child, but it is a misère loss: not reducible to 0.
    assert alg.nim_value(alg.parse("{2;3}")) is None
    # {1;2;3}: a misère win whose every child has 0 as a child: it is 0.
    assert same(alg, "{1;2;3}", "0")
    # {{2}}: a win, but {2} has no child 0.
    assert alg.height(alg.parse("{{2}}")) == 4


# -- derived by hand from the definitions ---------------------------------------------------


def test_0_2_and_its_relatives(alg: Algebra) -> None:
    # {0;{2}}: a win (the child {2} is a loss); not 0 (0 has no child 0); the prefix
    # {0} = 1 is no reducer ({2} lacks the child 1): irreducible, height 4, nimber 1.
    t = alg.parse("{0;{2}}")
    assert alg.format(t) == "{0;{2}}"
    assert (alg.height(t), alg.outcome(t), alg.nimber(t)) == (4, "W", 1)
    assert alg.plus1_of(t) is None and alg.label(t) == "4-1-W"
    # Not factorable, so {0;{2}} + 1 = {0+1; {2}+1; {0;{2}}} unreduced (§3.3).
    assert alg.format(alg.plus1(t)) == "{1;{0;{2}};{3;{2}}}"
    assert alg.label(alg.plus1(t)) == "4-1+1-W"  # its child 1 is a loss
    # Conway's {0;{2};{3;{2}}}: irreducible ({0;{2}} is no prefix: {2} and {3;{2}} are
    # only one apart), a win of height 5 and nimber 2, so + 2 has nimber 0 like {2}.
    c = alg.parse("{0;{2};{3;{2}}}")
    assert (alg.height(c), alg.outcome(c), alg.nimber(c)) == (5, "W", 2)
    # {0;{{2}}}: a loss (both children win), and {{2}} lacks the child 1: irreducible.
    assert alg.format(alg.parse("{0;{{2}}}")) == "{0;{{2}}}"
    # {0;{1}} = {0;0} = 1 and {0;{0;{2}}}: {0} = 1 is no child of {0;{2}}: irreducible.
    assert alg.parse("{0;{1}}") == alg.ONE
    assert alg.format(alg.parse("{0;{0;{2}}}")) == "{0;{0;{2}}}"
    # {1;{0;{2}}}: a win (1 is a loss) whose children all have the child 0: it is 0.
    assert alg.parse("{1;{0;{2}}}") == alg.ZERO
    # {1;{1;{2}}}: {1;{2}} has no child 0; the prefix {1} is no RCT (it is 0): irreducible.
    assert alg.format(alg.parse("{1;{1;{2}}}")) == "{1;{1;{2}}}"


def test_is_reduced_interns_nothing(alg: Algebra) -> None:
    before = len(alg)
    kids = [alg.nim(2), alg.nim(3), alg.nim(5)]
    after_heaps = len(alg)
    assert alg.is_reduced(kids) and not alg.is_reduced([alg.nim(0), alg.nim(2)])
    assert len(alg) == after_heaps >= before
    with pytest.raises(KeyError):
        alg.handle("rct1:" + "0" * 32)
