"""The ``trunk-api`` command line (also ``python -m trunk_api``).

    trunk-api failing   --repo github.com/acme/widgets --org acme --since 24h
    trunk-api unhealthy --repo github.com/acme/widgets --org acme --status broken --format csv
    trunk-api test 3f0c...-... --repo github.com/acme/widgets --org acme
    trunk-api queue update --repo github.com/acme/widgets --branch main --state paused
    trunk-api pr submit --repo github.com/acme/widgets --branch main --number 42 --priority high
    trunk-api pr list   --repo github.com/acme/widgets --branch main --state merged --format csv
    trunk-api queue metrics --repo github.com/acme/widgets    # Prometheus text (no --repo: every repository)
    trunk-api sandbox                    # a local sandbox of the service, until Ctrl-C
    trunk-api sandbox-controls set --repo github.com/acme/widgets --run-minutes 40   # a running sandbox's queue
    trunk-api openapi > trunk-v1.json    # the OpenAPI 3.1 document of the API (no token, no network)
    trunk-api webhooks listen --port 8080   # verify webhook deliveries and print their events
    trunk-api twin compare --queue-id ID --config '{"concurrency": 4}'   # your queue's twin (docs/twin.md)

It is a thin shell over the public ``trunk_api`` API: arguments are handed to :class:`trunk_api.Client` as
they are, so validation, time parsing, paging and retries happen in the C++ core exactly as for Python
callers, and the error messages are the library's own.

Output: ``--format table`` is the default when stdout is a terminal. When it is not (a pipe or a file), the
listings default to ``ndjson`` (one JSON object per line: streams, and works with ``jq`` and ``head``) and the
single-object commands (``test``, ``queue update``) to ``json``.

Exit codes: 0 ok; 2 bad usage or validation (nothing was sent), or the service refused the request (400, or 409
for a queue that exists); 3 authentication
(401/403); 4 not found (404); 5 rate limited, server error, network failure or unreadable response;
130 interrupted (Ctrl-C). Errors are one line on stderr, without a traceback and without the token.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any, NoReturn

import trunk_api
from trunk_api import _cli_operations as declared
from trunk_api import _cli_export, _cli_sandbox, _cli_sandbox_controls, _cli_twin, _cli_webhooks
from trunk_api import _cli_output as render
from trunk_api._cli_common import PROG, UsageError, option_flag, warn_of_secret_flags
from trunk_api._core import declarations, pager
from trunk_api import errors
from trunk_api import v2 as _v2
from trunk_api._cli_output import CSV_COLUMNS

__all__ = ["CSV_COLUMNS", "main"]

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_AUTHENTICATION = 3
EXIT_NOT_FOUND = 4
EXIT_SERVICE = 5
EXIT_INTERRUPTED = 130

FORMATS = ("table", "json", "ndjson", "csv")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit code 2), not the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ---------------------------------------------------------------------------------------------------------
# Argument parsing
# ---------------------------------------------------------------------------------------------------------

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_DURATION_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(text: str) -> dt.timedelta:
    """'30m', '24h', '7d', '90s', '1w' -> timedelta. (The 7-day rule itself is checked by the library.)"""
    match = _DURATION.match(text)
    if not match:
        raise argparse.ArgumentTypeError(
            f"invalid duration {text!r}: use a number and a unit s, m, h, d or w, like 30m, 24h or 7d")
    return dt.timedelta(**{_DURATION_UNITS[match.group(2)]: float(match.group(1))})


def _add_connection_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("connection (environment variables are preferred)")
    for row in declarations.option_rows("client"):
        option_flag(group, row)
    group.add_argument("-v", "--verbose", action="count", default=0,
                       help="log retries (-v) and every attempt (-vv) on stderr; the token is redacted")


def _add_repo_options(parser: argparse.ArgumentParser, *, org: bool = True) -> None:
    parser.add_argument("--repo", required=True, metavar="HOST/OWNER/NAME",
                        help="repository, e.g. github.com/acme/widgets (GitLab owners may hold '/')")
    if org:
        parser.add_argument("--org", required=True, metavar="SLUG",
                            help="organization URL slug (from the organization settings of the web app)")


def _add_output_options(parser: argparse.ArgumentParser, *, listing: bool, page_size: bool = True) -> None:
    default = "ndjson" if listing else "json"
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help=f"output format (default: table on a terminal, else {default})")
    if listing:
        parser.add_argument("--max-results", type=int, default=None, metavar="N",
                            help="stop after N items (pages beyond are not fetched)")
    if listing and page_size:
        parser.add_argument("--page-size", type=int, default=100, metavar="N",
                            help="tests per request, 1..100 (default 100)")


_EPILOG = """\
examples:
  trunk-api failing --repo github.com/acme/widgets --org acme --since 24h
  trunk-api unhealthy --repo github.com/acme/widgets --org acme --status broken --format csv > broken.csv
  trunk-api queue update --repo github.com/acme/widgets --branch main --state paused
  trunk-api pr submit --repo github.com/acme/widgets --branch main --number 42
  trunk-api sandbox            # try it offline: prints the two export lines to paste
  trunk-api openapi > trunk-v1.json

configuration: TRUNK_API_TOKEN (or TRUNK_API_KEY), TRUNK_BASE_URL
exit codes: 0 ok, 2 usage or validation, 3 authentication, 4 not found,
            5 rate limited, server or network failure, 130 interrupted
"""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Flaky tests and merge queues of the Trunk v1 API, from a shell.",
                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG)
    parser.add_argument("--version", action="version", version=f"%(prog)s {trunk_api.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    failing = commands.add_parser("failing", help="tests that failed in a time window",
                                  description="List the distinct tests that failed in a time window "
                                              "(start inclusive, end exclusive, at most 7 days).")
    _add_repo_options(failing)
    window = failing.add_mutually_exclusive_group()
    window.add_argument("--since", type=parse_duration, metavar="DURATION",
                        help="window ending now: 30m, 24h, 7d ... (default 24h)")
    window.add_argument("--start", metavar="RFC3339", help="window start, e.g. 2024-05-01T00:00:00Z")
    failing.add_argument("--end", metavar="RFC3339", help="window end, with --start (default: now)")
    _add_output_options(failing, listing=True)
    _add_connection_options(failing)
    failing.set_defaults(handler=_run_failing)

    unhealthy = commands.add_parser("unhealthy", help="tests classed flaky or broken",
                                    description="List the tests the service classes as flaky or broken.")
    _add_repo_options(unhealthy)
    unhealthy.add_argument("--status", default="flaky", metavar="{flaky,broken}",
                           help="which unhealthy tests (default flaky; any case)")
    _add_output_options(unhealthy, listing=True)
    _add_connection_options(unhealthy)
    unhealthy.set_defaults(handler=_run_unhealthy)

    quarantined = commands.add_parser("quarantined", help="tests the service quarantines",
                                      description="List the tests the service quarantines (their failures do not "
                                                  "block merges).")
    _add_repo_options(quarantined)
    _add_output_options(quarantined, listing=True)
    _add_connection_options(quarantined)
    quarantined.set_defaults(handler=_run_quarantined)

    test = commands.add_parser("test", help="details of one test", description="Show one test case, with "
                                                                              "its most common failures.")
    test.add_argument("test_id", metavar="TEST_ID", help="the test's id (a UUID)")
    _add_repo_options(test)
    _add_output_options(test, listing=False)
    _add_connection_options(test)
    test.set_defaults(handler=_run_test)

    queue = commands.add_parser("queue", help="merge queue administration",
                                description="Merge queue administration.")
    queue_commands = queue.add_subparsers(dest="queue_command", metavar="COMMAND", required=True)
    pr = commands.add_parser("pr", help="pull requests in a merge queue",
                             description="Submit, cancel, restart and follow pull requests in a merge queue.")
    pr_commands = pr.add_subparsers(dest="pr_command", metavar="COMMAND", required=True)
    ticket = commands.add_parser("ticket", help="tickets of the issue tracker",
                                 description="Link tickets of the issue tracker to test cases.")
    ticket_commands = ticket.add_subparsers(dest="ticket_command", metavar="COMMAND", required=True)

    def operation_command(group: Any, name: str, operation: str, summary: str, description: str,
                          handler: Callable[[_Context], int], *, listing: bool = False,
                          title: str | None = None) -> None:
        """A command that runs one operation: an option per field of its request (_cli_operations.py)."""
        command = group.add_parser(name, help=summary, description=description)
        command.set_defaults(handler=handler, operation=operation)
        declared.add_request_options(command, pager.iterators().get(operation, operation), listing=listing,
                                     title=title)
        _add_output_options(command, listing=listing, page_size=False)
        _add_connection_options(command)

    operation_command(queue_commands, "get", "get_queue", "show the settings of a merge queue and its pull requests",
                      "Show the settings of the merge queue of one target branch and the pull requests queued in it "
                      "(reading changes nothing).", _run_queue_get)
    operation_command(queue_commands, "update", "update_queue", "change the settings of a merge queue",
                      "Change the settings of the merge queue of one target branch and print the settings that "
                      "result. With no setting given it changes nothing and prints the current settings.",
                      _run_queue_get, title="settings (each one optional; what is not given is left unchanged)")
    operation_command(queue_commands, "create", "create_queue", "create the merge queue of a branch",
                      "Create the merge queue of one target branch (exit code 2 when it exists: 409).", _run_write)
    operation_command(queue_commands, "delete", "delete_queue", "delete an empty merge queue",
                      "Delete the merge queue of one target branch; only an empty queue may be deleted.", _run_write)
    operation_command(queue_commands, "metrics", "get_merge_queue_metrics", "merge queue metrics of repositories",
                      "Print the merge queue metrics of a repository (without --repo: of every repository): the "
                      "Prometheus text as the service sends it "
                      "(--format table or none), or its samples (json, ndjson, csv).", _run_metrics)
    operation_command(queue_commands, "testing-details", "get_merge_queue_testing_details",
                      "details of one test run", "Show what one merge queue test run tests and how it stands.",
                      _run_object)
    operation_command(queue_commands, "testing-results", "list_merge_queue_testing_results",
                      "completed testing of a time range",
                      "List the testing a merge queue completed between --since and --until (both inclusive; "
                      "--until defaults to now), newest first, one line per pull request per attempt: --offset and "
                      "--take (1..100) choose the window, and the total is printed after it. Each TEST RUN is what "
                      "`queue testing-details --test-run-id` takes.", _run_testing_results)
    operation_command(commands, "status", "status", "whether Trunk's services are up",
                      "Show whether Trunk's services are up, and which are impacted. Sends no credential (the "
                      "service asks for none here), though the client is still made with one.", _run_status)
    operation_command(pr_commands, "submit", "submit_pull_request", "submit a pull request to a merge queue",
                      "Submit a pull request. Not repeated by retries unless the first attempt provably never "
                      "reached the service; after a failure, check with `trunk-api pr status`.", _run_write)
    operation_command(pr_commands, "cancel", "cancel_pull_request", "take a pull request out of its queue",
                      "Cancel a pull request in a merge queue.", _run_write)
    operation_command(pr_commands, "restart", "restart_tests_on_pull_request", "restart a pull request's tests",
                      "Restart the tests of a pull request in a merge queue.", _run_write)
    operation_command(pr_commands, "status", "get_submitted_pull_request", "where a pull request stands",
                      "Show where a submitted pull request stands and what it waits for.", _run_object)
    operation_command(pr_commands, "statuses", "get_submitted_pull_requests", "where several pull requests stand",
                      "Show where 1 to 50 submitted pull requests of one queue stand (--number, repeated), and "
                      "which numbers the queue does not know (notFound).", _run_submitted_many)
    operation_command(pr_commands, "list", "iter_pull_requests", "the pull requests of a merge queue",
                      "List the pull requests of a merge queue, every page.", _run_pr_list, listing=True)
    operation_command(pr_commands, "impacted-targets", "set_impacted_targets", "report a pull request's targets",
                      "Report the build targets a pull request changes (--target, repeated) or --all.", _run_write)
    operation_command(ticket_commands, "link", "link_ticket_to_test_case", "link a ticket to a test case",
                      "Link a ticket of the issue tracker (e.g. KAN-123) to a test case.", _run_write)

    # v2, by resource: one command per operation row of version 2 (trunk_api.v2.OPERATIONS), named by its
    # resource and verb (`trunk-api v2 merge-queues pause --id ID`); a listing walks every page.
    v2 = commands.add_parser("v2", help="Trunk's v2 API, by resource (needs an API key)",
                             description="Trunk's v2 API, by resource: `trunk-api v2 RESOURCE COMMAND`. Needs a v2 "
                                         "API key (TRUNK_API_KEY=trunk_v2_..., or --api-key), or a trunk token "
                                         "(--trunk-token) to read.")
    v2_resources = v2.add_subparsers(dest="v2_resource", metavar="RESOURCE", required=True)
    resource_commands: dict[str, Any] = {}
    for operation in _v2.OPERATIONS:
        resource = operation["resource"]
        if resource not in resource_commands:
            title = resource.replace("_", " ")
            resource_parser = v2_resources.add_parser(resource.replace("_", "-"), help=f"v2's {title}",
                                                      description=f"v2's {title}.")
            resource_commands[resource] = resource_parser.add_subparsers(dest="v2_verb", metavar="COMMAND",
                                                                         required=True)
        listing = "iterator" in operation
        name = operation["iter"] if listing else operation["name"]
        handler = _run_v2_listing if listing else _run_write if operation["response"] == "NoContent" else _run_object
        # A help line starts in lower case; the rest keeps its names' case (GitHub Actions, Buildkite).
        summary = operation["doc"].rstrip(".")
        operation_command(resource_commands[resource], operation["verb"].replace("_", "-"), name,
                          summary[:1].lower() + summary[1:], operation["doc"], handler, listing=listing)

    _cli_sandbox.add_command(commands)
    _cli_sandbox_controls.add_command(commands, add_repo_options=_add_repo_options)
    _cli_webhooks.add_command(commands)
    _cli_export.add_command(commands, add_repo_options=_add_repo_options,
                            add_connection_options=_add_connection_options, parse_duration=parse_duration,
                            handler=_run_export)
    _cli_twin.add_command(commands, add_connection_options=_add_connection_options)

    openapi = commands.add_parser(
        "openapi", help="print the OpenAPI 3.1 document of the API (JSON)",
        description="Print the OpenAPI 3.1 document (JSON) of every operation, request, answer and enumeration "
                    "this library implements, generated from its declarations. Needs no token and no network; "
                    "a running sandbox serves the same document at GET /openapi.json.")
    openapi.set_defaults(handler=_run_openapi)
    return parser


# ---------------------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------------------

class _Context:
    """What every command needs: the parsed arguments and where to write."""

    def __init__(self, args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> None:
        self.args = args
        self.stdout = stdout
        self.stderr = stderr

    def output_format(self, listing: bool) -> str:
        if self.args.format:
            return str(self.args.format)
        if render.isatty(self.stdout):
            return "table"
        return "ndjson" if listing else "json"

    def client(self) -> trunk_api.Client:
        args = self.args
        warn_of_secret_flags(args, declarations.option_rows("client"), self.stderr)
        try:
            return trunk_api.Client(**{row["name"]: getattr(args, row["name"]) for row in declarations.option_rows("client")})
        except errors.ValidationError:
            raise
        except errors.MissingTokenError as error:
            raise UsageError(_missing_credential(error)) from None
        except errors.TrunkError as error:  # unusable base URL, a key of the wrong kind: a configuration problem
            raise UsageError(str(error)) from None


def _missing_credential(error: errors.MissingTokenError) -> str:
    """The library's message speaks Python (Client(token=...)); a shell user sets a variable or an option."""
    first, *others = error.variables
    alternatives = f" (or {', '.join(others)})" if others else ""
    if error.needed == "api_key":
        return (f"{error.operation} is a v2 operation and needs an API key (trunk_v2_...): set the {first} "
                "environment variable, or pass --api-key (visible in ps and shell history)")
    if error.needed == "token":
        return (f"{error.operation} is a v1 operation and needs the organization token: set the "
                f"{first}{alternatives} environment variable, or pass --token (visible in ps and shell history)")
    return (f"no API token or API key: set the {first}{alternatives} environment variable, or pass --token or "
            "--api-key (visible in ps and shell history)")


def _run_failing(ctx: _Context) -> int:
    args = ctx.args
    if args.end is not None and args.start is None:
        raise UsageError("--end needs --start (--since always ends now)")
    now = dt.datetime.now(dt.timezone.utc)
    if args.start is not None:
        start, end = args.start, (args.end if args.end is not None else now)
    else:
        start, end = now - (args.since or dt.timedelta(hours=24)), now
    client = ctx.client()
    tests = client.iter_failing_tests(args.repo, args.org, start, end, page_size=args.page_size,
                                      max_results=args.max_results)
    columns = [("NAME", render.name), ("STATUS", render.status_value),
               ("FAIL 24H", render.rate("failure_rate_last_24h")), ("FAIL 7D", render.rate("failure_rate_last_7d")),
               ("PRS 7D", render.prs), ("QUAR", render.quarantined), ("ID", render.field("id"))]
    return _write_listing(ctx, tests, columns, what="failing test")


def _run_unhealthy(ctx: _Context) -> int:
    args = ctx.args
    client = ctx.client()
    tests = client.iter_unhealthy_tests(args.repo, args.org, args.status, page_size=args.page_size,
                                        max_results=args.max_results)
    columns = [("NAME", render.name), ("STATUS", render.status_value), ("PRS 7D", render.prs),
               ("QUAR", render.quarantined), ("CODEOWNERS", render.codeowners), ("ID", render.field("id"))]
    return _write_listing(ctx, tests, columns, what="unhealthy test")


def _run_quarantined(ctx: _Context) -> int:
    args = ctx.args
    tests = ctx.client().iter_quarantined_tests(args.repo, args.org, page_size=args.page_size,
                                               max_results=args.max_results)
    columns = [("NAME", render.name), ("STATUS", lambda test: str(test.status or "-")),
               ("SETTING", lambda test: str(test.quarantine_setting or "-")),
               ("SINCE", lambda test: render.iso(test.quarantined_at) if test.quarantined_at else "-"),
               ("TEST CASE ID", render.field("test_case_id"))]
    return _write_listing(ctx, tests, columns, what="quarantined test", item_type=trunk_api.QuarantinedTest)


def _run_test(ctx: _Context) -> int:
    args = ctx.args
    test = ctx.client().get_test_details(args.repo, args.org, args.test_id)
    fmt = ctx.output_format(listing=False)
    if fmt == "table":
        render.write_test_details(ctx.stdout, test)
    elif fmt == "csv":
        render.write_csv(ctx.stdout, [test])
    else:
        render.write_json_object(ctx.stdout, test.to_dict(), pretty=fmt == "json")
    return EXIT_OK


def _call(ctx: _Context) -> Any:
    """Runs the command's operation with the options as its keyword arguments."""
    operation = ctx.args.operation
    listing = operation in pager.iterators()
    arguments = declared.request_arguments(ctx.args, pager.iterators().get(operation, operation), listing=listing)
    if listing:
        arguments["max_results"] = ctx.args.max_results
    return getattr(ctx.client(), operation)(**arguments)


def _run_v2_listing(ctx: _Context) -> int:
    """Every item of a v2 listing; the table shows the item's plain fields (text, numbers, states)."""
    items = _call(ctx)
    item_type = pager.listings()[pager.iterators()[ctx.args.operation]]
    plain = [field["name"] for field in declared.declared_fields(item_type.__name__)
             if not declared.is_nested(field)][:6]
    columns = [(name.upper().replace("_", " "), render.field(name)) for name in plain]
    return _write_listing(ctx, items, columns, what=item_type.__name__.lower(), item_type=item_type)


def _run_queue_get(ctx: _Context) -> int:
    return _write_queue(ctx, _call(ctx))


def _run_write(ctx: _Context) -> int:
    """A write whose answer has no documented fields: a confirmation on a terminal, else the answer's JSON."""
    answer = _call(ctx)
    fmt = ctx.output_format(listing=False)
    if fmt == "table":
        print(f"ok: {ctx.args.operation.replace('_', ' ')}", file=ctx.stdout)
    else:
        render.write_json_object(ctx.stdout, answer.to_dict(), pretty=fmt == "json")
    return EXIT_OK


def _run_object(ctx: _Context) -> int:
    """One answer model: key/values on a terminal, else its JSON."""
    answer = _call(ctx)
    fmt = ctx.output_format(listing=False)
    if fmt == "table":
        render.write_key_values(ctx.stdout, render.queue_rows(answer))
    else:
        render.write_json_object(ctx.stdout, answer.to_dict(), pretty=fmt != "ndjson")
    return EXIT_OK


def _answer_for_a_table(ctx: _Context) -> Any:
    """Calls the operation; outside a terminal's table writes its answer as JSON and gives None (the single-answer
    commands' shared first step), else gives the answer to lay out."""
    answer = _call(ctx)
    fmt = ctx.output_format(listing=False)
    if fmt != "table":
        render.write_json_object(ctx.stdout, answer.to_dict(), pretty=fmt != "ndjson")
        return None
    return answer


def _run_testing_results(ctx: _Context) -> int:
    """listMergeQueueTestingResults: a table of the window's entries and the total, else the answer's JSON."""
    answer = _answer_for_a_table(ctx)
    if answer is None:
        return EXIT_OK
    rows = [[f"#{r.pr_number}", render.iso(r.ended_at) if r.ended_at else "-",
             str(getattr(r.outcome, "value", r.outcome) or "-"), r.test_run_id or "-"] for r in answer.results]
    render.write_table(ctx.stdout, ["PR", "ENDED AT", "OUTCOME", "TEST RUN"], rows)
    print(f"total: {answer.total}", file=ctx.stdout)
    return EXIT_OK


def _run_status(ctx: _Context) -> int:
    """GET /v1/status: the overall status and each service's on a terminal, else the answer's JSON."""
    answer = _answer_for_a_table(ctx)
    if answer is None:
        return EXIT_OK
    overall = answer.overall_status
    rows = [("overall", f"{overall.type} ({overall.color}): {overall.overall_status_description}"
             if overall else "-")]
    rows += [(item.name or "-", f"{item.color}: {item.status_description}") for item in answer.statuses]
    render.write_key_values(ctx.stdout, rows)
    return EXIT_OK


def _run_submitted_many(ctx: _Context) -> int:
    """getSubmittedPullRequests: on a terminal one line per pull request found, then the numbers not found."""
    answer = _answer_for_a_table(ctx)
    if answer is None:
        return EXIT_OK
    rows = [(f"#{pr.pr_number}", str(getattr(pr.state, "value", pr.state) or "-")) for pr in answer.pull_requests]
    missing = ", ".join(f"#{item.number}" for item in answer.not_found)
    render.write_key_values(ctx.stdout, rows + [("not found", missing or "(none)")])
    return EXIT_OK


def _run_metrics(ctx: _Context) -> int:
    metrics = _call(ctx)
    fmt = ctx.args.format or "table"
    if fmt == "table":
        ctx.stdout.write(metrics.text)
    elif fmt == "csv":
        writer = csv.writer(ctx.stdout, lineterminator="\n")
        writer.writerow(["name", "labels", "value"])
        for sample in metrics.samples:
            writer.writerow([sample.name, json.dumps(sample.labels, sort_keys=True), repr(sample.value)])
    elif fmt == "ndjson":
        for sample in metrics.samples:
            ctx.stdout.write(json.dumps(sample.to_dict(), ensure_ascii=False) + "\n")
    else:
        render.write_json_object(ctx.stdout, [sample.to_dict() for sample in metrics.samples], pretty=True)
    return EXIT_OK


def _run_pr_list(ctx: _Context) -> int:
    columns = [("NUMBER", render.field("pr_number")), ("STATE", lambda pr: str(pr.state or "-")),
               ("PRIORITY", render.field("priority_name")),
               ("SINCE", lambda pr: render.iso(pr.state_changed_at) if pr.state_changed_at else "-"),
               ("TITLE", render.field("pr_title"))]
    return _write_listing(ctx, _call(ctx), columns, what="pull request", item_type=trunk_api.PullRequest)


def _write_queue(ctx: _Context, settings: Any) -> int:
    fmt = ctx.output_format(listing=False)
    wire = settings.to_dict()
    if fmt == "table":
        render.write_key_values(ctx.stdout, render.queue_rows(settings))
    elif fmt == "csv":
        writer = csv.writer(ctx.stdout, lineterminator="\n")
        writer.writerow(list(wire))
        writer.writerow([render.csv_cell(value) for value in wire.values()])
    else:
        render.write_json_object(ctx.stdout, wire, pretty=fmt == "json")
    return EXIT_OK


def _run_export(ctx: _Context, run: Any) -> int:
    """An export subcommand: its argument problems and a missing pyarrow are usage errors (exit 2)."""
    try:
        return int(run(ctx))
    except ModuleNotFoundError as error:
        raise UsageError(str(error)) from None
    except ValueError as error:
        if isinstance(error, errors.TrunkError):
            raise
        raise UsageError(str(error)) from None


def _run_openapi(ctx: _Context) -> int:
    ctx.stdout.write(declarations.openapi_document() + "\n")
    return EXIT_OK


# ---------------------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------------------

Column = tuple[str, Callable[[Any], str]]


def _write_listing(ctx: _Context, tests: Any, columns: list[Column], *, what: str, item_type: Any = None) -> int:
    fmt = ctx.output_format(listing=True)
    progress = render.Progress(ctx.stderr, what) if render.isatty(ctx.stderr) else None
    stream = _tests_with_progress(tests, progress)
    try:
        if fmt == "table":
            rows = [[get(test) for _, get in columns] for test in stream]
            if progress:
                progress.clear()
            render.write_table(ctx.stdout, [header for header, _ in columns], rows)
            print(f"{len(rows)} {what}{'s' if len(rows) != 1 else ''}", file=ctx.stdout)
        elif fmt == "csv":
            render.write_csv(ctx.stdout, stream, item_type)
        elif fmt == "ndjson":
            for test in stream:
                ctx.stdout.write(json.dumps(test.to_dict(), ensure_ascii=False) + "\n")
        else:  # json: one array, written as the pages arrive
            ctx.stdout.write("[")
            for index, test in enumerate(stream):
                ctx.stdout.write(("," if index else "") + "\n  " + json.dumps(test.to_dict(), ensure_ascii=False))
            ctx.stdout.write("\n]\n")
    finally:
        if progress:
            progress.clear()
    return EXIT_OK


def _tests_with_progress(tests: Any, progress: render.Progress | None) -> Iterator[Any]:
    """Every item of every page; paging (and max_results) is the library's iterator. A page model declares its
    items first (TestPage.tests, QuarantinedTestPage.quarantined_tests)."""
    for page in tests.pages:
        items = getattr(page, page.__match_args__[0])
        if progress:
            progress.update(len(items), getattr(getattr(page, "page", None), "total_rows", None))
        yield from items


# ---------------------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------------------

def exit_code_for(error: BaseException) -> int:
    """The documented exit code of an error raised by the library."""
    if isinstance(error, (errors.ValidationError, errors.BadRequestError, errors.ConflictError, UsageError)):
        return EXIT_USAGE
    if isinstance(error, (errors.AuthenticationError, errors.PermissionDeniedError)):
        return EXIT_AUTHENTICATION
    if isinstance(error, errors.NotFoundError):
        return EXIT_NOT_FOUND
    return EXIT_SERVICE


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _configure_logging(verbosity: int, stderr: IO[str]) -> tuple[logging.Handler, int] | None:
    """Sends the library's log records to stderr for -v/-vv; returns what _restore_logging undoes."""
    if verbosity <= 0:
        return None
    handler = logging.StreamHandler(stderr)
    handler.setFormatter(logging.Formatter(f"{PROG}: %(levelname)s %(message)s"))
    logger = logging.getLogger("trunk_api")
    previous_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbosity > 1 else logging.INFO)
    return handler, previous_level


def _restore_logging(configured: tuple[logging.Handler, int] | None) -> None:
    # main() may run in-process (tests, notebooks, scripts): leave the logger exactly as it was found.
    if configured is None:
        return
    handler, previous_level = configured
    logger = logging.getLogger("trunk_api")
    logger.removeHandler(handler)
    logger.setLevel(previous_level)


def main(argv: Sequence[str] | None = None, *, stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """Runs the command line and returns its exit code (it never raises for a usage or service error)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as stop:  # --help, --version, or a usage error already reported by the parser
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    configured_logging = _configure_logging(getattr(args, "verbose", 0), err)
    context = _Context(args, out, err)
    try:
        return int(args.handler(context))
    except errors.MissingTokenError as error:  # a call of a version whose credential is not configured
        print(f"{PROG}: error: {_missing_credential(error)}", file=err)
        return EXIT_USAGE
    except (errors.TrunkError, UsageError) as error:
        print(f"{PROG}: error: {_one_line(str(error))}", file=err)
        return exit_code_for(error)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=err)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error. Point stdout at /dev/null so that the
        # interpreter's final flush does not complain again.
        if out is sys.stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    finally:
        _restore_logging(configured_logging)


if __name__ == "__main__":  # pragma: no cover - `python -m trunk_api` goes through __main__.py
    sys.exit(main())
