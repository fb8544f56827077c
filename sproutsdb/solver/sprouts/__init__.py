"""Sprouts: position notation, moves and canonical form."""
