"""Scenarios 13 and 14 of benchmarks/run.py (issue 38, point 5): the queue twin (trunk_api.twin) on a busy queue.

The queue is a team's of about 9.3 pull requests an hour, runs of 15 minutes (lognormal, sigma 0.4), 5 % of pull
requests broken and 3 % of runs failed by a flaky test: 45 days of it is about 10,000 pull requests.

- Calibration (13): an in-process sandbox on the virtual clock plays the service. Its main queue gets those
  arrivals (Sandbox.set_queue_controls) and a configuration that keeps up with them (3 at once, batches of 4 or
  after 10 minutes), and the clock advances the days one at a time; none of that is timed. Then
  twin.calibrate() reads the window's history through v2, against the same transfer written with requests
  (peers.requests_queue_history).
- What-if (14): twin.compare() of six configurations of that team's queue over seeds. Nothing a user would write
  instead does the same, so it is timed alone, with the pull requests it simulates per second.
"""

from __future__ import annotations

import dataclasses
import time
from datetime import datetime, timedelta
from typing import Any

import trunk_api
from trunk_api import twin
from trunk_api.sandbox import Arrivals, LognormalRunDuration

PER_HOUR = 9.3
RUN_MEDIAN_MINUTES = 15
RUN_SIGMA = 0.4
BROKEN_RATE = 0.05
FLAKY_RATE = 0.03
SEED = 11

#: The busy queue's own configuration in scenario 13 (v2 update_config): batches of 4 (or whatever waited 10
#: minutes), 3 tested at once, a queue that keeps up with 9.3 an hour (twin.compare puts its median wait at
#: about 25 minutes), so the history is that of a healthy queue and not of a backlog.
BUSY_QUEUE_CONFIG = {"concurrency": 3, "allow_batching": True, "batching_min_size": 4,
                     "batching_max_wait_time_minutes": 10}


def batching(size: int) -> dict[str, Any]:
    return {"batch": True, "batchingMinSize": size, "batchingMaxWaitTimeMinutes": 10}


#: Scenario 14's six configurations, as dicts of v2 QueueSettings wire names: what a team of this size would weigh.
#: The first cannot keep up (3 at once, one pull request per run, 15-minute runs: 12 an hour at best, less with
#: the failures), which the answer shows.
CONFIGURATIONS: dict[str, dict[str, Any]] = {
    "single, 3 at once": {"mode": "single", "concurrency": 3},
    "single, 3 at once, batches of 2": {"mode": "single", "concurrency": 3, **batching(2)},
    "single, 3 at once, batches of 4": {"mode": "single", "concurrency": 3, **batching(4)},
    "single, 3 at once, batches of 8": {"mode": "single", "concurrency": 3, **batching(8)},
    "parallel, 6 at once": {"mode": "parallel", "concurrency": 6},
    "parallel, 6 at once, batches of 4": {"mode": "parallel", "concurrency": 6, **batching(4)},
}


def team() -> twin.TeamModel:
    return twin.TeamModel(Arrivals.poisson(PER_HOUR), LognormalRunDuration(RUN_MEDIAN_MINUTES, RUN_SIGMA),
                          broken_rate=BROKEN_RATE, flaky_rate=FLAKY_RATE)


@dataclasses.dataclass
class BusyQueue:
    """A sandbox whose main queue holds `days` of the busy team's history, the window [since, until] exactly."""

    sandbox: trunk_api.Sandbox
    client: trunk_api.Client
    queue_id: str
    since: datetime
    until: datetime
    start_seconds: float  # starting the sandbox and configuring the queue
    advance_seconds: float  # advancing the virtual clock through the days

    def close(self) -> None:
        self.sandbox.stop()


def busy_queue(days: int) -> BusyQueue:
    started = time.perf_counter()
    # record_requests=False: the request log is the sandbox's test aid, not part of serving pages.
    sandbox = trunk_api.Sandbox(seed=SEED, tests=60, clock="virtual", record_requests=False).start()
    client = sandbox.client()
    repo = sandbox.repos[0]
    repository = client.v2.repositories.resolve_page(f"https://{repo}").data[0]
    queue = next(q for q in client.v2.merge_queues.list(repository_id=repository.id) if q.target_branch == "main")
    client.v2.merge_queues.update_config(queue.id, **BUSY_QUEUE_CONFIG)
    sandbox.set_queue_controls(repo, "main", run_duration=LognormalRunDuration(RUN_MEDIAN_MINUTES, RUN_SIGMA),
                               flaky_run_rate=FLAKY_RATE, broken_pull_request_rate=BROKEN_RATE,
                               arrivals=Arrivals.poisson(PER_HOUR))
    # The window opens a minute after the configuration changed: calibrate() warns of a change inside its window.
    since = sandbox.advance(minutes=1)
    advancing = time.perf_counter()
    for _ in range(days):  # a day per call: each call runs its span of queue at once
        sandbox.advance(hours=24)
    done = time.perf_counter()
    return BusyQueue(sandbox, client, queue.id, since, since + timedelta(days=days),
                     advancing - started, done - advancing)


def simulated_pull_requests(seeds: int, configurations: int, window_days: int, warm_up_hours: int = 24,
                            drain_hours: int = 48) -> float:
    """The pull requests twin.compare() simulates, on average: every seed of every configuration runs the arrivals
    through its warm-up, its window and its drain (compare's defaults, 24 and 48 hours)."""
    hours = warm_up_hours + 24 * window_days + drain_hours
    return PER_HOUR * hours * seeds * configurations
