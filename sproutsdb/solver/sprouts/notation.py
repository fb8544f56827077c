"""Reading and writing Sprouts positions in GLOP notation (the one notation module).

Both syntaxes are read: GLOP 2.x (`0.AB|AB`, `0*6`, `+` between lands, optional `!`) and
GLOP 1.x (`0.AB.}AB.}]!`). Positions are written in 2.x. Letter names are scoped as
GLOP writes them: an uppercase name is local to its land, a lowercase one to its
boundary, so `1a1a.1a1a` holds two different `a` and `0.AB|AB+0.AB|AB` two different `A`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sproutsdb.solver.ports.game import NotationError

# Lives of the plain spot symbols: 0 = isolated spot, 1 = one line, 2 = two lines, seen once.
SPOT_LIVES = {"0": 3, "1": 2, "2": 1}

BOUNDARY_END = ".|}+]!"
REGION_END = "|}+]!"
LAND_END = "+]!"

# The largest position read: spots and letter occurrences (`0*k` counts k). The CLI and the
# server refuse larger ones before any work (the canonical search and the moves are at
# least linear in it, and `0*99999999` is ten characters). The server's Limits use it too.
MAX_POSITION_VERTICES = 1000


@dataclass
class RawPosition:
    """A position as vertex ids: regions of boundaries (cyclic lists of vertex ids).

    `lives[v]` is the number of lives of vertex v. Lands are not recorded: they are
    recomputed from shared vertices when the position is normalised.
    """

    regions: list[list[list[int]]] = field(default_factory=list)
    genus: list[int] = field(default_factory=list)
    lives: list[int] = field(default_factory=list)

    def new_vertex(self, lives: int) -> int:
        self.lives.append(lives)
        return len(self.lives) - 1


class _Reader:
    """A one-pass reader of GLOP text into a RawPosition, with column-precise errors."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.raw = RawPosition()
        # Letter scopes: uppercase names per land, lowercase names per boundary.
        self.upper: dict[str, list[tuple[int, int]]] = {}  # name -> [(vertex, region index)]
        self.lower: dict[str, list[int]] = {}
        self.first_at: dict[str, int] = {}  # index of a letter name's first occurrence in scope
        self.boundary: list[int] = []
        self.boundary_at = 0  # index where the current boundary starts
        self.region: list[list[int]] = []
        self.region_genus = 0
        self.land_regions: list[int] = []

    def fail(self, message: str, at: int | None = None) -> NotationError:
        index = self.pos if at is None else at
        if index >= len(self.text):  # found when the text ran out: no column to point at
            return NotationError(f"{message} at the end of {self.text!r}")
        return NotationError(f"{message} at column {index + 1} of {self.text!r}")

    def read(self) -> RawPosition:
        text = self.text
        if text in ("!", ""):
            if text == "":
                raise NotationError("empty position string (write ! for the empty position)")
            return self.raw
        n = len(text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in "012":
                self.read_spot(ch)
            elif ch.isalpha() and ch.isascii():
                self.read_letter(ch)
            elif ch == ".":
                if not self.boundary:
                    raise self.fail("empty boundary")
                self.end_boundary()
                self.pos += 1
            elif ch in "|}":
                self.end_region()
                self.pos += 1
            elif ch in "+]":
                self.end_land()
                self.pos += 1
            elif ch == "!":
                self.end_land(final=True)
                self.pos += 1
                if self.pos != n:
                    raise self.fail("text after the end of position '!'")
                return self.raw
            elif ch in "@{":
                self.read_genus(ch)
            else:
                raise self.fail(f"unknown character {ch!r}")
        self.end_land(final=True)
        return self.raw

    def read_spot(self, ch: str) -> None:
        text = self.text
        if ch == "0" and text.startswith("*", self.pos + 1):
            start = self.pos
            end = self.pos + 2
            while end < len(text) and text[end].isdigit():
                end += 1
            if end == self.pos + 2:
                raise self.fail("'0*' must be followed by a number of spots", start)
            if self.boundary:
                raise self.fail("'0*k' must stand where a boundary starts", start)
            count = int(text[self.pos + 2 : end])
            self.pos = end
            if count == 0:
                if self.pos < len(text) and text[self.pos] not in BOUNDARY_END:
                    raise self.fail("'0*0' must stand alone", start)
                return
            for index in range(count):
                self.boundary.append(self.raw.new_vertex(3))
                if index < count - 1:
                    self.end_boundary()
            self.expect_boundary_end(start)
            return
        if not self.boundary:
            self.boundary_at = self.pos
        self.boundary.append(self.raw.new_vertex(SPOT_LIVES[ch]))
        self.pos += 1

    def expect_boundary_end(self, start: int) -> None:
        if self.pos < len(self.text) and self.text[self.pos] not in BOUNDARY_END + "@{":
            raise self.fail("an isolated spot 0 must be alone on its boundary", start)

    def read_letter(self, ch: str) -> None:
        start = self.pos
        name = ch
        self.pos += 1
        text = self.text
        if self.pos < len(text) and text[self.pos] == "(":
            close = text.find(")", self.pos)
            digits = text[self.pos + 1 : close] if close > 0 else ""
            if not digits.isdigit():
                raise self.fail(f"letter {ch!r} followed by '(' needs a number and ')'", start)
            name = f"{ch}({int(digits)})"
            self.pos = close + 1
        region_index = len(self.raw.regions)
        if ch.isupper():
            seen = self.upper.setdefault(name, [])
            if len(seen) >= 2:
                raise self.fail(
                    f"letter {name!r} seen three times (a letter marks a spot seen twice)", start
                )
            if seen:
                vertex, first_region = seen[0]
                if first_region == region_index:
                    raise self.fail(
                        f"uppercase letter {name!r} seen twice in one region "
                        "(uppercase letters join two regions; write a spot seen twice on "
                        "one boundary in lowercase)",
                        start,
                    )
            else:
                vertex = self.raw.new_vertex(1)
                self.first_at[name] = start
            seen.append((vertex, region_index))
        else:
            seen_lower = self.lower.setdefault(name, [])
            if len(seen_lower) >= 2:
                raise self.fail(f"letter {name!r} seen three times on one boundary", start)
            if not seen_lower:
                self.first_at[name] = start
            vertex = seen_lower[0] if seen_lower else self.raw.new_vertex(1)
            seen_lower.append(vertex)
        if self.boundary and self.raw.lives[self.boundary[0]] == 3:
            raise self.fail("an isolated spot 0 must be alone on its boundary", start)
        if not self.boundary:
            self.boundary_at = start
        self.boundary.append(vertex)

    def read_genus(self, ch: str) -> None:
        start = self.pos
        end = self.pos + 1
        while end < len(self.text) and self.text[end].isdigit():
            end += 1
        if end == self.pos + 1:
            raise self.fail(f"{ch!r} must be followed by a genus number", start)
        if ch == "{":
            if end >= len(self.text) or self.text[end] != "}":
                raise self.fail("genus '{g' must be closed by '}'", start)
            end += 1
        self.region_genus = int(self.text[self.pos + 1 : end].rstrip("}"))
        self.pos = end

    def end_boundary(self) -> None:
        if not self.boundary:
            return
        if len(self.boundary) > 1 and any(self.raw.lives[v] == 3 for v in self.boundary):
            raise self.fail("an isolated spot 0 must be alone on its boundary", self.boundary_at)
        for name, vertices in self.lower.items():
            if len(vertices) == 1:
                raise self.fail(
                    f"lowercase letter {name!r} seen once on its boundary (a lowercase "
                    "letter marks a spot seen twice on the same boundary)",
                    self.first_at.get(name),
                )
        self.lower.clear()
        self.region.append(self.boundary)
        self.boundary = []

    def end_region(self) -> None:
        self.end_boundary()
        if not self.region:
            raise self.fail("empty region")
        self.land_regions.append(len(self.raw.regions))
        self.raw.regions.append(self.region)
        self.raw.genus.append(self.region_genus)
        self.region = []
        self.region_genus = 0

    def end_land(self, final: bool = False) -> None:
        if self.boundary or self.region:
            self.end_region()
        if not self.land_regions:
            if final and not self.raw.regions:
                raise self.fail("empty position (write ! for the empty position)")
            if not final:
                raise self.fail("empty land")
        for name, seen in self.upper.items():
            if len(seen) == 1:
                raise self.fail(
                    f"uppercase letter {name!r} seen once in its land (an uppercase letter "
                    "marks a spot shared by two regions)",
                    self.first_at.get(name),
                )
        self.upper.clear()
        self.land_regions = []


def parse(text: str) -> RawPosition:
    """Read a position in GLOP 2.x or 1.x notation; raise NotationError saying where it is wrong."""
    if not isinstance(text, str):
        raise NotationError(f"a position must be a string, not {type(text).__name__}")
    text = text.strip()
    if text == "0*0":
        return RawPosition()  # zero spots: the empty position, like `!`
    check_size(text)
    return _Reader(text).read()


_VERTEX_TOKEN = re.compile(r"0\*(\d+)|@\d+|\{\d+\}|[A-Za-z](?:\(\d+\))?|[012]")


def count_vertices(text: str) -> int:
    """Spots and letter occurrences written in `text` (`0*k` counts k, a genus nothing),
    without reading it into vertices: cheap at any length."""
    count = 0
    for match in _VERTEX_TOKEN.finditer(text):
        zeros = match.group(1)
        if zeros is not None:
            # a cap, not int() of thousands of digits (Python refuses those anyway)
            count += int(zeros) if len(zeros) <= 12 else _HUGE
        elif match.group()[0] not in "@{":
            count += 1
    return count


_HUGE = 10**12


def check_size(text: str) -> None:
    """NotationError for a position over MAX_POSITION_VERTICES, naming its size."""
    if len(text) <= MAX_POSITION_VERTICES and "*" not in text:
        return  # at most one vertex per character
    count = count_vertices(text)
    if count > MAX_POSITION_VERTICES:
        shown = text if len(text) <= 40 else text[:40] + "..."
        size = f"{count:,}" if count < _HUGE else f"over {_HUGE:,}"
        raise NotationError(
            f"a position of {size} spots and letters ({shown!r}); the limit is "
            f"{MAX_POSITION_VERTICES:,}"
        )


_LIVES_TOKEN = re.compile(r"0\*(\d+)|@\d+|\{\d+\}|([A-Za-z])(?:\(\d+\))?|([012])")


_PLAIN_KEY = re.compile(r"[012A-Za-z.|+!]*")  # no 0*k, @k, {k} or Z(k): one char a token
# A run of empty spots in a key's text: a whole boundary `0` or `0*k` of a region, its size
# (group 1) absent for one spot. The runs are what twins of a land differ by.
SPOT_RUN = re.compile(r"(?:(?<=^)|(?<=[.|+]))0(?:\*(\d+))?(?=[.|+]|$)")


def key_lives(key: str) -> int:
    """Lives of a position from its text alone (no parsing into vertices): 3/2/1 for the
    spots 0/1/2 and one per letter, each letter being written twice."""
    if _PLAIN_KEY.fullmatch(key):  # most canonical lands: count characters (3x faster)
        zeros, ones, twos = key.count("0"), key.count("1"), key.count("2")
        letters = (
            len(key)
            - zeros
            - ones
            - twos
            - key.count(".")
            - key.count("|")
            - key.count("+")
            - key.count("!")
        )
        return 3 * zeros + 2 * ones + twos + letters // 2
    return _token_lives(key)


def _token_lives(key: str) -> int:
    """``key_lives`` by tokens: any notation the reader accepts."""
    spots = letters = 0
    for zeros, letter, spot in _LIVES_TOKEN.findall(key):
        if zeros:
            spots += 3 * int(zeros)
        elif letter:
            letters += 1
        elif spot:
            spots += 3 - int(spot)
    return spots + letters // 2


# ---------------------------------------------------------------- writing letter names


def upper_name(index: int) -> str:
    """Name of the index-th uppercase letter of a land: A..Y, then Z(25), Z(26), …"""
    return chr(65 + index) if index < 25 else f"Z({index})"


def lower_name(index: int) -> str:
    """Name of the index-th lowercase letter of a boundary: a..y, then z(25), …"""
    return chr(97 + index) if index < 25 else f"z({index})"
