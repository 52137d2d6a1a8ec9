"""`trunk-api twin calibrate|compare`: a merge queue's twin from a terminal (trunk_api.twin does the work).

    trunk-api twin calibrate --queue-id ID --days 30
    trunk-api twin compare --queue-id ID --config '{"batch": true, "batchingMinSize": 4}' --config '{"concurrency": 6}'
    trunk-api twin calibrate --repo github.com/acme/app --branch main     (a v1 token)

This module only reads the options and lays out what ``twin.of_queue`` and ``Twin.compare`` answer: a table on a
terminal, else JSON. JSON has no infinity and no NaN, so an unbounded or undefined number is written as null.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
from collections.abc import Mapping
from typing import Any

from trunk_api import _cli_output as render
from trunk_api import errors, twin
from trunk_api._cli_common import UsageError
from trunk_api.sandbox import EmpiricalRunDuration, LognormalRunDuration

#: The longest history the service keeps, and so the most --days may ask for.
_MAX_DAYS = twin.HISTORY_WINDOW.days

_JSON_NOTE = ("JSON output never holds Infinity or NaN: an answer no seed could bound (nothing merged) or an error "
              "with nothing to divide by is null.")


def add_command(commands: Any, *, add_connection_options: Any) -> None:
    """Adds `twin` and its two subcommands. ``add_connection_options`` is the CLI's (a v2 API key is needed)."""
    group = commands.add_parser(
        "twin", help="your merge queue's twin: calibrate it, compare configurations",
        description="A twin of your merge queue (docs/twin.md): calibrated from its history through v2 (an API "
                    "key), checked against that history (the backtest), and run under other configurations. "
                    "Reading the history and simulating take a while; Ctrl-C interrupts (exit code 130).")
    verbs = group.add_subparsers(dest="twin_command", metavar="COMMAND", required=True)

    calibrate = verbs.add_parser(
        "calibrate", help="what the queue's history shows, the fitted model and its backtest",
        description="Read the queue's history, calibrate the twin from it, fit the team's model under the queue's "
                    "configuration and backtest it: every estimate with its 95 % interval [low, high], the "
                    "backtest's errors, and the warnings. " + _JSON_NOTE)
    _add_twin_options(calibrate, add_connection_options)
    calibrate.set_defaults(handler=_run_calibrate)

    compare = verbs.add_parser(
        "compare", help="latency and CI cost of other configurations, beside the backtest's errors",
        description="Calibrate the twin as `twin calibrate` does, then run the queue's own configuration "
                    "(\"today\") and each --config over the same seeds: time in queue p50 and p90, CI runs per "
                    "merge, merged per day and the failed share, each with its 95 % interval, and beside each the "
                    "backtest's error on that measure (how far the twin missed the queue itself). A setting a "
                    "--config leaves out is a new queue's (single mode, concurrency 1, no batching), as in "
                    "twin.compare. " + _JSON_NOTE)
    compare.add_argument("--config", action="append", default=[], metavar="JSON",
                         help="a configuration: a JSON object of v2 QueueSettings wire names, e.g. "
                              "'{\"batch\": true, \"batchingMinSize\": 4}' (repeat for more)")
    compare.add_argument("--config-file", metavar="FILE",
                         help="more configurations: a JSON list of such objects (after the --config ones)")
    compare.add_argument("--window-days", type=int, default=twin.WINDOW_DAYS, metavar="N",
                         help="simulated days per seed (default %(default)s)")
    _add_twin_options(compare, add_connection_options)
    compare.set_defaults(handler=_run_compare)


def _add_twin_options(parser: argparse.ArgumentParser, add_connection_options: Any) -> None:
    queue = parser.add_mutually_exclusive_group(required=True)
    queue.add_argument("--queue-id", metavar="ID", help="the v2 merge queue's id")
    queue.add_argument("--repo", metavar="HOST/OWNER/NAME",
                       help="a v1 merge queue's repository, read with a v1 token (no submission times: time in "
                            "queue is not backtested)")
    parser.add_argument("--branch", default="main", help="with --repo, the queue's branch (default %(default)s)")
    window = parser.add_mutually_exclusive_group()
    window.add_argument("--since", type=_time, metavar="RFC3339", help="start of the history (default: 45 days "
                                                                       "before --until)")
    window.add_argument("--days", type=int, metavar="N", help=f"the last N days before --until (1..{_MAX_DAYS})")
    parser.add_argument("--until", type=_time, metavar="RFC3339", help="end of the history (default: now)")
    parser.add_argument("--seeds", type=int, default=twin.SEEDS, metavar="N",
                        help="simulated seeds of the backtest and of each configuration (default %(default)s)")
    parser.add_argument("--format", choices=("table", "json"), default=None,
                        help="output format (default: table on a terminal, else json)")
    add_connection_options(parser)


def _time(text: str) -> dt.datetime:
    """An RFC 3339 time with its offset (a time without one would depend on this machine's zone)."""
    try:
        value = dt.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an RFC 3339 time, e.g. 2024-05-01T00:00:00Z") from None
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no offset (add Z or +HH:MM)")
    return value


def _window(args: argparse.Namespace) -> tuple[dt.datetime | None, dt.datetime | None]:
    """since and until as twin.of_queue takes them; --days counts back from --until (or now)."""
    if args.days is None:
        return args.since, args.until
    if not 1 <= args.days <= _MAX_DAYS:
        raise UsageError(f"--days {args.days}: must be 1..{_MAX_DAYS} (the service keeps {_MAX_DAYS} days of "
                         "testing results)")
    until = args.until if args.until is not None else dt.datetime.now(dt.timezone.utc)
    return until - dt.timedelta(days=args.days), until


def _queue_twin(ctx: Any) -> twin.Twin:
    since, until = _window(ctx.args)
    if ctx.args.repo is not None:
        return twin.of_v1_queue(ctx.client(), ctx.args.repo, ctx.args.branch, since=since, until=until,
                                seeds=ctx.args.seeds)
    return twin.of_queue(ctx.client(), ctx.args.queue_id, since=since, until=until, seeds=ctx.args.seeds)


# ---- calibrate -------------------------------------------------------------------------------------------------

def _run_calibrate(ctx: Any) -> int:
    fmt = ctx.output_format(listing=False)
    queue_twin = _queue_twin(ctx)
    report = _calibration_report(queue_twin)
    if fmt == "table":
        render.write_key_values(ctx.stdout, _calibration_rows(queue_twin, report))
    else:
        render.write_json_object(ctx.stdout, _finite(report), pretty=True)
    return 0


def _calibration_report(queue_twin: twin.Twin) -> dict[str, Any]:
    history, calibration, fitted, back = queue_twin.history, queue_twin.calibration, queue_twin.fitted, \
        queue_twin.backtest
    return {
        "window": {"queue_id": history.queue_id, "source": history.source, "since": render.iso(history.since),
                   "until": render.iso(history.until), "pull_requests": len(history.pull_requests),
                   "testing_results": len(history.testing_results), "runs": calibration.runs,
                   "ignored_results": calibration.ignored_results},
        "calibration": {
            "arrivals_per_hour": _estimate(calibration.arrivals.per_hour),
            "arrivals": calibration.arrivals.arrivals,
            "durations_minutes": _duration_report(calibration.durations),
            "failed_entries": _estimate(calibration.failed_entries),
            "failed_clean_runs": _estimate(calibration.failed_clean_runs),
            "batch_size": _estimate(calibration.batch_size),
            "urgent_submissions": _estimate(calibration.urgent_submissions),
            "priorities": [{"value": p.value, "share": _estimate(p.share)} for p in calibration.priorities],
            "targets": [{"target": t.target, "share": _estimate(t.share)} for t in calibration.targets],
            "all_targets": _estimate(calibration.all_targets),
            "targets_sampled": calibration.targets_sampled,
        },
        "model": {
            "arrivals": _arrival_profile(queue_twin.team.arrivals),
            "run_duration": _run_duration(queue_twin.team.run_duration),
            "broken_rate": _estimate(fitted.broken_rate),
            "flaky_rate": _estimate(fitted.flaky_rate),
        },
        "backtest": _backtest_report(back),
        "warnings": queue_twin.warnings,
    }


def _estimate(estimate: twin.Estimate | None) -> dict[str, Any] | None:
    if estimate is None:
        return None
    return {"value": estimate.value, "low": estimate.low, "high": estimate.high,
            "observations": estimate.observations}


def _duration_report(durations: twin.DurationFit) -> dict[str, Any]:
    lognormal = durations.lognormal
    return {"finished": len(durations.minutes), "stopped": durations.censored, "ignored": durations.ignored,
            "preferred": durations.preferred,
            "lognormal_median": _estimate(lognormal.median_minutes) if lognormal else None}


def _arrival_profile(arrivals: Any) -> str:
    """The arrival profile the model replays, in words: one rate, or one per hour of the day or of the week."""
    if arrivals.kind == "poisson":
        return "poisson"
    rates = arrivals.per_hour
    return f"{len(rates)} hourly" if isinstance(rates, tuple) else str(arrivals.kind)


def _run_duration(duration: Any) -> dict[str, Any]:
    """The model's CI durations: the quantiles of its list, or its lognormal's or fixed minutes."""
    if isinstance(duration, EmpiricalRunDuration):
        minutes = sorted(duration.minutes)
        # The list holds equally likely quantiles: reading two of them is the model's own median and p90.
        return {"kind": "empirical", "median_minutes": minutes[len(minutes) // 2],
                "p90_minutes": minutes[min(len(minutes) - 1, (len(minutes) * 9) // 10)]}
    if isinstance(duration, LognormalRunDuration):
        return {"kind": "lognormal", "median_minutes": duration.median_minutes, "sigma": duration.sigma}
    return {"kind": "fixed", "median_minutes": duration.minutes}


#: The backtest's measures: (the measure's name on QueueMeasures and ConfigurationOutcome, its error's on Backtest).
_BACKTEST_MEASURES = (("minutes_in_queue_p50", "p50_error"), ("minutes_in_queue_p90", "p90_error"),
                      ("runs_per_merged", "runs_per_merged_error"), ("merged_per_day", "merged_per_day_error"))


def _backtest_report(back: twin.Backtest) -> dict[str, Any]:
    report: dict[str, Any] = {"since": render.iso(back.since), "until": render.iso(back.until),
                              "seeds": back.predicted.seeds, "merged_observed": back.observed.merged}
    for measure, error in _BACKTEST_MEASURES:
        report[measure] = {"observed": getattr(back.observed, measure),
                           "twin": _estimate(getattr(back.predicted, measure)), "error": getattr(back, error)}
    return report


def _calibration_rows(queue_twin: twin.Twin, report: Mapping[str, Any]) -> list[tuple[str, str]]:
    window, calibration, model = report["window"], report["calibration"], report["model"]
    durations, run = calibration["durations_minutes"], model["run_duration"]
    if run["kind"] == "empirical":
        ci = f"median {run['median_minutes']:.1f} min, p90 {run['p90_minutes']:.1f} min (the runs' distribution)"
    else:
        ci = f"median {run['median_minutes']:.1f} min ({run['kind']})"
    rows = [
        ("queue", f"{window['queue_id']} (read through {window['source']})"),
        ("window", f"{window['since']} .. {window['until']}"),
        ("counted", (f"{window['pull_requests']} pull requests, {window['runs']} runs "
                     f"({window['testing_results']} testing results)")),
        ("arrivals per hour", f"{_interval(calibration['arrivals_per_hour'])}; model: {model['arrivals']}"),
        ("CI durations", f"{ci}; {durations['finished']} finished, {durations['stopped']} stopped"),
        ("failed entries", _interval(calibration["failed_entries"], share=True)),
        ("failed clean runs", _interval(calibration["failed_clean_runs"], share=True)),
        ("batch size", _interval(calibration["batch_size"])),
        ("urgent share", _interval(calibration["urgent_submissions"], share=True)),
        ("priorities", _shares(calibration["priorities"], "value") or "(none given: the queue's default)"),
        ("impacted targets", (f"{_shares(calibration['targets'], 'target')}; all targets "
                              f"{_interval(calibration['all_targets'], share=True)}; "
                              f"{calibration['targets_sampled']} pull requests sampled")
         if calibration["targets_sampled"] else "(none sampled: every pull request impacts all)"),
        ("broken rate (fitted)", _interval(model["broken_rate"], share=True)),
        ("flaky rate (fitted)", _interval(model["flaky_rate"], share=True)),
    ]
    back = report["backtest"]
    names = {"minutes_in_queue_p50": "p50 min", "minutes_in_queue_p90": "p90 min",
             "runs_per_merged": "runs per merged", "merged_per_day": "merged per day"}
    parts = [f"{names[m]} {_number(back[m]['observed'])} vs twin {_number(back[m]['twin']['value'])} "
             f"({_percent(back[m]['error'], signed=True)})" for m, _ in _BACKTEST_MEASURES]
    rows.append(("backtest", f"observed vs twin, {back['seeds']} seeds: " + "; ".join(parts)))
    rows += [("warning", warning) for warning in queue_twin.warnings] or [("warnings", "(none)")]
    return rows


# ---- compare ---------------------------------------------------------------------------------------------------

def _run_compare(ctx: Any) -> int:
    args = ctx.args
    configurations = [(text, _configuration("--config", text, json_text=text)) for text in args.config]
    configurations += _configuration_file(args.config_file) if args.config_file else []
    fmt = ctx.output_format(listing=False)
    queue_twin = _queue_twin(ctx)
    settings = [queue_twin.settings] + [settings for _, settings in configurations]
    outcomes = queue_twin.compare(settings, seeds=args.seeds, window_days=args.window_days)
    labels = ["today"] + [label for label, _ in configurations]
    rows = [twin.outcome_row(label, outcome, queue_twin.backtest) for label, outcome in zip(labels, outcomes)]
    if fmt == "table":
        _write_comparison(ctx.stdout, rows)
        for warning in queue_twin.warnings:
            print(f"warning: {warning}", file=ctx.stdout)
    else:
        answer = {"configurations": rows, "backtest": _backtest_report(queue_twin.backtest),
                  "warnings": queue_twin.warnings}
        render.write_json_object(ctx.stdout, _finite(answer), pretty=True)
    return 0


def _configuration(flag: str, shown: str, *, json_text: str | None = None, value: Any = None) -> Any:
    """One configuration as QueueSettings, or a usage error naming the flag and the value."""
    if json_text is not None:
        try:
            value = json.loads(json_text)
        except ValueError as error:
            raise UsageError(f"{flag} {shown!r}: not JSON ({error})") from None
    if not isinstance(value, dict):
        raise UsageError(f"{flag} {shown!r}: expected a JSON object of queue settings, like "
                         "'{\"concurrency\": 4}'")
    try:
        return twin.settings_from(value, flag)
    except errors.TrunkError as error:  # a name that is not a setting, or a value of the wrong type
        raise UsageError(f"{flag} {shown!r}: {error}") from None


def _configuration_file(path: str) -> list[tuple[str, Any]]:
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        raise UsageError(f"--config-file {path!r}: {error.strerror}") from None
    try:
        values = json.loads(text)
    except ValueError as error:
        raise UsageError(f"--config-file {path!r}: not JSON ({error})") from None
    if not isinstance(values, list):
        raise UsageError(f"--config-file {path!r}: expected a JSON list of queue-setting objects")
    labelled = []
    for index, value in enumerate(values):
        label = json.dumps(value, sort_keys=True)
        labelled.append((label, _configuration("--config-file", f"{path}[{index}] {label}", value=value)))
    return labelled


def _write_comparison(out: Any, rows: list[dict[str, Any]]) -> None:
    """Latency and cost side by side, each answer's backtest error beside it."""
    headers = ["CONFIGURATION", "P50 MIN", "±", "P90 MIN", "±", "CI RUNS/MERGE", "±", "MERGED/DAY", "±",
               "FAILED"]
    table = []
    for row in rows:
        cells = [row["configuration"]]
        for measure in ("minutes_in_queue_p50", "minutes_in_queue_p90", "runs_per_merged", "merged_per_day"):
            cells.append(_interval({k: row[measure + s] for k, s in (("value", ""), ("low", "_low"),
                                                                       ("high", "_high"))}))
            error = row.get(f"{measure}_backtest_error")
            cells.append("-" if error is None or not math.isfinite(error) else f"±{abs(error) * 100:.1f} %")
        cells.append(_interval({k: row["failed_share" + s] for k, s in (("value", ""), ("low", "_low"),
                                                                          ("high", "_high"))}, share=True))
        table.append(cells)
    render.write_table(out, headers, table)
    out.write("± is the backtest's error on that measure: how far the twin missed the queue's own history\n")


# ---- layout ----------------------------------------------------------------------------------------------------

def _number(x: float | None, decimals: int | None = None) -> str:
    """A number as people read it: two decimals below 10, none above (or the decimals given)."""
    if x is None or math.isnan(x):
        return "-"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    return f"{x:.{_decimals(x) if decimals is None else decimals}f}"


def _decimals(x: float) -> int:
    return 2 if math.isfinite(x) and abs(x) < 10 else 0


def _percent(x: float | None, *, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x * 100:+.1f} %" if signed else f"{x * 100:.1f} %"


def _interval(estimate: Mapping[str, Any] | None, *, share: bool = False) -> str:
    """'value [low, high]', the bounds with the value's decimals; shares as percentages."""
    if estimate is None:
        return "- (nothing observed)"
    if share:
        return f"{_percent(estimate['value'])} [{_percent(estimate['low'])}, {_percent(estimate['high'])}]"
    decimals = _decimals(estimate["value"]) if estimate["value"] is not None else None
    low, high = _number(estimate["low"], decimals), _number(estimate["high"], decimals)
    return f"{_number(estimate['value'], decimals)} [{low}, {high}]"


def _shares(shares: list[Mapping[str, Any]], key: str, most: int = 5) -> str:
    """The first `most` shares as 'name value [low, high]', and how many more there are."""
    text = ", ".join(f"{share[key]} {_interval(share['share'], share=True)}" for share in shares[:most])
    return text + (f" and {len(shares) - most} more" if len(shares) > most else "")


def _finite(value: Any) -> Any:
    """The value with every infinite or NaN number as None: JSON has neither (json.dumps would write tokens no
    JSON parser accepts)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
