"""The tree expression syntax users type, and the paper's compact printed form.

Grammar (spaces allowed between tokens)::

    expr := term ('+' term)*              a disjunctive sum
    term := N | '*' N                     the nim-heap *N (N decimal; 0 is the empty tree)
          | '{' [expr (';' expr)*] '}'    a tree given by its children; {} is 0
          | '(' expr ')'

Printing writes nim-heaps as integers and other trees as ``{child;child;…}`` with the
children in a fixed order: by height, nim-heaps first, then shorter text, then text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sproutsdb.errors import UserError
from sproutsdb.solver.ports.game import NotationError

MAX_HEAP = 256  # a parsed *n costs O(n²) memory; Sprouts never needs more than a few
MAX_DEPTH = 400  # nesting depth accepted by the recursive parser


class FormatLimitError(UserError, ValueError):
    """A tree whose compact text would exceed the requested length."""


class Builder(Protocol):
    """What the parser needs from an algebra."""

    def nim(self, n: int) -> int: ...
    def reduce_children(self, children: Sequence[int]) -> int: ...
    def add(self, a: int, b: int) -> int: ...


class _Parser:
    """Recursive descent over one string; builds handles bottom-up through a Builder."""

    def __init__(self, text: str, build: Builder) -> None:
        self.text = text
        self.pos = 0
        self.build = build

    def fail(self, expected: str, at: int | None = None) -> NotationError:
        at = self.pos if at is None else at
        found = repr(self.text[at]) if at < len(self.text) else "end of input"
        return NotationError(
            f"tree expression {self.text!r}: at column {at + 1}: expected {expected}, found {found}"
        )

    def skip(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos].isspace():
            pos += 1
        self.pos = pos

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def parse(self) -> int:
        if not self.text.strip():
            raise NotationError("tree expression is empty: write 0, *3, {0;2;{3}} or 2+{2}")
        value = self.expr(0)
        if self.peek():
            raise self.fail("'+' or the end of the expression")
        return value

    def expr(self, depth: int) -> int:
        value = self.term(depth)
        while self.peek() == "+":
            self.pos += 1
            value = self.build.add(value, self.term(depth))
        return value

    def term(self, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise NotationError(
                f"tree expression {self.text!r}: nesting deeper than {MAX_DEPTH} at column "
                f"{self.pos + 1}"
            )
        char = self.peek()
        if char == "{":
            self.pos += 1
            kids: list[int] = []
            if self.peek() == "}":
                self.pos += 1
                return self.build.reduce_children(kids)
            while True:
                kids.append(self.expr(depth + 1))
                char = self.peek()
                self.pos += 1
                if char == "}":
                    return self.build.reduce_children(kids)
                if char != ";":
                    raise self.fail("';' or '}'", self.pos - 1)
        if char == "(":
            self.pos += 1
            value = self.expr(depth + 1)
            if self.peek() != ")":
                raise self.fail("')'")
            self.pos += 1
            return value
        if char == "*":
            self.pos += 1
            if not self.text[self.pos : self.pos + 1].isdigit():
                raise self.fail("the size of the heap after '*' (like *3)")
        elif not char.isdigit():
            raise self.fail("a tree: a number, *n, {…} or (…)")
        start = self.pos
        text = self.text
        while self.pos < len(text) and text[self.pos] in "0123456789":
            self.pos += 1
        n = int(text[start : self.pos])
        if n > MAX_HEAP:
            raise NotationError(
                f"tree expression {text!r}: at column {start + 1}: nim-heap *{n} is larger "
                f"than the {MAX_HEAP} this parser accepts"
            )
        return self.build.nim(n)


def parse(text: str, build: Builder) -> int:
    """The handle of the tree written ``text``; raises NotationError saying where it is wrong."""
    return _Parser(text, build).parse()


def format_tree(
    handle: int,
    children: Sequence[frozenset[int]],
    height: Sequence[int],
    nim: Sequence[int],
    cache: dict[int, str],
    limit: int | None = None,
) -> str:
    """Compact text of a tree (nim-heaps as integers), memoised in ``cache``.

    Raises FormatLimitError, before building anything, if the text would be longer than
    ``limit`` characters (a tree shared many times in the DAG prints once per occurrence).
    """
    if limit is not None:
        size = _text_length(handle, children, nim, cache, {})
        if size > limit:
            raise FormatLimitError(
                f"the tree prints as {size} characters, more than the limit of {limit}; "
                f"use its label or content id"
            )
    return _text(handle, children, height, nim, cache)


def _text(
    handle: int,
    children: Sequence[frozenset[int]],
    height: Sequence[int],
    nim: Sequence[int],
    cache: dict[int, str],
) -> str:
    done = cache.get(handle)
    if done is not None:
        return done
    if nim[handle] >= 0:
        text = str(nim[handle])
    else:
        parts = [
            (height[c], nim[c] < 0, _text(c, children, height, nim, cache))
            for c in children[handle]
        ]
        parts.sort(key=lambda p: (p[0], p[1], len(p[2]), p[2]))
        text = "{" + ";".join(p[2] for p in parts) + "}"
    cache[handle] = text
    return text


def _text_length(
    handle: int,
    children: Sequence[frozenset[int]],
    nim: Sequence[int],
    cache: dict[int, str],
    sizes: dict[int, int],
) -> int:
    known = cache.get(handle)
    if known is not None:
        return len(known)
    size = sizes.get(handle)
    if size is None:
        if nim[handle] >= 0:
            size = len(str(nim[handle]))
        else:
            kids = children[handle]
            size = (
                2
                + max(len(kids) - 1, 0)
                + sum(_text_length(c, children, nim, cache, sizes) for c in kids)
            )
        sizes[handle] = size
    return size
