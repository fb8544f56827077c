"""Building blocks of the searches: move ordering, transposition table, store access, progress."""
