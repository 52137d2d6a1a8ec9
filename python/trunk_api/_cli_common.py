"""What the command line's modules share: the program's name, the usage error, the flag of an option row and the
warning about a secret given as a flag.

``cli`` and the commands it registers (``_cli_sandbox``, ``_cli_webhooks``, ...) import these from here, so that
no command module imports ``cli`` back: ``cli`` is the top of the command line, never a dependency.
"""

from __future__ import annotations

import argparse
from typing import IO, Any

from trunk_api.client import SECRET_OPTIONS

PROG = "trunk-api"


class UsageError(Exception):
    """A command line the parser accepted but that cannot be run (e.g. --since together with --end)."""


#: What the command line adds to an option's declared doc: the token's flag is there for completeness only.
_FLAG_NOTES = {name: "discouraged, since command lines show up in ps and shell history: set the variable instead"
               for name in SECRET_OPTIONS}


def option_flag(group: Any, row: dict[str, Any], dest: str | None = None) -> None:
    """The flag of one option row (``_core.declarations.option_rows(...)``): the row's flag (--name-with-dashes
    unless the row keeps another spelling), its default, rule and variables in the help, its choices."""
    parts = [row["doc"].rstrip(".")]
    if row["rule"] and not row["choices"]:
        parts.append(f"must be {row['rule']}")
    if row["name"] in _FLAG_NOTES:
        parts.append(_FLAG_NOTES[row["name"]])
    help_text = "; ".join(parts)
    if row["variables"]:
        help_text += f" (default: ${', then $'.join(row['variables'])})"
    elif row["default"] is not None:
        help_text += " (default %(default)s)"
    help_text = help_text.replace("%", "%%").replace("%%(default)s", "%(default)s")
    where = {"dest": dest or row["name"], "default": row["default"], "help": help_text}
    if row["type"] == "bool":
        group.add_argument(row["flag"], action=argparse.BooleanOptionalAction, **where)
        return
    if row["choices"]:
        group.add_argument(row["flag"], choices=row["choices"], **where)
        return
    base = row["type"].removesuffix(" | None")
    units = {"seconds": "SECONDS", "milliseconds": "MS"}
    kinds = {"int": (int, units.get(row["unit"], "N")), "float": (float, units.get(row["unit"], "NUMBER"))}
    kind, metavar = kinds.get(base, (str, "RFC3339" if base.startswith("datetime") else
                                     row["name"].rsplit("_", 1)[-1].upper()))
    group.add_argument(row["flag"], type=kind, metavar=metavar, **where)


def warn_of_secret_flags(args: argparse.Namespace, rows: list[dict[str, Any]], stderr: IO[str]) -> None:
    """One warning line per secret option given as a flag (``--token``...): other users see command lines."""
    for row in rows:
        if row["secret"] and getattr(args, row["name"], None) is not None:
            print(f"{PROG}: warning: --{row['name'].replace('_', '-')} is visible to other users (ps, shell "
                  f"history); prefer the {row['variables'][0]} environment variable", file=stderr)
