"""The argument types every public call accepts, in a module of their own so that the modules using them
(client, history, export, sandbox) import them from here rather than from each other."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from trunk_api._core.models import Repo
from trunk_api._declared import model_entry

__all__ = ["RepoLike", "TimeLike"]

#: A repository: a :class:`Repo` or a ``"host/owner/name"`` string (GitLab owners may contain ``/``); the address
#: of its page (``https://github.com/acme/widgets.git``) names it too.
RepoLike = Repo | str
#: A time: an aware ``datetime`` or ``pandas.Timestamp``, or RFC 3339 text with its offset. Naive times are
#: refused (a ValidationError), not guessed to be UTC or local time.
TimeLike = datetime | str


def argument_annotation(field: dict[str, Any], private: bool = False) -> str:
    """What a caller may pass for a request field of the core's schema (``_core.declarations.schema()``), as an annotation:
    an enumeration's member or its wire text, a list as any sequence, a repository or a time as above (the core
    converts them). ``private``: with the ``_RepoLike``/``_TimeLike`` aliases the generated ``_core`` stubs
    declares. Without ``| None``: a caller adds it where None means "not sent"."""
    base: str = field["type"].removesuffix(" | None")
    prefix = "_" if private else ""
    if field["enum"]:
        return f"{field['enum']} | str"
    if base == "Repo":
        return prefix + "RepoLike"
    if base == "datetime":
        return prefix + "TimeLike"
    if base.startswith("list[") and named_by_one_integer(base[len("list["):-1]):
        return "Sequence[int | dict[str, Any]]"  # the bare numbers, or the parts' dicts (build_request.hpp)
    if base.startswith("list[") and is_model(base[len("list["):-1]):
        return f"Sequence[{base[len('list['):-1]} | dict[str, Any]]"  # each part, or its dict (wire names)
    if base.startswith("list["):
        return "Sequence" + base[len("list"):]
    if is_model(base):
        return f"{base} | dict[str, Any]"
    return base


def is_model(name: str) -> bool:
    """Whether a type of the core's schema is a model (a part given whole: its object, or its dict)."""
    return model_entry(name) is not None


def call_fields(model: str) -> list[dict[str, Any]]:
    """A request's fields as a call takes them: a part the core flattens (``pr``, Dynamic CI's ``repo``) replaced by
    its own fields, as the core's schema says (``flattened``)."""
    entry = model_entry(model)
    assert entry is not None, model
    fields: list[dict[str, Any]] = []
    for field in entry["fields"]:
        fields += call_fields(field["type"]) if field["flattened"] else [field]
    return fields


def named_by_one_integer(model: str) -> bool:
    """Whether a request part is named by one integer alone (PullRequestRef): the core takes that integer for it."""
    entry = model_entry(model)
    if entry is None:
        return False
    fields = list(entry["fields"])
    return len(fields) == 1 and fields[0]["type"] == "int"
