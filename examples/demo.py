"""A short tour of trunk_api against the local sandbox (no account, no token, no network).

    python3 examples/demo.py          # what `scripts/demo` runs after installing the package

It starts the sandbox in this process, then: lists the tests that failed in the last day, ranks the flaky tests
by the pull requests they impacted, shows the details of the worst one, pauses and resumes a merge queue, and
shows what a wrong token and a too-long window look like.
"""

from __future__ import annotations

import datetime as dt
import sys
import time

import trunk_api
from trunk_api import AuthenticationError, Client, Sandbox, ValidationError


def heading(text: str) -> None:
    print(f"\n== {text}")


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:5.1f}%"


def short(text: str | None, width: int) -> str:
    text = text or "-"
    return text if len(text) <= width else text[: width - 1] + "…"


def main() -> int:
    started = time.perf_counter()
    with Sandbox(seed=7, tests=1500) as sandbox:
        # The tour's clients live inside tour() and close their connections when it returns, so the sandbox
        # stops at once instead of waiting for idle keep-alive connections to time out.
        tour(sandbox)
    print(f"\ndone in {time.perf_counter() - started:.1f} s. Next: docs/getting-started.md, "
          "`trunk-api --help`, and notebooks/ (jupyter lab, from .venv).")
    return 0


def tour(sandbox: Sandbox) -> None:
    client = sandbox.client()
    repo = sandbox.repos[0]
    org = sandbox.org_url_slug
    print(f"trunk_api {trunk_api.__version__}: sandbox at {sandbox.url}, organization {org!r}, "
          f"repository {repo.host}/{repo.owner}/{repo.name}")

    # 1. Failing tests of the last day (all pages, fetched lazily by the C++ pager).
    end = dt.datetime.now(dt.timezone.utc)
    failing = client.iter_failing_tests(repo, org, end - dt.timedelta(days=1), end).to_list()
    heading(f"{len(failing)} tests failed in the last 24 hours; the 8 failing most often:")
    failing.sort(key=lambda t: (t.failure_rate_last_24h or 0, t.pull_requests_impacted_last_7d or 0),
                 reverse=True)
    print(f"  {'TEST':<46} {'FAIL 24H':>8} {'FAIL 7D':>8} {'PRS 7D':>6}")
    for test in failing[:8]:
        print(f"  {short(test.name, 46):<46} {percent(test.failure_rate_last_24h):>8} "
              f"{percent(test.failure_rate_last_7d):>8} {test.pull_requests_impacted_last_7d or 0:>6}")

    # 2. Flaky tests ranked by the pull requests they impacted in the last 7 days.
    flaky = client.iter_unhealthy_tests(repo, org, "FLAKY").to_list()
    flaky.sort(key=lambda t: t.pull_requests_impacted_last_7d or 0, reverse=True)
    heading(f"{len(flaky)} flaky tests; the 5 that impacted the most pull requests this week:")
    for rank, test in enumerate(flaky[:5], 1):
        owners = ", ".join(test.codeowners or []) or "no owner"
        quarantined = " (quarantined)" if test.quarantined else ""
        print(f"  {rank}. {short(test.name, 46):<46} {test.pull_requests_impacted_last_7d or 0:>3} PRs  "
              f"{owners}{quarantined}")

    # 3. Details of the worst one, with its most common failures.
    if flaky:
        worst = client.get_test_details(repo, org, flaky[0].id)
        heading(f"details of {worst.name}")
        print(f"  file {worst.file_path}, class {worst.classname}, status "
              f"{worst.status.value if worst.status else '-'}")
        print(f"  failure rate {percent(worst.failure_rate_last_24h).strip()} (24h), "
              f"{percent(worst.failure_rate_last_7d).strip()} (7d); {worst.html_url}")
        for failure in (worst.most_common_failures or [])[:3]:
            print(f"  {failure.occurrence_count:>4}x  {short(failure.summary, 70)}")

    # 4. The merge queue: pause it, look, change mode (at once: the queue is empty), resume.
    heading("merge queue of main: pause, switch to parallel mode with batching, resume")
    settings = client.update_queue(repo, "main", state="paused")
    print(f"  paused:   state={settings.state}, mode={settings.mode}, batch={settings.batch}")
    settings = client.update_queue(repo, "main", mode="parallel", batch=True, batching_min_size=4,
                                   concurrency=8)
    print(f"  changed:  state={settings.state}, mode={settings.mode}, concurrency={settings.concurrency}, "
          f"batching_min_size={settings.batching_min_size}")
    settings = client.update_queue(repo, "main", state="running")
    print(f"  resumed:  state={settings.state}, mode={settings.mode}, batch={settings.batch}")

    # 5. Errors are typed, and never show the token.
    heading("errors are typed exceptions with one clear message")
    try:
        Client("not-the-token", sandbox.url, max_retries=0).get_test_details(repo, org, flaky[0].id)
    except AuthenticationError as error:
        print(f"  {type(error).__name__} ({error.status_code}): {error}")
    try:
        client.list_failing_tests(repo, org, end - dt.timedelta(days=8), end)
    except ValidationError as error:
        print(f"  {type(error).__name__}: {error}")


if __name__ == "__main__":
    sys.exit(main())
