"""Writes the notebooks of this directory from the cell sources below (outputs stripped).

    python3 notebooks/make_notebooks.py     # after editing a cell here; commit the .ipynb files

Keeping the sources in one Python file makes reviews readable (a diff of code, not of JSON) and keeps the
committed notebooks free of outputs and execution counts. tests/python/test_notebooks.py checks that the
committed files are exactly what this script writes, and executes each of them against the sandbox.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

QUICK_START = [
    ("md", """# Quick start: failing tests into a DataFrame

This notebook lists the tests that failed in the last day, page by page and then all at once into a pandas
DataFrame, and answers a few everyday questions with pandas.

It runs against the **sandbox**, a local implementation of the service started inside this kernel, so it needs
no account and no network. Against the real service, replace the sandbox by
`client = Client()` (the token comes from the `TRUNK_API_TOKEN` environment variable) and use your own
repository and organization slug."""),
    ("code", """from datetime import datetime, timedelta, timezone

import pandas as pd

from trunk_api import Client, Sandbox

sandbox = Sandbox(seed=7, tests=1500).start()
client = sandbox.client()          # a Client pointed at the sandbox, with its throwaway token
repo = sandbox.repos[0]            # a Repo(host, owner, name); "github.com/owner/name" strings work too
org = sandbox.org_url_slug
client, repo, org"""),
    ("md", """## One page

`list_failing_tests` returns one page (up to `page_size` tests) and the page information. The window is
`[start, end)` and may be at most 7 days long."""),
    ("code", """end = datetime.now(timezone.utc)
start = end - timedelta(days=1)
page = client.list_failing_tests(repo, org, start, end, page_size=20)
print(len(page.tests), "tests on this page;", page.page.total_rows, "in all, over", page.page.total_pages, "pages")
page.tests[0]"""),
    ("md", """## Every page, into a DataFrame

`iter_failing_tests` walks the pages lazily (the paging runs in the C++ core); `to_pandas()` builds one row per
test with flat columns: rates are `float64` fractions (0.25 = 25 %), counts are nullable integers and times are
UTC timestamps."""),
    ("code", """df = client.iter_failing_tests(repo, org, start, end).to_pandas()
assert len(df) == page.page.total_rows
df.shape"""),
    ("code", """df[["name", "status_value", "failure_rate_last_24h", "failure_rate_last_7d", "pull_requests_impacted_last_7d"]].head()"""),
    ("code", """df.dtypes"""),
    ("md", """## A few questions

Which tests failed most often today, which files hold the most failing tests, and which code owners are
affected the most?"""),
    ("code", """(df.sort_values(["failure_rate_last_24h", "pull_requests_impacted_last_7d"], ascending=False)
   [["name", "failure_rate_last_24h", "pull_requests_impacted_last_7d", "quarantined"]]
   .head(10))"""),
    ("code", """df.groupby("file_path").size().sort_values(ascending=False).head(5).rename("failing tests")"""),
    ("code", """owners = df.explode("codeowners").dropna(subset=["codeowners"])
(owners.groupby("codeowners")
       .agg(tests=("id", "count"), prs_impacted=("pull_requests_impacted_last_7d", "sum"))
       .sort_values("prs_impacted", ascending=False)
       .head(5))"""),
    ("md", """## What went over the wire

The sandbox records the requests it received (the token header is redacted): the listing above was several
`list-failing-tests` calls, one per page."""),
    ("code", """calls = [r for r in sandbox.requests if r.path.endswith("list-failing-tests")]
print(len(calls), "requests; the second one asked for:")
calls[1].body"""),
    ("code", """sandbox.stop()"""),
]

FLAKY_TRIAGE = [
    ("md", """# Flaky-test triage

Which unhealthy tests hurt the team the most? This notebook lists the tests the service classes as **flaky**
and **broken**, ranks them by the pull requests they impacted and by how often they fail, charts the failure
rates, and opens the worst one to read its most common failures.

It runs against the local sandbox; against the real service use `Client()` with `TRUNK_API_TOKEN` set."""),
    ("code", """from datetime import datetime, timedelta, timezone

import matplotlib.pyplot as plt  # in Jupyter the inline backend draws with Agg, so this also works headless
import pandas as pd

from trunk_api import HealthStatus, Sandbox

sandbox = Sandbox(seed=11, tests=2000).start()
client = sandbox.client()
repo, org = sandbox.repos[0], sandbox.org_url_slug"""),
    ("md", """## Unhealthy tests

The unhealthy listing carries no failure rates (the service omits them there), so the rates come from the
failing-tests listing of the last 7 days, joined on the test id."""),
    ("code", """flaky = client.iter_unhealthy_tests(repo, org, HealthStatus.FLAKY).to_pandas()
broken = client.iter_unhealthy_tests(repo, org, "broken").to_pandas()
unhealthy = pd.concat([flaky, broken], ignore_index=True)
unhealthy["status_value"].value_counts()"""),
    ("code", """end = datetime.now(timezone.utc)
rates = client.iter_failing_tests(repo, org, end - timedelta(days=7), end).to_pandas()
rates = rates[["id", "failure_rate_last_7d", "failure_rate_last_24h"]]

triage = (unhealthy.drop(columns=["failure_rate_last_7d", "failure_rate_last_24h"])
                   .merge(rates, on="id", how="left"))
triage["failure_rate_last_7d"] = triage["failure_rate_last_7d"].fillna(0.0)
triage.shape"""),
    ("md", """## Ranking

First by pull requests impacted in the last 7 days (the cost to other people), then by failure rate."""),
    ("code", """ranked = triage.sort_values(["pull_requests_impacted_last_7d", "failure_rate_last_7d"], ascending=False)
ranked[["name", "status_value", "pull_requests_impacted_last_7d", "failure_rate_last_7d", "quarantined",
        "codeowners"]].head(10)"""),
    ("md", """Candidates for quarantine: flaky, not quarantined yet, and impacting several pull requests."""),
    ("code", """candidates = ranked[(ranked["status_value"] == "flaky") & ~ranked["quarantined"].fillna(False)
                    & (ranked["pull_requests_impacted_last_7d"] >= 3)]
candidates[["name", "pull_requests_impacted_last_7d", "codeowners"]].head(10)"""),
    ("md", """## Failure rates of the top 15"""),
    ("code", """top = ranked.head(15).iloc[::-1]
colors = top["status_value"].map({"flaky": "tab:orange", "broken": "tab:red"}).fillna("tab:gray")
fig, ax = plt.subplots(figsize=(9, 6))
ax.barh(top["name"], top["failure_rate_last_7d"] * 100, color=colors)
ax.set_xlabel("failure rate over the last 7 days (%)")
ax.set_title("Unhealthy tests ranked by pull requests impacted (orange: flaky, red: broken)")
fig.tight_layout()"""),
    ("md", """## The worst test

`get_test_details` returns every field, including the most common failures."""),
    ("code", """worst = client.get_test_details(repo, org, ranked.iloc[0]["id"])
print(worst.name, "-", worst.file_path)
print("status:", worst.status.value, "|", (worst.status.reason or "").strip())
print(f"failure rate: {worst.failure_rate_last_24h:.0%} (24h), {worst.failure_rate_last_7d:.0%} (7d)")
print("link:", worst.html_url)"""),
    ("code", """pd.DataFrame([failure.to_dict() for failure in worst.most_common_failures or []])"""),
    ("md", """## The details of the top 15, asynchronously

A notebook runs an event loop, so the `AsyncClient` (every operation of `Client` as a coroutine) can be awaited
directly in a cell. Here the most common failure of each of the top 15 is fetched concurrently; a listing is an
async iterator, collected with `await ....to_list()` or `await ....to_pandas()`."""),
    ("code", """async with sandbox.async_client() as aclient:
    details = await aclient.get_test_details_many(repo, org, list(ranked.head(15)["id"]))
    still_flaky = await aclient.iter_unhealthy_tests(repo, org, "FLAKY").to_pandas()
pd.DataFrame({
    "name": [test.name for test in details],
    "most common failure": [test.most_common_failures[0].summary if test.most_common_failures else None
                            for test in details],
    "flaky": [test.id in set(still_flaky["id"]) for test in details],
})"""),
    ("code", """sandbox.stop()"""),
]

MERGE_QUEUE = [
    ("md", """# Merge-queue automation

Scripted changes to a merge queue: pause it, drain it, resume it, and switch it to parallel mode with batching
while a pull request is testing (watching the `switching_modes` state the queue goes through until that pull
request has merged). `update_queue` sends only the settings you pass and returns the full settings after the
change.

The sandbox runs on a **virtual clock**: it stands still until `sandbox.advance()` moves it, so the notebook
follows an hour of queue without waiting for it."""),
    ("code", """import pandas as pd

from trunk_api import PullRequestState, QueueMode, QueueState, Sandbox, ValidationError

sandbox = Sandbox(seed=3, tests=200, clock="virtual").start()
client = sandbox.client()
repo, branch = sandbox.repos[0], "main"

def show(settings):
    \"\"\"The settings that matter for this notebook, as one row.\"\"\"
    fields = ["state", "mode", "concurrency", "batch", "batching_min_size", "batching_max_wait_time_minutes",
              "required_statuses"]
    return pd.DataFrame([{name: getattr(settings, name) for name in fields}])

show(client.update_queue(repo, branch))   # no setting given: changes nothing, returns the current settings"""),
    ("md", """## Pause, then drain"""),
    ("code", """paused = client.update_queue(repo, branch, state=QueueState.PAUSED)
assert paused.state == "paused"
show(paused)"""),
    ("code", """draining = client.update_queue(repo, branch, state="draining")
show(draining)"""),
    ("md", """## Resume"""),
    ("code", """running = client.update_queue(repo, branch, state="running")
assert running.state == "running"
show(running)"""),
    ("md", """## Parallel mode with batching, while a pull request is testing

On a queue holding no pull request a change of mode takes effect at once. While pull requests are testing, the
queue reports `switching_modes` and behaves as `draining` (no submission, no new test) until they have merged;
then it runs in the new mode. Submit a pull request and let it start testing first:"""),
    ("code", """start = sandbox.clock_now
client.submit_pull_request(repo, 101, branch)
while client.get_submitted_pull_request(repo, 101, branch).state != PullRequestState.TESTING:
    sandbox.advance(minutes=1)
print(f"pull request 101 is testing after {sandbox.clock_now - start} of virtual clock")"""),
    ("code", """changed = client.update_queue(repo, branch, mode=QueueMode.PARALLEL, concurrency=6, batch=True,
                             batching_min_size=3, batching_max_wait_time_minutes=10)
assert changed.state == QueueState.SWITCHING_MODES
steps = []
while True:   # five minutes of queue at a time, until pull request 101 has left the queue
    queue, pr = client.get_queue(repo, branch), client.get_submitted_pull_request(repo, 101, branch)
    steps.append({"minutes": (sandbox.clock_now - start).total_seconds() / 60, "queue state": queue.state,
                  "pull request 101": pr.state})
    if pr.state in (PullRequestState.MERGED, PullRequestState.FAILED):
        break
    sandbox.advance(minutes=5)
assert pr.state == PullRequestState.MERGED and queue.state == QueueState.RUNNING
pd.DataFrame(steps)"""),
    ("code", """changed = client.get_queue(repo, branch)
assert changed.mode == "parallel" and changed.state == "running"
show(changed)"""),
    ("md", """## Required statuses: set, empty, or back to branch protection

`required_statuses=[]` sets an empty list; `delete_required_statuses=True` removes the manual list so branch
protection decides again. They are different requests."""),
    ("code", """show(client.update_queue(repo, branch, required_statuses=["ci/build", "ci/test"]))"""),
    ("code", """show(client.update_queue(repo, branch, delete_required_statuses=True))"""),
    ("md", """Only what was set goes over the wire:"""),
    ("code", """[r.body for r in sandbox.requests if r.path == "/v1/updateQueue"][-2:]"""),
    ("md", """## Mistakes are caught before anything is sent

Every broken rule is reported at once, naming the field, the value and the rule."""),
    ("code", """try:
    client.update_queue(repo, branch, concurrency=0, batching_min_size=4294967296)
except ValidationError as error:
    for violation in error.errors:
        print(violation)"""),
    ("md", """## The same through v2

Trunk's v2 API takes an API key (`Authorization: Bearer trunk_v2_...`) and names things by id. The sandbox issues
one (`sandbox.api_key`), and its client holds both credentials, so each call sends the one its version needs.
v2 is grouped by resource under `client.v2`. A repository's id comes from its address, a queue's from the
listing of its repository's queues:"""),
    ("code", """v2 = client.v2
repository = v2.repositories.resolve_page(f"https://{repo}").data[0]
queue = next(q for q in v2.merge_queues.list(repository_id=repository.id) if q.target_branch == branch)
print(repository.id, queue.id, queue.mode, queue.state)   # v1's parallel mode is v2's graph mode"""),
    ("code", """assert v2.merge_queues.pause(queue.id).state == "paused"
assert client.get_queue(repo, branch).state == QueueState.PAUSED      # one queue, read through either version
v2.merge_queues.resume(queue.id).state"""),
    ("md", """Submit a pull request through v2, let the queue test and merge it, then read what happened: the queue's
dispatch order while it tests, the pull request's queue-entry history (every state, with the reason codes the
webhooks use) and the queue's testing results (what a model of the queue is calibrated from)."""),
    ("code", """start = sandbox.clock_now
pr = v2.merge_queues.submit_pull_request(queue.id, 102, priority_name="high")
sandbox.advance(minutes=2)
order = v2.merge_queues.order(queue.id)
[(batch.verification_run_id[:8], [p.number for p in batch.pull_requests], batch.state) for batch in order.batches]"""),
    ("code", """sandbox.advance(hours=2)
pd.DataFrame([{"state": t.state, "changed_at": t.changed_at, "reason": t.reason}
              for t in v2.pull_requests.queue_entry_history(pr.id)])"""),
    ("code", """v2.merge_queues.list_testing_results(queue.id, since=start).to_pandas()"""),
    ("md", """v2's errors carry a machine code and the request id to quote to Trunk's support:"""),
    ("code", """from trunk_api import ConflictError

v2.merge_queues.submit_pull_request(queue.id, 103)
try:
    v2.merge_queues.submit_pull_request(queue.id, 103)
except ConflictError as error:
    print(error.code, error.request_id)
v2.pull_requests.dequeue(v2.pull_requests.resolve_page(repository.id, number=[103]).data[0].id).queue_entry.state"""),
    ("code", """sandbox.stop()"""),
]

WHAT_IF = [
    ("md", """# Merge queue what-if: which configuration suits this repository?

The same pull requests go through three merge queues configured differently, on the sandbox's **virtual
clock** (a working day of queue in seconds). The sandbox fails test runs with the probability implied by the
repository's own flaky and broken tests (the history the flaky-test operations return), so the answer depends
on this repository's flake rate, as it would in production.

The configurations, with Trunk's meanings:

- **single-1**: single mode at concurrency 1, one pull request tested at a time;
- **single-4**: single mode at concurrency 4 (up to four runs at once, each predictively on top of those ahead),
  with batching, optimistic merging and a pending failure depth of 1 (a failure waits for one successor, whose
  pass can clear a flake without a bisection);
- **parallel-4**: the same settings in parallel mode, where each pull request reports its impacted targets and
  only pull requests with overlapping targets are tested on top of each other (independent lanes).

Time in queue comes from the documented histogram `mq_pr_time_in_queue_1h_seconds`, read every hour and added
up, and its quantiles from the client's `Histogram.quantile` (PromQL's `histogram_quantile`)."""),
    ("code", """import random
from collections import Counter
from datetime import timedelta

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown

from trunk_api import Histogram, Sandbox

sandbox = Sandbox(seed=4, tests=800, clock="virtual").start()
client = sandbox.client()
repo = sandbox.repos[0]
week = client.iter_failing_tests(repo, sandbox.org_url_slug, sandbox.now - timedelta(days=7), sandbox.now).to_pandas()
flaky = week[week["status_value"] == "flaky"]
print(f"{repo.owner}/{repo.name}: {len(flaky)} flaky tests failed in the last week, median failure rate "
      f"{flaky['failure_rate_last_7d'].median():.0%}")"""),
    ("md", """## Impacted targets from the repository's layout

Parallel mode needs each pull request's impacted targets (`set_impacted_targets`). Here they are the
repository's packages, the directories its tests live in (`//tests/checkout`, ...): a pull request touches one
package (those with more tests more often), sometimes two, and one in twenty-five touches the root (`"ALL"`: it
overlaps every lane)."""),
    ("code", """areas = Counter("//" + path.rsplit("/", 1)[0] for path in week["file_path"].dropna() if "/" in path)
print(dict(areas.most_common()))

PULL_REQUESTS = 60
rng = random.Random(4)   # the same workload every run
names, weights = zip(*areas.items())
def impacted(number):
    if number % 25 == 0:
        return "ALL"
    return sorted(set(rng.choices(names, weights, k=1 if rng.random() < 0.8 else 2)))
TARGETS = {number: impacted(number) for number in range(1, PULL_REQUESTS + 1)}
ARRIVAL_MINUTES = {number: 6 * (number - 1) for number in TARGETS}   # one every 6 minutes, for 6 hours
pd.Series({n: t if t == "ALL" else ", ".join(t) for n, t in TARGETS.items()}).value_counts().head(8)"""),
    ("md", """## Three queues, one workload"""),
    ("code", """SHARED = dict(batch=True, batching_min_size=2, batching_max_wait_time_minutes=5,
              can_optimistically_merge=True, pending_failure_depth=1)
CONFIGS = {
    "single-1": (dict(mode="single", concurrency=1), {}),
    "single-4": (dict(mode="single", concurrency=4), SHARED),
    "parallel-4": (dict(mode="parallel", concurrency=4), SHARED),
}
for branch, (created, updated) in CONFIGS.items():
    client.create_queue(repo, branch, **created)
    if updated:
        client.update_queue(repo, branch, **updated)
SHOWN = ["mode", "concurrency", "batch", "batching_min_size", "can_optimistically_merge", "pending_failure_depth"]
pd.DataFrame({branch: {name: getattr(client.get_queue(repo, branch), name) for name in SHOWN}
              for branch in CONFIGS}).T"""),
    ("md", """## Run the clock

Every ten minutes the pull requests due arrive in all three queues (in parallel mode with their targets); every
hour the metrics are read. The duration series cover the last hour, so hourly readings are disjoint windows and
`Histogram.merge` adds them into the histogram of the whole run."""),
    ("code", """def submit(number):
    for branch in CONFIGS:
        client.submit_pull_request(repo, number, branch)
    sha = client.get_submitted_pull_request(repo, number, "parallel-4").pr_sha
    client.set_impacted_targets(repo, number, sha, "parallel-4", TARGETS[number])

def queues_empty():
    return all(not client.get_queue(repo, branch).enqueued_pull_requests for branch in CONFIGS)

windows = {branch: [] for branch in CONFIGS}
restarts = Counter()
hourly = []
for hour in range(1, 49):
    for step in range(6):
        minute = (hour - 1) * 60 + step * 10
        for number in [n for n, due in ARRIVAL_MINUTES.items() if minute <= due < minute + 10]:
            submit(number)
        sandbox.advance(minutes=10)
    metrics = client.get_merge_queue_metrics(repo)
    for branch in CONFIGS:
        window = metrics.histogram("mq_pr_time_in_queue_1h_seconds", branch=branch)
        assert window is not None, "this sandbox does not send mq_pr_time_in_queue_1h_seconds"
        windows[branch].append(window)
        restarts[branch] += metrics.gauge("mq_pr_restarts_1h_total", branch=branch) or 0
        hourly.append({"hour": hour, "queue": branch,
                       "merged": metrics.gauge("mq_pr_conclusions_1h_total", branch=branch, conclusion="merged") or 0,
                       "depth": metrics.gauge("mq_depth_current", branch=branch) or 0})
    if hour * 60 > max(ARRIVAL_MINUTES.values()) and queues_empty():
        break
hourly = pd.DataFrame(hourly)
print(f"every queue empty after {hour} hours of virtual time")"""),
    ("md", """## Time in queue and CI runs per merged pull request

The quantiles come from the merged histograms. A quantile in the `+Inf` bucket is reported as the highest
finite bound (two hours), so such a value reads "at least 120 minutes". CI runs are the sandbox's own
`mq_test_runs_started_total` (every run, bisection included), per merged pull request."""),
    ("code", """final = client.get_merge_queue_metrics(repo)
rows = {}
for branch in CONFIGS:
    run = Histogram.merge(windows[branch])
    listed = client.iter_pull_requests(repo, branch, take=100).to_pandas()
    states = {state: int((listed["state"] == state).sum()) for state in ("merged", "failed", "cancelled")}
    concluded = sum(states.values())
    assert run.count == concluded, f"{branch}: the hourly windows count {run.count} exits, the listing {concluded}"
    runs = final.gauge("mq_test_runs_started_total", branch=branch)
    assert runs is not None, "this sandbox does not send mq_test_runs_started_total"
    rows[branch] = {
        "merged": states["merged"], "failed": states["failed"],
        "p50 minutes": run.quantile(0.5) / 60, "p90 minutes": run.quantile(0.9) / 60,
        "p90 at least": run.buckets[-2].count < 0.9 * run.count,   # beyond the last finite bound
        "mean minutes": run.sum / run.count / 60,
        "CI runs": runs, "CI runs per merged PR": runs / max(states["merged"], 1),
        "restarts": restarts[branch],
        "flaky failed runs": final.gauge("mq_test_runs_failed_total", branch=branch, cause="flaky") or 0,
    }
results = pd.DataFrame(rows).T
results"""),
    ("code", """fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
results[["p50 minutes", "p90 minutes"]].astype(float).plot.bar(ax=left, rot=0)
left.set(title="Time in queue (from mq_pr_time_in_queue_1h_seconds)", xlabel="", ylabel="minutes")
results["CI runs per merged PR"].astype(float).plot.bar(ax=right, rot=0, color="tab:gray")
right.set(title="CI runs per merged pull request", xlabel="", ylabel="runs")
fig.tight_layout()
plt.show()"""),
    ("md", """## Which configuration wins here, and why

Computed from the table above: the winner is the queue whose pull requests wait least (p90 first, then p50)
among those that merged nearly as many pull requests as the best of them (within 5%: a queue that fails good
pull requests on flakes does not win by being quick); CI cost breaks ties."""),
    ("code", """flake_rate = results["flaky failed runs"].sum() / results["CI runs"].sum()
eligible = results[results["merged"] >= 0.95 * results["merged"].max()]
ranked = eligible.sort_values(["p90 minutes", "p50 minutes", "CI runs per merged PR"])
winner, best = ranked.index[0], ranked.iloc[0]
def minutes(row, column):
    at_least = "at least " if column == "p90 minutes" and row["p90 at least"] else ""
    return f"{at_least}{row[column]:.0f} min"
lines = [f"At this repository's flake rate ({flake_rate:.1%} of CI runs failed on a flaky test), "
         f"**{winner}** wins: p50 {minutes(best, 'p50 minutes')}, p90 {minutes(best, 'p90 minutes')}, "
         f"{best['CI runs per merged PR']:.2f} CI runs per merged pull request."]
for other, row in results.drop(index=winner).iterrows():
    reasons = []
    if row["merged"] < best["merged"]:
        reasons.append(f"merged {row['merged']:.0f} instead of {best['merged']:.0f}")
    reasons.append(f"p90 {minutes(row, 'p90 minutes')} and p50 {minutes(row, 'p50 minutes')}")
    cost = row["CI runs per merged PR"] / best["CI runs per merged PR"]
    reasons.append(f"{cost:.1f}x the CI runs per merged pull request")
    if row["restarts"] != best["restarts"]:
        reasons.append(f"{row['restarts']:.0f} restarts against {best['restarts']:.0f}")
    lines.append(f"- {other}: " + "; ".join(reasons) + ".")
if best["CI runs per merged PR"] < 1:
    lines.append(f"{winner} tests several pull requests per run (batching): fewer runs than pull requests.")
if best["restarts"] < results["restarts"].max():
    lines.append(f"Its failures restart fewer runs ({best['restarts']:.0f}): "
                 + ("independent lanes keep a failure from restarting unrelated pull requests."
                    if CONFIGS[winner][0]["mode"] == "parallel" else
                    "the pending failure depth lets a passing successor clear a flaky failure."))
Markdown("\\n\\n".join(lines))"""),
    ("md", """Change `CONFIGS`, `SHARED`, the arrival rate or the seed and run the notebook again: the virtual clock
makes each run take seconds, and the same seed gives the same outcome."""),
    ("code", """sandbox.stop()"""),
]

HISTORY = [
    ("md", """# A month of failing tests, in DuckDB

The service answers for at most 7 days at a time and keeps no history of test health. This notebook exports 30
days of failing tests to a folder of Parquet files, one partition per UTC day (`day=YYYY-MM-DD/`, the layout
`trunk-api export failing --since 30d --to DIR` writes), and asks that folder questions in SQL with DuckDB:
how many tests failed each day, and how often the worst offenders failed, week by week.

It runs against the sandbox. Against the real service use `Client()` and your own repository; run the export
daily (it is incremental: days already written are skipped) and the folder grows into your own history."""),
    ("code", """import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import matplotlib.pyplot as plt

from trunk_api import Sandbox
from trunk_api.export import export_failing

sandbox = Sandbox(seed=11, tests=800).start()
client = sandbox.client()
repo, org = sandbox.repos[0], sandbox.org_url_slug
# The sandbox's history is made up: it goes to a temporary folder, removed when the kernel exits. For your own
# history, name a folder that stays, e.g. Path("failing-history").
scratch = tempfile.TemporaryDirectory(prefix="failing-history-")
folder = Path(scratch.name)"""),
    ("md", """## Export

`export_failing` lists each day on its own and writes it as Parquet; it returns one `Partition` per day."""),
    ("code", """now = datetime.now(timezone.utc)
partitions = export_failing(client, repo, org, now - timedelta(days=30), now, folder)
print(len(partitions), "days,", sum(p.rows for p in partitions), "rows;", partitions[-1].path)"""),
    ("md", """## Failing tests per day

DuckDB reads the folder as it is: the `day` column comes from the directory names (Hive partitioning)."""),
    ("code", '''files = f"read_parquet('{folder}/*/*.parquet', hive_partitioning = true)"
daily = duckdb.sql(f"""
    select day, count(*) as failing_tests, count(*) filter (where status_value = 'flaky') as flaky
    from {files} group by day order by day
""").df()
daily.tail()'''),
    ("md", """## The top offenders, week by week

The tests that failed on the most days, and on how many days of each week they failed."""),
    ("code", '''top = duckdb.sql(f"""
    select name, count(*) as days_failing from {files}
    group by name order by days_failing desc, name limit 5
""").df()
weekly = duckdb.sql(f"""
    select date_trunc('week', day) as week, name, count(*) as days_failing
    from {files} where name in (select name from top)
    group by week, name order by week
""").df().pivot(index="week", columns="name", values="days_failing").fillna(0)
top'''),
    ("code", """fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
left.bar(daily["day"], daily["failing_tests"], color="tab:red", label="failing")
left.bar(daily["day"], daily["flaky"], color="tab:orange", label="of which flaky")
left.set(title="Tests failing per day", ylabel="tests")
left.legend()
left.tick_params(axis="x", rotation=45)
weekly.plot(ax=right, marker="o")
right.set(title="Days failing per week, top 5 offenders", xlabel="week", ylabel="days")
right.legend(fontsize="small")
fig.tight_layout()
plt.show()"""),
    ("code", """sandbox.stop()"""),
]

NOTEBOOKS = {
    "01-quick-start.ipynb": QUICK_START,
    "02-flaky-test-triage.ipynb": FLAKY_TRIAGE,
    "03-merge-queue-automation.ipynb": MERGE_QUEUE,
    "04-merge-queue-what-if.ipynb": WHAT_IF,
    "05-history-with-duckdb.ipynb": HISTORY,
}


def build(cells: list[tuple[str, str]], stem: str) -> nbformat.NotebookNode:
    notebook = new_notebook()
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    for index, (kind, source) in enumerate(cells):
        cell_id = f"{stem}-{index:02d}"  # stable ids: regenerating gives the same file
        if kind == "md":
            notebook.cells.append(new_markdown_cell(source, id=cell_id))
        else:
            notebook.cells.append(new_code_cell(source, id=cell_id))
    nbformat.validate(notebook)
    return notebook


def render(name: str) -> str:
    stem = name.split("-", 1)[0]
    return nbformat.writes(build(NOTEBOOKS[name], f"nb{stem}")) + "\n"


def main() -> int:
    for name in NOTEBOOKS:
        (HERE / name).write_text(render(name), encoding="utf-8")
        print("wrote", HERE / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
