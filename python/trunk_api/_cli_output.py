"""How the trunk-api command line prints results: tables for people, CSV with flat columns for spreadsheets.
(JSON and NDJSON are the wire JSON of ``to_dict()``.) Presentation only: no request logic lives here."""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Callable, Iterable
from typing import IO, Any

from trunk_api._core import tables
from trunk_api._core.models import TestCase

# Columns of --format csv: the flat names of TestIterator.to_pandas(), from the C++ core's one walk over the
# declaration of TestCase (nested models flattened as status_value, repository_html_url ...).
CSV_COLUMNS = tuple(tables.column_names(TestCase))


class Progress:
    """'fetched 300 of 1234 failing tests' on one rewritten stderr line (only when stderr is a terminal)."""

    def __init__(self, stream: IO[str], what: str) -> None:
        self.stream, self.what, self.count, self.shown = stream, what, 0, False

    def update(self, added: int, total: int | None) -> None:
        self.count += added
        of_total = f" of {total}" if total is not None else ""
        self.stream.write(f"\rfetched {self.count}{of_total} {self.what}s")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False


def write_table(out: IO[str], headers: list[str], rows: list[list[str]]) -> None:
    widths = [max([len(header)] + [len(row[i]) for row in rows]) for i, header in enumerate(headers)]
    for line in [headers] + rows:
        out.write("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() + "\n")


def write_key_values(out: IO[str], rows: list[tuple[str, str]]) -> None:
    width = max(len(key) for key, _ in rows)
    for key, value in rows:
        out.write(f"{key + ':':<{width + 1}} {value}\n")


def write_json_object(out: IO[str], obj: Any, *, pretty: bool) -> None:
    out.write(json.dumps(obj, ensure_ascii=False, indent=2 if pretty else None) + "\n")


def write_csv(out: IO[str], items: Iterable[Any], item_type: Any = None) -> None:
    """Header and rows from the core's flat columns (the same names and values as to_pandas())."""
    item_type = item_type or TestCase
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(tables.column_names(item_type))
    for item in items:
        writer.writerow([csv_cell(value) for value in tables.flat_row(item)])


def csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, dt.datetime):
        return iso(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ";".join(value)  # codeowners: one cell a spreadsheet can split
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=_json_default)
    return value


def _json_default(value: Any) -> Any:
    """A model inside a cell as its wire JSON (to_dict), times as on the wire (RFC 3339, Z)."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, dt.datetime):
        return iso(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def write_test_details(out: IO[str], test: Any) -> None:
    status = test.status
    rows = [("name", test.name or "-"), ("id", test.id or "-"), ("classname", test.classname or "-"),
            ("file", test.file_path or "-"), ("variant", test.variant or "-"),
            ("status", status_value(test) + (f" since {iso(status.timestamp)}" if status and status.timestamp else "")),
            ("reason", ((status.reason or "").strip() or "-") if status else "-"),
            ("failure rate 24h", rate("failure_rate_last_24h")(test)),
            ("failure rate 7d", rate("failure_rate_last_7d")(test)),
            ("PRs impacted 7d", prs(test)), ("quarantined", quarantined(test)),
            ("codeowners", codeowners(test)), ("link", test.html_url or "-"),
            ("ticket", test.ticket.html_url if test.ticket and test.ticket.html_url else "-")]
    write_key_values(out, rows)
    failures = test.most_common_failures or []
    out.write(f"\nmost common failures ({len(failures)}):\n")
    if failures:
        write_table(out, ["  COUNT", "LAST", "SUMMARY"],
                     [[f"  {f.occurrence_count if f.occurrence_count is not None else '-'}",
                       iso(f.last_occurrence) if f.last_occurrence else "-", f.summary or "-"] for f in failures])


def queue_rows(settings: Any) -> list[tuple[str, str]]:
    """Every setting of the declaration, in its order; a list of models (the queued pull requests) as a count."""
    rows = []
    for name in settings.__match_args__:
        value = getattr(settings, name)
        if isinstance(value, list) and value and not isinstance(value[0], str):
            text = f"{len(value)} queued"
        elif isinstance(value, bool):
            text = "yes" if value else "no"
        elif isinstance(value, list):
            text = ", ".join(value) if value else "(none)"
        elif value is None:
            text = "-"
        else:
            text = str(getattr(value, "value", value))
        rows.append((name, text))
    return rows


# Cell getters of the tables.
def field(name: str) -> Callable[[Any], str]:
    return lambda test: str(getattr(test, name) or "-")


def name(test: Any) -> str:
    name = test.name or "-"
    return name if len(name) <= 60 else name[:57] + "..."


def status_value(test: Any) -> str:
    return (test.status.value if test.status and test.status.value else None) or "-"


def rate(name: str) -> Callable[[Any], str]:
    def cell(test: Any) -> str:
        value = getattr(test, name)
        return "-" if value is None else f"{value * 100:.1f}%"
    return cell


def prs(test: Any) -> str:
    value = test.pull_requests_impacted_last_7d
    return "-" if value is None else str(value)


def quarantined(test: Any) -> str:
    return "-" if test.quarantined is None else ("yes" if test.quarantined else "no")


def codeowners(test: Any) -> str:
    return ", ".join(test.codeowners) if test.codeowners else "-"


def iso(value: dt.datetime) -> str:
    return value.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")


def isatty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
