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

Which tests hurt the team the most, what changed this week, and which to quarantine first? This notebook reads
Trunk's v2 flaky-test API: every test with its metrics over 30 and 7 days, ranked worst first by the service, the
status history of the unhealthy ones, and the runs of the worst.

It runs against the local sandbox; against the real service use `Client()` with `TRUNK_API_KEY` set (an API key
from Trunk's settings). Teams still on a v1 organization token: notebook 05 reads v1's day-by-day history."""),
    ("code", """from datetime import timedelta

import matplotlib.pyplot as plt  # in Jupyter the inline backend draws with Agg, so this also works headless
import pandas as pd

from trunk_api import Sandbox

sandbox = Sandbox(seed=11, tests=2000).start()
client = sandbox.client()
repo = sandbox.repos[0]
collection = next(iter(client.v2.test_collections.list(q=f"{repo.owner}/{repo.name}")))
collection.name, collection.test_case_count"""),
    ("md", """## Every test, with its metrics

One listing gives every test with its metrics over the period (`include="metrics"`): failure rate, runs,
failures, pull requests impacted, 95th-percentile duration. Sorting by a metric is the service's, worst first."""),
    ("code", """month = client.v2.tests.list(test_collection_id=collection.id, include="metrics", period="30d",
                             sort="prsImpacted").to_pandas()
week = client.v2.tests.list(test_collection_id=collection.id, include="metrics", period="7d").to_pandas()
tests = month.merge(week[["id", "metrics_failure_rate", "metrics_prs_impacted"]], on="id", how="left",
                    suffixes=("_30d", "_7d"))
tests["status"].value_counts()"""),
    ("code", """columns = ["name", "status", "quarantine_state", "metrics_prs_impacted_30d", "metrics_failure_rate_30d",
           "metrics_failure_rate_7d", "metrics_duration_p95_ms", "codeowners"]
unhealthy = tests[tests["status"] != "healthy"]
unhealthy[columns].head(10)"""),
    ("md", """## What changed this week

Each unhealthy test's status history since a week ago (newest first, one row per change): which tests became
flaky or broken, and which recovered. A history is one call per test; a notebook runs an event loop, so the
`AsyncClient` (every operation of `Client` as a coroutine) reads them all concurrently, awaited in the cell."""),
    ("code", """import asyncio

week_ago = (pd.Timestamp(tests["status_since"].max()) - timedelta(days=7)).to_pydatetime()
async with sandbox.async_client() as aclient:
    histories = await asyncio.gather(*(
        aclient.v2.tests.status_history(test_id, started_after=week_ago, progress=False).to_list()
        for test_id in unhealthy["id"]))
changes = pd.DataFrame([
    {"name": name, "from_status": str(change.from_status), "to_status": str(change.to_status),
     "started_at": change.started_at}
    for name, history in zip(unhealthy["name"], histories) for change in history])
changes.groupby(["from_status", "to_status"]).size().rename("changes this week")"""),
    ("code", """changes.sort_values("started_at", ascending=False).head(10)"""),
    ("md", """## Which to quarantine first, and why

Flaky (not broken: a broken test needs a fix, not a quarantine), not quarantined yet, ranked by the pull requests
it failed on in the last 7 days, then by its failure rate; the reason is said in words."""),
    ("code", """candidates = tests[(tests["status"] == "flaky") & (tests["quarantine_state"] == "notQuarantined")].copy()
candidates = candidates.sort_values(["metrics_prs_impacted_7d", "metrics_failure_rate_7d"], ascending=False)
candidates["why"] = candidates.apply(
    lambda t: (f"flaky since {pd.Timestamp(t.status_since):%a %d %b}; failed {t.metrics_failure_count:.0f} of "
               f"{t.metrics_run_count:.0f} runs in 30 days; {t.metrics_prs_impacted_7d:.0f} pull requests hit "
               f"this week"), axis=1)
candidates[["name", "codeowners", "why"]].head(10)"""),
    ("md", """Quarantining the first candidate is one call with an API key holding "Quarantine tests": the override
keeps its failures from blocking merges whatever its status, until it is cleared (`mode="clear"`). Both API
versions see it at once, v1's quarantined listing included."""),
    ("code", """first = candidates.iloc[0]
overridden = client.v2.tests.set_quarantine(first["id"], "alwaysQuarantine", reason=first["why"][:1000])
v1_quarantined = {t.test_case_id for t in client.iter_quarantined_tests(repo, sandbox.org_url_slug)}
overridden.quarantine_state, overridden.quarantine_override.created_at, first["id"] in v1_quarantined"""),
    ("md", """## Failure rates of the top 15, over 30 and 7 days"""),
    ("code", """top = unhealthy.head(15).iloc[::-1]
fig, ax = plt.subplots(figsize=(9, 6))
ax.barh(top["name"], top["metrics_failure_rate_30d"] * 100, color="tab:orange", label="30 days")
ax.barh(top["name"], top["metrics_failure_rate_7d"] * 100, color="none", edgecolor="black", label="7 days")
ax.set_xlabel("failure rate (%)")
ax.set_title("Unhealthy tests ranked by pull requests impacted over 30 days")
ax.legend()
fig.tight_layout()"""),
    ("md", """## The worst test and its failing runs

`get` adds what a listing leaves out: the monitors classifying the test, when it was first seen and when it last
failed. Its runs say where each failure happened."""),
    ("code", """worst = client.v2.tests.get(unhealthy.iloc[0]["id"], include="metrics", period="30d")
print(worst.name, "-", worst.file)
print("status:", worst.status, "since", worst.status_since, "| monitors:",
      [m.monitor_type for m in worst.active_monitors])
print(f"failure rate over 30 days: {worst.metrics.failure_rate:.0%}, last failure {worst.last_failure_at}")
print("link:", worst.url)
client.v2.tests.runs(worst.id, conclusion="failure", max_results=10).to_pandas()[
    ["started_at", "branch", "status_at_run_time", "pull_request_number", "build_url"]]"""),
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

v1's listings answer for at most 7 days at a time and keep no history of test health. This notebook is for teams
still on a v1 organization token (with a v2 API key, v2 gives a test's metrics over 30 days and its status
history directly: notebook 02). It exports 30 days of failing tests to a folder of Parquet files, one partition per UTC day (`day=YYYY-MM-DD/`, the layout
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

TWIN = [
    ("md", """# Your queue's twin

Should your merge queue test more pull requests at once, or batch them? The twin answers from your own queue's
history: it reads that history through the v2 API, calibrates a model of your team from it (when pull requests
arrive, how long CI takes, how often a pull request is broken or a run flaky), checks the model by replaying your
current configuration over the same weeks (the **backtest**), and then runs other configurations on the same
team. Every answer comes with its 95 % interval, latency and CI cost always as a pair, and the backtest's error
beside them ([docs/twin.md](../docs/twin.md)).

Here a **sandbox** stands in for Trunk's service, on a virtual clock: it plays four weeks of a team whose
parameters the twin never sees. Because we hid them ourselves, this notebook can also show how close the twin gets
to the truth, which against your own queue nobody can."""),
    ("code", """import random
from datetime import datetime, timezone

import matplotlib.pyplot as plt  # in Jupyter the inline backend draws with Agg, so this also works headless
import pandas as pd
from IPython.display import Markdown

from trunk_api import Sandbox, twin
from trunk_api.sandbox import Arrivals, EmpiricalRunDuration"""),
    ("md", """## Four weeks of a team (this cell plays your team)

**Against the service you skip this cell**: use `client = Client()` (with a v2 API key) and your own queue's id,
which `client.v2.merge_queues.list()` gives. On a v1 token, `twin.of_v1_queue(client, "github.com/you/repo",
"main")` reads the same history through v1 (without submission times, so its backtest leaves time in queue out). The cell starts a sandbox on a virtual clock and lets a team with
hidden parameters use its merge queue for 28 days, which takes a second:

- pull requests arrive on a working-hours profile in UTC (5 an hour from 08:00 to 18:00, 1.5 in the evening,
  0.3 at night);
- CI is bimodal, as with a cache that hits or misses: 70 % of runs take 9 to 13 minutes, 30 % take 35 to 45;
- 8 % of pull requests are broken and 5 % of runs fail on a flaky test;
- the queue tests three pull requests at once (`concurrency=3`), set through v2 as your team would have.

Neither the CI distribution nor the arrival profile is the sandbox's default, so nothing the twin finds comes
from the sandbox's own generator. `play_team` is a function because the ground truth at the end replays the same
team on another sandbox."""),
    ("code", """DAYS = 28
START = datetime(2026, 10, 5, tzinfo=timezone.utc)   # a fixed Monday: the same seed and start, the same month
draw = random.Random(6)
HIDDEN_CI_MINUTES = ([round(draw.uniform(9, 13), 1) for _ in range(70)]
                     + [round(draw.uniform(35, 45), 1) for _ in range(30)])
HIDDEN_PER_HOUR = [0.3] * 8 + [5.0] * 10 + [1.5] * 4 + [0.3] * 2    # by UTC hour of the day, 00:00 first
HIDDEN_BROKEN, HIDDEN_FLAKY = 0.08, 0.05

def main_queue(client, repo):
    repository = client.v2.repositories.resolve_page(f"https://{repo}").data[0]
    queues = client.v2.merge_queues.list(repository_id=repository.id, progress=False)   # one short page: no bar
    return next(q for q in queues if q.target_branch == "main")

def play_team(seed, **configuration):
    \"\"\"A sandbox whose main queue, configured through v2, has served the hidden team for DAYS days.\"\"\"
    box = Sandbox(seed=seed, tests=60, clock="virtual", now=START).start()
    client = box.client()
    queue = main_queue(client, box.repos[0])
    client.v2.merge_queues.update_config(queue.id, **configuration)
    start = box.clock_now
    box.set_queue_controls(box.repos[0], run_duration=EmpiricalRunDuration(HIDDEN_CI_MINUTES),
                           flaky_run_rate=HIDDEN_FLAKY, broken_pull_request_rate=HIDDEN_BROKEN,
                           arrivals=Arrivals.hourly(HIDDEN_PER_HOUR, first_number=1000))
    box.advance(hours=24 * DAYS)
    return box, client, queue, start

box, client, queue, start = play_team(6, concurrency=3)
print(f"queue {queue.id}: {DAYS} days played, from {start:%Y-%m-%d %H:%M} to {box.clock_now:%Y-%m-%d %H:%M} UTC")"""),
    ("md", """## The twin, in one call

`twin.of_queue` does four things, each also available on its own:

1. **history** (`twin.collect_history`): reads, through v2 only, the queue's configuration now, its testing
   results over the window and the pull requests submitted in it (at most 45 days, the most the service keeps;
   45 days is the default window);
2. **calibration** (`twin.calibrate`): what the history shows, every figure an estimate with its 95 % interval
   and the number of observations behind it, plus warnings where the history is thin;
3. **model** (`twin.fit_team`): the team the twin will run: the arrivals, the CI durations, and the broken and
   flaky rates, which no listing shows directly and are fitted by simulating the queue's current configuration
   until it reproduces the failures the history shows;
4. **backtest** (`twin.backtest`): the model replaying today's configuration over the same weeks, beside what
   really happened. Its errors say how far to trust every other answer.

Here the window is the whole time the team played (a real queue has been running long before, so you would let
the window default to the last 45 days)."""),
    ("code", """queue_twin = twin.of_queue(client, queue.id, since=start, until=box.clock_now)
calibration = queue_twin.calibration
print(queue_twin.history)
print("configuration replayed by the backtest: concurrency", queue_twin.settings.concurrency,
      "| batching:", queue_twin.settings.batch)"""),
    ("md", """## What the history shows

### Arrivals by hour of the day

Each bar is the arrival rate the history shows for that UTC hour, with its exact Poisson interval as error bars;
the line is the hidden truth, which only a sandbox can show. A team that submits in working hours waits very
differently from one submitting at the same average rate around the clock, so the twin keeps the profile (a
chi-squared test decides whether the hours differ at all)."""),
    ("code", """by_hour = calibration.arrivals.by_hour_of_day   # 24 estimates, None for an hour never covered
hours = [h for h, e in enumerate(by_hour) if e is not None]
values = [by_hour[h].value for h in hours]
errors = [[by_hour[h].value - by_hour[h].low for h in hours], [by_hour[h].high - by_hour[h].value for h in hours]]
fig, ax = plt.subplots(figsize=(9, 3.5))
ax.bar(hours, values, yerr=errors, capsize=2, color="tab:blue", alpha=0.7, label="from the history (95 % interval)")
# a bar is centred on its hour, so the hidden rate's steps sit at the bars' edges
ax.step([h - 0.5 for h in range(25)], HIDDEN_PER_HOUR + HIDDEN_PER_HOUR[-1:], where="post", color="black",
        label="hidden truth")
differ = calibration.arrivals.flat_p_value < 0.05
ax.set(xlabel="hour of the day (UTC)", ylabel="pull requests per hour", xticks=range(0, 24, 2),
       title=f"Arrivals: {calibration.arrivals.per_hour.value:.2f} an hour overall; the hours "
             + ("differ" if differ else "look alike") + f" (flat p-value {calibration.arrivals.flat_p_value:.2g})")
ax.legend()
fig.tight_layout()
plt.show()"""),
    ("md", """### CI durations

The history's finished runs (`calibration.durations.minutes`) against the distribution the twin will draw from
(`queue_twin.team.run_duration`: from 30 finished runs on, an `EmpiricalRunDuration` of 1,000 equally likely
durations). They differ on purpose: runs stopped before they ended (a failure ahead of them restarted them) say
only that the run would have taken longer, and long runs are the likelier to be stopped, so the finished runs
alone make CI look faster than it is. The model is the Kaplan–Meier estimate over both, so its curve lies a
little to the right; the bimodal shape is kept, not smoothed into a lognormal."""),
    ("code", """model_durations = queue_twin.team.run_duration
assert isinstance(model_durations, EmpiricalRunDuration), "under 30 finished runs the twin uses a lognormal"
fig, ax = plt.subplots(figsize=(9, 3.5))
ax.ecdf(calibration.durations.minutes, label=f"finished runs in the history ({len(calibration.durations.minutes)})")
ax.ecdf(model_durations.minutes, label="the twin's model (finished and stopped runs, Kaplan-Meier)")
ax.ecdf(HIDDEN_CI_MINUTES, linestyle=":", color="black", label="hidden truth")
ax.set(xlabel="CI run duration (minutes)", ylabel="share of runs at most this long",
       title=f"CI durations: {calibration.durations.censored} stopped runs kept as lower bounds")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()"""),
    ("md", """## Broken and flaky rates

The history shows failed entries (the share of pull requests the queue failed) and failed clean runs (runs that
failed although their pull requests all merged in the end); the queue's own rules sit between those shares and
the team's rates, so the twin fits the rates by simulation. Their intervals carry the shares' spread, so they
are wide when the history separates the two causes poorly. Here we can check them against the hidden truth."""),
    ("code", """rates = pd.DataFrame({
    name: {"fitted": fit.value, "low": fit.low, "high": fit.high, "hidden truth": truth,
           "interval holds the truth": fit.contains(truth)}
    for name, fit, truth in (("broken pull requests", queue_twin.fitted.broken_rate, HIDDEN_BROKEN),
                             ("flaky runs", queue_twin.fitted.flaky_rate, HIDDEN_FLAKY))
}).T
print(f"observed: failed entries {calibration.failed_entries}, failed clean runs {calibration.failed_clean_runs}")
rates"""),
    ("md", """The warnings say in words what makes an answer weak. Expect two here: the queue never tested two pull
requests in one run, so a batch's failing together is not observed (the batching answer below rests on the
model's rules alone), and the team's pull requests uploaded no impacted targets (the sandbox's arrivals here have
none, so each impacts every target), so the twin models one lane."""),
    ("code", """for warning in queue_twin.warnings:
    print("!", warning)"""),
    ("md", """## The backtest: does the twin reproduce your own queue?

The twin replays today's configuration over the history's own window and calendar hours (the last two days
left as a drain for the last pull requests to conclude), over 20 seeds. Each error is (predicted − observed) /
observed. A twin that misses the queue it was calibrated from will miss the alternatives too."""),
    ("code", """back = queue_twin.backtest
MEASURES = {"minutes_in_queue_p50": back.p50_error, "minutes_in_queue_p90": back.p90_error,
            "merged_per_day": back.merged_per_day_error, "runs_per_merged": back.runs_per_merged_error}
pd.DataFrame({
    measure: {"observed": getattr(back.observed, measure), "predicted": getattr(back.predicted, measure).value,
              "low": getattr(back.predicted, measure).low, "high": getattr(back.predicted, measure).high,
              "error": error}
    for measure, error in MEASURES.items()
}).T.round(3)"""),
    ("md", """## What if?

Five configurations on the fitted team, each over the same 20 seeds (the same arrivals, the same broken pull
requests, the same drawn team: a difference between two rows is not luck). A setting left out of a configuration
is a new queue's (single mode, concurrency 1, no batching), so today's queue is written out as
`{"concurrency": 3}` rather than `{}`."""),
    ("code", """CONFIGURATIONS = {
    "today: 3 at once": {"concurrency": 3},
    "1 at a time": {"concurrency": 1},
    "2 at once": {"concurrency": 2},
    "1 at a time, batches of 4": {"batch": True, "batchingMinSize": 4, "batchingMaxWaitTimeMinutes": 10},
    "6 at once": {"concurrency": 6},
}
rows = queue_twin.compare_table(list(CONFIGURATIONS.values()), seeds=20)
what_if = pd.DataFrame(rows, index=list(CONFIGURATIONS))
def measure(name):   # one measure's columns of the rows: its value, its interval, the backtest's error on it
    return what_if[[name, f"{name}_low", f"{name}_high", f"{name}_backtest_error"]].set_axis(
        ["value", "low", "high", "backtest error"], axis=1)
pd.concat({"time in queue, p50 (minutes)": measure("minutes_in_queue_p50"),
           "CI runs per merged pull request": measure("runs_per_merged"),
           "merged a day": measure("merged_per_day")}, axis=1).round(2)"""),
    ("md", """### Latency and cost, always as a pair

A configuration that makes pull requests wait less usually spends more CI on each merge (more runs at once, more
runs restarted when one ahead of them fails); batching spends less but makes pull requests wait for a batch. So
each configuration is a point: time in queue across, CI runs per merged pull request up, both with their
intervals."""),
    ("code", """fig, ax = plt.subplots(figsize=(9, 5))
for name, row in what_if.iterrows():
    p50, runs = row["minutes_in_queue_p50"], row["runs_per_merged"]
    ax.errorbar(p50, runs, fmt="o", capsize=3,
                xerr=[[p50 - row["minutes_in_queue_p50_low"]], [row["minutes_in_queue_p50_high"] - p50]],
                yerr=[[runs - row["runs_per_merged_low"]], [row["runs_per_merged_high"] - runs]])
    ax.annotate(name, (p50, runs), textcoords="offset points", xytext=(6, 6))
ax.set_xscale("log")   # one pull request at a time waits hours; the others, tens of minutes
ax.xaxis.set_major_formatter(plt.ScalarFormatter())
ax.xaxis.set_minor_formatter(plt.NullFormatter())
ax.set_xticks([20, 30, 45, 60, 90, 120, 180, 240, 360])
ax.set(xlabel="time in queue, p50 (minutes, log scale)", ylabel="CI runs per merged pull request",
       title="Latency and cost per configuration (95 % of months fall inside the bars)")
fig.tight_layout()
plt.show()"""),
    ("md", """**Reading the intervals.** An interval here is where 95 % of months like the history's fall, not the
precision of the mean (more seeds would shrink that toward nothing while a real month stays as uncertain). It
carries the luck of a month and what the history leaves uncertain about the team: each seed draws a plausible
team (rates, arrival level, durations) from the fit. Two configurations whose intervals overlap may still differ
reliably, because every row ran on the same seeds; but an answer narrower than the backtest's error is not
trustworthy to that precision. The error printed beside each answer is the backtest's: how far the twin missed
the one configuration whose truth is known."""),
    ("code", """today = what_if.loc["today: 3 at once"]
Markdown(f"The backtest missed today's median time in queue by {back.p50_error:+.0%} and the CI runs per merge by "
         f"{back.runs_per_merged_error:+.0%}: read every answer with that margin in mind, and do not act on a gain "
         f"smaller than it. Today: p50 {today['minutes_in_queue_p50']:.0f} minutes "
         f"[{today['minutes_in_queue_p50_low']:.0f}, {today['minutes_in_queue_p50_high']:.0f}] at "
         f"{today['runs_per_merged']:.2f} CI runs per merge "
         f"[{today['runs_per_merged_low']:.2f}, {today['runs_per_merged_high']:.2f}].")"""),
    ("md", """## Ground truth (only a sandbox can give it)

Against your own queue you would have to try a configuration to know. Here the same hidden team plays another
four weeks on a fresh sandbox (another seed) whose queue was configured in advance as the batching alternative,
the one the twin never saw a batch of. The history of that "service" is measured exactly as the twin measures
its simulations (the `observed` side of a backtest, which is only a measurement of the history; the
one-seed simulation it also runs is not used)."""),
    ("code", """truth_box, truth_client, truth_queue, truth_start = play_team(
    60, concurrency=1, allow_batching=True, batching_min_size=4, batching_max_wait_time_minutes=10)
try:
    truth_history = twin.collect_history(truth_client, truth_queue.id, since=truth_start, until=truth_box.clock_now)
    measured = twin.backtest(queue_twin.team, truth_history, seeds=1).observed
finally:
    truth_box.stop()
predicted = what_if.loc["1 at a time, batches of 4"]
pd.DataFrame({
    measure: {"predicted": predicted[measure], "low": predicted[f"{measure}_low"],
              "high": predicted[f"{measure}_high"], "on the service": getattr(measured, measure),
              "inside the interval": predicted[f"{measure}_low"] <= getattr(measured, measure)
                                     <= predicted[f"{measure}_high"]}
    for measure in ("minutes_in_queue_p50", "minutes_in_queue_p90", "runs_per_merged", "merged_per_day")
}).T"""),
    ("md", """One month of the service is one draw: it should fall inside the interval about 19 times in 20, not sit on
the predicted value. Change the hidden parameters, the days or the configurations and run the notebook again:
the virtual clock makes a month of queue take a second."""),
    ("code", """box.stop()"""),
]

NOTEBOOKS = {
    "01-quick-start.ipynb": QUICK_START,
    "02-flaky-test-triage.ipynb": FLAKY_TRIAGE,
    "03-merge-queue-automation.ipynb": MERGE_QUEUE,
    "04-merge-queue-what-if.ipynb": WHAT_IF,
    "05-history-with-duckdb.ipynb": HISTORY,
    "06-your-queues-twin.ipynb": TWIN,
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
