"""Types of the compiled assembler (solver/misere/_assemble.c): mypy cannot read a C extension."""

from collections.abc import Mapping, Sequence

def assemble_land_moves(
    out: dict[str, tuple[tuple[int, int, int, int], tuple[tuple[str, ...], int, tuple[int, ...]]]],
    rest: tuple[str, ...],
    moves: Sequence[object],
    moves_lives: Sequence[int],
    rest_lives: int,
    parity: int,
    rcts: tuple[int, ...],
    suffix: tuple[str, str],
    rct_nimber: int,
    rct_height: int,
    cid: Mapping[int, str],
    /,
) -> None: ...
def order_children(
    kids: dict[str, tuple[tuple[int, int, int, int], tuple[tuple[str, ...], int, tuple[int, ...]]]],
    divisor: int,
    initials: Mapping[int, tuple[int, int]],
    /,
) -> list[tuple[str, tuple[tuple[str, ...], int, tuple[int, ...]], tuple[int, int]]]: ...
