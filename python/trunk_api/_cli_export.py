"""`trunk-api export failing|unhealthy`: Parquet folders for warehouses (trunk_api.export does the work).

    trunk-api export failing --repo ... --org ... --since 30d --to DIR    # DIR/day=YYYY-MM-DD/, incremental
    trunk-api export unhealthy --repo ... --org ... --to DIR              # DIR/snapshot=YYYY-MM-DD/

Each partition gets one line on stdout: its directory, its rows, and whether it was written or already there.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from trunk_api import export


def add_command(commands: Any, *, add_repo_options: Any, add_connection_options: Any, parse_duration: Any,
                handler: Any) -> None:
    """Adds `export` and its two subcommands. The shared option helpers and the command runner are the CLI's."""
    parser = commands.add_parser("export", help="Parquet folders for DuckDB, Polars, Spark",
                                 description="Write listings as Parquet folders partitioned Hive-style, which "
                                             "DuckDB, Polars and Spark read as they are.")
    kinds = parser.add_subparsers(dest="export_command", metavar="WHAT", required=True)

    failing = kinds.add_parser(
        "failing", help="failing tests, one partition per UTC day (day=YYYY-MM-DD)",
        description="Write the tests that failed on each UTC day of a range to DIR/day=YYYY-MM-DD/ (each day is "
                    "one listing of that day). Days already written are skipped unless --refresh; today, not "
                    "over yet, is always written again.")
    add_repo_options(failing)
    window = failing.add_mutually_exclusive_group()
    window.add_argument("--since", type=parse_duration, metavar="DURATION",
                        help="the days from DURATION ago until now: 7d, 30d, 90d ... (default 30d)")
    window.add_argument("--start", metavar="RFC3339", help="first day (its UTC date), e.g. 2024-05-01T00:00:00Z")
    failing.add_argument("--end", metavar="RFC3339", help="with --start: end of the range (default: now)")
    failing.add_argument("--to", required=True, metavar="DIR", help="the folder to write (made if missing)")
    failing.add_argument("--refresh", action="store_true", help="write again the days already written")
    add_connection_options(failing)
    failing.set_defaults(handler=lambda ctx: handler(ctx, _run_failing))

    unhealthy = kinds.add_parser(
        "unhealthy", help="today's flaky and broken tests as a dated snapshot (snapshot=YYYY-MM-DD)",
        description="Write today's flaky and broken tests to DIR/snapshot=YYYY-MM-DD/ (UTC date), replacing a "
                    "snapshot of the same day. Run daily, it builds the history of test health the service "
                    "does not keep.")
    add_repo_options(unhealthy)
    unhealthy.add_argument("--to", required=True, metavar="DIR", help="the folder to write (made if missing)")
    add_connection_options(unhealthy)
    unhealthy.set_defaults(handler=lambda ctx: handler(ctx, _run_unhealthy))


def _time(text: str, option: str) -> dt.datetime:
    try:
        value = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{option}: {text!r} is not an RFC 3339 time") from None
    if value.tzinfo is None:
        raise ValueError(f"{option}: {text!r} has no offset (add Z or +HH:MM)")
    return value


def _run_failing(ctx: Any) -> int:
    args = ctx.args
    export.require_parquet()  # before asking the service anything
    now = dt.datetime.now(dt.timezone.utc)
    if args.end is not None and args.start is None:
        raise ValueError("--end needs --start (--since always ends now)")
    if args.start is not None:
        start = _time(args.start, "--start")
        end = _time(args.end, "--end") if args.end is not None else now
    else:
        start, end = now - (args.since or dt.timedelta(days=30)), now
    if not start < end:
        raise ValueError("the range is empty: the start must be before the end")
    client = ctx.client()

    def report(partition: export.Partition) -> None:
        state = "written" if partition.written else "already written"
        print(f"{partition.path}\t{partition.rows} rows\t{state}", file=ctx.stdout, flush=True)

    export.export_failing(client, args.repo, args.org, start, end, args.to, refresh=args.refresh,
                          on_partition=report)
    return 0


def _run_unhealthy(ctx: Any) -> int:
    args = ctx.args
    export.require_parquet()
    partition = export.export_unhealthy(ctx.client(), args.repo, args.org, args.to)
    print(f"{partition.path}\t{partition.rows} rows\twritten", file=ctx.stdout)
    return 0
