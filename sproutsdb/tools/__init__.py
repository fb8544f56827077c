"""Command-line entry point and offline tools."""
