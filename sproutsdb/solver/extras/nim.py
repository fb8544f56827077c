"""Nim heaps as a second game: a sum of heaps `*a+*b+…`, known answer by Bouton.

It exists so that searches can be tested against xor arithmetic without Sprouts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from sproutsdb.solver.ports.game import NotationError

_HEAP = re.compile(r"\*?(\d+)")


class NimGame:
    """Sums of nim-heaps. Components are single heaps `*n` (n ≥ 1); `!` is empty."""

    name = "nim"
    terminal = "!"

    def canonical(self, text: str) -> str:
        text = text.strip()
        if text in ("", "!", "0", "*0"):
            return self.terminal
        heaps: list[int] = []
        for index, part in enumerate(text.split("+")):
            match = _HEAP.fullmatch(part.strip())
            if not match:
                raise NotationError(f"nim: term {index + 1} {part!r} is not a heap like *3")
            heaps.append(int(match.group(1)))
        return self.join(f"*{h}" for h in heaps)

    def components(self, key: str) -> tuple[str, ...]:
        if key == self.terminal:
            return ()
        return tuple(key.split("+"))

    def join(self, components: Iterable[str]) -> str:
        heaps = sorted(int(c.lstrip("*")) for c in components)
        heaps = [h for h in heaps if h > 0]
        return "+".join(f"*{h}" for h in heaps) if heaps else self.terminal

    def component_children(self, component: str) -> Sequence[tuple[str, ...]]:
        n = int(component.lstrip("*"))
        return [((f"*{k}",) if k else ()) for k in range(n)]

    def children(self, key: str) -> list[str]:
        parts = self.components(key)
        seen: dict[str, None] = {}
        for i, part in enumerate(parts):
            rest = parts[:i] + parts[i + 1 :]
            for child in self.component_children(part):
                seen.setdefault(self.join(rest + child), None)
        return list(seen)

    def size(self, key: str) -> int:
        return sum(int(c.lstrip("*")) for c in self.components(key))
