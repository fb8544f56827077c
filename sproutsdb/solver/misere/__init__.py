"""Misère play: the search over losing nodes, its checker, RCT search and the trust in position → RCT maps."""
