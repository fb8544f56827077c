"""Canonical form of Sprouts positions: game-preserving reductions, then a unique key.

`normalize` applies the reductions of DESIGN §2 (dead spots and dead regions removed, a
letter whose other occurrence vanished becomes `2`, a region with at most 3 lives
collapses to one boundary, the position split into independent lands). `canonical_land`
then picks one string per isomorphism class of a land: invariant under renaming of
letters, rotation of boundaries, reordering of boundaries and regions, and mirror image.

How the key is chosen: colours of regions are refined from the boundaries they hold and
the regions their uppercase letters lead to (an invariant of the land); the key is the
lexicographically least encoding among all orderings that respect the colours, found by a
greedy search that branches only on exact ties. Every step depends only on invariants,
so isomorphic lands get the same key, and different lands different keys.
"""

from __future__ import annotations

from itertools import permutations

from sproutsdb.solver.sprouts.notation import RawPosition, lower_name, upper_name

CANON_VERSION = 1

# Codes of vertex occurrences in an encoding (a tuple of ints compared lexicographically).
ZERO, ONE, TWO = 0, 1, 2
LOWER = 100          # + index of the lowercase letter within its boundary
UPPER = 1000         # + index of the uppercase letter within its land
UPPER_COLOUR = 10**6  # + colour of the other region (used while refining only)
END_BOUNDARY = -1
END_REGION = -2

# Kinds of vertices after normalisation.
K_SPOT = 0   # 0, 1 or 2: code = 3 - lives for 0/1, 2 for a 1-life spot seen once
K_LOWER = 1
K_UPPER = 2


class Land:
    """One independent land ready to be encoded: regions, kinds, and letter links."""

    __slots__ = ("regions", "genus", "collapsed", "code", "kind", "other_region")

    def __init__(self) -> None:
        self.regions: list[list[list[int]]] = []
        self.genus: list[int] = []
        self.collapsed: list[bool] = []
        self.code: dict[int, int] = {}         # fixed code of 0/1/2 spots
        self.kind: dict[int, int] = {}
        self.other_region: dict[tuple[int, int], int] = {}  # (vertex, region) -> other region


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
            alive = [v for v in boundary if lives[v] > 0]
            if alive:
                kept.append(alive)
                for v in alive:
                    if v not in seen:
                        seen.add(v)
                        total += lives[v]
        if total >= 2:
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
        region = regions[r]
        if collapsed and len(region) > 1:
            region = [[v for boundary in region for v in boundary]]
        land.regions.append(region)
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
            (r1, b1), (r2, b2) = occurrences
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

    __slots__ = ("seq", "base", "ups", "collapsed", "form", "cands")

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
            self.ups = [(len(head) + k, v) for k, v in
                        enumerate(v for v in seq if kind[v] == K_UPPER)]
            self.base = ([code[v] for v in spots] + [LOWER_PAIR] * (2 * len(pairs))
                         + [0] * len(self.ups))
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
        self.cands: list = []

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
                self.cands = [perm for perm in permutations(v for _, v in ups)
                              if [UPPER_COLOUR + colour[other[(v, r)]] for v in perm] == want]
            return
        n = len(codes)
        doubled = codes + codes
        rotations = [doubled[i:i + n] for i in range(n)]
        least = min(rotations)
        self.form = tuple(least)
        self.cands = [i for i, rot in enumerate(rotations) if rot == least]

    def encode(self, cand, names: dict[int, int]) -> tuple[tuple[int, ...], dict[int, int]]:
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


def _refine(land: Land, bounds: list[list[_Boundary]]) -> list[int]:
    """Colour the regions by iterated refinement (an invariant of the land)."""
    count = len(bounds)
    colour = [0] * count
    distinct = 1
    while True:
        for r, region in enumerate(bounds):
            for bd in region:
                bd.refine(r, land, colour)
        forms = [(colour[r], land.genus[r], tuple(sorted(bd.form for bd in bounds[r])))
                 for r in range(count)]
        ranks = {f: i for i, f in enumerate(sorted(set(forms)))}
        new_colour = [ranks[f] for f in forms]
        if len(ranks) == distinct:
            return colour
        colour = new_colour
        distinct = len(ranks)
        if distinct == count:
            for r, region in enumerate(bounds):
                for bd in region:
                    bd.refine(r, land, colour)
            return colour


class _Search:
    """Greedy least-encoding search over colour-respecting orderings, branching on ties."""

    def __init__(self, land: Land, regions: list[list[list[int]]], best: list[int] | None) -> None:
        self.land = land
        self.bounds = [[_Boundary(b, land, land.collapsed[r]) for b in region]
                       for r, region in enumerate(regions)]
        self.best = best
        if len(regions) == 1:
            self.colour = [0]
            for bd in self.bounds[0]:
                bd.refine(0, land, self.colour)
        else:
            self.colour = _refine(land, self.bounds)

    def run(self) -> list[int]:
        order = sorted(range(len(self.bounds)), key=self.colour.__getitem__)
        self._regions(order, {}, [])
        assert self.best is not None
        return self.best

    def _worse(self, out: list[int]) -> bool:
        best = self.best
        if best is None:
            return False
        cut = best[:len(out)]
        return out[:len(cut)] > cut

    def _regions(self, remaining: list[int], names: dict[int, int], out: list[int]) -> None:
        if not remaining:
            if self.best is None or out < self.best:
                self.best = out
            return
        if self._worse(out):
            return
        first = self.colour[remaining[0]]
        for r in remaining:
            if self.colour[r] != first:
                break
            rest = [x for x in remaining if x != r]
            self._boundaries(r, list(range(len(self.bounds[r]))), rest, names, out)

    def _boundaries(self, r: int, left: list[int], rest_regions: list[int],
                    names: dict[int, int], out: list[int]) -> None:
        if not left:
            genus = self.land.genus[r]
            tail = [END_REGION] if genus == 0 else [-1000 - genus, END_REGION]
            self._regions(rest_regions, names, out + tail)
            return
        if self._worse(out):
            return
        region = self.bounds[r]
        least = min(region[b].form for b in left)
        tied = [b for b in left if region[b].form == least]
        bd = region[tied[0]]
        if not bd.ups:
            # Boundaries without uppercase letters encode as their form, whatever the order.
            rest = [x for x in left if x != tied[0]]
            self._boundaries(r, rest, rest_regions, names, out + list(least) + [END_BOUNDARY])
            return
        options = []
        for b in tied:
            bd = region[b]
            for cand in bd.cands:
                enc, new = bd.encode(cand, names)
                options.append((enc, b, new))
        chunk = min(o[0] for o in options)
        for enc, b, new in options:
            if enc != chunk:
                continue
            merged = {**names, **new} if new else names
            self._boundaries(r, [x for x in left if x != b], rest_regions, merged,
                             out + list(enc) + [END_BOUNDARY])


def encode_land(land: Land) -> list[int]:
    """The canonical encoding of a land: least over both orientations."""
    forward = _Search(land, land.regions, None).run()
    if all(land.collapsed):
        return forward  # bags of corners have no orientation
    mirrored = [[b[::-1] for b in region] for region in land.regions]
    return _Search(land, mirrored, forward).run()


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
        parts = [f"0*{zeros}"] + parts
    elif zeros == 1:
        parts = ["0"] + parts
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
