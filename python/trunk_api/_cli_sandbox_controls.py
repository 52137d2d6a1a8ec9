"""`trunk-api sandbox-controls show|set|script`: read and change the controls of a merge queue of a sandbox that is
already running (`trunk-api sandbox` or `trunk-sandbox` in another terminal), over its control routes.

    trunk-api sandbox-controls show --repo github.com/acme/storefront
    trunk-api sandbox-controls set --repo github.com/acme/storefront --run-minutes 40 --flaky-rate 0
    trunk-api sandbox-controls script 7 --repo github.com/acme/storefront --broken

The route replaces a queue's controls whole; `set` reads them first and sends them back with only the flags given
changed, so that each flag means "change this" and the rest stays. Nothing is checked here that the sandbox
checks: a value out of range comes back as its 400, naming field, value and rule (exit code 2).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from trunk_api import Client, errors
from trunk_api import _cli_output as render
from trunk_api._cli_common import UsageError, option_flag, warn_of_secret_flags
from trunk_api._core.declarations import option_rows
from trunk_api._sandbox_routes import SandboxRoutes

#: The rows of the client's options this command shares: the same flags, variables and rules (base_url's help is
#: its own: there is no default address for a sandbox).
_ROWS = {row["name"]: row for row in option_rows("client") if row["name"] in ("base_url", "token", "timeout")}

#: Each control on the wire (the route's JSON) and the flags of `set` that change it, for the hint beside a
#: refusal naming the field.
_FLAGS_OF_CONTROL = {
    "run_duration": "--run-minutes, --run-median-minutes, --run-sigma, --run-durations or --run-durations-file",
    "flaky_run_rate": "--flaky-rate",
    "broken_pull_request_rate": "--broken-rate",
    "arrivals.per_hour": "--arrivals-per-hour or --arrivals-hourly",
    "arrivals.at": "--arrivals-at",
    "arrivals.targets": "--target",
    "arrivals.first_number": "--first-number",
    "arrivals.priorities": "--priority",
    "next_run_minutes": "--next-run-minutes",
}


def add_command(commands: Any, *, add_repo_options: Any) -> None:
    """Adds `sandbox-controls` and its subcommands. ``add_repo_options`` is the CLI's --repo."""
    group = commands.add_parser(
        "sandbox-controls", help="read and change a running sandbox's merge-queue controls",
        description="Read and change the controls of a merge queue of a sandbox already running (started by "
                    "`trunk-api sandbox` or `trunk-sandbox`, maybe in another terminal), while it runs: run "
                    "durations, flaky and broken rates, arrivals, and scripts of pull requests. Each prints the "
                    "queue's controls and scripts as they are afterwards: a table on a terminal, else JSON.")
    verbs = group.add_subparsers(dest="sandbox_controls_command", metavar="COMMAND", required=True)

    show = verbs.add_parser("show", help="print a queue's controls and scripts",
                            description="Print the controls of the queue and the scripts not used up yet.")
    _add_common_options(show, add_repo_options)
    show.set_defaults(handler=_run_show)

    set_ = verbs.add_parser(
        "set", help="change some controls of a queue, leaving the others as they are",
        description="Change the controls given; every other control stays as it is. With none given it changes "
                    "nothing and prints the controls. The sandbox checks the values: a refusal names the field, "
                    "the value and the rule (exit code 2), and changes nothing.")
    _add_common_options(set_, add_repo_options)
    _add_control_options(set_)
    set_.set_defaults(handler=_run_set)

    script = verbs.add_parser(
        "script", help="stage what happens to one pull request",
        description="Stage what happens to pull request NUMBER (submitted or not yet). This replaces its previous "
                    "script whole, as the route does: give everything it should hold (nothing given: the dice "
                    "decide again).")
    script.add_argument("number", type=int, metavar="NUMBER", help="the pull request's number")
    broken = script.add_mutually_exclusive_group()
    broken.add_argument("--broken", dest="broken", action="store_const", const=True, default=None,
                        help="it fails every run it is in")
    broken.add_argument("--never-broken", dest="broken", action="store_const", const=False,
                        help="never broken, whatever the broken rate")
    script.add_argument("--next-run", choices=("fail", "pass"), default=None,
                        help="the outcome of the next run that tests it")
    script.add_argument("--next-run-minutes", type=_number, default=None, metavar="MINUTES",
                        help="how long the next run that tests it takes")
    _add_common_options(script, add_repo_options)
    script.set_defaults(handler=_run_script)


def _add_common_options(parser: argparse.ArgumentParser, add_repo_options: Any) -> None:
    add_repo_options(parser, org=False)
    parser.add_argument("--branch", default="main", help="the branch the queue targets (default %(default)s)")
    parser.add_argument("--format", choices=("table", "json"), default=None,
                        help="output format (default: table on a terminal, else json)")
    connection = parser.add_argument_group("the sandbox")
    variables = ", then $".join(_ROWS["base_url"]["variables"])
    connection.add_argument("--base-url", default=None, metavar="URL",
                            help=f"the running sandbox's address, as it printed it, with or without /v1 "
                                 f"(default: ${variables}; required, since a sandbox has no fixed address)")
    option_flag(connection, _ROWS["token"])
    option_flag(connection, _ROWS["timeout"])


def _add_control_options(parser: argparse.ArgumentParser) -> None:
    durations = parser.add_argument_group("run duration (one kind; the sandbox's: --clear-run-duration)")
    durations.add_argument("--run-minutes", type=_number, metavar="MINUTES", help="every run takes MINUTES")
    durations.add_argument("--run-median-minutes", type=_number, metavar="MINUTES",
                           help="lognormal durations of this median (alone: the current lognormal's spread, or "
                                "the sandbox's default)")
    durations.add_argument("--run-sigma", type=_number, metavar="SIGMA",
                           help="lognormal durations of this spread (alone: the current lognormal's median, or "
                                "the sandbox's default)")
    durations.add_argument("--run-durations", type=_numbers, metavar="M1,M2,...",
                           help="each run takes one of these minutes (uniformly): a CI's measured durations")
    durations.add_argument("--run-durations-file", metavar="FILE",
                           help="the same, read from FILE (numbers separated by commas, spaces or lines; - for "
                                "stdin)")
    durations.add_argument("--clear-run-duration", action="store_true",
                           help="back to the sandbox's durations")

    rates = parser.add_argument_group("rates")
    flaky = rates.add_mutually_exclusive_group()
    flaky.add_argument("--flaky-rate", type=_number, metavar="RATE",
                       help="the chance a run fails on a flaky test")
    flaky.add_argument("--clear-flaky-rate", action="store_true", help="back to the sandbox's flaky rate")
    broken = rates.add_mutually_exclusive_group()
    broken.add_argument("--broken-rate", type=_number, metavar="RATE",
                        help="the chance a pull request submitted from now on is broken")
    broken.add_argument("--clear-broken-rate", action="store_true", help="back to the sandbox's broken rate")

    arrivals = parser.add_argument_group("arrivals (pull requests the queue submits by itself)")
    process = arrivals.add_mutually_exclusive_group()
    process.add_argument("--arrivals-per-hour", type=_number, metavar="RATE",
                         help="Poisson arrivals, RATE an hour on average")
    process.add_argument("--arrivals-hourly", type=_numbers, metavar="R0,R1,...",
                         help="a rate for each hour of the day (24, UTC) or of the week (168, Monday 00:00 UTC "
                              "first)")
    process.add_argument("--arrivals-at", type=_texts, metavar="T1,T2,...",
                         help="exactly at these RFC 3339 times")
    process.add_argument("--clear-arrivals", action="store_true", help="stop the arrivals")
    targets = arrivals.add_mutually_exclusive_group()
    targets.add_argument("--target", dest="targets", type=_target, action="append", default=None,
                         metavar="NAME=CHANCE",
                         help="an impacted target and the chance an arrival impacts it, e.g. //app=0.3 "
                              "(repeatable; the list given replaces the arrivals' targets)")
    targets.add_argument("--clear-targets", action="store_true",
                         help="no targets: every arrival impacts ALL")
    priorities = arrivals.add_mutually_exclusive_group()
    priorities.add_argument("--priority", dest="priorities", type=_priority, action="append", default=None,
                            metavar="VALUE=CHANCE",
                            help="a priority an arrival is submitted with and its chance, e.g. 0=0.02 for urgent "
                                 "(repeatable, chances summing to 1 at most; the rest take the queue's default; "
                                 "the list given replaces the arrivals' priorities)")
    priorities.add_argument("--clear-priorities", action="store_true",
                            help="no priorities: every arrival takes the queue's default")
    arrivals.add_argument("--first-number", type=int, metavar="N", help="the arrivals' first pull request number")

    parser.add_argument("--clear-all", action="store_true",
                            help="every control back to the sandbox's, arrivals stopped (other flags then set "
                                 "controls afresh)")


# ---- argument types: syntax only (the ranges are the sandbox's to check) ----------------------------------

def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number")
    return value


def _numbers(text: str) -> list[float]:
    return [_number(item) for item in text.replace(",", " ").split()]


def _texts(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _target(text: str) -> dict[str, Any]:
    name, equals, chance = text.rpartition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=CHANCE (e.g. //app=0.3)")
    return {"target": name, "probability": _number(chance)}


def _priority(text: str) -> dict[str, Any]:
    value, equals, chance = text.partition("=")
    try:
        number = int(value)
    except ValueError:
        number = None
    if not equals or number is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not VALUE=CHANCE (e.g. 0=0.02)")
    return {"value": number, "probability": _number(chance)}


# ---- the commands --------------------------------------------------------------------------------------------

def _routes(ctx: Any) -> SandboxRoutes:
    """The sandbox of the options, else of the environment: its address normalised by the C++ core as every
    client's is (with or without /v1, loopback http allowed), and the token to send."""
    args = ctx.args
    warn_of_secret_flags(args, list(_ROWS.values()), ctx.stderr)
    base_url = args.base_url or _from_environment(_ROWS["base_url"])
    if not base_url:
        raise UsageError(f"which sandbox? set {_ROWS['base_url']['variables'][0]} to the address `trunk-api sandbox` "
                         "printed (its export line), or pass --base-url")
    token = args.token or _from_environment(_ROWS["token"])
    if not token:
        first, *others = _ROWS["token"]["variables"]
        alternatives = f" (or {', '.join(others)})" if others else ""
        raise UsageError(f"no token: set {first}{alternatives} to the token the sandbox printed, or pass --token "
                         "(visible in ps and shell history)")
    # The core's reading of the address and the timeout, as for every client: a wrong one is a configuration
    # problem (exit 2), as the client commands make it.
    try:
        base_url = Client(token, base_url, timeout=args.timeout).base_url
    except errors.ValidationError:
        raise
    except errors.TrunkError as error:
        raise UsageError(str(error)) from None
    return SandboxRoutes(base_url, token, args.timeout)


def _from_environment(row: dict[str, Any]) -> str | None:
    return next((os.environ[name] for name in row["variables"] if os.environ.get(name)), None)


def _run_show(ctx: Any) -> int:
    args = ctx.args
    return _write_state(ctx, _routes(ctx).queue(args.repo, args.branch))


def _run_set(ctx: Any) -> int:
    args = ctx.args
    routes = _routes(ctx)
    state = routes.queue(args.repo, args.branch)
    controls = changed_controls(state["controls"], args)
    if controls is not None:
        state = _with_flag_hint(lambda: routes.replace_controls(args.repo, args.branch, controls))
    return _write_state(ctx, state)


def _run_script(ctx: Any) -> int:
    args = ctx.args
    script = {"broken": args.broken, "next_run": args.next_run, "next_run_minutes": args.next_run_minutes}
    routes = _routes(ctx)
    return _write_state(ctx, _with_flag_hint(lambda: routes.script(args.repo, args.branch, args.number, script)))


def _with_flag_hint(send: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The route's refusal names the wire fields; a shell user gave flags: the error says which."""
    try:
        return send()
    except errors.BadRequestError as refusal:
        # Each violation starts its own part of the message: "...: field: value: rule; field: value: rule".
        flags = [flags for field, flags in _FLAGS_OF_CONTROL.items()
                 if re.search(rf"[:;] {re.escape(field)}\b", str(refusal))]
        if not flags:
            raise
        raise errors.BadRequestError(f"{refusal} (set by {'; '.join(flags)})", refusal.status_code, refusal.body,
                                     refusal.operation) from None


# ---- what `set` sends: the current controls with the flags given changed ---------------------------------

def changed_controls(current: dict[str, Any], args: argparse.Namespace) -> dict[str, Any] | None:
    """The controls to PUT: ``current`` (the route's JSON) with what the flags give changed, the rest as it is;
    None when no flag changes anything."""
    base = {name: None for name in current} if args.clear_all else dict(current)
    controls = dict(base)
    controls["run_duration"] = _run_duration(base.get("run_duration"), args)
    if args.clear_flaky_rate or args.flaky_rate is not None:
        controls["flaky_run_rate"] = args.flaky_rate
    if args.clear_broken_rate or args.broken_rate is not None:
        controls["broken_pull_request_rate"] = args.broken_rate
    controls["arrivals"] = _arrivals(base.get("arrivals"), args)
    return None if controls == current else controls


def _run_duration(current: dict[str, Any] | None, args: argparse.Namespace) -> dict[str, Any] | None:
    lognormal = {key: value for key, value in (("median_minutes", args.run_median_minutes),
                                               ("sigma", args.run_sigma)) if value is not None}
    given = {"fixed": args.run_minutes is not None, "lognormal": bool(lognormal),
             "empirical": args.run_durations is not None, "file": args.run_durations_file is not None,
             "cleared": args.clear_run_duration}
    if sum(given.values()) > 1:
        raise UsageError("one run duration at a time: --run-minutes, --run-median-minutes/--run-sigma, "
                         "--run-durations, --run-durations-file or --clear-run-duration")
    if given["fixed"]:
        return {"kind": "fixed", "minutes": args.run_minutes}
    if given["lognormal"]:
        # A part not given keeps the current lognormal's, else the sandbox's default.
        kept = current if current is not None and current.get("kind") == "lognormal" else {}
        return {"kind": "lognormal", **{k: v for k, v in kept.items() if k != "kind"}, **lognormal}
    if given["empirical"]:
        return {"kind": "empirical", "minutes": args.run_durations}
    if given["file"]:
        return {"kind": "empirical", "minutes": _durations_file(args.run_durations_file)}
    return None if given["cleared"] else current


def _durations_file(path: str) -> list[float]:
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as file:
                text = file.read()
    except OSError as error:
        raise UsageError(f"--run-durations-file: {error.strerror or error}: {path}") from None
    try:
        return _numbers(text)
    except argparse.ArgumentTypeError as error:
        raise UsageError(f"--run-durations-file {path}: {error}") from None


def _arrivals(current: dict[str, Any] | None, args: argparse.Namespace) -> dict[str, Any] | None:
    details_given = (args.targets is not None or args.priorities is not None or args.first_number is not None
                     or args.clear_targets or args.clear_priorities)
    if args.clear_arrivals:
        if details_given:
            raise UsageError("--clear-arrivals stops the arrivals: it takes no --target, --clear-targets, "
                             "--priority, --clear-priorities or --first-number")
        return None
    process = None
    if args.arrivals_per_hour is not None:
        process = {"kind": "poisson", "per_hour": args.arrivals_per_hour}
    elif args.arrivals_hourly is not None:
        process = {"kind": "hourly", "per_hour": args.arrivals_hourly}
    elif args.arrivals_at is not None:
        process = {"kind": "scheduled", "at": args.arrivals_at}
    if process is None and not details_given:
        return current
    if process is None and current is None:
        raise UsageError("--target, --clear-targets, --priority, --clear-priorities and --first-number change the "
                         "queue's arrivals, and it has none: give --arrivals-per-hour, --arrivals-hourly or "
                         "--arrivals-at too")
    # What is not given stays: the current process, targets, priorities and first number.
    kept = current or {}
    details = ("targets", "priorities", "first_number")
    arrivals = dict(process or {key: value for key, value in kept.items() if key not in details})
    targets = [] if args.clear_targets else args.targets if args.targets is not None else kept.get("targets")
    priorities = ([] if args.clear_priorities else args.priorities if args.priorities is not None
                  else kept.get("priorities"))
    first_number = args.first_number if args.first_number is not None else kept.get("first_number")
    if targets is not None:
        arrivals["targets"] = targets
    if priorities is not None:
        arrivals["priorities"] = priorities
    if first_number is not None:
        arrivals["first_number"] = first_number
    return arrivals


# ---- output ----------------------------------------------------------------------------------------------------

def _write_state(ctx: Any, state: dict[str, Any]) -> int:
    """The route's answer: as it is (JSON), or as a table."""
    if ctx.output_format(listing=False) != "table":
        render.write_json_object(ctx.stdout, state, pretty=True)
        return 0
    controls = state["controls"]
    unset = "(the sandbox's)"
    rows = [("queue", f"{state['repo']} {state['branch']}"),
            ("run duration", _describe_duration(controls.get("run_duration")) or unset),
            ("flaky run rate", _describe_number(controls.get("flaky_run_rate")) or unset),
            ("broken pull request rate", _describe_number(controls.get("broken_pull_request_rate")) or unset),
            ("arrivals", _describe_arrivals(controls.get("arrivals")) or "(none)")]
    render.write_key_values(ctx.stdout, rows)
    scripts = state.get("scripts") or []
    ctx.stdout.write(f"\nscripts ({len(scripts)}):\n")
    if scripts:
        render.write_table(ctx.stdout, ["  PR", "BROKEN", "NEXT RUN", "NEXT RUN MINUTES"], [
            [f"  #{script['number']}", {True: "yes", False: "never"}.get(script["broken"], "-"),
             script["next_run"] or "-", _describe_number(script["next_run_minutes"]) or "-"] for script in scripts])
    return 0


def _describe_number(value: float | None) -> str | None:
    return None if value is None else f"{value:g}"


def _describe_duration(duration: dict[str, Any] | None) -> str | None:
    if duration is None:
        return None
    if duration["kind"] == "fixed":
        return f"fixed, {duration['minutes']:g} minutes"
    if duration["kind"] == "lognormal":
        return f"lognormal, median {duration['median_minutes']:g} minutes, sigma {duration['sigma']:g}"
    return f"empirical, one of {_listed([f'{m:g}' for m in duration['minutes']])} minutes"


def _listed(items: list[str], shown: int = 10) -> str:
    """The first items of a list, and how many it holds when that is more (a table line stays a line)."""
    more = f", ... ({len(items)} in all)" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def _describe_arrivals(arrivals: dict[str, Any] | None) -> str | None:
    if arrivals is None:
        return None
    if arrivals["kind"] == "poisson":
        text = f"poisson, {arrivals['per_hour']:g} an hour"
    elif arrivals["kind"] == "hourly":
        text = f"hourly, {_listed([f'{r:g}' for r in arrivals['per_hour']])} an hour"
    else:
        text = f"scheduled at {_listed(arrivals['at'], shown=3)}"
    targets = ", ".join(f"{t['target']} {t['probability']:g}" for t in arrivals.get("targets") or []) or "ALL"
    priorities = ", ".join(f"{p['value']} {p['probability']:g}" for p in arrivals.get("priorities") or []) or \
        "the queue's default"
    return f"{text}; targets {targets}; priorities {priorities}; first number {arrivals.get('first_number')}"
