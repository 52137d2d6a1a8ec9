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
    ("code", """sandbox.stop()"""),
]

WHAT_IF = [
    ("md", """# Merge queue what-if: single vs parallel with batching

Which queue configuration would merge our pull requests faster, and how many test runs would our **own flaky
tests** fail? This notebook submits the same 50 pull requests to two sandbox queues configured differently and
runs a day of queue in a few seconds on the sandbox's **virtual clock**.

The sandbox's queues fail test runs with the probability implied by the repository's flaky and broken tests in
its history (the same history the flaky-test operations return), so the two halves of the API tell one story."""),
    ("code", """from datetime import timedelta

import matplotlib.pyplot as plt
import pandas as pd

from trunk_api import Sandbox

sandbox = Sandbox(seed=4, tests=800, clock="virtual").start()
client = sandbox.client()
repo = sandbox.repos[0]
week = client.iter_failing_tests(repo, sandbox.org_url_slug, sandbox.now - timedelta(days=7), sandbox.now).to_pandas()
flaky = week[week["status_value"] == "flaky"]
print(f"{repo.owner}/{repo.name}: {len(flaky)} flaky tests failed in the last week, median failure rate "
      f"{flaky['failure_rate_last_7d'].median():.0%}")"""),
    ("md", """## Two queues, one workload

`single` tests one pull request at a time. `parallel-batch` tests up to four units at once, batches at least
three pull requests (or whatever has waited five minutes), bisects a failed batch two runs at a time, and merges
optimistically."""),
    ("code", """CONFIGS = {
    "single": dict(mode="single"),
    "parallel-batch": dict(mode="parallel", concurrency=4),
}
client.create_queue(repo, "single", **CONFIGS["single"])
client.create_queue(repo, "parallel-batch", **CONFIGS["parallel-batch"])
client.update_queue(repo, "parallel-batch", batch=True, batching_min_size=3, batching_max_wait_time_minutes=5,
                    bisection_concurrency=2, can_optimistically_merge=True)

start = sandbox.clock_now
for number in range(1, 51):
    for branch in CONFIGS:
        client.submit_pull_request(repo, number, branch)
SHOWN = ["branch", "mode", "concurrency", "batch", "batching_min_size", "can_optimistically_merge"]
pd.DataFrame([{name: getattr(client.get_queue(repo, branch), name) for name in SHOWN} for branch in CONFIGS])"""),
    ("md", """## Run the clock

Advance ten minutes at a time and count what each queue has merged, until both are done (at most two days)."""),
    ("code", """progress = []
for step in range(1, 6 * 48 + 1):
    now = sandbox.advance(minutes=10)
    counts = {branch: sum(pr.state == "merged" for pr in client.iter_pull_requests(repo, branch, take=100))
              for branch in CONFIGS}
    progress.append({"hours": step / 6, **counts})
    if all(client.get_queue(repo, branch).enqueued_pull_requests == [] for branch in CONFIGS):
        break
progress = pd.DataFrame(progress).set_index("hours")
progress.tail(3)"""),
    ("md", """## Time to merge, and failures caused by flaky tests

Time to merge comes from each pull request's last state change; the failed test runs by cause come from the
queue's Prometheus metrics (`get_merge_queue_metrics`), which report what the simulation did."""),
    ("code", """frames = []
for branch in CONFIGS:
    prs = client.iter_pull_requests(repo, branch, take=100).to_pandas()
    prs["queue"] = branch
    frames.append(prs)
prs = pd.concat(frames)
merged = prs[prs["state"] == "merged"].copy()
merged["hours_to_merge"] = (pd.to_datetime(merged["state_changed_at"]) - start).dt.total_seconds() / 3600

metrics = client.get_merge_queue_metrics(repo)
failed_runs = pd.DataFrame([
    {"queue": s.labels["branch"], "cause": s.labels["cause"], "runs": s.value}
    for s in metrics.samples if s.name == "mq_test_runs_failed_total" and s.labels.get("branch") in CONFIGS
]).pivot_table(index="queue", columns="cause", values="runs", aggfunc="sum", fill_value=0)

summary = merged.groupby("queue")["hours_to_merge"].describe()[["count", "50%", "max"]]
summary.columns = ["merged", "median hours", "last merge (hours)"]
summary.join(failed_runs.add_prefix("failed runs: "))"""),
    ("code", """fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
progress.plot(ax=left, drawstyle="steps-post")
left.set(title="Pull requests merged", xlabel="hours since submission", ylabel="merged")
failed_runs.reindex(columns=["flaky", "broken", "timeout"], fill_value=0).plot.bar(ax=right, stacked=True, rot=0)
right.set(title="Failed test runs by cause", xlabel="", ylabel="runs")
fig.tight_layout()
plt.show()"""),
    ("md", """Each flaky failure costs a whole test run; in single mode it also holds up everything behind it. With
batching and optimistic merging, a flake in one batch is often absorbed by the next passing run. Change
`CONFIGS`, the batching settings or the seed and run the notebook again: the virtual clock makes each run take
seconds and the same seed gives the same outcome."""),
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
    ("code", """from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import matplotlib.pyplot as plt

from trunk_api import Sandbox
from trunk_api.export import export_failing

sandbox = Sandbox(seed=11, tests=800).start()
client = sandbox.client()
repo, org = sandbox.repos[0], sandbox.org_url_slug
folder = Path("failing-history")   # relative to the notebook"""),
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
