"""MkDocs hook: the CLI reference page (docs/reference/cli.md) gets every command's --help, rendered from
trunk_api.cli's own parser when the site is built, so the page cannot fall behind the program.

The page holds a marker comment; on_page_markdown replaces it with one section per command, in the order of the
parser (subcommands after their group), each the exact text `trunk-api ... --help` prints at a fixed width.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from typing import Any

MARKER = "<!-- cli-reference: docs/hooks/cli_reference.py renders the parser here -->"
#: The width the help is wrapped at, whatever terminal builds the site (argparse reads $COLUMNS).
WIDTH = 100


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """(words after `trunk-api`, parser) for the program and every command under it, depth first."""
    yield path, parser
    for action in parser._actions:  # argparse keeps subcommands in a _SubParsersAction; it has no public walk
        if isinstance(action, argparse._SubParsersAction):
            for name, subparser in action.choices.items():
                yield from commands(subparser, (*path, name))


def help_text(parser: argparse.ArgumentParser) -> str:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)
    try:
        return parser.format_help()
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def render(parser: argparse.ArgumentParser) -> str:
    sections = []
    for path, command in commands(parser):
        title = " ".join((parser.prog, *path))
        level = "#" * min(2 + len(path), 4)
        sections.append(f"{level} `{title}`\n\n```text\n{help_text(command).rstrip()}\n```\n")
    return "\n".join(sections)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    from trunk_api.cli import build_parser  # the installed package: the parser reads the core's declarations

    return markdown.replace(MARKER, render(build_parser()))
