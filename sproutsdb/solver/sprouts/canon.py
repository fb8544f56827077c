"""Canonical form of Sprouts positions: game-preserving reductions, then a unique key.

`normalize` applies the reductions of docs/architecture.md §2 (dead spots and dead regions
removed, a letter whose two occurrences stand next to each other on a boundary becomes one
`2`, a letter whose other occurrence vanished becomes `2`, a region with at most 3 lives
collapses to one boundary, the position split into independent lands). `canonical_land`
then picks one string per class of a land: invariant under renaming of letters, rotation
of boundaries, reordering of boundaries and regions, and the mirror image of any one
region (a move sees only its own region, so mirroring one region keeps the game).

How the key is chosen: colours of regions are refined from the boundaries they hold and
the regions their uppercase letters lead to (an invariant of the land); each region keeps
the orientations whose boundary forms are least; the key is the lexicographically least
encoding among the orderings that respect the colours (smallest colour classes first, so
regions seen once name the letters the others are told apart by), found by a greedy
search that branches only on exact ties. Every step depends only on invariants, so
equivalent lands get the same key, and different lands different keys. Branches that an
automorphism of the land maps onto explored ones are skipped (see "automorphism pruning"):
the key is the same, found without exploring every symmetric ordering.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import permutations
from types import FrameType
from typing import Any

from sproutsdb.solver.sprouts.notation import RawPosition, lower_name, upper_name

# One step of the search for a least encoding, destructured by its tag:
# ('r', region, orientation) or ('b', region, boundary, orientation, candidate).
Choice = tuple[Any, ...]

CANON_VERSION = 2

# Codes of vertex occurrences in an encoding (a tuple of ints compared lexicographically).
ZERO, ONE, TWO = 0, 1, 2
LOWER = 100  # + index of the lowercase letter within its boundary
UPPER = 1000  # + index of the uppercase letter within its land
UPPER_COLOUR = 10**6  # + colour of the other region (used while refining only)
END_BOUNDARY = -1
END_REGION = -2

# Kinds of vertices after normalisation.
K_SPOT = 0  # 0, 1 or 2: code = 3 - lives for 0/1, 2 for a 1-life spot seen once
K_LOWER = 1
K_UPPER = 2


class Land:
    """One independent land ready to be encoded: regions, kinds, and letter links."""

    __slots__ = ("code", "collapsed", "genus", "kind", "other_region", "regions")

    def __init__(self) -> None:
        self.regions: list[list[list[int]]] = []
        self.genus: list[int] = []
        self.collapsed: list[bool] = []
        self.code: dict[int, int] = {}  # fixed code of 0/1/2 spots
        self.kind: dict[int, int] = {}
        self.other_region: dict[tuple[int, int], int] = {}  # (vertex, region) -> other region


def _drop_adjacent_repeats(boundary: list[int]) -> list[int]:
    """One occurrence of each vertex seen twice side by side (cyclically) on a boundary.

    With dead spots gone, such a letter hangs on a tail with nothing alive between its
    sides: it is one 1-life spot seen once (`1aa` is `12`). Deleting one occurrence never
    makes two other occurrences adjacent, so one pass reaches the fixed point."""
    n = len(boundary)
    if n < 2:
        return boundary
    first: dict[int, int] = {}
    drop: set[int] = set()
    for i, v in enumerate(boundary):
        j = first.get(v)
        if j is None:
            first[v] = i
        elif i - j == 1 or (j == 0 and i == n - 1):
            drop.add(i)
    if not drop:
        return boundary
    return [v for i, v in enumerate(boundary) if i not in drop]


def normalize(raw: RawPosition) -> list[Land]:
    """Apply the game-preserving reductions and split the position into its lands."""
    lives = raw.lives
    regions: list[list[list[int]]] = []
    genus: list[int] = []
    region_lives: list[int] = []
    for region, g in zip(raw.regions, raw.genus):
        kept = []
        seen: set[int] = set()
        total = 0
        for boundary in region:
            alive = _drop_adjacent_repeats([v for v in boundary if lives[v] > 0])
            if alive:
                kept.append(alive)
                for v in alive:
                    if v not in seen:
                        seen.add(v)
                        total += lives[v]
        if total >= 2:
            if total <= 3 and g == 0:
                # At most 3 lives: one boundary whose order does not matter, so a letter
                # seen twice in it may stand side by side, and is one `2` (as above).
                kept = [list(dict.fromkeys(v for boundary in kept for v in boundary))]
            regions.append(kept)
            genus.append(g)
            region_lives.append(total)
    # Where each vertex occurs: list of (region index, boundary index).
    where: dict[int, list[tuple[int, int]]] = {}
    for r, region in enumerate(regions):
        for b, boundary in enumerate(region):
            for v in boundary:
                where.setdefault(v, []).append((r, b))
    # Union-find over regions joined by a shared vertex.
    parent = list(range(len(regions)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for occurrences in where.values():
        if len(occurrences) == 2 and occurrences[0][0] != occurrences[1][0]:
            a, b = find(occurrences[0][0]), find(occurrences[1][0])
            if a != b:
                parent[a] = b
    lands: dict[int, Land] = {}
    local_index: dict[int, int] = {}
    for r in range(len(regions)):
        root = find(r)
        land = lands.get(root)
        if land is None:
            land = lands[root] = Land()
        local_index[r] = len(land.regions)
        collapsed = region_lives[r] <= 3 and genus[r] == 0
        land.regions.append(regions[r])
        land.genus.append(genus[r])
        land.collapsed.append(collapsed)
    for v, occurrences in where.items():
        land = lands[find(occurrences[0][0])]
        life = lives[v]
        if life >= 2:
            land.kind[v] = K_SPOT
            land.code[v] = 3 - life  # 0 for three lives, 1 for two
        elif len(occurrences) == 1:
            land.kind[v] = K_SPOT
            land.code[v] = TWO
        else:
            (r1, _b1), (r2, _b2) = occurrences
            if r1 == r2:
                land.kind[v] = K_LOWER
            else:
                land.kind[v] = K_UPPER
                l1, l2 = local_index[r1], local_index[r2]
                land.other_region[(v, l1)] = l2
                land.other_region[(v, l2)] = l1
    return list(lands.values())


# ---------------------------------------------------------------- canonical encoding
#
# A boundary is encoded as a tuple of codes, one per corner: 0/1/2 for spots, LOWER + d for
# a lowercase letter whose other corner is d steps further along the boundary (so the code
# is invariant under renaming and rotates with the boundary), UPPER + name for uppercase
# letters (UPPER_COLOUR + colour of the region across, while colours are refined). The
# boundary of a collapsed region (at most 3 lives) is an unordered bag: sorted spots,
# lowercase pairs as LOWER_PAIR twice, then its uppercase letters in any order.

LOWER_PAIR = 99


class _Boundary:
    """One boundary in one orientation, with its codes precomputed."""

    __slots__ = ("base", "cands", "collapsed", "form", "seq", "ups")

    def __init__(self, seq: list[int], land: Land, collapsed: bool) -> None:
        kind, code = land.kind, land.code
        self.collapsed = collapsed
        if collapsed:
            spots = sorted((v for v in seq if kind[v] == K_SPOT), key=code.__getitem__)
            pairs: list[int] = []
            for v in seq:
                if kind[v] == K_LOWER and v not in pairs:
                    pairs.append(v)
            head = spots + [v for v in pairs for _ in (0, 1)]
            self.ups = [
                (len(head) + k, v) for k, v in enumerate(v for v in seq if kind[v] == K_UPPER)
            ]
            self.base = (
                [code[v] for v in spots] + [LOWER_PAIR] * (2 * len(pairs)) + [0] * len(self.ups)
            )
            self.seq = head + [v for _, v in self.ups]
        else:
            n = len(seq)
            first: dict[int, int] = {}
            base = [0] * n
            ups = []
            for i, v in enumerate(seq):
                k = kind[v]
                if k == K_SPOT:
                    base[i] = code[v]
                elif k == K_LOWER:
                    j = first.get(v)
                    if j is None:
                        first[v] = i
                    else:
                        base[j] = LOWER + (i - j)
                        base[i] = LOWER + (n - (i - j))
                else:
                    ups.append((i, v))
            self.seq = seq
            self.base = base
            self.ups = ups
        self.form: tuple[int, ...] = ()
        # candidates: letter orders (tuples) when collapsed, else rotation starts (ints)
        self.cands: list[Any] = []

    def refine(self, r: int, land: Land, colour: list[int]) -> None:
        """Least form given region colours, and the rotations/orders that reach it."""
        ups = self.ups
        if self.form and not ups:
            return  # no uppercase letter: the form does not depend on colours
        codes = self.base[:]
        other = land.other_region
        for i, v in ups:
            codes[i] = UPPER_COLOUR + colour[other[(v, r)]]
        if self.collapsed:
            head = len(codes) - len(ups)
            tail = sorted(codes[head:])
            self.form = tuple(codes[:head] + tail)
            if len(ups) <= 1:
                self.cands = [tuple(v for _, v in ups)]
            else:
                want = tail
                self.cands = [
                    perm
                    for perm in permutations(v for _, v in ups)
                    if [UPPER_COLOUR + colour[other[(v, r)]] for v in perm] == want
                ]
            return
        n = len(codes)
        doubled = codes + codes
        rotations = [doubled[i : i + n] for i in range(n)]
        least = min(rotations)
        self.form = tuple(least)
        self.cands = [i for i, rot in enumerate(rotations) if rot == least]

    def encode(self, cand: Any, names: dict[int, int]) -> tuple[tuple[int, ...], dict[int, int]]:
        """Codes of this boundary for one candidate, naming new uppercase letters in order."""
        new: dict[int, int] = {}
        if self.collapsed:
            head = len(self.base) - len(self.ups)
            codes = self.base[:head]
            for v in cand:
                index = names.get(v)
                if index is None:
                    index = new.get(v)
                    if index is None:
                        index = new[v] = len(names) + len(new)
                codes.append(UPPER + index)
            return tuple(codes), new
        n = len(self.base)
        start = cand
        codes = self.base[start:] + self.base[:start]
        if self.ups:
            for pos, v in sorted(((i - start) % n, v) for i, v in self.ups):
                index = names.get(v)
                if index is None:
                    index = new.get(v)
                    if index is None:
                        index = new[v] = len(names) + len(new)
                codes[pos] = UPPER + index
        return tuple(codes), new


def _sorted_forms(region: list[_Boundary]) -> tuple[tuple[int, ...], ...]:
    return tuple(sorted(bd.form for bd in region))


def _region_form(views: list[list[_Boundary]]) -> tuple[tuple[int, ...], ...]:
    """A region's boundary forms in its least orientation (invariant under its mirror)."""
    return min(_sorted_forms(region) for region in views)


def _refine_views(land: Land, views: list[list[list[_Boundary]]], colour: list[int]) -> None:
    for r, region_views in enumerate(views):
        for region in region_views:
            for bd in region:
                bd.refine(r, land, colour)


def _refine(land: Land, views: list[list[list[_Boundary]]]) -> list[int]:
    """Colour the regions by iterated refinement (an invariant of the land)."""
    count = len(views)
    colour = [0] * count
    distinct = 1
    while True:
        _refine_views(land, views, colour)
        forms = [(colour[r], land.genus[r], _region_form(views[r])) for r in range(count)]
        ranks = {f: i for i, f in enumerate(sorted(set(forms)))}
        new_colour = [ranks[f] for f in forms]
        if len(ranks) == distinct:
            return colour
        colour = new_colour
        distinct = len(ranks)
        if distinct == count:
            _refine_views(land, views, colour)
            return colour


# ---------------------------------------------------------------- automorphism pruning
#
# A land with true symmetry (k interchangeable regions) makes the greedy search explore
# every automorphic branch: about k!*2^k leaves. The search prunes those branches, McKay
# style, without changing any key.
#
# Leaves and automorphisms. A leaf of the search is reached by a path of choices: regions
# ('r', r, o) with o the region's orientation (0 as written, 1 mirrored) and boundaries
# ('b', r, b, o, cand) with cand the rotation start in that orientation, the order of a
# bag's uppercase letters, or None for a boundary without uppercase letters (placed as its
# form). Its encoding describes the land completely, up to the mirror image of each region:
# each code stands for one corner (spot codes, LOWER + distance to the partner corner,
# UPPER + name, the same name for both corners of an uppercase letter), boundaries and
# regions are delimited, so the corners of the encoding and the structure between them
# (which corners are one vertex, cyclic order of a boundary up to its region's mirror, the
# region of each boundary, genus, spot lives) can be read back. When two leaves L1, L2 give
# equal encodings, matching the i-th corner of L1 with the i-th corner of L2 is therefore
# an automorphism g of the land under the per-region mirrors: regions j-th placed <-> j-th
# placed (mirrored when their orientations differ), boundaries likewise, a rotated
# boundary's corners by x -> a + s*x (s = -1 when mirrored), uppercase letters by name.
#
# Why pruning is sound. Everything the search reads (colours, forms of both orientations,
# the orientations a region keeps, candidates, the codes of an option given the names so
# far) is defined by invariants of the land, so g maps the search tree onto itself: the
# node reached by a path P goes to the node reached by g(P), the options of a node to the
# options of its image, with equal codes, so a subtree and its image have the same leaf
# encodings. If g fixes every choice of the path to a node N (a region with its
# orientation, a boundary with its rotation start or letter order, hence every name given
# so far), g maps N to itself and an option c' of N to an option g(c') of N with the same
# set of leaf encodings. So an option in the orbit of an already explored sibling, under
# the group generated by stored automorphisms that fix N's path, cannot hold a leaf less
# than the ones already weighed: it is skipped (union-find over N's options). And when a
# leaf equals the reference leaf (the first leaf with the best encoding), the automorphism
# between them fixes their common path, up to the node N where they part, and maps the
# explored option of N that leads to the reference onto the option being explored: the
# rest of that option is skipped at once (back-jump to N). `_worse` and the first-chunk
# cut among a colour class's regions drop only options strictly worse than others; the
# least encoding is unchanged, whatever order the options are tried in. At most
# MAX_AUTOMORPHISMS are stored (fewer only prunes less).

PRUNE = True  # module switch: False gives the plain search (tests compare both)
MAX_AUTOMORPHISMS = 64
_NO_JUMP = 1 << 30


class _Automorphism:
    """g from the paths and names of two leaves with equal encodings."""

    __slots__ = ("boundary", "corner", "flip", "region", "vertex")

    def __init__(
        self, search: _Search, p1: list[Choice], n1: list[int], p2: list[Choice], n2: list[int]
    ) -> None:
        self.region: dict[int, int] = {}
        self.flip: dict[int, int] = {}
        self.boundary: dict[tuple[int, int], tuple[int, int]] = {}
        self.corner: dict[tuple[int, int], tuple[int, int, int]] = {}  # (a, s, length)
        self.vertex = dict(zip(n1, n2))
        for x, y in zip(p1, p2):
            if x[0] == "r":
                self.region[x[1]] = y[1]
                self.flip[x[1]] = x[2] ^ y[2]
            else:
                self.boundary[(x[1], x[2])] = (y[1], y[2])
                if type(x[4]) is int:
                    n = len(search.views[x[1]][0][x[2]].base)
                    c1, d1 = _absolute(x[3], x[4], n)
                    c2, d2 = _absolute(y[3], y[4], n)
                    s = d1 * d2
                    self.corner[(x[1], x[2])] = ((c2 - s * c1) % n, s, n)

    def fixes(self, choice: Choice) -> bool:
        return self.image(choice) == choice

    def image(self, choice: Choice) -> Choice:
        if choice[0] == "r":
            r = choice[1]
            return ("r", self.region[r], choice[2] ^ self.flip[r])
        _, r, b, o, cand = choice
        r2, b2 = self.boundary[(r, b)]
        o2 = o ^ self.flip[r]
        if cand is None:
            return ("b", r2, b2, o2, None)
        if type(cand) is int:
            a, s, n = self.corner[(r, b)]
            c, _d = _absolute(o, cand, n)
            return ("b", r2, b2, o2, _relative(o2, (a + s * c) % n, n))
        vertex = self.vertex
        return ("b", r2, b2, o2, tuple(vertex[v] for v in cand))


def _absolute(o: int, start: int, n: int) -> tuple[int, int]:
    """The corner (as written) where a rotation starts, and the direction it walks."""
    return (start, 1) if o == 0 else (n - 1 - start, -1)


def _relative(o: int, corner: int, n: int) -> int:
    """The rotation start, in orientation o, of the rotation that begins at `corner`."""
    return corner if o == 0 else n - 1 - corner


class _Search:
    """Greedy least-encoding search over colour-respecting orderings and the orientations
    each region keeps, branching on ties, skipping options that an automorphism of the
    land maps onto explored ones (see the notes on automorphism pruning above for why the
    result is unchanged)."""

    def __init__(self, land: Land, prune: bool | None = None) -> None:
        self.land = land
        # views[r][o]: the boundaries of region r in orientation o (bags have one view).
        self.views = [
            [[_Boundary(b, land, True) for b in region]]
            if land.collapsed[r]
            else [
                [_Boundary(b, land, False) for b in region],
                [_Boundary(b[::-1], land, False) for b in region],
            ]
            for r, region in enumerate(land.regions)
        ]
        self.best: list[int] | None = None
        self.prune = PRUNE if prune is None else prune
        self.leaves = 0  # complete encodings reached
        self.path: list[Choice] = []  # choices from the root to the current node
        self.ref: tuple[list[Choice], list[int]] | None = (
            None  # (path, names) of the reference leaf
        )
        self.automorphisms: list[_Automorphism] = []
        if len(self.views) == 1:
            self.colour = [0]
            _refine_views(land, self.views, self.colour)
        else:
            self.colour = _refine(land, self.views)
        # Uppercase letters of each region: once a letter has a name, the regions holding
        # it are placed before the others (see _regions).
        self.letters = [sorted({v for bd in views[0] for _, v in bd.ups}) for views in self.views]
        self.orientations = []
        for views in self.views:
            least = _region_form(views)
            self.orientations.append(
                [o for o, region in enumerate(views) if _sorted_forms(region) == least]
            )

    def run(self) -> list[int]:
        colour = self.colour
        size = [0] * len(colour)
        for c in colour:
            size[c] += 1
        order = sorted(range(len(colour)), key=lambda r: (size[colour[r]], colour[r]))
        self._regions(order, {}, [])
        assert self.best is not None
        return self.best

    def _worse(self, out: list[int]) -> bool:
        best = self.best
        if best is None:
            return False
        cut = best[: len(out)]
        return out[: len(cut)] > cut

    def _leaf(self, names: dict[int, int], out: list[int]) -> int:
        """A complete encoding: keep the least; from a repeat of the best, an automorphism
        and the depth to jump back to."""
        self.leaves += 1
        if self.best is None or out < self.best:
            self.best = out
            if self.prune:
                self.ref = (list(self.path), sorted(names, key=names.__getitem__))
            return _NO_JUMP
        if not self.prune or out != self.best:
            return _NO_JUMP
        named = sorted(names, key=names.__getitem__)
        assert self.ref is not None
        p1, n1 = self.ref
        p2 = self.path
        depth = 0
        while p1[depth] == p2[depth]:
            depth += 1
        if len(self.automorphisms) < MAX_AUTOMORPHISMS:
            self.automorphisms.append(_Automorphism(self, p1, n1, p2, named))
        return depth

    def _first_chunk(self, region: list[_Boundary], names: dict[int, int]) -> tuple[int, ...]:
        """The codes a region starts with when placed now: its least boundary, named."""
        least = min(bd.form for bd in region)
        tied = [bd for bd in region if bd.form == least]
        if not tied[0].ups:
            return least
        return min(bd.encode(cand, names)[0] for bd in tied for cand in bd.cands)

    def _regions(self, remaining: list[int], names: dict[int, int], out: list[int]) -> int:
        if not remaining:
            return self._leaf(names, out)
        if self._worse(out):
            return _NO_JUMP
        # The next class: regions with an already named letter first (so that regions
        # sharing no letter are never combined independently: that is exponential), then
        # by (size of colour class, colour). Both are invariants of the path so far.
        touching = [r for r in remaining if any(v in names for v in self.letters[r])]
        pool = touching or remaining
        first = self.colour[pool[0]]
        options = [(r, o) for r in pool if self.colour[r] == first for o in self.orientations[r]]
        if len(options) > 1:
            # Regions of one class start at the same place: only the least start can win.
            chunks = [self._first_chunk(self.views[r][o], names) for r, o in options]
            least = min(chunks)
            options = [opt for opt, chunk in zip(options, chunks) if chunk == least]
        orbits = (
            _Orbits(self, [("r", r, o) for r, o in options])
            if self.prune and len(options) > 1
            else None
        )
        path = self.path
        depth = len(path)
        for i, (r, o) in enumerate(options):
            if orbits is not None and orbits.skip(i):
                continue
            rest = [x for x in remaining if x != r]
            path.append(("r", r, o))
            jump = self._boundaries(r, o, list(range(len(self.views[r][o]))), rest, names, out)
            path.pop()
            if jump < depth:
                return jump
        return _NO_JUMP

    def _boundaries(
        self,
        r: int,
        o: int,
        left: list[int],
        rest_regions: list[int],
        names: dict[int, int],
        out: list[int],
    ) -> int:
        path = self.path
        depth = len(path)
        region = self.views[r][o]
        # Boundaries without uppercase letters encode as their form, whatever the order:
        # they are placed in a loop, not one call each (0*1000 is 1 000 boundaries).
        while True:
            if not left:
                genus = self.land.genus[r]
                tail = [END_REGION] if genus == 0 else [-1000 - genus, END_REGION]
                jump = self._regions(rest_regions, names, out + tail)
                del path[depth:]
                return jump
            if self._worse(out):
                del path[depth:]
                return _NO_JUMP
            least = min(region[b].form for b in left)
            tied = [b for b in left if region[b].form == least]
            if region[tied[0]].ups:
                break
            left = [x for x in left if x != tied[0]]
            path.append(("b", r, tied[0], o, None))
            out = out + list(least) + [END_BOUNDARY]
        jump = self._tied_boundaries(r, o, left, tied, rest_regions, names, out)
        del path[depth:]
        return jump

    def _tied_boundaries(
        self,
        r: int,
        o: int,
        left: list[int],
        tied: list[int],
        rest_regions: list[int],
        names: dict[int, int],
        out: list[int],
    ) -> int:
        """Branch on the least boundaries that hold uppercase letters."""
        region = self.views[r][o]
        path = self.path
        options = []
        for b in tied:
            bd = region[b]
            for cand in bd.cands:
                enc, new = bd.encode(cand, names)
                options.append((enc, b, cand, new))
        chunk = min(opt[0] for opt in options)
        kept = [opt for opt in options if opt[0] == chunk]
        orbits = (
            _Orbits(self, [("b", r, b, o, cand) for _, b, cand, _ in kept])
            if self.prune and len(kept) > 1
            else None
        )
        tail = out + list(chunk) + [END_BOUNDARY]
        depth = len(path)
        for i, (_, b, cand, new) in enumerate(kept):
            if orbits is not None and orbits.skip(i):
                continue
            merged = {**names, **new} if new else names
            path.append(("b", r, b, o, cand))
            jump = self._boundaries(r, o, [x for x in left if x != b], rest_regions, merged, tail)
            path.pop()
            if jump < depth:
                return jump
        return _NO_JUMP


class _Orbits:
    """Options of one node, joined under the stored automorphisms that fix its path."""

    __slots__ = ("explored", "index", "options", "parent", "search", "seen")

    def __init__(self, search: _Search, options: list[tuple[Any, ...]]) -> None:
        self.search = search
        self.options = options
        self.index = {o: i for i, o in enumerate(options)}
        self.parent = list(range(len(options)))
        self.explored = [False] * len(options)
        self.seen = 0  # automorphisms looked at so far

    def _find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def skip(self, i: int) -> bool:
        """True if option i is in the orbit of an explored option; else mark it explored."""
        auts = self.search.automorphisms
        path = self.search.path
        find, parent, explored = self._find, self.parent, self.explored
        while self.seen < len(auts):
            g = auts[self.seen]
            self.seen += 1
            if not all(g.fixes(c) for c in path):
                continue
            for j, o in enumerate(self.options):
                k = self.index.get(g.image(o))
                if k is not None:
                    a, b = find(j), find(k)
                    if a != b:
                        parent[a] = b
                        explored[b] = explored[b] or explored[a]
        root = find(i)
        if explored[root]:
            return True
        explored[root] = True
        return False


def encode_land(land: Land, prune: bool | None = None) -> list[int]:
    """The canonical encoding of a land (prune: see PRUNE)."""
    calls = 3 * (len(land.regions) + sum(len(region) for region in land.regions))
    with _deep_enough(calls):
        return _Search(land, prune).run()


_depth_lock = threading.Lock()
_deep_searches = 0  # searches running with the recursion limit raised
_saved_limit = 0  # the limit before the first of them raised it


@contextmanager
def _deep_enough(calls: int) -> Iterator[None]:
    """Let the search nest `calls` deep: about three calls per region and per boundary
    with uppercase letters, which notation.MAX_POSITION_VERTICES bounds (a chain of 333
    regions needs ~1 000). Python 3.11 calls between Python functions take no C stack, so
    raising the limit is safe; it is put back when the last deep search ends (the limit
    is per process, and other threads may be searching)."""
    global _deep_searches, _saved_limit
    needed = calls + 500 + _frame_depth()
    if needed <= sys.getrecursionlimit() and not _deep_searches:
        yield
        return
    with _depth_lock:
        if _deep_searches == 0:
            _saved_limit = sys.getrecursionlimit()
        _deep_searches += 1
        if needed > sys.getrecursionlimit():
            sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        with _depth_lock:
            _deep_searches -= 1
            if _deep_searches == 0:
                sys.setrecursionlimit(_saved_limit)


def _frame_depth() -> int:
    frame: FrameType | None = sys._getframe()
    depth = 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def format_encoding(encoding: list[int]) -> str:
    """Write a land encoding in GLOP 2.x notation (runs of isolated spots as 0*k)."""
    regions: list[str] = []
    boundaries: list[str] = []
    chunk: list[int] = []
    for c in encoding:
        if c >= 0:
            chunk.append(c)
        elif c == END_BOUNDARY:
            boundaries.append(_format_boundary(chunk))
            chunk = []
        elif c == END_REGION:
            regions.append(_join_boundaries(boundaries))
            boundaries = []
        else:
            boundaries.append(f"@{-1000 - c}")
    return "|".join(regions)


def _format_boundary(codes: list[int]) -> str:
    """Letters for one boundary: lowercase named by first appearance, partners by distance."""
    n = len(codes)
    names: dict[int, str] = {}
    out: list[str] = []
    count = 0
    for i, c in enumerate(codes):
        if c >= UPPER:
            out.append(upper_name(c - UPPER))
        elif c > LOWER_PAIR:
            name = names.pop(i, None)
            if name is None:
                name = lower_name(count)
                count += 1
                names[(i + c - LOWER) % n] = name
            out.append(name)
        elif c == LOWER_PAIR:
            name = names.pop(i, None)
            if name is None:
                name = lower_name(count)
                count += 1
                names[i + 1] = name
            out.append(name)
        else:
            out.append(str(c))
    return "".join(out)


def _join_boundaries(boundaries: list[str]) -> str:
    genus = ""
    if boundaries and boundaries[-1].startswith("@"):
        genus = boundaries.pop()
    zeros = 0
    while zeros < len(boundaries) and boundaries[zeros] == "0":
        zeros += 1
    parts = boundaries[zeros:]
    if zeros >= 2:
        parts = [f"0*{zeros}", *parts]
    elif zeros == 1:
        parts = ["0", *parts]
    return ".".join(parts) + genus


def _shape(land: Land) -> tuple[int, ...]:
    """The land as written, vertices renumbered by first appearance: a memo key."""
    numbers: dict[int, int] = {}
    out: list[int] = []
    kind, code = land.kind, land.code
    for r, region in enumerate(land.regions):
        out.append(-2 - land.genus[r] * 4 - (2 if land.collapsed[r] else 0))
        for boundary in region:
            out.append(-1)
            for v in boundary:
                number = numbers.get(v)
                if number is None:
                    number = numbers[v] = len(numbers)
                    k = kind[v]
                    out.append(10_000 + (code[v] if k == K_SPOT else 10 + k))
                out.append(number)
    return tuple(out)


_MEMO: dict[tuple[int, ...], str] = {}
_MEMO_LIMIT = 2_000_000


def canonical_land(land: Land) -> str:
    """Canonical GLOP 2.x string of one normalised land (memoised by its written shape)."""
    shape = _shape(land)
    key = _MEMO.get(shape)
    if key is None:
        if len(_MEMO) >= _MEMO_LIMIT:
            _MEMO.clear()
        key = _MEMO[shape] = format_encoding(encode_land(land))
    return key


def canonical_lands(raw: RawPosition) -> list[str]:
    """Canonical strings of the lands of a raw position, sorted (empty list: terminal)."""
    return sorted(canonical_land(land) for land in normalize(raw))
