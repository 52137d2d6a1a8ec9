"""Trunk's v2 API by resource: ``client.v2.merge_queues.list(...)``, ``client.v2.merge_queues.pause(id)``, as
stripe-python's StripeClient exposes its API versions side by side (docs/reference/v2.md).

Nothing here is written per operation: the operations are the C++ core's rows (``_core.declarations.schema()["operations"]``,
those of version 2), and each becomes

- a flat method of :class:`~trunk_api.Client` named as its row (``list_merge_queues``, ``pause_merge_queue``), from
  which :class:`~trunk_api.AsyncClient` derives its coroutine as for every v1 operation; a listing also gets its
  lazy iterator (``iter_merge_queues``: every item of every page, ``max_results``, ``.pages``,
  ``to_arrow()``...);
- a method of its resource under ``client.v2`` named by its verb, which calls the flat one. A listing's verb
  (``list``) returns the lazy iterator; ``list_page`` reads one page (``cursor=``).

The arguments are the request's fields: required ones positional (``id``), the others keyword-only, None meaning
"not sent"; the core converts and validates them (a ValidationError naming each bad field, before anything is
sent). A v2 call sends the client's API key (``api_key=``, docs/reference/credentials.md).
"""

from __future__ import annotations

import inspect
from typing import Any

from trunk_api import _progress
from trunk_api._arguments import call_fields
from trunk_api._declared import schema

__all__ = ["V2", "OPERATIONS"]

#: The v2 operations as the core declares them, in row order.
OPERATIONS: list[dict[str, Any]] = [operation for operation in schema()["operations"]
                                    if operation["version"] == 2]


def _request_signature(operation: dict[str, Any], listing: bool) -> inspect.Signature:
    """``(self, <required fields>, *, <optional fields>=None)`` of the operation's request; a listing's iterator
    takes ``max_results`` and no ``cursor`` (it walks the pages itself)."""
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    keywords = []
    for field in call_fields(operation["request"]):
        if listing and field["page_position"]:
            continue
        if field["optional"]:
            annotation = field["type"] if field["type"].endswith("| None") else f"{field['type']} | None"
            keywords.append(inspect.Parameter(field["name"], inspect.Parameter.KEYWORD_ONLY, default=None,
                                              annotation=annotation))
        else:
            parameters.append(inspect.Parameter(field["name"], inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                annotation=field["type"]))
    if listing:
        keywords.append(inspect.Parameter("max_results", inspect.Parameter.KEYWORD_ONLY, default=None,
                                          annotation="int | None"))
        keywords.append(inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default="auto",
                                          annotation="ProgressLike"))
    return inspect.Signature([*parameters, *keywords], return_annotation=operation["response"])


def _flat_method(name: str, core_name: str, doc: str, signature: inspect.Signature) -> Any:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        # The core checks the arguments itself (a TypeError naming the parameter): nothing is checked twice.
        return getattr(self._core, core_name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    call.__signature__ = signature  # type: ignore[attr-defined]
    return call


def _iterator_method(name: str, doc: str, signature: inspect.Signature) -> Any:
    description = name.removeprefix("iter_").replace("_", " ")

    def call(self: Any, *args: Any, progress: _progress.ProgressLike = "auto", **kwargs: Any) -> Any:
        kwargs.update(_progress.on_page_keywords(progress, description, kwargs.get("max_results")))
        return getattr(self._core, name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    call.__signature__ = signature  # type: ignore[attr-defined]
    return call


def add_flat_methods(client_class: type) -> None:
    """Gives ``client_class`` (Client) one method per v2 operation, and the iterator of each listing."""
    for operation in OPERATIONS:
        name = operation["name"]
        setattr(client_class, name, _flat_method(name, name, operation["doc"], _request_signature(operation, False)))
        if "iterator" in operation:
            iterator = operation["iter"]
            signature = _request_signature(operation, True).replace(return_annotation=operation["iterator"])
            doc = (f"Every item of every page of :meth:`{name}`, fetched lazily; max_results stops early; progress: "
                   "a progress bar (see Client.iter_failing_tests).")
            setattr(client_class, iterator, _iterator_method(iterator, doc, signature))


class Resource:
    """One resource of v2 (``client.v2.merge_queues``): its operations as methods named by their verbs."""

    _verbs: dict[str, str] = {}  # verb -> the client's flat method

    def __init__(self, client: Any) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}: {', '.join(sorted(self._verbs))}>"


def _resource_method(verb: str, flat: str, signature: inspect.Signature, doc: str) -> Any:
    def call(self: Resource, *args: Any, **kwargs: Any) -> Any:
        return getattr(self._client, flat)(*args, **kwargs)

    call.__name__ = call.__qualname__ = verb
    call.__doc__ = doc
    call.__signature__ = signature  # type: ignore[attr-defined]
    return call


def _resource_classes() -> dict[str, type[Resource]]:
    classes: dict[str, type[Resource]] = {}
    for operation in OPERATIONS:
        resource = operation["resource"]
        cls = classes.get(resource)
        if cls is None:
            class_name = "".join(part.title() for part in resource.split("_"))
            cls = classes[resource] = type(class_name, (Resource,), {"_verbs": {}, "__doc__": f"v2's {resource}."})
        name, verb = operation["name"], operation["verb"]
        listing = "iterator" in operation
        if listing:  # the verb walks every page; <verb>_page reads one
            iterator = operation["iter"]
            setattr(cls, verb, _resource_method(verb, iterator, _request_signature(operation, True),
                                                f"Every item of every page: {operation['doc']}"))
            setattr(cls, verb + "_page", _resource_method(verb + "_page", name, _request_signature(operation, False),
                                                          operation["doc"]))
            cls._verbs[verb + "_page"] = name
            cls._verbs[verb] = iterator
        else:
            setattr(cls, verb, _resource_method(verb, name, _request_signature(operation, False), operation["doc"]))
            cls._verbs[verb] = name
    return classes


_RESOURCES = _resource_classes()


class V2:
    """``client.v2``: each v2 resource as an attribute (``merge_queues``), its operations as methods."""

    def __init__(self, client: Any) -> None:
        self._client = client
        for resource, cls in _RESOURCES.items():
            setattr(self, resource, cls(client))

    def __repr__(self) -> str:
        return f"<v2 of {self._client!r}: {', '.join(_RESOURCES)}>"

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *_RESOURCES})
