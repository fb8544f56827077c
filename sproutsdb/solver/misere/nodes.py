"""The misère node space: nodes (position part, 0/1 part, RCT multiset), keys, children.

A node is a sum of three parts (see ``misere.solver``): the lands whose RCT is not known,
the parity of the *1 summands, and the other known RCTs. ``MisereNodes`` builds nodes from
positions and keys, replaces each land of known RCT (``misere.rcts``) by its tree, makes the
children of a node in the search's move order and decides the nodes the rules decide
(terminal, one RCT alone, misère Nim). It knows nothing of the search, the table of proven
nodes or the store: df-pn's space over these nodes is ``misere.space``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.misere.assemble import ASSEMBLE, Assembler, NodeParts, Size
from sproutsdb.solver.misere.keys import EMPTY_POSITION, PARITY_TOKEN, split_node_key
from sproutsdb.solver.misere.rcts import RctSource, largest_with_rct
from sproutsdb.solver.ports.game import Game
from sproutsdb.solver.search.measures import ComponentMeasures

__all__ = ["LandMove", "LandMoves", "MisereNodes", "Node"]

ZERO, ONE = Algebra.ZERO, Algebra.ONE


class Node(NamedTuple):
    """A misère search node; ``rcts`` sorted by content id, never 0 or *1 or H + *1."""

    lands: tuple[str, ...]  # sorted canonical lands of unknown RCT
    parity: int  # 0 or 1: the 0/1 part
    rcts: tuple[int, ...]  # handles in the source's algebra


# The search builds and caches its nodes as plain tuples with Node's fields: NodeParts
# (assemble.py, where children are built, says why); Size is a node's move order.

# What one move in a land adds to a node, folded once per land (a plain tuple, as
# NodeParts): (kept, lives, flip, rcts, nimber, height) = the sorted child lands of unknown
# RCT, their lives, 1 if the *1 parts of the child lands' RCTs are odd, the other RCTs of
# the child lands sorted by content id, their normal-play nim-sum, their total height.
LandMove = tuple[tuple[str, ...], int, int, tuple[int, ...], int, int]

# The moves of a land as the moves LRU keeps them: the moves in the order of the land's
# children, and their lives. A move that only adds one land of unknown RCT (8 in 10 of
# them) is that land's string, not a LandMove: a LandMove and the 1-tuple in it took 136
# bytes a move, 60 % of the LRU's memory (0*14: 465 k of 585 k moves in 16 k lands).
LandMoves = tuple[tuple[str | LandMove, ...], Sequence[int]]


class MisereNodes:
    """The nodes of misère searches of ``game`` with the RCTs ``rcts`` knows: how they are
    made, keyed, expanded and ordered, with the memos that make that fast (the RCTs of
    lands met, up to ``land_rct_capacity``; the folded moves of ``moves_capacity`` lands)."""

    def __init__(
        self, game: Game, rcts: RctSource, *, moves_capacity: int, land_rct_capacity: int
    ) -> None:
        self.game = game
        self.rcts = rcts
        self.algebra = rcts.algebra
        self._largest_with_rct = largest_with_rct(rcts)
        # its children LRU is a pass-through here: _land_moves keeps what the search needs
        self.measure = ComponentMeasures(game, children_capacity=256)
        # a node's children from one land's moves: compiled when built
        self.assemble: Assembler = ASSEMBLE
        self._moves: OrderedDict[str, LandMoves] = OrderedDict()
        self.moves_capacity = moves_capacity
        self.land_rct: dict[str, int | None] = {}  # bounded by land_rct_capacity
        self._land_rct_capacity = land_rct_capacity
        self.land_of: dict[int, str] = {}  # one land of each RCT met (for resume records)
        self._cid: dict[int, str] = {}
        self._rct_moves_of: dict[int, LandMoves] = {}  # an RCT's moves (_rct_moves)

    def lives(self, lands: Iterable[str]) -> int:
        """The lives of a position part (``game.size`` of its lands, summed)."""
        lives = self.measure.lives
        return sum(lives(land) for land in lands)

    def key(self, node: NodeParts) -> str:
        """Canonical string of a node (the ``misere`` sub-database key; the syntax of
        ``misere_keys``, built here directly because the search makes millions)."""
        lands, parity, rcts = node
        head = "+".join(lands) if lands else EMPTY_POSITION
        if not parity and not rcts:
            return head
        parts = [head]
        if parity:
            parts.append(PARITY_TOKEN)
        cid = self._cid
        parts.extend(cid[h] for h in rcts)
        return " ".join(parts)

    def node(self, key: str) -> Node:
        """The node of a position (any notation): lands of known RCT replaced."""
        lands = self.game.components(self.game.canonical(key))
        return Node._make(self.make((), lands, 0, ()))

    def add_nim(self, node: NodeParts, g: int) -> Node:
        """node + *g, normalised."""
        lands, parity, rcts = node
        return Node._make(self.make(lands, (), parity, rcts, (self.algebra.nim(g),)))

    def parse_node(self, text: str) -> Node:
        """A node from its key (NotationError if malformed), normalised: its position part
        may be in any notation and hold lands of known RCT."""
        position, parity, cids = split_node_key(text)
        handles = [self.algebra.handle(cid) for cid in cids]
        lands = self.game.components(self.game.canonical(position))
        return Node._make(self.make((), lands, parity, (), handles))

    def children(self, node: NodeParts) -> dict[str, NodeParts]:
        """Distinct children by key."""
        return {key: child for key, (_, child) in self.sized_children(node).items()}

    def ordered_children(self, node: NodeParts) -> list[Node]:
        """The distinct children of a node in the order the search first tries them."""
        kids = self.sized_children(node)
        ordered = sorted((size, key) for key, (size, _) in kids.items())
        return [Node._make(kids[key][1]) for _, key in ordered]

    def sized_children(self, node: NodeParts) -> dict[str, tuple[Size, NodeParts]]:
        """Distinct children by key, each with its move order (``size``).

        Moves in a land are assembled from that land's folded moves (``_land_moves``) by
        ``assemble``: the key, parts and order of a child come from the node's and the
        move's, without reading any land again.
        """
        lands, parity, rcts = node
        out: dict[str, tuple[Size, NodeParts]] = {}
        key = self.key
        cid = self._cid
        assemble = self.assemble
        algebra = self.algebra
        rct_nimber, rct_height = self._nimber_height(rcts)
        rct_cids = [cid[h] for h in rcts]
        lives = self.measure.lives
        total_lives = sum(lives(land) for land in lands)
        same_rcts = " " + " ".join(rct_cids) if rcts else ""
        suffix = (same_rcts, " " + PARITY_TOKEN + same_rcts)  # by child parity
        previous = None
        for i, land in enumerate(lands):
            if land == previous:
                continue
            previous = land
            rest = lands[:i] + lands[i + 1 :]
            moves, moves_lives = self._land_moves(land)
            assemble(
                out,
                rest,
                moves,
                moves_lives,
                total_lives - lives(land),
                parity,
                rcts,
                suffix,
                rct_nimber,
                rct_height,
                cid,
            )
        if parity:
            child: NodeParts = (lands, 0, rcts)
            child_key = key(child)
            if child_key not in out:
                out[child_key] = (self.size(child), child)
        # Moves in an RCT: the lands stay (so do their lives and count); each option is
        # folded once into what it adds (parity flip, RCTs) and assembled as a land's moves.
        for j, handle in enumerate(rcts):
            if j and rcts[j - 1] == handle:
                continue
            rest_rcts = rcts[:j] + rcts[j + 1 :]
            rest_suffix = " " + " ".join([cid[h] for h in rest_rcts]) if rest_rcts else ""
            moves, moves_lives = self._rct_moves(handle)
            assemble(
                out,
                lands,
                moves,
                moves_lives,
                total_lives,
                parity,
                rest_rcts,
                (rest_suffix, " " + PARITY_TOKEN + rest_suffix),
                rct_nimber ^ algebra.nimber(handle),
                rct_height - algebra.height(handle),
                cid,
            )
        return out

    def static(self, node: NodeParts) -> bool | None:
        """Losing? decided without search: terminal, one RCT alone, or misère Nim."""
        lands, parity, rcts = node
        if lands:
            return None
        if not rcts:
            return parity == 1  # 0 is a misère win, *1 a loss
        algebra = self.algebra
        if len(rcts) == 1 and not parity:
            return algebra.outcome(rcts[0]) == "L"
        total = parity
        for handle in rcts:
            n = algebra.nim_value(handle)
            if n is None:
                return None
            total ^= n
        # misère Nim (Bouton): the heaps here are all ≥ 2 (0 and *1 are normalised away)
        return total == 0

    def size(self, node: NodeParts) -> Size:
        """Move order: fewest lives in the position part, then most lands (split
        positions), then children whose RCT part has normal-play nim-sum 0 with the
        parity (a guess that they lose), then least total height of the RCT part."""
        lands, parity, rcts = node
        nimber, height = self._nimber_height(rcts)
        nimber ^= parity
        height += parity
        lives = sum(self.measure.lives(land) for land in lands)
        return lives, -len(lands), (1 if nimber else 0), height

    def rct_of(self, lands: Iterable[str]) -> dict[str, int | None]:
        """Known RCT (or None) of each land, asking the source once for the new ones: the
        memo, which holds at least ``lands`` (it is cleared first when it would outgrow
        self._land_rct_capacity, and the lands it held are asked again when next met)."""
        memo = self.land_rct
        wanted = dict.fromkeys(lands)
        new = [land for land in wanted if land not in memo]
        if new:
            if len(memo) + len(new) > self._land_rct_capacity:
                memo.clear()
                new = list(wanted)
            largest = self._largest_with_rct
            if largest is None:
                found = self.rcts.lookup(new)
            else:  # most lands a large search meets are larger than any of the table's
                lives = self.measure.lives
                found = self.rcts.lookup([land for land in new if lives(land) <= largest])
            land_of = self.land_of
            for land in new:
                handle = memo[land] = found.get(land)
                if handle is not None and handle not in land_of:
                    land_of[handle] = land
        return memo

    def make(
        self,
        kept: tuple[str, ...],
        new: Iterable[str],
        parity: int,
        rcts: tuple[int, ...],
        extra: Iterable[int] = (),
    ) -> NodeParts:
        """Normalise kept lands (already of unknown RCT) + new lands + parity + RCTs."""
        memo = self.land_rct
        lands = list(kept)
        added: list[int] = []
        for land in new:
            handle = memo.get(land) if land in memo else self.rct_of((land,))[land]
            if handle is None:
                lands.append(land)
            else:
                added.append(handle)
        added.extend(extra)
        handles = list(rcts)
        if added:
            flip, stays = self._fold(added)
            parity ^= flip
            handles.extend(stays)
            handles.sort(key=self._cid.__getitem__)
        lands.sort()
        return tuple(lands), parity, tuple(handles)

    def _fold(self, added: Iterable[int]) -> tuple[int, list[int]]:
        """RCT handles folded into a node's parts: (parity flip, the handles that stay,
        unsorted). 0 disappears, *1 and the *1 factor of H + *1 flip the parity."""
        algebra = self.algebra
        flip = 0
        stays: list[int] = []
        for handle in added:
            while True:
                if handle == ZERO:
                    break
                if handle == ONE:
                    flip ^= 1
                    break
                base = algebra.plus1_of(handle)
                if base is None:
                    stays.append(handle)
                    break
                flip ^= 1
                handle = base
        cid = self._cid
        for handle in stays:
            if handle not in cid:
                cid[handle] = algebra.content_id(handle)
        return flip, stays

    def _folded(self, added: Iterable[int]) -> tuple[int, tuple[int, ...]]:
        """``_fold``, the handles that stay sorted by content id (a move's effect)."""
        flip, stays = self._fold(added)
        stays.sort(key=self._cid.__getitem__)
        return flip, tuple(stays)

    def _nimber_height(self, handles: Iterable[int]) -> tuple[int, int]:
        """Normal-play nim-sum and total height of RCT handles (move order, ``size``)."""
        algebra = self.algebra
        nimber = height = 0
        for handle in handles:
            nimber ^= algebra.nimber(handle)
            height += algebra.height(handle)
        return nimber, height

    def _land_moves(self, land: str) -> LandMoves:
        """The moves in one land, each folded once into what it adds to a node (kept
        lands, their lives, parity flip, RCTs and their nimber and height; a lone new
        land as its string, see LandMoves); distinct effects only, in the order of the
        land's children; kept in a bounded LRU."""
        cache = self._moves
        found = cache.get(land)
        if found is not None:
            cache.move_to_end(land)
            return found
        kids = self.measure.children(land)
        memo = self.land_rct
        if any(part not in memo for kid in kids for part in kid):
            memo = self.rct_of(part for kid in kids for part in kid)
        lives = self.measure.lives
        # by effect: the kept lands alone when that is all the move adds (the common
        # case; a tuple of strings never equals a triple that starts with a tuple)
        seen: dict[object, LandMove] = {}
        for kid in kids:
            if len(kid) == 1 and memo[kid[0]] is None:  # the common move: one new land
                if kid not in seen:
                    seen[kid] = (kid, lives(kid[0]), 0, (), 0, 0)
                continue
            kept: list[str] = []
            added: list[int] = []
            for part in kid:
                handle = memo[part]
                if handle is None:
                    kept.append(part)
                else:
                    added.append(handle)
            kept_lands = tuple(kept)  # a kid's lands are sorted
            if not added:
                effect: object = kept_lands
                if effect not in seen:
                    seen[effect] = (kept_lands, sum(map(lives, kept)), 0, (), 0, 0)
                continue
            flip, handles = self._folded(added)
            effect = (kept_lands, flip, handles) if flip or handles else kept_lands
            if effect in seen:
                continue
            nimber, height = self._nimber_height(handles)
            seen[effect] = (kept_lands, sum(map(lives, kept)), flip, handles, nimber, height)
        moves = tuple(
            move[0][0] if len(move[0]) == 1 and not move[2] and not move[3] else move
            for move in seen.values()
        )
        move_lives = [move[1] for move in seen.values()]
        try:
            packed: Sequence[int] = bytes(move_lives)  # 1 byte a move (lives < 256)
        except ValueError:
            packed = tuple(move_lives)
        cache[land] = found = (moves, packed)
        if len(cache) > self.moves_capacity:
            cache.popitem(last=False)
        return found

    def _rct_moves(self, handle: int) -> LandMoves:
        """The moves inside one RCT as a land's moves that keep no land: each option folded
        once (parity flip, the RCTs that stay sorted by content id, their nimber and
        height), distinct ones only; cached for the search (an RCT's options never change)."""
        found = self._rct_moves_of.get(handle)
        if found is not None:
            return found
        seen: dict[tuple[int, tuple[int, ...]], LandMove] = {}
        for option in self.algebra.children(handle):
            flip, handles = self._folded((option,))
            if (flip, handles) not in seen:
                seen[flip, handles] = ((), 0, flip, handles, *self._nimber_height(handles))
        found = self._rct_moves_of[handle] = (tuple(seen.values()), bytes(len(seen)))
        return found
