"""The library layer: the verbs a user has, called by every door (CLI, bench, tests, Ray)."""
