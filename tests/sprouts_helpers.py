"""Test helpers: redraw a Sprouts position differently, and play random games."""

from __future__ import annotations

import random
import re

from sproutsdb.solver.sprouts.game import SproutsGame

_TOKEN = re.compile(r"0\*\d+|[A-Za-z]\(\d+\)|[A-Za-z]|[012]")


def split_position(key: str) -> list[list[list[list[str]]]]:
    """A 2.x position as lands > regions > boundaries > tokens (0*k expanded)."""
    if key == "!":
        return []
    lands = []
    for land in key.split("+"):
        regions = []
        for region in land.split("|"):
            boundaries = []
            for boundary in region.split("."):
                tokens = _TOKEN.findall(boundary)
                assert "".join(tokens) == boundary, boundary
                if len(tokens) == 1 and tokens[0].startswith("0*"):
                    boundaries.extend([["0"]] * int(tokens[0][2:]))
                else:
                    boundaries.append(tokens)
            regions.append(boundaries)
        lands.append(regions)
    return lands


def redraw(
    key: str,
    rng: random.Random,
    old_syntax: bool | None = None,
    region_mirrors: bool = False,
    repeats: bool = False,
) -> str:
    """The same position drawn another way: letters renamed, boundaries rotated and
    reordered, regions and lands reordered, possibly mirrored, in 2.x or 1.x syntax.
    With region_mirrors each region is mirrored on its own draw (canon v2: a region's
    orientation is independent of its neighbours'); with repeats some 1-life spots `2`
    become a pair of adjacent occurrences `xx` of a fresh lowercase letter (the same spot)."""
    lands = split_position(key)
    if old_syntax is None:
        old_syntax = rng.random() < 0.5
    mirror = rng.random() < 0.5
    out_lands = []
    for land in lands:
        uppers = sorted({t for r in land for b in r for t in b if t[0].isupper()})
        fresh = [chr(65 + i) for i in range(26)]
        rng.shuffle(fresh)
        upper_map = dict(zip(uppers, fresh)) if len(uppers) <= 26 else {u: u for u in uppers}
        regions = []
        for region in land:
            if region_mirrors:
                mirror = rng.random() < 0.5
            boundaries = []
            for boundary in region:
                lowers = sorted({t for t in boundary if t[0].islower()})
                pool = [chr(97 + i) for i in range(26)]
                rng.shuffle(pool)
                lower_map = dict(zip(lowers, pool)) if len(lowers) <= 26 else {x: x for x in lowers}
                tokens = [upper_map.get(t, lower_map.get(t, t)) for t in boundary]
                if repeats:
                    tokens = _expand_twos(tokens, rng)
                if mirror:
                    tokens.reverse()
                k = rng.randrange(len(tokens))
                tokens = tokens[k:] + tokens[:k]
                boundaries.append("".join(tokens))
            rng.shuffle(boundaries)
            regions.append(boundaries)
        rng.shuffle(regions)
        out_lands.append(regions)
    rng.shuffle(out_lands)
    if not out_lands:
        return "!"
    if old_syntax:
        return (
            "".join(
                "".join("".join(b + "." for b in region) + "}" for region in land) + "]"
                for land in out_lands
            )
            + "!"
        )
    return "+".join("|".join(".".join(region) for region in land) for land in out_lands)


def _expand_twos(tokens: list[str], rng: random.Random) -> list[str]:
    """Replace some `2` tokens of a boundary by `xx`, x a lowercase letter unused on it."""
    free = [chr(97 + i) for i in range(26) if chr(97 + i) not in tokens]
    rng.shuffle(free)
    out: list[str] = []
    for token in tokens:
        if token == "2" and free and rng.random() < 0.5:
            letter = free.pop()
            out.extend((letter, letter))
        else:
            out.append(token)
    return out


def random_playout(game: SproutsGame, start: str, rng: random.Random, moves: int) -> list[str]:
    """The positions of a random game of at most `moves` moves from start."""
    key = game.canonical(start)
    line = [key]
    for _ in range(moves):
        children = game.children(key)
        if not children:
            break
        key = rng.choice(children)
        line.append(key)
    return line
