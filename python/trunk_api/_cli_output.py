"""How the trunk-api command line prints results: tables for people, CSV with flat columns for spreadsheets.
(JSON and NDJSON are the wire JSON of ``to_dict()``.) Presentation only: no request logic lives here."""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Callable, Iterable
from typing import IO, Any

# Columns of --format csv: the same flat names as TestIterator.to_pandas().
CSV_COLUMNS = (
    "id", "name", "variant", "classname", "file_path", "parent", "html_url", "repository_html_url",
    "status_value", "status_reason", "status_timestamp", "failure_rate_last_7d", "failure_rate_last_24h",
    "pull_requests_impacted_last_7d", "quarantined", "codeowners", "ticket_html_url", "most_common_failures",
)


class Progress:
    """'fetched 300 of 1234 failing tests' on one rewritten stderr line (only when stderr is a terminal)."""

    def __init__(self, stream: IO[str], what: str) -> None:
        self.stream, self.what, self.count, self.shown = stream, what, 0, False

    def update(self, added: int, total: int | None) -> None:
        self.count += added
        of_total = f" of {total}" if total is not None else ""
        self.stream.write(f"\rfetched {self.count}{of_total} {self.what} tests")
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


def write_csv(out: IO[str], tests: Iterable[Any]) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for test in tests:
        writer.writerow([csv_cell(value) for value in flat_row(test)])


def flat_row(test: Any) -> list[Any]:
    """One CSV row: the same flat column names as TestIterator.to_pandas()."""
    status, repository, ticket = test.status, test.repository, test.ticket
    failures = test.most_common_failures
    return [
        test.id, test.name, test.variant, test.classname, test.file_path, test.parent, test.html_url,
        repository.html_url if repository else None,
        status.value if status else None, status.reason if status else None, status.timestamp if status else None,
        test.failure_rate_last_7d, test.failure_rate_last_24h, test.pull_requests_impacted_last_7d,
        test.quarantined,
        ";".join(test.codeowners) if test.codeowners is not None else None,
        ticket.html_url if ticket else None,
        json.dumps([failure.to_dict() for failure in failures], ensure_ascii=False) if failures is not None else None,
    ]


def csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, dt.datetime):
        return iso(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return value


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
    names = ("state", "branch", "mode", "concurrency", "bisection_concurrency", "testing_timeout_minutes",
             "pending_failure_depth", "can_optimistically_merge", "batch", "batching_max_wait_time_minutes",
             "batching_min_size", "comments_enabled", "commands_enabled", "create_prs_for_testing_branches",
             "status_check_enabled", "direct_merge_mode", "optimization_mode", "merge_method", "required_statuses")
    rows = []
    for name in names:
        value = getattr(settings, name)
        if isinstance(value, bool):
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
