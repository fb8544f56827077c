"""Reading both GLOP syntaxes, scoped letter names, and precise errors."""

from __future__ import annotations

import pytest

from sproutsdb.solver.ports.game import NotationError
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.solver.sprouts.notation import parse

game = SproutsGame()

# docs/architecture.md §2: old (1.x) → new (2.x) examples.
OLD_TO_NEW = [
    ("0.0.}]!", "0*2"),
    ("0.AB.}AB.}]!", "0.AB|AB"),
    ("1ABC.}BCDE.}ADE.}]!", "1ABC|BCDE|ADE"),
    ("2ab2ba.}]", "2ab2ba"),
    ("0.0.0.0.0.0.}]!", "0*6"),
    ("ABCD.}AB.}CD.}]!", "ABCD|AB|CD"),
]


@pytest.mark.parametrize("old, new", OLD_TO_NEW)
def test_both_syntaxes_give_the_same_position(old: str, new: str) -> None:
    assert game.canonical(old) == game.canonical(new)


@pytest.mark.parametrize("text", ["0*2", "0.AB|AB", "1ABC|ADE|BCDE", "2ab2ba", "0*3.AB|AB"])
def test_canonical_strings_read_back_to_themselves(text: str) -> None:
    key = game.canonical(text)
    assert game.canonical(key) == key


def test_lives_count_spots_and_letters() -> None:
    assert game.size(game.canonical("0*4")) == 12
    assert game.size(game.canonical("1ABC|BCDE|ADE")) == 2 + 5
    assert game.size(game.canonical("2ab2ba")) == 4
    assert game.size("!") == 0


def test_empty_position_and_terminal() -> None:
    assert game.canonical("!") == "!"
    assert game.children("!") == []
    # A land with no move left disappears: one spot with one life is dead.
    assert game.canonical("2") == "!"
    assert game.canonical("aa") == "!"


def test_zero_star_k_expands() -> None:
    assert game.canonical("0*3") == game.canonical("0.0.0")
    assert game.canonical("0*2.AB|AB") == game.canonical("0.0.AB|AB")


def test_letter_scopes_follow_glop() -> None:
    # Lowercase names are local to a boundary, uppercase names local to a land.
    two_boundaries = parse("1a1a.1a1a")
    assert len(two_boundaries.regions[0]) == 2
    assert len(set(two_boundaries.lives)) == 2 and len(two_boundaries.lives) == 6
    assert game.canonical("0.AB|AB+0.AB|AB") == "0.AB|AB+0.AB|AB"
    assert game.canonical("0.AB.}AB.}]0.AB.}AB.}]!") == "0.AB|AB+0.AB|AB"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("AB|A", "uppercase letter 'B' seen once"),
        ("1a1", "lowercase letter 'a' seen once"),
        ("A|A|A", "seen three times"),
        ("0.AB|AB|AB", "seen three times"),
        ("AA|B.B", "seen twice in one region"),
        ("0..0", "empty boundary"),
        ("0.A#|A", "unknown character '#'"),
        ("01", "isolated spot 0 must be alone"),
        ("0*", "must be followed by a number"),
        ("", "empty position"),
        ("0!0", "text after the end"),
        ("0++0", "empty land"),
    ],
)
def test_errors_say_what_and_where(text: str, fragment: str) -> None:
    with pytest.raises(NotationError) as error:
        game.canonical(text)
    message = str(error.value)
    assert fragment in message
    if text:
        assert "column" in message


def test_notation_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        game.canonical("A")


def test_genus_is_kept_in_the_model() -> None:
    key = game.canonical("0.0@1")
    assert "@1" in key
    assert game.canonical(key) == key
