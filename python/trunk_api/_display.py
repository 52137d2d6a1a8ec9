"""Rich display in notebooks: ``_repr_html_`` for every answer model, page and listing iterator.

Jupyter shows an object through ``_repr_html_`` when it has one, and keeps ``repr`` for the text view, so the
exact ``repr`` stays what it is. The HTML is derived from what the classes already declare (``__match_args__``,
the fields of the one C++ declaration, in order), never from a list kept here:

- a model is a two-column table of its fields that are present (an absent field, None, is counted, not shown);
  a nested model is a nested table; a list of models (a page's tests, a queue's pull requests, a test's most
  common failures) is a table with a row per item, its first rows only, and how many more there are; a list of
  text is joined, its first items only;
- an iterator shows its query and whether it has started (its ``repr``) and what it has fetched so far: pages,
  items (of the total the first page announced) and items given out, read from its counters, never fetched.

Every value is HTML-escaped. No request is ever made to display anything.
"""

from __future__ import annotations

import html
from datetime import datetime
from enum import Enum
from typing import Any

__all__ = ["install", "html_of"]

#: Rows of a list of models shown before "and N more".
MAX_ROWS = 10
#: Items of a list of text shown before "and N more".
MAX_ITEMS = 8
#: Characters of one text value shown before an ellipsis (failure messages can be long).
MAX_TEXT = 300

_STYLE = ("<style>.trunk-api table{border-collapse:collapse;margin:2px 0}"
          ".trunk-api th,.trunk-api td{text-align:left;vertical-align:top;padding:1px 8px;"
          "border-bottom:1px solid #ddd}.trunk-api .trunk-more{color:#777;font-style:italic}</style>")


def _is_model(value: object) -> bool:
    return hasattr(type(value), "__match_args__") and hasattr(value, "to_dict")


def _text(value: object) -> str:
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, datetime):
        value = value.isoformat()
    text = str(value)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + "…"
    return html.escape(text)


def _more(count: int, noun: str) -> str:
    return f'<div class="trunk-more">and {count} more {noun}</div>'


def _value(value: object, depth: int) -> str:
    if _is_model(value):
        return _model_table(value, depth + 1)
    if isinstance(value, (list, tuple)):
        if value and all(_is_model(item) for item in value):
            return _rows_table(list(value), depth + 1)
        shown = ", ".join(_text(item) for item in value[:MAX_ITEMS])
        rest = len(value) - MAX_ITEMS
        return shown + (f' <span class="trunk-more">and {rest} more</span>' if rest > 0 else "") if value else "[]"
    if isinstance(value, dict):
        return _text(value) if value else "{}"
    return _text(value)


def _present(model: object) -> tuple[list[tuple[str, object]], int]:
    fields: tuple[str, ...] = getattr(type(model), "__match_args__")
    present = [(name, getattr(model, name)) for name in fields]
    shown = [(name, value) for name, value in present if value is not None]
    return shown, len(present) - len(shown)


def _model_table(model: object, depth: int = 0) -> str:
    if depth > 3:  # deeper nesting than the API has: say what it is rather than recurse
        return _text(repr(model))
    shown, absent = _present(model)
    rows = "".join(f"<tr><th>{html.escape(name)}</th><td>{_value(value, depth)}</td></tr>" for name, value in shown)
    extra = getattr(model, "extra", None)
    if extra:
        rows += f"<tr><th>(unknown keys)</th><td>{_text(extra)}</td></tr>"
    footer = _more(absent, "absent fields (None)") if absent else ""
    return f"<table>{rows}</table>{footer}"


def _rows_table(items: list[Any], depth: int) -> str:
    """A row per item (the first MAX_ROWS), a column per field any shown item has."""
    shown = items[:MAX_ROWS]
    columns: list[str] = []
    for item in shown:
        for name, _ in _present(item)[0]:
            if name not in columns:
                columns.append(name)
    head = "".join(f"<th>{html.escape(name)}</th>" for name in columns)
    body = ""
    for item in shown:
        cells = ""
        for name in columns:
            value = getattr(item, name)
            if value is None:
                cells += "<td></td>"
            elif _is_model(value) or (isinstance(value, list) and value and _is_model(value[0])):
                cells += f"<td>{_text(_flat(value))}</td>"  # a table inside a table cell reads badly: flatten
            else:
                cells += f"<td>{_value(value, depth)}</td>"
        body += f"<tr>{cells}</tr>"
    more = _more(len(items) - MAX_ROWS, "rows") if len(items) > MAX_ROWS else ""
    return f"<table><tr>{head}</tr>{body}</table>{more}"


def _flat(value: object) -> str:
    """A nested model inside a table cell, as one line: its present fields, name=value."""
    if isinstance(value, list):
        return f"[{len(value)} items]"
    shown, _ = _present(value)
    return ", ".join(f"{name}={_plain(item)}" for name, item in shown)


def _plain(value: object) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def html_of(obj: object) -> str:
    """The HTML of a model (its fields) or of anything else (its repr, escaped)."""
    title = html.escape(type(obj).__name__)
    body = _model_table(obj) if _is_model(obj) else f"<code>{html.escape(repr(obj))}</code>"
    fetched = getattr(obj, "_fetched", None)
    if fetched is not None:
        body += _fetched_line(*fetched)
    return f'<div class="trunk-api">{_STYLE}<strong>{title}</strong>{body}</div>'


def _fetched_line(pages: int, items: int, given: int, total: int | None) -> str:
    """What a listing has fetched so far, as its own counters say (reading them never fetches)."""
    if pages == 0:
        return "<div>nothing fetched yet</div>"
    of = f" of {total:,}" if total is not None else ""
    plural = "page" if pages == 1 else "pages"
    return f"<div>fetched {pages:,} {plural}, {items:,} items{of}; {given:,} given out</div>"


def _repr_html_(self: object) -> str:
    return html_of(self)


def install(*classes: type) -> None:
    """Gives each class ``_repr_html_`` (pybind11 classes accept new attributes)."""
    for cls in classes:
        cls._repr_html_ = _repr_html_  # type: ignore[attr-defined]
