"""A twin of your own merge queue (docs/twin.md): calibrated from its history, checked against it, and run under
other configurations; every answer with its 95 % interval and the backtest's error beside it.

```python
from trunk_api import Client, twin
client = Client()                                   # with a v2 API key
queue_twin = twin.of_queue(client, queue.id)        # the last 45 days: history, calibration, model, backtest
print(queue_twin.backtest.p50_error, queue_twin.warnings)
rows = queue_twin.compare_table([{}, {"batch": True, "batchingMinSize": 4}])
```

The statistics and the simulation are the C++ core's (``trunk/twin/``); this module chooses the window's defaults
and lays the answers out as rows.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from trunk_api._core import twin as _twin
from trunk_api._core.models import QueueSettings, Repo
from trunk_api._core.twin import (
    CONFIDENCE,
    DRAIN_HOURS,
    FIRST_SEED,
    FIT_FIRST_SEED,
    FIT_SEEDS,
    SEEDS,
    TARGET_SAMPLE,
    WARM_UP_HOURS,
    WINDOW_DAYS,
    ArrivalProfile,
    Backtest,
    Calibration,
    ConfigurationOutcome,
    DurationFit,
    Estimate,
    FittedTeam,
    LognormalFit,
    PriorityShare,
    QueueHistory,
    QueueMeasures,
    TargetShare,
    TeamModel,
    TeamUncertainty,
    estimate_poisson_rate,
    estimate_proportion,
    fit_arrivals,
    fit_durations,
    settings_of,
)
from trunk_api.client import Client
from trunk_api._declared import model_entry
from trunk_api.errors import ValidationError, Violation

#: The longest window the service keeps testing results for, and so the default window of calibrate().
HISTORY_WINDOW = timedelta(days=45)


def _window(since: datetime | None, until: datetime | None) -> tuple[datetime, datetime]:
    until = until if until is not None else datetime.now(timezone.utc)
    return (since if since is not None else until - HISTORY_WINDOW), until


def collect_history(client: Client, queue_id: str, *, since: datetime | None = None,
                    until: datetime | None = None, target_sample: int = TARGET_SAMPLE) -> QueueHistory:
    """Reads the merge queue's history through v2: its configuration, testing results and submissions over
    [since, until] (until defaults to now, since to 45 days before it, the most the service keeps), and up to
    ``target_sample`` runs of one pull request, fetched one by one for their impacted targets (v2 lists none).
    Raises ValidationError naming ``since`` for an empty window or one longer than 45 days, before anything is
    sent."""
    since, until = _window(since, until)
    return _twin.collect_history(client._core, queue_id, since, until, target_sample=target_sample)


def collect_history_v1(client: Client, repo: Repo | str, target_branch: str = "main", *,
                       since: datetime | None = None, until: datetime | None = None,
                       target_sample: int = TARGET_SAMPLE) -> QueueHistory:
    """Reads a merge queue's history through v1, for a team whose token v2 refuses: the same window and sample as
    collect_history(), each row read as v2 shows it. v1 gives no submission times, so each pull request's is the
    start of its first test (``history.source == "v1"``; docs/twin.md, "From a v1 history"). Raises as
    collect_history()."""
    since, until = _window(since, until)
    return _twin.collect_history_v1(client._core, repo, target_branch, since, until, target_sample=target_sample)


def calibrate(client: Client | QueueHistory, queue_id: str | None = None, *, since: datetime | None = None,
              until: datetime | None = None) -> Calibration:
    """What the merge queue's history shows, with intervals and warnings (docs/twin.md, "Calibration"): read
    through ``client`` as collect_history() does, or from a history already read (``calibrate(history)``)."""
    if isinstance(client, QueueHistory):
        return _twin.calibrate(client)
    if queue_id is None:
        raise TypeError("calibrate(client, queue_id) needs the queue's id")
    since, until = _window(since, until)
    return _twin.calibrate(client._core, queue_id, since, until)


def fit_team(calibration: Calibration, current: QueueSettings | Mapping[str, Any], *,
             seeds: int = FIT_SEEDS, first_seed: int = FIT_FIRST_SEED) -> FittedTeam:
    """The twin's model of the team from its calibration (docs/twin.md, "The model"): arrivals and durations as
    observed, the broken and flaky rates fitted by simulation under ``current`` (the queue's configuration), each
    with its interval. The GIL is released; Ctrl-C ends it."""
    return _twin.fit_team(calibration, _settings(current), seeds=seeds, first_seed=first_seed)


def backtest(team: TeamModel, history: QueueHistory, *, seeds: int = SEEDS,
             first_seed: int = FIRST_SEED) -> Backtest:
    """The twin replaying the queue's own configuration over its history, beside what the history shows
    (docs/twin.md, "Backtest"). The GIL is released; Ctrl-C ends it."""
    return _twin.backtest(team, history, seeds=seeds, first_seed=first_seed)


def compare(team: TeamModel, configurations: Sequence[QueueSettings | Mapping[str, Any]], *,
            seeds: int = SEEDS, window_days: int = WINDOW_DAYS, warm_up_hours: int = WARM_UP_HOURS,
            drain_hours: int = DRAIN_HOURS, first_seed: int = FIRST_SEED) -> list[ConfigurationOutcome]:
    """Runs each configuration on the sandbox's merge-queue model fed by ``team`` over the same seeds, and
    answers per configuration time in queue (p50, p90), merged per day, CI runs per merged pull request and the
    failed share, each the mean over seeds with its interval (docs/twin.md, "What-if").

    A configuration is a QueueSettings or a dict of its wire names (``{"mode": "parallel", "batch": True,
    "batchingMinSize": 4}``); a setting left out is a new queue's. The GIL is released; Ctrl-C ends it.
    """
    return _twin.compare(team, [_settings(c) for c in configurations], seeds=seeds, window_days=window_days,
                         warm_up_hours=warm_up_hours, drain_hours=drain_hours, first_seed=first_seed)


def settings_from(configuration: QueueSettings | Mapping[str, Any], where: str = "configuration") -> QueueSettings:
    """A configuration as the twin runs it: a QueueSettings as given, or a dict of its wire names. Unlike the
    tolerant decoding of the service's answers, a name QueueSettings does not have is refused (ValidationError
    naming ``where`` and the name): a typo would otherwise silently be a new queue's default."""
    if isinstance(configuration, QueueSettings):
        return configuration
    settings = model_entry("QueueSettings")
    assert settings is not None, "the core declares QueueSettings"
    known = {f["wire"] for f in settings["fields"]}
    unknown = sorted(set(configuration) - known)
    if unknown:
        raise ValidationError(
            f"{where}: {', '.join(unknown)} is not a queue setting",
            [Violation(f"{where}.{name}", repr(configuration[name]),
                       "is not a queue setting (settings: " + ", ".join(sorted(known)) + ")") for name in unknown])
    return QueueSettings.from_dict(dict(configuration))


def _settings(configuration: QueueSettings | Mapping[str, Any]) -> QueueSettings:
    return settings_from(configuration)


def _label(configuration: QueueSettings | Mapping[str, Any]) -> str:
    """A configuration as its reader wrote it: the dict's wire names, or the settings it sets."""
    if isinstance(configuration, QueueSettings):
        configuration = {k: v for k, v in configuration.to_dict().items() if v is not None}
    return json.dumps(dict(configuration), sort_keys=True, default=str) if configuration else "a new queue's settings"


def _error(x: float) -> float | None:
    return None if math.isnan(x) else x


@dataclass(frozen=True)
class Twin:
    """A merge queue's twin (docs/twin.md): the history it was calibrated from, what that history shows, the
    fitted model of the team and the backtest of the queue's own configuration, whose errors say how far to
    trust every other answer."""

    history: QueueHistory
    calibration: Calibration
    fitted: FittedTeam
    backtest: Backtest

    @property
    def team(self) -> TeamModel:
        """The fitted model of the team, with its uncertainty."""
        return self.fitted.team

    @property
    def settings(self) -> QueueSettings:
        """The queue's configuration when its history was read: what the backtest replays."""
        return self.backtest.settings

    @property
    def warnings(self) -> list[str]:
        """What makes the answers weak, in words: the calibration's, then the model's."""
        return list(self.calibration.warnings) + list(self.fitted.warnings)

    def compare(self, configurations: Sequence[QueueSettings | Mapping[str, Any]], *, seeds: int = SEEDS,
                window_days: int = WINDOW_DAYS,
                first_seed: int = FIRST_SEED) -> list[ConfigurationOutcome]:
        """Runs each configuration on the twin (compare()) with the fitted team."""
        return compare(self.team, configurations, seeds=seeds, window_days=window_days, first_seed=first_seed)

    def compare_table(self, configurations: Sequence[QueueSettings | Mapping[str, Any]], *,
                      seeds: int = SEEDS, window_days: int = WINDOW_DAYS,
                      first_seed: int = FIRST_SEED) -> list[dict[str, Any]]:
        """compare() as rows, one per configuration: each answer with its interval, and beside it the backtest's
        error on the same measure (``pandas.DataFrame(rows)`` makes a table of it)."""
        outcomes = self.compare(configurations, seeds=seeds, window_days=window_days, first_seed=first_seed)
        return [outcome_row(_label(c), o, self.backtest) for c, o in zip(configurations, outcomes)]


def outcome_row(label: str, outcome: ConfigurationOutcome, backtest: Backtest | None = None) -> dict[str, Any]:
    """One configuration's answers as a flat row: value, low and high of each measure, and the backtest's error
    on it when a backtest is given (latency and cost side by side)."""
    row: dict[str, Any] = {"configuration": label}
    errors = {
        "minutes_in_queue_p50": backtest.p50_error if backtest else math.nan,
        "minutes_in_queue_p90": backtest.p90_error if backtest else math.nan,
        "runs_per_merged": backtest.runs_per_merged_error if backtest else math.nan,
        "merged_per_day": backtest.merged_per_day_error if backtest else math.nan,
        "failed_share": math.nan,
    }
    for measure, error in errors.items():
        estimate: Estimate = getattr(outcome, measure)
        row[measure] = estimate.value
        row[f"{measure}_low"] = estimate.low
        row[f"{measure}_high"] = estimate.high
        if backtest is not None and measure != "failed_share":
            row[f"{measure}_backtest_error"] = _error(error)
    return row


def of_queue(client: Client, queue_id: str, *, since: datetime | None = None, until: datetime | None = None,
             seeds: int = SEEDS, target_sample: int = TARGET_SAMPLE) -> Twin:
    """The twin of a merge queue, in one call: its history read through v2 (the last 45 days by default), the
    calibration, the team's model fitted under the queue's configuration and the backtest of that configuration
    over the same history. The GIL is released throughout; Ctrl-C ends it."""
    return of_history(collect_history(client, queue_id, since=since, until=until, target_sample=target_sample),
                      seeds=seeds)


def of_v1_queue(client: Client, repo: Repo | str, target_branch: str = "main", *, since: datetime | None = None,
                until: datetime | None = None, seeds: int = SEEDS,
                target_sample: int = TARGET_SAMPLE) -> Twin:
    """of_queue() for a team on a v1 token: the history read through v1 (collect_history_v1()). Its backtest
    compares CI runs per merge and merges per day; time in queue is not backtested (v1 does not date
    submissions), and the calibration says so among its warnings."""
    return of_history(collect_history_v1(client, repo, target_branch, since=since, until=until,
                                         target_sample=target_sample), seeds=seeds)


def of_history(history: QueueHistory, *, seeds: int = SEEDS) -> Twin:
    """The twin of a history already read (collect_history() or collect_history_v1()): calibrated, the team
    fitted under the queue's configuration, and that configuration backtested over the same history."""
    calibration = _twin.calibrate(history)
    fitted = _twin.fit_team(calibration, history.settings)
    return Twin(history, calibration, fitted, backtest(fitted.team, history, seeds=seeds))


__all__ = [
    "CONFIDENCE",
    "DRAIN_HOURS",
    "FIRST_SEED",
    "FIT_FIRST_SEED",
    "FIT_SEEDS",
    "HISTORY_WINDOW",
    "SEEDS",
    "TARGET_SAMPLE",
    "WARM_UP_HOURS",
    "WINDOW_DAYS",
    "ArrivalProfile",
    "Backtest",
    "Calibration",
    "ConfigurationOutcome",
    "DurationFit",
    "Estimate",
    "FittedTeam",
    "LognormalFit",
    "PriorityShare",
    "QueueHistory",
    "QueueMeasures",
    "TargetShare",
    "TeamModel",
    "TeamUncertainty",
    "Twin",
    "backtest",
    "calibrate",
    "collect_history",
    "collect_history_v1",
    "compare",
    "estimate_poisson_rate",
    "estimate_proportion",
    "fit_arrivals",
    "fit_durations",
    "fit_team",
    "of_history",
    "of_queue",
    "of_v1_queue",
    "outcome_row",
    "settings_from",
    "settings_of",
]
