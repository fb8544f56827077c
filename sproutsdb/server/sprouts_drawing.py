"""A picture of a small Sprouts position for the web page: where to draw its spots, lines and
regions, as a small JSON layout that the page turns into SVG (server/web/app.js).

The picture follows the notation, not a planar embedding (DESIGN.md §2). Each region is drawn
as its own box holding its boundaries; a boundary is the closed walk through its spots in the
order the notation writes them, each step a straight line. A spot written twice on one
boundary (a lowercase letter) is one point of that walk; a spot written in two regions (an
uppercase letter) is drawn once in each and the two copies are joined by a dashed link. The
lands of a sum are drawn side by side, each in a frame of its own when there are several.
A spot is filled by its lives (3: isolated, 2, 1; dead spots never appear in a canonical
position). Positions above 8 isolated spots' worth of lives get a one-line note instead.

The notation is read by the Sprouts engine's own parser, asked of the games registry.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import cache
from typing import Any, Protocol, runtime_checkable

from sproutsdb.games import get_game

# The largest position drawn: 8 isolated spots' worth of lives (0*8 and all it leads to).
MAX_DRAWN_LIVES = 24
MAX_WIDTH = 380.0  # the picture's width in SVG units: fits a 420 px wide phone unscaled

SPOT_GAP = 36.0  # the least distance between two spots of one boundary
LABEL_ROOM = 20.0  # room around a boundary for the letters beside its spots
REGION_PAD = 8.0
REGION_HEAD = 16.0  # the region's notation, above its boundaries
LAND_PAD = 6.0
LAND_HEAD = 14.0
GAP = 10.0
LABEL_CHARS = 40  # a region's or land's notation is cut after this many characters
CHAR_WIDTH = 6.6  # width of one monospace character at the label's size (11 units)

Box = tuple[float, float]  # (width, height)


@runtime_checkable
class _Reader(Protocol):
    def parse(self, text: str) -> Any: ...


@cache
def _reader() -> _Reader:
    """The Sprouts engine, as the registry gives it: the one notation parser of positions."""
    engine = get_game("sprouts").engine()
    if not isinstance(engine, _Reader):  # pragma: no cover - the engine reads its notation
        raise TypeError("the Sprouts engine has no parser")
    return engine


def _round(value: float) -> float:
    return round(value, 1)


def _cut(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _pack(
    boxes: Sequence[Box], width: float, centre: bool = False
) -> tuple[list[tuple[float, float]], Box]:
    """Boxes placed in rows left to right, a row at most `width` wide (a wider box stands
    alone), each at the top of its row or `centre`d in it: their top-left corners and the
    size of the whole."""
    rows: list[list[int]] = []
    x = 0.0
    for index, (w, _) in enumerate(boxes):
        if rows and x > 0 and x + w > width:
            rows.append([])
            x = 0.0
        if not rows:
            rows.append([])
        rows[-1].append(index)
        x += w + GAP
    places: list[tuple[float, float]] = [(0.0, 0.0)] * len(boxes)
    y = used = 0.0
    for row in rows:
        height = max(boxes[i][1] for i in row)
        x = 0.0
        for i in row:
            w, h = boxes[i]
            places[i] = (x, y + ((height - h) / 2 if centre else 0.0))
            x += w + GAP
        used = max(used, x - GAP)
        y += height + GAP
    return places, (used, max(0.0, y - GAP))


def _names(text: str, regions: int) -> list[str]:
    """The notation of each region, cut from the (2.x) text when it splits into as many
    regions as were read; else no names."""
    body = text.strip().removesuffix("!")
    if any(c in body for c in "}]"):  # GLOP 1.x: not split here
        return []
    cut = [region for land in body.split("+") for region in land.split("|") if region]
    return cut if len(cut) == regions else []


_TOKEN = re.compile(r"0\*(\d+)|@\d+|\{\d+\}|([A-Za-z](?:\(\d+\))?)|[012]")


def _spot_names(text: str, occurrences: int) -> list[str]:
    """The name written at each spot occurrence, in the order the parser reads them: a
    letter's name, "" for a spot written 0, 1 or 2 (and "" throughout if the text's tokens
    do not count as many occurrences as were read)."""
    names: list[str] = []
    for match in _TOKEN.finditer(text):
        zeros, letter = match.group(1), match.group(2)
        if zeros is not None:
            names.extend([""] * int(zeros))
        elif letter is not None:
            names.append(letter)
        elif match.group()[0] in "012":
            names.append("")
    return names if len(names) == occurrences else [""] * occurrences


def _region_name(names: list[str], index: int, genus: int) -> str:
    """A region's notation as the text writes it (its genus said when the text does not)."""
    name = names[index] if names else ""
    return f"{name} (genus {genus})".strip() if genus and "@" not in name else name


def _lands(regions: list[list[list[int]]]) -> list[list[int]]:
    """The regions of each land (regions joined by a shared spot), in the order read."""
    parent = list(range(len(regions)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[int, int] = {}
    for index, region in enumerate(regions):
        for boundary in region:
            for vertex in boundary:
                other = first.setdefault(vertex, index)
                parent[root(index)] = root(other)
    groups: dict[int, list[int]] = {}
    for index in range(len(regions)):
        groups.setdefault(root(index), []).append(index)
    return list(groups.values())


def _boundary_shape(
    walk: list[int], turn: int = 0, mirror: bool = False
) -> tuple[dict[int, tuple[float, float]], Box]:
    """Where each spot of a boundary stands, relative to the top-left corner of its box: the
    distinct spots on a circle in the order the walk first meets them (one spot: a point;
    two: a horizontal line), the first `turn` steps round and the circle `mirror`ed or not
    (the same cyclic order either way)."""
    distinct = list(dict.fromkeys(walk))
    n = len(distinct)
    if n == 1:
        radius = 0.0
    elif n == 2:
        radius = SPOT_GAP / 2
    else:
        radius = SPOT_GAP / (2 * math.sin(math.pi / n))
    size = 2 * radius + 2 * LABEL_ROOM
    centre = size / 2
    where: dict[int, tuple[float, float]] = {}
    for k, vertex in enumerate(distinct):
        if n == 2:
            angle = math.pi if (k + turn) % 2 == 0 else 0.0
        else:
            angle = -math.pi / 2 + 2 * math.pi * (k + turn) / n
        if mirror:
            angle = math.pi - angle
        where[vertex] = (centre + radius * math.cos(angle), centre + radius * math.sin(angle))
    return where, (size, size)


def _turned(
    walk: list[int],
    corner: tuple[float, float],
    region: int,
    seen_in: dict[int, set[int]],
    copies: dict[int, list[tuple[float, float, str]]],
    middle: dict[int, tuple[float, float]],
) -> dict[int, tuple[float, float]]:
    """The boundary's shape, turned and mirrored so that its shared spots stand nearest where
    their links go: the copy already drawn, else the middle of the other region's box."""
    best: tuple[float, dict[int, tuple[float, float]]] | None = None
    turns = max(1, len(set(walk)))
    for mirror in (False, True):
        for turn in range(turns):
            where, _ = _boundary_shape(walk, turn, mirror)
            cost = 0.0
            for vertex, (x, y) in where.items():
                if len(seen_in[vertex]) < 2:
                    continue
                if vertex in copies:
                    tx, ty, _ = copies[vertex][0]
                else:
                    (other,) = seen_in[vertex] - {region}
                    tx, ty = middle[other]
                cost += math.hypot(corner[0] + x - tx, corner[1] + y - ty)
            if best is None or cost < best[0] - 1e-6:
                best = (cost, where)
    assert best is not None
    return best[1]


def layout(text: str) -> dict[str, Any]:
    """The drawing of a position (canonical GLOP text) as JSON: `regions` (each a box x, y, w,
    h with its notation as `label` and its `boundaries`, each a walk of `points` x, y,
    label, lives, `again` for a spot met the second time, and `closed`), `links` (dashed
    lines joining the two copies of a spot written in two regions), `lands` (frames, when
    there are several), `width` and `height`; `note` says why nothing is drawn."""
    raw = _reader().parse(text)
    regions: list[list[list[int]]] = raw.regions
    lives: list[int] = raw.lives
    genus: list[int] = raw.genus
    total = sum(lives[v] for v in {v for r in regions for b in r for v in b})
    spots = len({v for r in regions for b in r for v in b})
    drawing: dict[str, Any] = {
        "spots": spots,
        "lives": total,
        "note": None,
        "width": 0,
        "height": 0,
        "regions": [],
        "links": [],
        "lands": [],
    }
    if not regions:
        drawing["note"] = "the empty position: no spot is left to draw"
        return drawing
    if total > MAX_DRAWN_LIVES:
        drawing["note"] = (
            f"too large to draw: {total} lives ({spots} spots); pictures stop at 8 "
            f"isolated spots' worth, {MAX_DRAWN_LIVES} lives"
        )
        return drawing

    region_names = _names(text, len(regions))
    # A spot written in two regions (an uppercase letter) is linked across them.
    seen_in: dict[int, set[int]] = {}
    for index, region in enumerate(regions):
        for boundary in region:
            for vertex in boundary:
                seen_in.setdefault(vertex, set()).add(index)
    names = iter(_spot_names(text, sum(len(b) for r in regions for b in r)))

    # Each region's box: its boundaries packed inside (relative coordinates).
    inner = MAX_WIDTH - 2 * (LAND_PAD + REGION_PAD)
    shapes: list[list[tuple[float, float]]] = []  # each boundary's corner in its region
    region_boxes: list[Box] = []
    for index, region in enumerate(regions):
        forms = [_boundary_shape(walk) for walk in region]
        places, (w, h) = _pack([box for _, box in forms], inner, centre=True)
        name = _region_name(region_names, index, genus[index])
        head_width = len(_cut(name)) * CHAR_WIDTH
        shapes.append(places)
        region_boxes.append((max(w, head_width) + 2 * REGION_PAD, h + REGION_HEAD + REGION_PAD))

    # Each land's frame: its regions packed inside; the lands packed in the picture.
    groups = _lands(regions)
    framed = len(groups) > 1
    pad, head = (LAND_PAD, LAND_HEAD) if framed else (0.0, 0.0)
    land_places: list[list[tuple[float, float]]] = []
    land_boxes: list[Box] = []
    for group in groups:
        places, (w, h) = _pack([region_boxes[i] for i in group], MAX_WIDTH - 2 * pad)
        land_places.append(places)
        land_boxes.append((w + 2 * pad, h + head + pad))
    corners, (width, height) = _pack(land_boxes, MAX_WIDTH)

    origin: dict[int, tuple[float, float]] = {}
    for number, (group, places, (lx, ly), (lw, lh)) in enumerate(
        zip(groups, land_places, corners, land_boxes)
    ):
        if framed:
            drawing["lands"].append(
                {
                    "x": _round(lx),
                    "y": _round(ly),
                    "w": _round(lw),
                    "h": _round(lh),
                    "label": _cut(f"land {number + 1}"),
                }
            )
        for index, (rx, ry) in zip(group, places):
            origin[index] = (lx + pad + rx, ly + head + ry)

    # Each boundary turned (or mirrored) to bring the spots it shares with another region
    # nearest their other copy, or the other region when it is not drawn yet.
    copies: dict[int, list[tuple[float, float, str]]] = {}
    middle = {
        i: (origin[i][0] + region_boxes[i][0] / 2, origin[i][1] + region_boxes[i][1] / 2)
        for i in origin
    }
    for index in range(len(regions)):
        ox, oy = origin[index]
        w, h = region_boxes[index]
        name = _region_name(region_names, index, genus[index])
        boundaries = []
        for walk, (bx, by) in zip(regions[index], shapes[index]):
            corner = (ox + REGION_PAD + bx, oy + REGION_HEAD + by)
            where = _turned(walk, corner, index, seen_in, copies, middle)
            points = []
            met_here: set[int] = set()
            for vertex in walk:
                x, y = corner[0] + where[vertex][0], corner[1] + where[vertex][1]
                point: dict[str, Any] = {
                    "x": _round(x),
                    "y": _round(y),
                    "label": next(names),
                    "lives": lives[vertex],
                }
                if vertex in met_here:
                    point["again"] = True
                else:
                    met_here.add(vertex)
                    if len(seen_in[vertex]) > 1:
                        copies.setdefault(vertex, []).append((x, y, point["label"]))
                points.append(point)
            boundaries.append({"points": points, "closed": len(set(walk)) > 1})
        drawing["regions"].append(
            {
                "x": _round(ox),
                "y": _round(oy),
                "w": _round(w),
                "h": _round(h),
                "label": _cut(name),
                "boundaries": boundaries,
            }
        )
    for ends in copies.values():
        (x1, y1, name), (x2, y2, _) = ends[0], ends[-1]
        drawing["links"].append(
            {
                "x1": _round(x1),
                "y1": _round(y1),
                "x2": _round(x2),
                "y2": _round(y2),
                "label": name,
            }
        )
    drawing["width"] = _round(width)
    drawing["height"] = _round(height)
    return drawing
