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

from datetime import datetime, timedelta, timezone

from trunk_api._core import twin as _twin
from trunk_api._core.twin import (
    CONFIDENCE,
    ArrivalProfile,
    Calibration,
    DurationFit,
    Estimate,
    LognormalFit,
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


__all__ = [
    "CONFIDENCE",
    "HISTORY_WINDOW",
    "ArrivalProfile",
    "Calibration",
    "DurationFit",
    "Estimate",
    "LognormalFit",
    "calibrate",
    "estimate_poisson_rate",
    "estimate_proportion",
    "fit_arrivals",
    "fit_durations",
]
