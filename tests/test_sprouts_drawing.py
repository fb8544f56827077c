"""The picture of a small Sprouts position (server/sprouts_drawing.py): one box per region
holding its boundaries, each boundary the walk through its spots in the notation's order,
spots by their lives, the copies of a spot written in two regions linked, every spot letter
drawn, lands framed when there are several, and a note instead past 8 spots' worth."""

from __future__ import annotations

import re
from typing import Any

import pytest

from sproutsdb.server.sprouts_drawing import MAX_DRAWN_LIVES, MAX_WIDTH, layout
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.solver.sprouts.notation import key_lives

GAME = SproutsGame()


def walks(drawing: dict[str, Any]) -> list[list[list[dict[str, Any]]]]:
    return [[b["points"] for b in r["boundaries"]] for r in drawing["regions"]]


def labels(points: list[dict[str, Any]]) -> str:
    return "".join(p["label"] or str(3 - p["lives"]) for p in points)


def inside(point: dict[str, Any], box: dict[str, Any]) -> bool:
    return (
        box["x"] < point["x"] < box["x"] + box["w"] and box["y"] < point["y"] < box["y"] + box["h"]
    )


def check_geometry(drawing: dict[str, Any]) -> None:
    """Every spot stands in its region's box, the boxes do not overlap, and the picture is
    within its size and MAX_WIDTH."""
    assert 0 < drawing["width"] <= MAX_WIDTH and drawing["height"] > 0
    boxes = drawing["regions"]
    for box in boxes:
        assert box["x"] >= 0 and box["x"] + box["w"] <= drawing["width"] + 0.1
        assert box["y"] >= 0 and box["y"] + box["h"] <= drawing["height"] + 0.1
        for boundary in box["boundaries"]:
            for point in boundary["points"]:
                assert inside(point, box), (point, box)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["x"] + a["w"] <= b["x"]
                or b["x"] + b["w"] <= a["x"]
                or a["y"] + a["h"] <= b["y"]
                or b["y"] + b["h"] <= a["y"]
            )
            assert apart, (a["label"], b["label"])


def test_one_isolated_spot() -> None:
    drawing = layout("0*1")
    assert drawing["note"] is None and (drawing["spots"], drawing["lives"]) == (1, 3)
    [[[point]]] = walks(drawing)
    assert point["lives"] == 3 and point["label"] == ""
    assert drawing["regions"][0]["boundaries"][0]["closed"] is False
    assert drawing["regions"][0]["label"] == "0*1"
    assert drawing["links"] == [] and drawing["lands"] == []
    check_geometry(drawing)


def test_three_isolated_spots_are_three_boundaries_of_one_region() -> None:
    drawing = layout("0*3")
    [region] = walks(drawing)
    assert [len(b) for b in region] == [1, 1, 1]
    assert all(b[0]["lives"] == 3 for b in region)
    assert len({(b[0]["x"], b[0]["y"]) for b in region}) == 3  # three places
    check_geometry(drawing)


def test_three_regions_sharing_spots_design_example() -> None:
    """DESIGN's `1ABC|BCDE|ADE`: each boundary's walk in the notation's order, each letter
    drawn in its two regions with a dashed link between the copies."""
    key = GAME.canonical("1ABC.}BCDE.}ADE.}]!")
    drawing = layout(key)
    assert [r["label"] for r in drawing["regions"]] == key.split("|")
    assert [labels(b) for r in walks(drawing) for b in r] == key.split("|")
    assert all(b["closed"] for r in drawing["regions"] for b in r["boundaries"])
    assert sorted(link["label"] for link in drawing["links"]) == list("ABCDE")
    where = {
        (p["label"], i): (p["x"], p["y"])
        for i, r in enumerate(walks(drawing))
        for b in r
        for p in b
        if p["label"]
    }
    for link in drawing["links"]:
        ends = {place for (name, _), place in where.items() if name == link["label"]}
        assert ends == {(link["x1"], link["y1"]), (link["x2"], link["y2"])}
    assert drawing["lands"] == []  # one land: no frame
    check_geometry(drawing)


def test_a_multi_region_land_with_isolated_spots() -> None:
    drawing = layout("0*3.AB|0*2.AB")
    first, second = walks(drawing)
    assert [labels(b) for b in first] == ["0", "0", "0", "AB"]
    assert [labels(b) for b in second] == ["0", "0", "AB"]
    assert [r["label"] for r in drawing["regions"]] == ["0*3.AB", "0*2.AB"]
    assert {link["label"] for link in drawing["links"]} == {"A", "B"}
    assert (drawing["spots"], drawing["lives"]) == (7, key_lives("0*3.AB|0*2.AB"))
    check_geometry(drawing)


def test_a_spot_seen_twice_on_one_boundary_is_one_point() -> None:
    """`2ab2ba` (DESIGN): the walk meets a and b twice; each is one point, met `again`."""
    drawing = layout("2ab2ba")
    [[walk]] = walks(drawing)
    assert labels(walk) == "2ab2ba" and drawing["links"] == []
    by_name: dict[str, set[tuple[float, float]]] = {}
    for point in walk:
        if point["label"]:
            by_name.setdefault(point["label"], set()).add((point["x"], point["y"]))
    assert all(len(places) == 1 for places in by_name.values())
    assert [p.get("again", False) for p in walk] == [False] * 4 + [True] * 2
    check_geometry(drawing)


def test_lands_are_framed_and_their_letters_linked_within() -> None:
    """`0*2.AB|AB+0.AB|AB`: two lands, each with its own A and B (names are scoped)."""
    drawing = layout("0*2.AB|AB+0.AB|AB")
    assert len(drawing["lands"]) == 2 and len(drawing["regions"]) == 4
    assert sorted(link["label"] for link in drawing["links"]) == ["A", "A", "B", "B"]
    for link in drawing["links"]:
        frames = [
            land
            for land in drawing["lands"]
            for end in ({"x": link["x1"], "y": link["y1"]}, {"x": link["x2"], "y": link["y2"]})
            if inside(end, land)
        ]
        assert len(frames) == 2 and frames[0] is frames[1]  # both ends in one land
    check_geometry(drawing)


CHILDREN_OF_0X6 = GAME.children("0*6")


@pytest.mark.parametrize(
    "text",
    [
        "0*8",
        "1ABC|BCDE|ADE",
        "0.AB|AB",
        "0*2+1a1a",
        "AB.CD|AB|CD",
        "2ab2ba",
        "1a1a.1a1a",
        "0*3@1",
        *CHILDREN_OF_0X6,
        *GAME.children("1ABC|BCDE|ADE"),
    ],
)
def test_every_spot_letter_of_the_position_is_drawn(text: str) -> None:
    key = GAME.canonical(text)
    drawing = layout(key)
    assert drawing["note"] is None, key
    letters = sorted(re.findall(r"[A-Za-z]", re.sub(r"@\d+", "", key)))
    drawn = sorted(p["label"] for r in walks(drawing) for b in r for p in b if p["label"])
    assert drawn == letters, key  # each occurrence written is a point of a walk
    once = [p for r in walks(drawing) for b in r for p in b if not p.get("again")]
    assert len(once) - len(drawing["links"]) == drawing["spots"]  # each spot drawn, linked once
    assert sum(p["lives"] for p in once) - len(drawing["links"]) == key_lives(key)
    check_geometry(drawing)


def test_past_8_spots_worth_a_note_instead_of_a_picture() -> None:
    assert layout("0*8")["note"] is None and layout("0*8")["lives"] == MAX_DRAWN_LIVES
    for text in ("0*9", "0*21", "0*8+1a1a", "0*1000"):
        drawing = layout(text)
        assert drawing["note"].startswith("too large to draw"), text
        assert drawing["regions"] == [] and drawing["links"] == []
    assert "27 lives" in layout("0*9")["note"]
    assert "no spot" in layout("!")["note"]
