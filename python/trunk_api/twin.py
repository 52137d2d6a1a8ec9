"""A twin of your own merge queue (docs/twin.md): what its history shows, each quantity with its 95 % interval.

```python
from trunk_api import Client, twin
client = Client()                                   # with a v2 API key
calibration = twin.calibrate(client, queue.id)      # the last 45 days
print(calibration.durations.lognormal.median_minutes, calibration.warnings)
```

The statistics are the C++ core's (``trunk/twin/``); this module only chooses the window's defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from trunk_api._core import twin as _twin
from trunk_api._core.models import QueueSettings
from trunk_api._core.twin import (
    CONFIDENCE,
    ArrivalProfile,
    Calibration,
    ConfigurationOutcome,
    DurationFit,
    Estimate,
    LognormalFit,
    TeamModel,
    estimate_poisson_rate,
    estimate_proportion,
    fit_arrivals,
    fit_durations,
)
from trunk_api.client import Client

#: The longest window the service keeps testing results for, and so the default window of calibrate().
HISTORY_WINDOW = timedelta(days=45)


def calibrate(client: Client, queue_id: str, *, since: datetime | None = None,
              until: datetime | None = None) -> Calibration:
    """Reads the merge queue's history through v2 (its configuration, testing results and submissions over
    [since, until]) and reports what it shows, with intervals and warnings (docs/twin.md, "Calibration").

    until defaults to now, since to 45 days before until (the most the service keeps). Raises ValidationError
    naming ``since`` for an empty window or one longer than 45 days, before anything is sent.
    """
    until = until if until is not None else datetime.now(timezone.utc)
    since = since if since is not None else until - HISTORY_WINDOW
    return _twin.calibrate(client._core, queue_id, since, until)


def compare(team: TeamModel, configurations: Sequence[QueueSettings | Mapping[str, Any]], *, seeds: int = 20,
            window_days: int = 30, warm_up_hours: int = 24, drain_hours: int = 48,
            first_seed: int = 1) -> list[ConfigurationOutcome]:
    """Runs each configuration on the sandbox's merge-queue model fed by ``team`` over the same seeds, and
    answers per configuration time in queue (p50, p90), merged per day, CI runs per merged pull request and the
    failed share, each the mean over seeds with its interval (docs/twin.md, "What-if").

    A configuration is a QueueSettings or a dict of its wire names (``{"mode": "parallel", "batch": True,
    "batchingMinSize": 4}``); a setting left out is a new queue's. The GIL is released; Ctrl-C ends it.
    """
    settings = [c if isinstance(c, QueueSettings) else QueueSettings.from_dict(dict(c)) for c in configurations]
    return _twin.compare(team, settings, seeds=seeds, window_days=window_days, warm_up_hours=warm_up_hours,
                         drain_hours=drain_hours, first_seed=first_seed)


__all__ = [
    "CONFIDENCE",
    "HISTORY_WINDOW",
    "ArrivalProfile",
    "Calibration",
    "ConfigurationOutcome",
    "DurationFit",
    "Estimate",
    "LognormalFit",
    "TeamModel",
    "calibrate",
    "compare",
    "estimate_poisson_rate",
    "estimate_proportion",
    "fit_arrivals",
    "fit_durations",
]
