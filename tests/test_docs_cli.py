"""docs/cli.md follows the real `sproutsdb` parser: a section per subcommand (nested actions
such as `rct-table build` included) naming every long option that subcommand takes, and no
section for a subcommand that does not exist."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from sproutsdb.tools.cli import build_parser

CLI_DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
HEADING = re.compile(r"^## `sproutsdb ([^`]+)`$", flags=re.M)


def commands(
    parser: argparse.ArgumentParser, prefix: str = ""
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(full name, parser) of every subcommand, depth first: `check`, `rct-table build`, …"""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                full = f"{prefix} {name}".strip()
                yield full, sub
                yield from commands(sub, full)


def long_options(parser: argparse.ArgumentParser) -> set[str]:
    return {
        option
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }


def sections() -> dict[str, str]:
    """{command: the text of its section}, a section running to the next `## ` heading."""
    text = CLI_DOC.read_text()
    found = list(HEADING.finditer(text))
    out: dict[str, str] = {}
    for match, following in zip(found, [*found[1:], None]):
        end = following.start() if following is not None else len(text)
        assert match.group(1) not in out, f"two sections for {match.group(1)}"
        out[match.group(1)] = text[match.end() : end]
    return out


def test_the_walk_sees_every_command_and_nested_action() -> None:
    names = [name for name, _ in commands(build_parser())]
    assert {"canon", "solve", "check", "serve", "rct-table build", "fleet solve"} <= set(names)
    assert len(names) == len(set(names)) >= 20


def test_every_subcommand_has_a_section_naming_each_of_its_long_options() -> None:
    documented = sections()
    missing: list[str] = []
    for name, parser in commands(build_parser()):
        if name not in documented:
            missing.append(f"no section for `sproutsdb {name}`")
            continue
        for option in sorted(long_options(parser)):
            if not re.search(rf"`{re.escape(option)}(?![\w-])", documented[name]):
                missing.append(f"`sproutsdb {name}`: {option}")
    assert not missing, "docs/cli.md lacks:\n" + "\n".join(missing)


def test_no_section_for_a_command_that_does_not_exist() -> None:
    real = {name for name, _ in commands(build_parser())}
    assert set(sections()) - real == set()
