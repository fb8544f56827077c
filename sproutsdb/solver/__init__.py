"""Pure computation: game engines, combinatorial game theory, searches. No I/O."""
