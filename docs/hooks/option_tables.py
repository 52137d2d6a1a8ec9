"""MkDocs hook: the configuration tables (docs/configuration.md) are rendered from the options the C++ core
declares (their rows, cpp/include/trunk/option_rows.hpp, as trunk_api._core.declarations.option_rows() gives them) when the
site is built, so the page cannot fall behind the library: the same rows make the signatures, the stubs and the
command-line flags.

A page holds a marker comment naming the options, e.g. ``<!-- option-table: client -->``; on_page_markdown
replaces it with a table of every option: name, environment variables, default, meaning and rule.
"""

from __future__ import annotations

import re
from typing import Any

MARKER = re.compile(r"<!-- option-table: (\w+) -->")


def default_text(row: dict[str, Any]) -> str:
    if row["secret"]:
        return "none (required)"
    if row["default"] is None:
        return "none"
    if isinstance(row["default"], str):
        return f"`{row['default']}`"
    unit = {"seconds": " s", "milliseconds": " ms"}.get(row["unit"], "")
    return f"`{row['default']!r}`{unit}"


def render(rows: list[dict[str, Any]]) -> str:
    """The table of `rows`; the environment variables' column only when some option reads one."""
    with_variables = any(row["variables"] for row in rows)
    head = ["Option", "Command line", *(["Environment variable"] if with_variables else []), "Default", "Meaning"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        variables = [", then ".join(f"`{name}`" for name in row["variables"])] if with_variables else []
        flag = f"`{row['flag']}`"
        meaning = row["doc"] + (f" Must be {row['rule']}." if row["rule"] else "")
        meaning = meaning.replace("|", "\\|")  # a table cell
        lines.append("| " + " | ".join([f"`{row['name']}`", flag, *variables, default_text(row), meaning]) + " |")
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if not MARKER.search(markdown):
        return markdown
    from trunk_api._core import declarations  # the installed package: the rows are the core's

    return MARKER.sub(lambda match: render(declarations.option_rows(match.group(1))), markdown)
