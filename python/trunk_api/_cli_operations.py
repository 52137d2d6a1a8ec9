"""Command-line options derived from a request's declaration (``_core.declarations.schema()``).

A command that runs one operation gets one option per field of the operation's request, with the field's
doc as help, its bounds, its enumeration's values, ``--x/--no-x`` for booleans, one repeated option per item
for lists; a nested part (``pr``) gives its own fields (``--number``, ``--sha``). The parsed options go back
to :class:`trunk_api.Client` as keyword arguments under the declared names, so validation stays the core's
and a new field of the service needs no change here.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from trunk_api._declared import model_entry, schema
from trunk_api._arguments import call_fields, is_model, named_by_one_integer

#: Option names that read better than the field's own (the queue commands have always said --branch).
_OPTION_NAMES = {"target_branch": "branch"}


def declared_fields(model: str) -> list[dict[str, Any]]:
    """The fields of a model as the C++ core declares them (name, type, doc, bounds)."""
    entry = model_entry(model)
    if entry is None:
        raise LookupError(model)  # pragma: no cover - the core declares every request
    return list(entry["fields"])


def requestable_values(enum_name: str) -> list[str]:
    for entry in schema()["enums"]:
        if entry["name"] == enum_name:
            return list(entry["requestable"])
    raise LookupError(enum_name)  # pragma: no cover


def request_of(operation: str) -> str:
    for entry in schema()["operations"]:
        if entry["name"] == operation:
            return str(entry["request"])
    raise LookupError(operation)  # pragma: no cover


def is_nested(field: dict[str, Any]) -> bool:
    """Whether a field holds another model or a list (what a table's column cannot show in a word)."""
    models = {entry["name"] for entry in schema()["models"]}
    return field["type"].removesuffix(" | None") in models or field["type"].startswith("list[")


def _singular(name: str) -> str:
    """The option of one item of a list field: --required-status, --branch, --number; a word that is singular
    already (status) stays."""
    if name.endswith(("us", "ss")):
        return name
    if name.endswith(("ses", "ches", "shes", "xes")):
        return name[:-2]
    return name[:-1] if name.endswith("s") else name


def option_fields(operation: str, *, listing: bool = False) -> list[dict[str, Any]]:
    """The fields of ``operation``'s request that become options (a listing command pages by itself)."""
    fields = [field for field in call_fields(request_of(operation)) if field["type"] != "PageQuery"]
    if listing:
        fields = [field for field in fields if not field["page_position"]]
    return fields


def add_request_options(parser: argparse.ArgumentParser, operation: str, *, listing: bool = False,
                        title: str | None = None, only_optional: bool = False) -> None:
    """One option per field of the request (see the module's doc). Required fields are required options; an
    optional one not given is not sent."""
    group = parser.add_argument_group(title) if title else parser
    fields = option_fields(operation, listing=listing)
    names = {field["name"] for field in fields}
    for field in fields:
        name, doc, kind = field["name"], field["doc"], field["type"]
        if only_optional and not field["optional"]:
            continue
        # The short name (--branch for target_branch) unless the request has a field of that name too (v2's
        # impacted-targets upload names the queue's branch and the pull request's head branch).
        alias = _OPTION_NAMES.get(name, name)
        flag = "--" + (name if alias != name and alias in names else alias).replace("_", "-")
        required = field["required"] and not field["optional"]
        if kind in ("Repo", "Repo | None"):
            example = "repository, e.g. github.com/acme/widgets (GitLab owners may hold '/')"
            group.add_argument(flag, required=required, dest=name, metavar="HOST/OWNER/NAME",
                               help=example if required else f"{doc}; {example}")
        elif field["enum"] and "list[" not in kind:
            values = ",".join(requestable_values(field["enum"]))
            group.add_argument(flag, dest=name, required=required, metavar=f"{{{values}}}", help=doc)
        elif kind == "bool | None" and name.startswith("no_"):
            # --no-batch means true (argparse would read any --no-... as false): there is no --no-no-batch.
            group.add_argument(flag, dest=name, action="store_const", const=True, default=None, help=doc)
        elif kind == "bool | None":
            group.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=doc)
        elif kind in ("int", "int | None"):
            bounds = f" ({field['min']}..{field['max']})" if field["min"] is not None else ""
            group.add_argument(flag, dest=name, type=int, required=required, metavar="N", help=doc + bounds)
        elif kind == "int | str | None":  # a number or a name (priority)
            group.add_argument(flag, dest=name, type=_int_or_text, metavar="N|NAME", help=doc)
        elif kind.startswith("list[str]"):
            exclusive = group.add_mutually_exclusive_group(required=required)
            exclusive.add_argument("--" + _singular(name).replace("_", "-"), action="append", metavar="NAME",
                                   dest=name, help=doc + " (repeat the option for several)")
            if "AllTargets" in kind:
                exclusive.add_argument("--all", action="store_const", const="ALL", dest=name,
                                       help="every target is impacted (ALL)")
            else:
                exclusive.add_argument("--clear-" + name.replace("_", "-"), action="store_true",
                                       dest="clear_" + name, help=f"set {name} to the empty list")
        elif is_model(kind.removesuffix(" | None")):  # a part given whole (Dynamic CI's changed files)
            group.add_argument(flag, dest=name, required=required, type=_json_object, metavar="JSON",
                               help=f"{doc} (a JSON object with the wire names)")
        elif kind.startswith("list[") and is_model(kind.removeprefix("list[").split("]")[0]) \
                and not _named_by_one_integer(kind):  # parts given whole (v2's batching rules, Dynamic CI's forces)
            group.add_argument("--" + _singular(name).replace("_", "-"), action="append", dest=name,
                               required=required, type=_json_object, metavar="JSON",
                               help=f"{doc} (a JSON object with the wire names; repeat the option for several)")
        elif _named_by_one_integer(kind):  # pull requests by number (getSubmittedPullRequests' prs)
            inner = declared_fields(kind.removeprefix("list[").split("]")[0])[0]
            group.add_argument("--" + inner["name"].replace("_", "-"), action="append", dest=name,
                               required=required, type=int, metavar="N",
                               help=f"{inner['doc']} (repeat the option for several; {doc})")
        elif kind.startswith("list["):  # numbers or values of an enumeration (v2's number, state)
            item = kind.removeprefix("list[").split("]")[0]
            values = ",".join(requestable_values(field["enum"])) if field["enum"] else ""
            group.add_argument("--" + _singular(name).replace("_", "-"), action="append", dest=name,
                               required=required, type=int if item == "int" else str,
                               metavar="N" if item == "int" else f"{{{values}}}" if values else item.upper(),
                               help=doc + " (repeat the option for several)")
        else:  # str, datetime, and their optional forms
            metavar = "RFC3339" if "datetime" in kind else name.upper()
            group.add_argument(flag, dest=name, required=required, metavar=metavar, help=doc)


def _named_by_one_integer(kind: str) -> bool:
    """A list of a part that one integer names (PullRequestRef): the core takes the bare integers for it."""
    return kind.startswith("list[") and named_by_one_integer(kind.removeprefix("list[").split("]")[0])


def _json_object(text: str) -> dict[str, Any]:
    """An option's JSON object; argparse reports a ValueError as "invalid _json_object value", so it says more."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not JSON: {error}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object, not {type(value).__name__}")
    return value


def _int_or_text(text: str) -> int | str:
    return int(text) if text.strip().lstrip("+-").isdigit() else text


def request_arguments(args: argparse.Namespace, operation: str, *, listing: bool = False,
                      only_optional: bool = False) -> dict[str, Any]:
    """The keyword arguments of the Client method from the parsed options (None = not sent)."""
    arguments: dict[str, Any] = {}
    for field in option_fields(operation, listing=listing):
        name = field["name"]
        if only_optional and not field["optional"]:
            continue
        value = getattr(args, name, None)
        if value is None and getattr(args, "clear_" + name, False):
            value = []
        if value is None and not field["optional"] and not field["required"]:
            continue  # a keyword with a declared default (take): the core's default applies
        arguments[name] = value
    return arguments
