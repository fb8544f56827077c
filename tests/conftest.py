"""Shared fixtures: real temporary directories, nothing mocked."""
