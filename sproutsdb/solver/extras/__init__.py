"""Odds and ends: a test game (nim), the R1 rule experiment and whole-tree statistics."""
